package main

import (
	"os/exec"
	"testing"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/benchmarks/internal/smoke"
)

var command = smoke.Bind(benchmarks.Run, "rank", run)

// TestSmoke ranks ca-HepTh's test edges with wys (two epochs at d = 8)
// and ProNE.
func TestSmoke(t *testing.T) {
	data := smoke.Data(t, "ca-HepTh/asymproj/train.txt.npy.gz")
	smoke.Run(t, command, []string{"-data", data, "-datasets", "ca-HepTh", "-methods", "wys,prone", "-epochs", "2", "-dim", "8", "-candidates", "50"},
		"| split | method | ROC-AUC | MRR |", "| ca-HepTh | wys (L_u·R_v) | 0.", "| ca-HepTh | ProNE | 0.", "against 50 nodes drawn uniformly")
	// Hits@10 and Hits@50 against 5 candidates are 1 by definition.
	smoke.Run(t, command, []string{"-data", data, "-datasets", "ca-HepTh", "-methods", "prone", "-dim", "8", "-candidates", "5"},
		" | 1.0000* | 1.0000* | ", "k exceeds the 5 candidates")
	smoke.Exit(t, command, []string{"-data", data, "-datasets", "ca-HepTh", "-methods", "wys", "-dim", "8", "-candidates", "100000"}, 2,
		"-candidates 100000: as many as ca-HepTh's 8636 nodes other than a pair's two, or more")
}

// TestGensim runs a short gensim DeepWalk when python3 has gensim.
func TestGensim(t *testing.T) {
	if testing.Short() {
		t.Skip("runs python3 (over 1 s); skipped under -short")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import gensim, numpy").Run(); err != nil {
		t.Skip("python3 with gensim and numpy is not installed (apt-get install python3-gensim)")
	}
	data := smoke.Data(t, "ca-HepTh/asymproj/train.txt.npy.gz")
	smoke.Run(t, command, []string{"-data", data, "-datasets", "ca-HepTh", "-methods", "gensim", "-dim", "8", "-candidates", "20",
		"-script", "../../gensim/deepwalk.py", "-gensim-walks", "1", "-gensim-length", "10", "-gensim-window", "2"},
		"| ca-HepTh | gensim DeepWalk (Y_u·Y_v) |", "| ca-HepTh | gensim DeepWalk (Y_u·Y′_v) |")
}

// TestUsage refuses an unknown method, an odd width or no candidates
// before reading any data.
func TestUsage(t *testing.T) {
	smoke.Exit(t, command, []string{"-methods", "node2vec", "-data", t.TempDir()}, 2, "unknown method")
	smoke.Exit(t, command, []string{"-dim", "7", "-data", t.TempDir()}, 2, "-dim 7")
	smoke.Exit(t, command, []string{"-candidates", "0", "-data", t.TempDir()}, 2, "-candidates 0")
}
