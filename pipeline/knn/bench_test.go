package knn

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
)

// BenchmarkQuery1M times one neighbour query on a 1M-node, d = 128 table
// written as .npy and loaded back as the neighbors command does (the load,
// including the split into L and R or the normalisation, is reported as
// load-s). Each iteration asks for the top 10 of a different node;
// median-ms is the median time of one query.
func BenchmarkQuery1M(b *testing.B) {
	if testing.Short() {
		b.Skip("writes and reads a 512 MiB file")
	}
	const n, half = 1_000_000, 64
	rng := rand.New(rand.NewPCG(1, 2))
	res := &pipeline.Result{N: n, Half: half, L: make([]float32, n*half), R: make([]float32, n*half)}
	for _, side := range [][]float32{res.L, res.R} {
		for i := range side {
			side[i] = float32(rng.NormFloat64())
		}
	}
	path := filepath.Join(b.TempDir(), "emb.npy")
	if err := graphio.WriteEmbeddings(context.Background(), path, graphio.FormatNPY, res, nil); err != nil {
		b.Fatal(err)
	}
	res = nil
	t0 := time.Now()
	e, err := graphio.ReadEmbeddings(context.Background(), path, graphio.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	l, r := e.Sides()
	load := time.Since(t0).Seconds()
	t0 = time.Now()
	unit := Normalized(e.Y, e.Dim)
	norm := time.Since(t0).Seconds()
	cases := []struct {
		name         string
		queries, tab []float32
		dim          int
		load         float64
	}{
		{"by=out", l, r, half, load},
		{"by=cosine", unit, unit, 2 * half, load + norm},
	}
	for _, c := range cases {
		b.Run("n=1000000/dim=128/"+c.name+"/k=10", func(b *testing.B) {
			b.ReportAllocs()
			var times []float64
			for b.Loop() {
				u := (len(times) * 7919) % n
				t0 := time.Now()
				if _, err := Search(context.Background(), c.tab, c.dim, c.queries[u*c.dim:u*c.dim+c.dim], []int{u}, 10, 0); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(t0).Seconds())
			}
			slices.Sort(times)
			b.ReportMetric(1e3*times[len(times)/2], "median-ms")
			b.ReportMetric(c.load, "load-s")
		})
	}
}
