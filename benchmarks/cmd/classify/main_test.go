package main

import (
	"os/exec"
	"testing"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/benchmarks/internal/smoke"
)

var command = smoke.Bind(benchmarks.Run, "classify", run)

// TestSmoke classifies Cora with wys (two epochs at d = 8) and ProNE, one
// seed each.
func TestSmoke(t *testing.T) {
	data := smoke.Data(t, "Cora/cora.edges.tsv.gz")
	smoke.Run(t, command, []string{"-data", data, "-methods", "wys,prone", "-epochs", "2", "-dim", "8", "-seeds", "1"},
		"2708 nodes, 5278 edges, 7 classes", "140 train, 500 validation and 1000 test nodes",
		"| wys | ", "paper (kNN rule): 67.9%", "| ProNE | ", "| [L \\| R] |", "| the embedding |",
		"random splits: Micro-F1 at 10% | at 50% |", "a random 10% or 50% of all 2708 labelled nodes",
		"| method | k-means clustering: NMI | ARI | accuracy |", "into 7 clusters")
}

// TestGensim runs a short gensim DeepWalk when python3 has gensim.
func TestGensim(t *testing.T) {
	if testing.Short() {
		t.Skip("runs python3 (over 1 s); skipped under -short")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import gensim, numpy").Run(); err != nil {
		t.Skip("python3 with gensim and numpy is not installed (apt-get install python3-gensim)")
	}
	data := smoke.Data(t, "Cora/cora.edges.tsv.gz")
	smoke.Run(t, command, []string{"-data", data, "-methods", "gensim", "-dim", "8", "-seeds", "1",
		"-script", "../../gensim/deepwalk.py", "-gensim-walks", "1", "-gensim-length", "10", "-gensim-window", "2", "-gensim-epochs", "1"},
		"| gensim DeepWalk | ", "| Y |", "DeepWalk in GCN's Table 2: 67.2%")
}

// TestUsage refuses an unknown method, an odd width or no seeds before
// reading any data.
func TestUsage(t *testing.T) {
	smoke.Exit(t, command, []string{"-methods", "node2vec", "-data", t.TempDir()}, 2, "unknown method")
	smoke.Exit(t, command, []string{"-dim", "7", "-data", t.TempDir()}, 2, "-dim 7")
	smoke.Exit(t, command, []string{"-seeds", "0", "-data", t.TempDir()}, 2, "-seeds 0")
	smoke.Exit(t, command, []string{"-gensim-epochs", "0", "-data", t.TempDir()}, 2, "-gensim-epochs 0")
}
