package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/benchmarks/internal/smoke"
)

var command = smoke.Bind(benchmarks.Run, "table1", run)

// TestSmoke runs the sparse trainer for a fifth of an epoch on ca-HepTh's
// released split with two context variants, writes -out and compares it
// with stdout.
func TestSmoke(t *testing.T) {
	data := smoke.Data(t, "ca-HepTh/asymproj")
	out := filepath.Join(t.TempDir(), "table1.md")
	args := []string{"-data", data, "-datasets", "ca-HepTh", "-trainers", "sparse", "-dims", "16", "-epochs", "0.2",
		"-contexts", "none,ppr", "-out", out, "-allow-dirty"}
	text := smoke.Run(t, command, args, "# Table 1 (link prediction, test ROC-AUC)\n", "./benchmarks/cmd/table1 -data ",
		"\n| ca-HepTh | 16 | sparse | none | — | ", "\n| ca-HepTh | 16 | sparse | ppr | ppr 0.")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != text {
		t.Errorf("-out holds\n%s\nstdout\n%s", b, text)
	}
}

// TestUsage refuses bad lists before reading any data.
func TestUsage(t *testing.T) {
	for _, tc := range [][]string{{"-trainers", "gpu", "unknown trainer"}, {"-contexts", "pagerank", "want none, ppr"}, {"-dims", "x", "bad width"}, {"-seeds", "0", "at least 1"}} {
		smoke.Exit(t, command, []string{tc[0], tc[1], "-data", t.TempDir()}, 2, tc[2])
	}
}
