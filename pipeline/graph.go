package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/wys-project/wys/sparse"
)

// Pair is an ordered node pair (an arc U→V) in row indices 0..N−1.
type Pair struct{ U, V int32 }

// Graph is a loaded graph: its adjacency matrix over rows 0..N−1 and the
// original node ids of those rows.
type Graph struct {
	// Adj is the N x N adjacency matrix. An undirected graph stores both
	// arcs of every edge, so Adj is symmetric. Values are edge weights
	// (1 for unweighted graphs).
	Adj *sparse.CSR
	// IDs maps rows to the user's original node ids.
	IDs *NodeIDs
	// Directed says whether Adj holds arcs as given (true) or symmetrised.
	Directed bool
	// Weighted says whether the weights came from the input (true) or are all 1.
	Weighted bool
}

// N returns the number of nodes.
func (g *Graph) N() int { r, _ := g.Adj.Dims(); return r }

// Split is a link-prediction split: training arcs, held-out test arcs, and
// sampled non-edges, all in row indices of the same node set.
type Split struct {
	// N is the number of nodes.
	N int
	// IDs maps rows to original node ids; it may be nil when the split
	// carries no index.
	IDs *NodeIDs
	// Directed says whether pairs are arcs (true) or undirected edges
	// stored once.
	Directed bool
	// Train holds the training edges; Test the held-out positives.
	Train, Test []Pair
	// TrainNeg and TestNeg are sampled non-edges for model selection and
	// evaluation.
	TrainNeg, TestNeg []Pair
	// TestDirectedNeg (directed graphs only, may be nil) holds the reversed
	// test arcs that are not edges, followed by the random negatives.
	TestDirectedNeg []Pair
	// Val and ValNeg, when Val is not empty, are held-out edges and
	// non-edges on which the trainers select the model instead of Train
	// against TrainNeg (see HoldOutValidation and Selection).
	Val, ValNeg []Pair
}

// PairCount returns the number of pairs of all of s's lists (0 for a nil
// s): what a run holds of them, for its memory estimate.
func (s *Split) PairCount() int {
	if s == nil {
		return 0
	}
	return len(s.Train) + len(s.TrainNeg) + len(s.Test) + len(s.TestNeg) + len(s.TestDirectedNeg) + len(s.Val) + len(s.ValNeg)
}

// HasValidation reports whether s has validation pairs, on which the
// trainers then select the model (Selection).
func (s *Split) HasValidation() bool { return s != nil && len(s.Val) > 0 }

// Selection returns the pairs the trainers select the model on: Val
// against ValNeg when Val is not empty, else Train against TrainNeg.
func (s *Split) Selection() (pos, neg []Pair) {
	if s.HasValidation() {
		return s.Val, s.ValNeg
	}
	return s.Train, s.TrainNeg
}

// CheckGraph returns an error wrapping ErrEmptyGraph for a graph that no
// method can embed, nil or without arcs, and one wrapping ErrBadGraph for
// a graph that breaks what the methods assume (the loaders never build
// one; a Graph built in code may be): an adjacency matrix that is not
// square, a weight that is not positive and finite, an undirected graph
// whose matrix is not symmetric (both arcs of every edge stored, with the
// same weight), or IDs of another length than the nodes.
func CheckGraph(g *Graph) error {
	switch {
	case g == nil || g.Adj == nil:
		return fmt.Errorf("%w: no graph (nil)", ErrEmptyGraph)
	case g.N() == 0 || g.Adj.NNZ() == 0:
		return fmt.Errorf("%w: the training graph has no arcs", ErrEmptyGraph)
	}
	if r, c := g.Adj.Dims(); r != c {
		return fmt.Errorf("%w: the adjacency matrix is %d x %d: want N x N", ErrBadGraph, r, c)
	}
	for i, w := range g.Adj.Data {
		if !(w > 0) || math.IsInf(w, 1) {
			v := sort.Search(g.N(), func(v int) bool { return g.Adj.Indptr[v+1] > i })
			return fmt.Errorf("%w: arc (%d, %d) has weight %v: weights must be positive and finite (leave the arc out instead)", ErrBadGraph, v, g.Adj.Indices[i], w)
		}
	}
	if !g.Directed && !g.Adj.IsSymmetric() {
		return fmt.Errorf("%w: an undirected graph (Directed false) stores both arcs of every edge with the same weight, and this adjacency matrix is not symmetric: add the reverse arcs (A + Aᵀ), or set Directed", ErrBadGraph)
	}
	if g.IDs != nil && g.IDs.Len() != g.N() {
		return fmt.Errorf("%w: %d ids for %d nodes", ErrBadGraph, g.IDs.Len(), g.N())
	}
	return nil
}

// loopFreeArcs returns the number of g's arcs that are not self-loops.
func loopFreeArcs(g *Graph) int {
	n := g.Adj.NNZ()
	for v := range g.N() {
		if g.Adj.Has(v, v) {
			n--
		}
	}
	return n
}

// trainArcs returns the number of distinct arcs other than self-loops
// that s's train pairs make in its training graph (TrainGraph): both arcs
// of an undirected pair, a pair listed twice (or both ways) once. (A
// graph may keep or drop self-loops, so neither side counts them.)
func (s *Split) trainArcs() int {
	keys := make([]uint64, 0, 2*len(s.Train))
	for _, p := range s.Train {
		if p.U == p.V {
			continue
		}
		keys = append(keys, uint64(uint32(p.U))<<32|uint64(uint32(p.V)))
		if !s.Directed {
			keys = append(keys, uint64(uint32(p.V))<<32|uint64(uint32(p.U)))
		}
	}
	slices.Sort(keys)
	return len(slices.Compact(keys))
}

// CheckGraph returns an error when s, which may be nil, is not a split of
// g's nodes (it checks CheckNodes(g.N()) and that a split that says its N
// says g's), wrapping ErrUnknownNode, or when every one of its test pairs
// is an arc of g and g holds more arcs than the split's train pairs make
// (distinct, as TrainGraph stores them, self-loops aside), wrapping
// ErrBadGraph: g is then the graph the split was cut from,
// not its training graph (TrainGraph), and the test AUC would score
// edges the model was trained on. (A training graph whose arcs cover the
// test pairs, as a directed split's read undirected may, is the split's
// own matter.) The trainers and baselines call it before any work.
func (s *Split) CheckGraph(g *Graph) error {
	if s == nil {
		return nil
	}
	if s.N > 0 && s.N != g.N() {
		return fmt.Errorf("%w: a split of %d nodes for a graph of %d (is the split of another graph?)", ErrUnknownNode, s.N, g.N())
	}
	if err := s.CheckNodes(g.N()); err != nil {
		return err
	}
	for _, p := range s.Test {
		if !g.Adj.Has(int(p.U), int(p.V)) {
			return nil // the usual case, at the first test pair
		}
	}
	if len(s.Test) > 0 && loopFreeArcs(g) > s.trainArcs() {
		return fmt.Errorf("%w: all %d test pairs of the split are arcs of the graph it is trained on: train on the split's training graph (Split.TrainGraph), not the graph it was cut from", ErrBadGraph, len(s.Test))
	}
	return nil
}

// CheckNodes returns an error wrapping ErrUnknownNode when a pair of any
// list of s names a row outside 0..n−1: a split of another graph, or of
// another numbering of its nodes, given to a method run on a graph of n
// nodes. The error names the list, the pair's index and the pair. A nil
// s has no pairs. The trainers and baselines call it before any work, so
// that such a split is an error rather than an index out of range.
func (s *Split) CheckNodes(n int) error {
	if s == nil {
		return nil
	}
	lists := []struct {
		name  string
		pairs []Pair
	}{{"train", s.Train}, {"train negative", s.TrainNeg}, {"test", s.Test}, {"test negative", s.TestNeg},
		{"directed test negative", s.TestDirectedNeg}, {"validation", s.Val}, {"validation negative", s.ValNeg}}
	for _, l := range lists {
		for i, p := range l.pairs {
			if p.U < 0 || p.V < 0 || int(p.U) >= n || int(p.V) >= n {
				return fmt.Errorf("%w: %s pair %d (%d, %d) names a row outside the graph's %d nodes (is the split of another graph?)", ErrUnknownNode, l.name, i, p.U, p.V, n)
			}
		}
	}
	return nil
}

// ReciprocalTrain returns the number of Train pairs (u, v), u ≠ v, whose
// reverse (v, u) is a Train pair too. A split of an undirected graph lists
// each edge once, so a positive count on a split read as undirected
// suggests a directed split (soc-Epinions1's released split has 42,170,
// those of ca-HepTh, ego-Facebook and PPI none).
func (s *Split) ReciprocalTrain() int {
	seen := pairSet(s.Train)
	n := 0
	for p := range seen {
		if p.U != p.V && seen[Pair{p.V, p.U}] {
			n++
		}
	}
	return n
}

// ReversedTest returns the number of Test pairs (u, v), u ≠ v, whose
// reverse (v, u) is a Train pair: on a directed split read as undirected
// those test edges are training edges too (soc-Epinions1's released split
// has 53,600 of 254,420).
func (s *Split) ReversedTest() int {
	train := pairSet(s.Train)
	n := 0
	for _, p := range s.Test {
		if p.U != p.V && train[Pair{p.V, p.U}] {
			n++
		}
	}
	return n
}

// pairSet returns the set of pairs.
func pairSet(pairs []Pair) map[Pair]bool {
	set := make(map[Pair]bool, len(pairs))
	for _, p := range pairs {
		set[p] = true
	}
	return set
}

// WeightsFrom sets the weight of every arc of g to the weight of the same
// arc in w, a graph that holds every arc of g: the input a split was
// drawn from, so that the split's training graph (TrainGraph, which is
// unweighted) keeps the input's weights. g is then Weighted as w is.
func (g *Graph) WeightsFrom(w *Graph) {
	g.Weighted = w.Weighted
	for i := range g.N() {
		idx, val := g.Adj.Row(i)
		for k, j := range idx {
			val[k] = w.Adj.At(i, int(j))
		}
	}
}

// TrainGraph returns the training graph of s: an unweighted adjacency
// matrix over s.N nodes with the Train pairs (both arcs of each pair when s
// is undirected). Duplicate pairs are merged; self-loops are kept. It
// stops within 1,048,576 pairs or arcs of a cancel and returns ctx.Err().
func (s *Split) TrainGraph(ctx context.Context) (*Graph, error) {
	if s == nil || s.N <= 0 {
		return nil, fmt.Errorf("pipeline: split has no nodes")
	}
	n := len(s.Train)
	if !s.Directed {
		n *= 2
	}
	src := make([]int32, 0, n)
	dst := make([]int32, 0, n)
	for k, p := range s.Train {
		if k%(1<<20) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		src = append(src, p.U)
		dst = append(dst, p.V)
		if !s.Directed && p.U != p.V {
			src = append(src, p.V)
			dst = append(dst, p.U)
		}
	}
	adj, err := sparse.NewFromCOO(ctx, s.N, s.N, src, dst, nil, sparse.DupFirst)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil, err // ctx.Err(), unwrapped as the package's other cancels
	}
	if err != nil {
		return nil, fmt.Errorf("pipeline: training graph: %w", err)
	}
	return &Graph{Adj: adj, IDs: s.IDs, Directed: s.Directed}, nil
}
