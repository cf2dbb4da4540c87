package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/wys-project/wys/sparse"
)

// Random streams of SplitEdges.
const (
	streamSplitForest uint64 = 0x73706c66 // "splf": edge order for the spanning forest
	streamSplitTest   uint64 = 0x73706c74 // "splt": test edges among the non-forest edges
	streamSplitNeg    uint64 = 0x73706c6e // "spln": negatives (shard 0 test, 1 train)
	streamSplitVal    uint64 = 0x73706c76 // "splv": validation pairs among the test pairs
)

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
// u < v for an undirected one, in row order. Self-loops are listed
// separately.
func edgesOf(g *Graph) (edges, loops []Pair) {
	n := g.N()
	diag := 0
	for v := 0; v < n; v++ {
		if g.Adj.Has(v, v) {
			diag++
		}
	}
	m := g.Adj.NNZ() - diag
	if !g.Directed {
		m /= 2
	}
	edges = make([]Pair, 0, m)
	loops = make([]Pair, 0, diag)
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

// SplitEdges splits g for link prediction following the protocol of Watch
// Your Step (and AsymProj before it): a fraction testFrac of the edges is
// held out as test edges while the training graph keeps the connectivity
// of g (weak connectivity for a directed graph: every component of g stays
// one component of the training graph), and non-edges are sampled as
// negatives: TestNeg has as many pairs as Test and TrainNeg as many as
// Train. A directed graph also gets TestDirectedNeg: the reversed test arcs
// that are not arcs of g, then the TestNeg pairs.
//
// Edges are counted once (an undirected edge is one pair u < v; a directed
// graph's arcs u→v and v→u are two edges). Self-loops always stay in
// Train; the number of test edges is round(testFrac · edges), self-loops
// included in the count. Negatives are non-edges drawn independently and
// uniformly (so they may repeat): ordered pairs u ≠ v that are not arcs of
// a directed g; for an undirected g, unordered pairs written u < v, as its
// test edges are, so that an asymmetric score L_u·R_v sees positives and
// negatives in the same orientation (the layout of the paper's released
// splits, whose test edges and negatives are both listed u < v).
//
// It runs in near-linear time: the edges are shuffled and a spanning
// forest is grown over that order with union-find and kept in Train; the
// test edges are then drawn uniformly from the other edges. All randomness
// comes from seed, in named streams, so the same seed gives the same
// split. An error wrapping ErrSplit says when g has too few edges outside
// a spanning forest to hold out that many, or no non-edges; one wrapping
// ErrEmptyGraph or ErrBadGraph, when CheckGraph refuses g (nil, without
// arcs, or built in code against its rules).
func SplitEdges(ctx context.Context, g *Graph, testFrac float64, seed uint64) (*Split, error) {
	if !(testFrac > 0 && testFrac < 1) {
		return nil, fmt.Errorf("%w: test fraction %v must be strictly between 0 and 1", ErrSplit, testFrac)
	}
	if err := CheckGraph(g); err != nil {
		return nil, err
	}
	n := g.N()
	edges, loops := edgesOf(g)
	if len(edges) < 2 {
		return nil, fmt.Errorf("%w: %d edges (not self-loops) are too few to hold some out", ErrSplit, len(edges))
	}
	rng := Stream(seed, streamSplitForest, 0)
	rng.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	uf := newUnionFind(n)
	var spare []int32 // edges outside the forest, in shuffled order
	for i, e := range edges {
		if i%(1<<20) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if !uf.union(e.U, e.V) {
			spare = append(spare, int32(i))
		}
	}
	uf = nil
	want := max(1, int(math.Round(testFrac*float64(len(edges)+len(loops)))))
	if len(spare) == 0 {
		return nil, fmt.Errorf("%w: the graph is a forest (no cycle): each of its %d edges is needed to keep the training graph connected, so none can be held out; embed it whole (test fraction 0), or score it on pairs held out from a graph with cycles",
			ErrSplit, len(edges))
	}
	if want > len(spare) {
		return nil, fmt.Errorf("%w: %d test edges asked (%.3g of %d), but only %d edges lie outside a spanning forest, so holding out more would disconnect the training graph; lower the test fraction below %.3g",
			ErrSplit, want, testFrac, len(edges)+len(loops), len(spare), float64(len(spare))/float64(len(edges)+len(loops)))
	}
	// Partial Fisher–Yates: spare[:want] becomes a uniform sample.
	rng = Stream(seed, streamSplitTest, 0)
	for i := 0; i < want; i++ {
		j := i + rng.IntN(len(spare)-i)
		spare[i], spare[j] = spare[j], spare[i]
	}
	isTest := make([]bool, len(edges))
	s := &Split{N: n, IDs: g.IDs, Directed: g.Directed}
	s.Test = make([]Pair, want)
	for k, i := range spare[:want] {
		isTest[i] = true
		s.Test[k] = edges[i]
	}
	spare = nil
	s.Train = make([]Pair, 0, len(edges)-want+len(loops))
	for i, e := range edges {
		if !isTest[i] {
			s.Train = append(s.Train, e)
		}
	}
	s.Train = append(s.Train, loops...)
	edges, isTest = nil, nil
	if err := s.sampleNegatives(ctx, g, seed); err != nil {
		return nil, err
	}
	if g.Directed {
		for _, e := range s.Test {
			if !g.Adj.Has(int(e.V), int(e.U)) {
				s.TestDirectedNeg = append(s.TestDirectedNeg, Pair{e.V, e.U})
			}
		}
		s.TestDirectedNeg = append(s.TestDirectedNeg, s.TestNeg...)
	}
	return s, ctx.Err()
}

// sampleNegatives sets s.TestNeg and s.TrainNeg, as many non-edges of g
// as s has test and training pairs. The two samples draw from streams of
// their own, so drawn side by side they are what they would be one after
// the other.
func (s *Split) sampleNegatives(ctx context.Context, g *Graph, seed uint64) error {
	var eg errgroup.Group
	eg.Go(func() (err error) {
		s.TestNeg, err = sampleNonEdges(ctx, g.Adj, g.Directed, len(s.Test), Stream(seed, streamSplitNeg, 0))
		return err
	})
	eg.Go(func() (err error) {
		s.TrainNeg, err = sampleNonEdges(ctx, g.Adj, g.Directed, len(s.Train), Stream(seed, streamSplitNeg, 1))
		return err
	})
	return eg.Wait()
}

// sampleNonEdges draws k independent uniform pairs u ≠ v with no arc u→v
// in adj: ordered pairs when directed, else unordered pairs written u < v
// (adj is then symmetric, so orienting a uniform ordered pair gives a
// uniform unordered one). It rejects arcs while at least half the pairs are
// non-edges and otherwise draws from the list of non-edges (then the graph
// is dense, so listing its O(n²) pairs costs O(nnz)).
func sampleNonEdges(ctx context.Context, adj *sparse.CSR, directed bool, k int, rng *rand.Rand) ([]Pair, error) {
	n, _ := adj.Dims()
	diag := 0
	for v := 0; v < n; v++ {
		if adj.Has(v, v) {
			diag++
		}
	}
	pairs := int64(n) * int64(n-1)
	non := pairs - int64(adj.NNZ()-diag)
	if k > 0 && non <= 0 {
		return nil, fmt.Errorf("%w: every pair of distinct nodes is an edge, so there are no non-edges to sample as negatives", ErrSplit)
	}
	out := make([]Pair, 0, k)
	if 2*non >= pairs {
		for len(out) < k {
			if len(out)%(1<<16) == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
			if u == v || adj.Has(int(u), int(v)) {
				continue
			}
			if !directed && u > v {
				u, v = v, u
			}
			out = append(out, Pair{u, v})
		}
		return out, nil
	}
	if !directed {
		non /= 2 // adj is symmetric: each unordered non-edge was counted twice
	}
	list := make([]Pair, 0, non)
	for u := int32(0); int(u) < n; u++ {
		for v := int32(0); int(v) < n; v++ {
			if u != v && (directed || u < v) && !adj.Has(int(u), int(v)) {
				list = append(list, Pair{u, v})
			}
		}
	}
	for len(out) < k {
		out = append(out, list[rng.IntN(len(list))])
	}
	return out, nil
}

// Components returns the number of weakly connected components of g
// (arcs taken in either direction; an isolated row is one). Time and
// memory O(N + nnz).
func Components(g *Graph) int {
	uf := joinArcs(g)
	k := 0
	for v := range g.N() {
		if uf.find(int32(v)) == int32(v) {
			k++
		}
	}
	return k
}

// joinArcs returns the union-find of g's rows joined along its arcs.
func joinArcs(g *Graph) *unionFind {
	uf := newUnionFind(g.N())
	for v := range g.N() {
		idx, _ := g.Adj.Row(v)
		for _, u := range idx {
			uf.union(int32(v), u)
		}
	}
	return uf
}

// LargestComponent returns the subgraph of g induced by its largest weakly
// connected component (arcs taken in either direction; among components of
// equal size, the one holding the lowest row). Rows keep their relative
// order, so a graph read by ReadEdgeList stays numbered by sorted original
// id; the ids of the kept rows are kept. When g is connected, g itself is
// returned, as is a graph without nodes (or nil). Time and memory
// O(N + nnz).
func LargestComponent(g *Graph) *Graph {
	if g == nil || g.Adj == nil || g.N() == 0 {
		return g
	}
	n := g.N()
	uf := joinArcs(g)
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
	var keep []int32
	for v := 0; v < n; v++ {
		if uf.find(int32(v)) == best {
			keep = append(keep, int32(v))
		}
	}
	return Induced(g, keep)
}

// Induced returns the subgraph of g induced by the rows keep (ascending,
// without repeats): the arcs between kept rows, renumbered 0..len(keep)-1
// in the order of keep, with their ids. Time and memory O(N + nnz).
func Induced(g *Graph, keep []int32) *Graph {
	newRow := make([]int32, g.N())
	for v := range newRow {
		newRow[v] = -1
	}
	for i, v := range keep {
		if i > 0 && v <= keep[i-1] {
			panic("pipeline: Induced: rows not ascending")
		}
		newRow[v] = int32(i)
	}
	indptr := make([]int, len(keep)+1)
	var indices []int32
	var data []float64
	for i, v := range keep {
		idx, val := g.Adj.Row(int(v))
		for k, u := range idx {
			if newRow[u] >= 0 {
				indices = append(indices, newRow[u])
				data = append(data, val[k])
			}
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

// HoldOutValidation moves a share frac of s's test edges, drawn with seed,
// and as many of its test non-edges to Val and ValNeg, so that the
// trainers select the model on held-out edges (Selection) and the test
// AUC is measured on the others. The train AUC cannot tell a model that
// generalises from one that memorises the training arcs; near 1 (sparse
// graphs, whose random non-edges are easy) it cannot select at all.
// TestDirectedNeg loses the pairs that are now validation non-edges or
// reversed validation edges. Every list keeps its order; an error wrapping
// ErrSplit says when frac is not in (0, 1), leaves no test or no
// validation edge, or s holds validation pairs already (a second call
// would drop them from every list).
func (s *Split) HoldOutValidation(frac float64, seed uint64) error {
	if s.HasValidation() {
		return fmt.Errorf("%w: the split holds %d validation edges already", ErrSplit, len(s.Val))
	}
	if !(frac > 0 && frac < 1) {
		return fmt.Errorf("%w: validation fraction %v must be strictly between 0 and 1", ErrSplit, frac)
	}
	k := int(math.Round(frac * float64(len(s.Test))))
	if k < 1 || k >= len(s.Test) || len(s.TestNeg) < 2 {
		return fmt.Errorf("%w: a validation fraction %v of %d test edges and %d non-edges leaves no validation or no test pair", ErrSplit, frac, len(s.Test), len(s.TestNeg))
	}
	rng := Stream(seed, streamSplitVal, 0)
	s.Val, s.Test = takeShare(s.Test, k, rng)
	kn := int(math.Round(frac * float64(len(s.TestNeg))))
	s.ValNeg, s.TestNeg = takeShare(s.TestNeg, min(max(kn, 1), len(s.TestNeg)-1), Stream(seed, streamSplitVal, 1))
	if len(s.TestDirectedNeg) > 0 {
		moved := make(map[Pair]bool, len(s.Val)+len(s.ValNeg))
		for _, p := range s.Val {
			moved[Pair{p.V, p.U}] = true
		}
		for _, p := range s.ValNeg {
			moved[p] = true
		}
		s.TestDirectedNeg = slices.DeleteFunc(slices.Clone(s.TestDirectedNeg), func(p Pair) bool { return moved[p] })
	}
	return nil
}

// takeShare splits p into k uniformly drawn pairs and the others, each in
// p's order.
func takeShare(p []Pair, k int, rng *rand.Rand) (taken, rest []Pair) {
	pick := make([]bool, len(p))
	for _, i := range rng.Perm(len(p))[:k] {
		pick[i] = true
	}
	taken, rest = make([]Pair, 0, k), make([]Pair, 0, len(p)-k)
	for i, x := range p {
		if pick[i] {
			taken = append(taken, x)
		} else {
			rest = append(rest, x)
		}
	}
	return taken, rest
}
