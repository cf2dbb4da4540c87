package lowrank

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/wys-project/wys/sparse"
)

// benchGraph is a seeded random graph of n nodes and about deg·n/2 edges,
// both arcs stored, or arcs only when directed.
func benchGraph(n, deg int, directed bool) *sparse.CSR {
	rng := rand.New(rand.NewPCG(7, 7))
	var src, dst []int32
	for e := 0; e < deg*n/2; e++ {
		u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
		if u == v {
			continue
		}
		src, dst = append(src, u), append(dst, v)
		if !directed {
			src, dst = append(src, v), append(dst, u)
		}
	}
	a, _ := sparse.NewFromCOO(context.Background(), n, n, src, dst, nil, sparse.DupFirst)
	return a
}

// BenchmarkFactorize times the series factorization (the large-graph runs
// are benchmarks/cmd/lowrank).
func BenchmarkFactorize(b *testing.B) {
	for _, directed := range []bool{false, true} {
		for _, r := range []int{32, 128} {
			b.Run(fmt.Sprintf("n=20000/directed=%v/rank=%d", directed, r), func(b *testing.B) {
				a := benchGraph(20000, 10, directed)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := NewSeries(context.Background(), a, SeriesOptions{Options: Options{Rank: r, Seed: 1}, C: 10, Directed: directed}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkPairValues measures per-pair evaluation of Σ_k c_k (T^k)_vu
// (C = 10, one exact power) in pairs per second.
func BenchmarkPairValues(b *testing.B) {
	for _, directed := range []bool{false, true} {
		ranks := []int{64, 256}
		if directed {
			ranks = []int{16, 64}
		}
		for _, r := range ranks {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("directed=%v/rank=%d/workers=%d", directed, r, workers), func(b *testing.B) {
					a := benchGraph(20000, 10, directed)
					s, err := NewSeries(context.Background(), a, SeriesOptions{Options: Options{Rank: r, Seed: 1}, C: 10, Directed: directed})
					if err != nil {
						b.Fatal(err)
					}
					rng := rand.New(rand.NewPCG(1, 1))
					pairs := make([][2]int32, 100000)
					for i := range pairs {
						pairs[i] = [2]int32{int32(rng.IntN(20000)), int32(rng.IntN(20000))}
					}
					c := make([]float64, 10)
					for k := range c {
						c[k] = 0.1
					}
					dst := make([]float64, len(pairs))
					b.ResetTimer()
					for b.Loop() {
						if err := s.PairValues(context.Background(), dst, c, pairs, workers); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(len(pairs))*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
				})
			}
		}
	}
}
