package pipeline

import (
	"context"
	"testing"
)

// BenchmarkSplitEdges splits a seeded R-MAT graph with about 1M drawn
// undirected edges (2^16 nodes, edge factor 16; duplicates and self-loops
// dropped) in half, and reports the seconds per split and edges per second.
func BenchmarkSplitEdges(b *testing.B) {
	for _, directed := range []bool{false, true} {
		name := "graph=rmat/scale=16/edgefactor=16/directed=false"
		if directed {
			name = "graph=rmat/scale=16/edgefactor=16/directed=true"
		}
		b.Run(name, func(b *testing.B) {
			g, err := RMAT(context.Background(), 16, 16, directed, 1)
			if err != nil {
				b.Fatal(err)
			}
			edges, _ := edgesOf(g)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := SplitEdges(context.Background(), g, 0.5, 3); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/split")
			b.ReportMetric(float64(len(edges))*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
			b.ReportMetric(float64(len(edges)), "edges")
		})
	}
}
