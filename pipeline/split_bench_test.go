package pipeline

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkSplitEdges splits seeded R-MAT graphs in half (edge factor
// 16; duplicates and self-loops dropped): scale 16 (2^16 nodes, about 1M
// drawn edges), undirected and directed, whose adjacency fits in cache,
// and scale 20 (16.8M drawn edges), which does not. It reports the seconds
// per split and edges per second.
func BenchmarkSplitEdges(b *testing.B) {
	for _, c := range []struct {
		scale    int
		directed bool
	}{{16, false}, {16, true}, {20, false}} {
		name := fmt.Sprintf("graph=rmat/scale=%d/edgefactor=16/directed=%v", c.scale, c.directed)
		b.Run(name, func(b *testing.B) {
			g, err := RMAT(context.Background(), c.scale, 16, c.directed, 1)
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
