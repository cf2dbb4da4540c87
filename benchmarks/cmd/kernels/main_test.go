package main

import (
	"testing"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/benchmarks/internal/smoke"
)

var command = smoke.Bind(benchmarks.Run, "kernels", run)

// TestSmoke measures every kernel once on ca-HepTh (the SNAP graph for
// SpMM and a rank-8 factorization, a fifth of an epoch of the trainer on
// the released split, and on an R-MAT graph of 2^8 nodes), without gensim.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("factors and trains on ca-HepTh (about 1 s)")
	}
	data := smoke.Data(t, "ca-HepTh/CA-HepTh.txt.gz", "ca-HepTh/asymproj")
	args := []string{"-data", data, "-spmm-graph", "ca-HepTh/CA-HepTh.txt.gz", "-cols", "8", "-rank", "8", "-repeats", "1", "-epochs", "0.2", "-python", "", "-rmat", "8", "-rmat-epochs", "0.2"}
	smoke.Run(t, command, args, "# Kernels with 1 and 2 workers\n", "./benchmarks/cmd/kernels -data ", " -python '' -rmat 8 -rmat-epochs 0.2`", "gensim: not measured (no -python)",
		"\n| SpMM (CSR x dense, float32) | ca-HepTh: ", "\n| factorization (randomized SVD of T, C = 10 cores) | ca-HepTh, rank 8 | s |",
		"\n| sparse trainer (d = 128, C = 10) | ca-HepTh, 5 negative(s)", "\n| sparse trainer (d = 128, C = 10) | R-MAT scale 8 (256 nodes, ")
}
