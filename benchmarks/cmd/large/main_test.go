package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/benchmarks/internal/smoke"
)

var command = smoke.Bind(benchmarks.Run, "large", run)

// TestSmoke runs wys and wys from the random start for two epochs on
// ca-HepTh's SNAP file (the graph reduced to its largest component and
// split as for the large graphs), and draws the picture.
func TestSmoke(t *testing.T) {
	data := smoke.Data(t, "ca-HepTh/CA-HepTh.txt.gz")
	prefix := filepath.Join(t.TempDir(), "large")
	smoke.Run(t, command, []string{"-data", data, "-graphs", "ca-HepTh/CA-HepTh.txt.gz", "-methods", "wys,wys-random", "-epochs", "2", "-dim", "16", "-plot", prefix},
		"# Test AUC against time on large graphs\n", "## ca-HepTh\n", "\n| wys | ", "\n| wys random | ", "wys random: the same with `-start random`")
	if _, err := os.Stat(prefix + "-ca-HepTh.png"); err != nil {
		t.Error(err)
	}
}

// TestGensim runs the DeepWalk script for one short pass when python3
// with gensim is installed, and checks that wys is compared at its time.
func TestGensim(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gensim (over 1 s); skipped under -short")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import gensim, numpy").Run(); err != nil {
		t.Skip("python3 with gensim and numpy is not installed (apt-get install python3-gensim)")
	}
	data := smoke.Data(t, "ca-HepTh/CA-HepTh.txt.gz")
	out := smoke.Run(t, command, []string{"-data", data, "-graphs", "ca-HepTh/CA-HepTh.txt.gz", "-epochs", "1", "-dim", "8",
		"-script", "../../gensim/deepwalk.py", "-gensim-walks", "1", "-gensim-length", "10", "-gensim-window", "2"},
		"\n| gensim Y·Y | ", "\n| gensim Y·Y′ | ", "| gensim Y·Y, point 1 | ")
	if strings.Count(out, "point 1 |") != 2 {
		t.Errorf("want one comparison row per gensim score:\n%s", out)
	}
}

// TestUsage refuses an unknown method before reading any data.
func TestUsage(t *testing.T) {
	smoke.Exit(t, command, []string{"-methods", "node2vec", "-data", t.TempDir()}, 2, "unknown method")
	// settings checked before the graphs are read and wys trains
	smoke.Exit(t, command, []string{"-dim", "0", "-data", t.TempDir()}, 2, "-dim 0")
	smoke.Exit(t, command, []string{"-epochs", "-1", "-data", t.TempDir()}, 2, "epochs = -1")
	smoke.Exit(t, command, []string{"-gensim-walks", "0", "-data", t.TempDir()}, 2, "-gensim-walks 0")
}
