package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/wys-project/wys/sparse"
)

const streamSplit uint64 = 0x73706c74 // "splt"

// ErrSplit reports a graph that cannot be split as asked.
var ErrSplit = errors.New("pipeline: cannot split the graph")

// unionFind is a disjoint-set forest with path halving and union by size.
type unionFind struct{ parent, size []int32 }

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int32, n), size: make([]int32, n)}
	for i := range u.parent {
		u.parent[i] = int32(i)
		u.size[i] = 1
	}
	return u
}

func (u *unionFind) find(x int32) int32 {
	for u.parent[x] != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = u.parent[x]
	}
	return x
}

// union joins the sets of a and b and reports whether they were apart.
func (u *unionFind) union(a, b int32) bool {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return false
	}
	if u.size[ra] < u.size[rb] {
		ra, rb = rb, ra
	}
	u.parent[rb] = ra
	u.size[ra] += u.size[rb]
	return true
}

// edgesOf lists the edges of g once: arcs for a directed graph, pairs
// u <= v for an undirected one. Self-loops are listed separately.
func edgesOf(g *Graph) (edges, loops []Pair) {
	n := g.N()
	for v := 0; v < n; v++ {
		idx, _ := g.Adj.Row(v)
		for _, u := range idx {
			switch {
			case int(u) == v:
				loops = append(loops, Pair{int32(v), u})
			case g.Directed || int32(v) < u:
				edges = append(edges, Pair{int32(v), u})
			}
		}
	}
	return edges, loops
}

// SplitEdges splits g for link prediction following the protocol of the
// paper: a fraction testFrac of the edges is held out as test edges while
// the training graph keeps the (weak) connectivity of g, and non-edges are
// sampled uniformly as negatives: as many as the test edges for TestNeg
// and as many as the train edges for TrainNeg. A directed graph also gets
// TestDirectedNeg: the reversed test arcs that are not arcs of g, then the
// TestNeg pairs.
//
// It runs in near-linear time: edges are shuffled, a spanning forest is
// kept in train (union-find over the shuffled order), and the test edges
// are the first remaining edges of the shuffle. Self-loops stay in train.
// The same seed gives the same split.
func SplitEdges(ctx context.Context, g *Graph, testFrac float64, seed uint64) (*Split, error) {
	if !(testFrac > 0 && testFrac < 1) {
		return nil, fmt.Errorf("%w: test fraction %v must be between 0 and 1", ErrSplit, testFrac)
	}
	n := g.N()
	rng := streamRNG(seed, streamSplit, 0)
	edges, loops := edgesOf(g)
	if len(edges) < 2 {
		return nil, fmt.Errorf("%w: %d edges (not self-loops) are too few to hold some out", ErrSplit, len(edges))
	}
	rng.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
	uf := newUnionFind(n)
	inForest := make([]bool, len(edges))
	forest := 0
	for i, e := range edges {
		if i%(1<<20) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if uf.union(e.U, e.V) {
			inForest[i] = true
			forest++
		}
	}
	want := int(math.Round(testFrac * float64(len(edges)+len(loops))))
	if want < 1 {
		want = 1
	}
	if want > len(edges)-forest {
		return nil, fmt.Errorf("%w: %d test edges asked, but only %d of %d edges can be removed without disconnecting the training graph; lower the test fraction",
			ErrSplit, want, len(edges)-forest, len(edges))
	}
	s := &Split{N: n, IDs: g.IDs, Directed: g.Directed}
	for i, e := range edges {
		if !inForest[i] && len(s.Test) < want {
			s.Test = append(s.Test, e)
		} else {
			s.Train = append(s.Train, e)
		}
	}
	s.Train = append(s.Train, loops...)
	s.TestNeg = sampleNonEdges(g.Adj, n, len(s.Test), rng)
	s.TrainNeg = sampleNonEdges(g.Adj, n, len(s.Train), rng)
	if g.Directed {
		for _, e := range s.Test {
			if !isEdge(g.Adj, e.V, e.U) {
				s.TestDirectedNeg = append(s.TestDirectedNeg, Pair{e.V, e.U})
			}
		}
		s.TestDirectedNeg = append(s.TestDirectedNeg, s.TestNeg...)
	}
	return s, ctx.Err()
}

// sampleNonEdges draws k uniform pairs u ≠ v that are not arcs of adj
// (nor, for a symmetric adj, edges in either direction).
func sampleNonEdges(adj *sparse.CSR, n, k int, rng interface{ IntN(int) int }) []Pair {
	out := make([]Pair, 0, k)
	if n < 2 {
		return out
	}
	for len(out) < k {
		u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
		if u == v || isEdge(adj, u, v) {
			continue
		}
		out = append(out, Pair{u, v})
	}
	return out
}

// LargestComponent returns the subgraph of g induced by its largest weakly
// connected component, rows renumbered in their original order (so still
// sorted by original id), with the ids kept.
func LargestComponent(g *Graph) *Graph {
	n := g.N()
	uf := newUnionFind(n)
	for v := 0; v < n; v++ {
		idx, _ := g.Adj.Row(v)
		for _, u := range idx {
			uf.union(int32(v), u)
		}
	}
	best, bestSize := int32(0), int32(-1)
	for v := 0; v < n; v++ {
		r := uf.find(int32(v))
		if uf.size[r] > bestSize {
			best, bestSize = r, uf.size[r]
		}
	}
	if int(bestSize) == n {
		return g
	}
	newRow := make([]int32, n)
	var keep []int32
	for v := 0; v < n; v++ {
		if uf.find(int32(v)) == best {
			newRow[v] = int32(len(keep))
			keep = append(keep, int32(v))
		} else {
			newRow[v] = -1
		}
	}
	indptr := make([]int, len(keep)+1)
	var indices []int32
	var data []float64
	for i, v := range keep {
		idx, val := g.Adj.Row(int(v))
		for k, u := range idx {
			indices = append(indices, newRow[u])
			data = append(data, val[k])
		}
		indptr[i+1] = len(indices)
	}
	// Renumbering preserves order within rows, so the CSR stays canonical.
	adj, err := sparse.NewCSR(len(keep), len(keep), indptr, slices.Clip(indices), slices.Clip(data))
	if err != nil {
		panic(err) // cannot happen: the input was canonical
	}
	return &Graph{Adj: adj, IDs: g.IDs.Subset(keep), Directed: g.Directed, Weighted: g.Weighted}
}
