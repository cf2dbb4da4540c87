package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// connected reports whether every node of the undirected view of the
// pairs (over n nodes, ignoring isolated nodes of g0) is reachable: BFS.
func components(n int, pairs []Pair) int {
	adj := make([][]int32, n)
	for _, p := range pairs {
		adj[p.U] = append(adj[p.U], p.V)
		adj[p.V] = append(adj[p.V], p.U)
	}
	seen := make([]bool, n)
	comps := 0
	for s := 0; s < n; s++ {
		if seen[s] {
			continue
		}
		comps++
		queue := []int32{int32(s)}
		seen[s] = true
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for _, u := range adj[v] {
				if !seen[u] {
					seen[u] = true
					queue = append(queue, u)
				}
			}
		}
	}
	return comps
}

func TestSplitEdges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, directed := range []bool{false, true} {
		g, _, err := LoadEdgeList(ctx, sharedPath(t, "ca-HepTh/CA-HepTh.txt.gz"), LoadOptions{Directed: directed})
		if err != nil {
			t.Fatal(err)
		}
		g = LargestComponent(g)
		if g.N() != 8638 {
			t.Fatalf("largest component has %d nodes, MANIFEST says 8638", g.N())
		}
		s, err := SplitEdges(ctx, g, 0.5, 7)
		if err != nil {
			t.Fatal(err)
		}
		edges, _ := edgesOf(g)
		if len(s.Train)+len(s.Test) != len(edges) {
			t.Errorf("train %d + test %d != %d edges", len(s.Train), len(s.Test), len(edges))
		}
		if d := len(s.Test) - len(edges)/2; d < -1 || d > 1 {
			t.Errorf("test holds %d of %d edges", len(s.Test), len(edges))
		}
		if c := components(g.N(), s.Train); c != 1 {
			t.Errorf("directed=%v: train graph has %d components", directed, c)
		}
		seen := map[Pair]bool{}
		for _, p := range append(append([]Pair{}, s.Train...), s.Test...) {
			if seen[p] || !g.Adj.Has(int(p.U), int(p.V)) {
				t.Fatalf("pair %v repeated or not an edge", p)
			}
			seen[p] = true
		}
		for _, p := range append(append([]Pair{}, s.TestNeg...), s.TrainNeg...) {
			if p.U == p.V || g.Adj.Has(int(p.U), int(p.V)) {
				t.Fatalf("negative %v is an edge or a loop", p)
			}
		}
		if len(s.TestNeg) != len(s.Test) || len(s.TrainNeg) != len(s.Train) {
			t.Error("negative counts")
		}
		if directed != (s.TestDirectedNeg != nil) {
			t.Error("directed negatives")
		}
		again, _ := SplitEdges(ctx, g, 0.5, 7)
		if again.Test[10] != s.Test[10] || again.TrainNeg[5] != s.TrainNeg[5] {
			t.Error("same seed gave a different split")
		}
	}
}

func TestSplitEdgesTooMany(t *testing.T) {
	t.Parallel()
	// A path cannot lose any edge and stay connected.
	g, _, err := ReadEdgeList(context.Background(), strings.NewReader("1 2\n2 3\n3 4\n"), "path", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SplitEdges(context.Background(), g, 0.5, 1); !errors.Is(err, ErrSplit) {
		t.Errorf("got %v, want ErrSplit", err)
	}
}
