package reference

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/wys-project/wys/pipeline"
)

// BenchmarkStep times one full-batch objective and gradient evaluation in
// float32 (three GEMMs and the O(C·N²) element work) on a random graph
// with mean degree 6, C = 10, d/2 = 64:
//
//	go test -run '^$' -bench Step -benchtime 3x ./pipeline/reference
func BenchmarkStep(b *testing.B) {
	ctx := context.Background()
	const half = 64
	for _, n := range []int{2000} {
		adj := randomGraph(n, 3*n, false, 1)
		l, r := benchFactors(n, half)
		q := make([]float64, pipeline.DefaultC)
		for _, withLoss := range []bool{false, true} {
			for _, workers := range []int{1, runtime.NumCPU()} {
				b.Run(fmt.Sprintf("blas=%s/n=%d/loss=%v/workers=%d", BLAS, n, withLoss, workers), func(b *testing.B) {
					m, err := newModel[float32](ctx, adj, pipeline.ObjectiveConfig{}, workers)
					if err != nil {
						b.Fatal(err)
					}
					prev := runtime.GOMAXPROCS(workers)
					defer runtime.GOMAXPROCS(prev)
					setBLASThreads(workers)
					defer setBLASThreads(prev)
					b.ReportAllocs()
					for b.Loop() {
						if _, err := m.evaluateLoss(ctx, l, r, half, q, withLoss); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mentries/s")
				})
			}
		}
	}
}

// BenchmarkRefineStep times one Refiner step (three GEMMs and the O(N²)
// element work through the one precomputed E[D]) on a random graph of
// ego-Facebook's size, mean degree 6, C = 10, d/2 = 32:
//
//	go test -run '^$' -bench RefineStep -benchtime 5x ./pipeline/reference
func BenchmarkRefineStep(b *testing.B) {
	ctx := context.Background()
	const n, half = 4039, 32
	adj := randomGraph(n, 3*n, false, 1)
	l, r := benchFactors(n, half)
	Q := make([]float64, pipeline.DefaultC) // uniform
	for k := range Q {
		Q[k] = 1 / float64(len(Q))
	}
	for _, withLoss := range []bool{false, true} {
		b.Run(fmt.Sprintf("blas=%s/n=%d/loss=%v", BLAS, n, withLoss), func(b *testing.B) {
			f, err := NewRefiner(ctx, adj, pipeline.ObjectiveConfig{}, Q, 0, 0)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := f.Step(ctx, l, r, half, 1e-6, withLoss); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mentries/s")
		})
	}
}

// benchFactors returns L and R (n x half each) uniform in ±0.1, as the
// dense reference starts them.
func benchFactors(n, half int) (l, r []float32) {
	rng := rand.New(rand.NewPCG(1, 2))
	l = make([]float32, n*half)
	r = make([]float32, n*half)
	for i := range l {
		l[i] = float32(rng.Float64()*0.2 - 0.1)
		r[i] = float32(rng.Float64()*0.2 - 0.1)
	}
	return l, r
}
