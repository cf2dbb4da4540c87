package main

import (
	"path/filepath"
	"testing"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/benchmarks/internal/smoke"
	"github.com/wys-project/wys/pipeline/graphio"
)

var command = smoke.Bind(benchmarks.Run, "directed", run)

// TestSmoke builds a 300-node directed subgraph of soc-Slashdot0902, writes
// its split, and trains both trainers briefly on what it reads back.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("loads soc-Slashdot0902 (over 1 s); skipped under -short")
	}
	data := smoke.Data(t, "soc-Slashdot0902/soc-Slashdot0902.txt.gz")
	dir := filepath.Join(t.TempDir(), "split")
	smoke.Run(t, command, []string{"-data", data, "-nodes", "300", "-dim", "8", "-steps", "20", "-epochs", "5", "-split-out", dir},
		"# A directed test graph: dense reference and sparse trainer\n", "\n| dense | ", "\n| sparse | ")
	split, err := graphio.LoadSplitDir(t.Context(), dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if split.N > 300 || len(split.TestDirectedNeg) <= len(split.TestNeg) {
		t.Errorf("split of %d nodes with %d directed negatives for %d non-edges: want at most 300 nodes and some reversed arcs",
			split.N, len(split.TestDirectedNeg), len(split.TestNeg))
	}
}

// TestUsage refuses an unknown trainer before reading any data.
func TestUsage(t *testing.T) {
	smoke.Exit(t, command, []string{"-trainers", "gpu", "-data", t.TempDir()}, 2, "unknown trainer")
	// the trainers' settings, before the graph is read and the dense reference runs
	smoke.Exit(t, command, []string{"-dim", "3", "-data", t.TempDir()}, 2, "dim = 3")
	smoke.Exit(t, command, []string{"-epochs", "-1", "-data", t.TempDir()}, 2, "epochs = -1")
	smoke.Exit(t, command, []string{"-steps", "0", "-data", t.TempDir()}, 2, "-steps 0")
}
