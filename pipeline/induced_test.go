package pipeline_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/wys-project/wys/pipeline"
)

// TestInduced compares the induced subgraph of a directed R-MAT graph with
// a brute-force check of every pair of kept rows, and the ids.
func TestInduced(t *testing.T) {
	g, err := pipeline.RMAT(context.Background(), 7, 6, true, 3)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var keep []int32
	for v := 0; v < g.N(); v++ {
		if rng.IntN(3) > 0 {
			keep = append(keep, int32(v))
		}
	}
	sub := pipeline.Induced(g, keep)
	if sub.N() != len(keep) || !sub.Directed {
		t.Fatalf("%d rows (directed %v), want %d directed", sub.N(), sub.Directed, len(keep))
	}
	arcs := 0
	for i, v := range keep {
		if sub.IDs.Name(i) != g.IDs.Name(int(v)) {
			t.Errorf("row %d has id %q, want %q", i, sub.IDs.Name(i), g.IDs.Name(int(v)))
		}
		for j, u := range keep {
			want := g.Adj.Has(int(v), int(u))
			if sub.Adj.Has(i, j) != want {
				t.Fatalf("arc %d→%d (rows %d→%d): got %v, want %v", i, j, v, u, !want, want)
			}
			if want {
				arcs++
			}
		}
	}
	if sub.Adj.NNZ() != arcs {
		t.Errorf("%d arcs, want %d", sub.Adj.NNZ(), arcs)
	}
}

// TestComponents counts the weakly connected components of sparse
// directed R-MAT graphs, which have many, against a breadth-first search
// over Has in both directions.
func TestComponents(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		g, err := pipeline.RMAT(context.Background(), 6, 1, true, seed)
		if err != nil {
			t.Fatal(err)
		}
		n, seen, want := g.N(), make([]bool, g.N()), 0
		for s := range n {
			if seen[s] {
				continue
			}
			want++
			seen[s] = true
			for queue := []int{s}; len(queue) > 0; queue = queue[1:] {
				v := queue[0]
				for u := range n {
					if !seen[u] && (g.Adj.Has(v, u) || g.Adj.Has(u, v)) {
						seen[u] = true
						queue = append(queue, u)
					}
				}
			}
		}
		if got := pipeline.Components(g); got != want || want < 2 {
			t.Errorf("seed %d: %d components, want %d (and several)", seed, got, want)
		}
	}
}
