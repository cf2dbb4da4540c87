package reference

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// BenchmarkGEMM times the three float32 products of one training step at
// the size of ego-Facebook (N ≈ 4000, d/2 = 64) with the BLAS of the build
// (gonum's pure Go by default, OpenBLAS with -tags openblas), on 1 and all
// cores:
//
//	go test -run '^$' -bench GEMM -benchtime 5x ./pipeline/reference
//	go test -tags openblas -run '^$' -bench GEMM -benchtime 5x ./pipeline/reference
func BenchmarkGEMM(b *testing.B) {
	const n, half = 4000, 64
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(x []float32) []float32 {
		for i := range x {
			x[i] = float32(rng.Float64() - 0.5)
		}
		return x
	}
	l := fill(make([]float32, n*half))
	r := fill(make([]float32, n*half))
	rt := make([]float32, n*half)
	transposeTo(rt, r, n, half)
	g := fill(make([]float32, n*n))
	out := make([]float32, n*half)
	products := []struct {
		name string
		run  func()
	}{
		// G = L Rᵀ through an explicit Rᵀ (what evaluate does) and through
		// the transposed operand.
		{"LRt-NN", func() { gemm(false, false, n, n, half, l, half, rt, n, g, n) }},
		{"LRt-NT", func() { gemm(false, true, n, n, half, l, half, r, half, g, n) }},
		// dJ/dL = Γ R and dJ/dR = Γᵀ L.
		{"GR-NN", func() { gemm(false, false, n, half, n, g, n, r, half, out, half) }},
		{"GtL-TN", func() { gemm(true, false, n, half, n, g, n, l, half, out, half) }},
	}
	flops := 2.0 * n * n * half
	for _, procs := range []int{1, runtime.NumCPU()} {
		for _, p := range products {
			b.Run(fmt.Sprintf("blas=%s/op=%s/n=%d/k=%d/procs=%d", BLAS, p.name, n, half, procs), func(b *testing.B) {
				prev := runtime.GOMAXPROCS(procs)
				defer runtime.GOMAXPROCS(prev)
				setBLASThreads(procs)
				defer setBLASThreads(prev)
				for b.Loop() {
					p.run()
				}
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// transposeTo writes into t the half x n transpose of the n x half
// matrix a.
func transposeTo[T Float](t, a []T, n, half int) {
	for i := 0; i < n; i++ {
		for j := 0; j < half; j++ {
			t[j*n+i] = a[i*half+j]
		}
	}
}
