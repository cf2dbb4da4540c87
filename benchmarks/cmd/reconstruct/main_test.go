package main

import (
	"os/exec"
	"testing"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/benchmarks/internal/smoke"
)

var command = smoke.Bind(benchmarks.Run, "reconstruct", run)

// TestSmoke embeds POS with wys (two epochs at d = 8) and ProNE and scores
// a sample of 200 nodes (NetMF's dense matrix alone takes two minutes
// under the race detector; pipeline/baseline tests it).
func TestSmoke(t *testing.T) {
	data := smoke.Data(t, "POS/POS.mat.gz")
	smoke.Run(t, command, []string{"-data", data, "-datasets", "POS", "-methods", "wys,prone", "-epochs", "2", "-dim", "8", "-rows", "200", "-k", "10,1000"},
		"## POS\n", "4777 nodes", "200 nodes ranked", "| method | MAP | P@10 | P@1000 | notes |", "| wys (L_u·R_v) | 0.", "| ProNE | 0.")
	smoke.Run(t, command, []string{"-data", data, "-datasets", "POS", "-methods", "wys", "-epochs", "2", "-dim", "8", "-rows", "200", "-exact-logs"},
		"exact logs (`-exact-logs`", "| wys (L_u·R_v) | 0.")
}

// TestGensim runs a short gensim DeepWalk when python3 has gensim.
func TestGensim(t *testing.T) {
	if testing.Short() {
		t.Skip("runs python3 (over 1 s); skipped under -short")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import gensim, numpy").Run(); err != nil {
		t.Skip("python3 with gensim and numpy is not installed (apt-get install python3-gensim)")
	}
	data := smoke.Data(t, "PPI/Homo_sapiens.mat.gz")
	smoke.Run(t, command, []string{"-data", data, "-datasets", "PPI", "-methods", "gensim", "-dim", "8", "-rows", "100",
		"-script", "../../gensim/deepwalk.py", "-gensim-walks", "1", "-gensim-length", "10", "-gensim-window", "2", "-gensim-epochs", "1"},
		"| gensim DeepWalk (Y_u·Y_v) | 0.", "| gensim DeepWalk (Y_u·Y′_v) | 0.")
}

// TestUsage refuses an unknown dataset, method or k before reading any
// data.
func TestUsage(t *testing.T) {
	smoke.Exit(t, command, []string{"-datasets", "BlogCatalog", "-data", t.TempDir()}, 2, "unknown dataset")
	smoke.Exit(t, command, []string{"-methods", "node2vec", "-data", t.TempDir()}, 2, "unknown method")
	smoke.Exit(t, command, []string{"-k", "10,0", "-data", t.TempDir()}, 2, "-k")
}
