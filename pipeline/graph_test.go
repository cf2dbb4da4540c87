package pipeline

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/wys-project/wys/sparse"
)

// TestWeightsFrom: a split's training graph, unweighted, gets every arc's
// weight from the graph it was drawn from, checked against the weights
// as written, and is marked Weighted as that graph is.
func TestWeightsFrom(t *testing.T) {
	var src, dst []int32
	var w []float64
	weight := map[[2]int32]float64{}
	for i := range int32(30) {
		for _, j := range []int32{(i + 1) % 30, (i + 4) % 30} {
			x := float64(1 + (i*7+j)%5)
			src, dst, w = append(src, i, j), append(dst, j, i), append(w, x, x)
			weight[[2]int32{i, j}], weight[[2]int32{j, i}] = x, x
		}
	}
	adj, err := sparse.NewFromCOO(t.Context(), 30, 30, src, dst, w, sparse.DupFirst)
	if err != nil {
		t.Fatal(err)
	}
	g := &Graph{Adj: adj, IDs: IdentityIDs(30), Weighted: true}
	s, err := SplitEdges(context.Background(), g, 0.4, 3)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := s.TrainGraph(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	tg.WeightsFrom(g)
	if !tg.Weighted {
		t.Error("the training graph is not marked Weighted after WeightsFrom of a weighted graph")
	}
	arcs := 0
	for i := range tg.N() {
		idx, val := tg.Adj.Row(i)
		for k, j := range idx {
			arcs++
			if want := weight[[2]int32{int32(i), j}]; val[k] != want {
				t.Fatalf("arc %d→%d weighs %v, want %v", i, j, val[k], want)
			}
		}
	}
	if arcs == 0 || arcs == adj.NNZ() {
		t.Errorf("%d training arcs of %d", arcs, adj.NNZ())
	}
}

// TestCheckNodes: a pair naming a row at or beyond n, in any list of the
// split, is an error wrapping ErrUnknownNode that names the list; pairs
// inside 0..n−1, and a nil split, pass.
func TestCheckNodes(t *testing.T) {
	ok := &Split{N: 4, Train: []Pair{{0, 1}}, TrainNeg: []Pair{{0, 2}}, Test: []Pair{{2, 3}}, TestNeg: []Pair{{1, 3}}}
	if err := ok.CheckNodes(4); err != nil {
		t.Fatalf("in-range split: %v", err)
	}
	if err := (*Split)(nil).CheckNodes(4); err != nil {
		t.Fatalf("nil split: %v", err)
	}
	set := map[string]func(s *Split){
		"train":                  func(s *Split) { s.Train = append(s.Train, Pair{4, 0}) },
		"train negative":         func(s *Split) { s.TrainNeg = append(s.TrainNeg, Pair{0, 9}) },
		"test":                   func(s *Split) { s.Test = append(s.Test, Pair{-1, 0}) },
		"test negative":          func(s *Split) { s.TestNeg = append(s.TestNeg, Pair{0, 4}) },
		"directed test negative": func(s *Split) { s.TestDirectedNeg = []Pair{{5, 5}} },
		"validation":             func(s *Split) { s.Val = []Pair{{0, 4}} },
		"validation negative":    func(s *Split) { s.ValNeg = []Pair{{4, 1}} },
	}
	for name, spoil := range set {
		s := *ok
		s.Train = append([]Pair(nil), ok.Train...)
		s.TrainNeg = append([]Pair(nil), ok.TrainNeg...)
		s.Test = append([]Pair(nil), ok.Test...)
		s.TestNeg = append([]Pair(nil), ok.TestNeg...)
		spoil(&s)
		err := s.CheckNodes(4)
		if !errors.Is(err, ErrUnknownNode) {
			t.Errorf("%s: got %v, want ErrUnknownNode", name, err)
			continue
		}
		if !strings.Contains(err.Error(), name+" pair") {
			t.Errorf("%s: %q does not name the list", name, err)
		}
	}
}

// TestCheckGraphBuiltInCode: graphs built in code that break what the
// methods assume are refused with ErrBadGraph, naming the problem; the
// same graph built right passes.
func TestCheckGraphBuiltInCode(t *testing.T) {
	ctx := context.Background()
	coo := func(rows, cols int, src, dst []int32, w []float64) *sparse.CSR {
		t.Helper()
		m, err := sparse.NewFromCOO(ctx, rows, cols, src, dst, w, sparse.DupSum)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	// The path 0-1-2 with both arcs of each edge.
	src, dst := []int32{0, 1, 1, 2}, []int32{1, 0, 2, 1}
	good := &Graph{Adj: coo(3, 3, src, dst, nil)}
	if err := CheckGraph(good); err != nil {
		t.Fatalf("a symmetric path: %v", err)
	}
	if err := CheckGraph(&Graph{Adj: coo(3, 3, src[:2], dst[:2], nil), Directed: true}); err != nil {
		t.Fatalf("one arc each way, directed: %v", err)
	}
	for name, c := range map[string]struct {
		g    *Graph
		want string
	}{
		"not square":         {&Graph{Adj: coo(3, 5, src, dst, nil)}, "the adjacency matrix is 3 x 5"},
		"negative":           {&Graph{Adj: coo(3, 3, src, dst, []float64{1, 1, -3, -3})}, "arc (1, 2) has weight -3"},
		"zero":               {&Graph{Adj: coo(3, 3, src, dst, []float64{0, 0, 1, 1})}, "arc (0, 1) has weight 0"},
		"one way only":       {&Graph{Adj: coo(3, 3, []int32{0, 1}, []int32{1, 2}, nil)}, "is not symmetric"},
		"asymmetric weights": {&Graph{Adj: coo(3, 3, src, dst, []float64{1, 2, 1, 1})}, "is not symmetric"},
		"ids":                {&Graph{Adj: good.Adj, IDs: IdentityIDs(2)}, "2 ids for 3 nodes"},
	} {
		err := CheckGraph(c.g)
		if !errors.Is(err, ErrBadGraph) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want ErrBadGraph with %q", name, err, c.want)
		}
	}
}

// TestSplitCheckGraph: a split is refused with the graph it was cut from
// (every test edge an arc of it) and with a graph of another size; with
// its training graph, even one whose arcs cover every test edge (a
// directed split read undirected), or with test edges some of which are
// arcs, it passes.
func TestSplitCheckGraph(t *testing.T) {
	ctx := context.Background()
	g, err := PlantedPartition(60, 3, 0.3, 0.02, 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := SplitEdges(ctx, g, 0.5, 2)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := s.TrainGraph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckGraph(tg); err != nil {
		t.Errorf("the training graph: %v", err)
	}
	if err := s.CheckGraph(g); !errors.Is(err, ErrBadGraph) || !strings.Contains(err.Error(), "test pairs of the split are arcs of the graph it is trained on") {
		t.Errorf("the whole graph: got %v, want ErrBadGraph", err)
	}
	// One test edge that is not an arc of g is enough.
	some := *s
	some.Test = append(slices.Clone(s.Test), s.TestNeg[0])
	if err := some.CheckGraph(g); err != nil {
		t.Errorf("some test pairs arcs: %v", err)
	}
	// A directed split read undirected, each test arc the reverse of a
	// train arc: its own training graph covers the test pairs, and is
	// still its training graph.
	rev := &Split{N: 20}
	for i := range int32(20) {
		rev.Train = append(rev.Train, Pair{i, (i + 1) % 20}, Pair{(i + 1) % 20, i}, Pair{(i + 5) % 20, i}, Pair{i, i})
		rev.Test = append(rev.Test, Pair{i, (i + 5) % 20})
	}
	rg, err := rev.TrainGraph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := rev.CheckGraph(rg); err != nil {
		t.Errorf("reversed test arcs in the training graph: %v", err)
	}
	// The graph a split was cut from is refused even when the train
	// pairs hold self-loops or repeat (TrainGraph stores each arc once):
	// a loop on every node of a ring, and a directed split whose train
	// lines are listed twice.
	for name, sp := range map[string]*Split{"loops": {N: 40}, "twice": {N: 40, Directed: true}} {
		for i := range int32(40) {
			if name == "loops" {
				sp.Train = append(sp.Train, Pair{i, i}, Pair{i, (i + 1) % 40})
			} else {
				sp.Train = append(sp.Train, Pair{i, (i + 1) % 40}, Pair{i, (i + 1) % 40})
			}
			if i%4 == 0 {
				sp.Test = append(sp.Test, Pair{i, (i + 2) % 40})
			}
		}
		whole := &Split{N: 40, Directed: sp.Directed, Train: append(slices.Clone(sp.Train), sp.Test...)}
		// The whole graph as TrainGraph builds it (loops kept) and as
		// the loaders do by default (loops dropped).
		noLoops := &Split{N: 40, Directed: sp.Directed, Train: slices.DeleteFunc(slices.Clone(whole.Train), func(p Pair) bool { return p.U == p.V })}
		for _, w := range []*Split{whole, noLoops} {
			full, err := w.TrainGraph(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := sp.CheckGraph(full); !errors.Is(err, ErrBadGraph) {
				t.Errorf("%s, the whole graph of %d arcs: got %v, want ErrBadGraph", name, full.Adj.NNZ(), err)
			}
		}
		own, err := sp.TrainGraph(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := sp.CheckGraph(own); err != nil {
			t.Errorf("%s, its training graph: %v", name, err)
		}
	}
	small, err := PlantedPartition(30, 3, 0.3, 0.02, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckGraph(small); !errors.Is(err, ErrUnknownNode) || !strings.Contains(err.Error(), "a split of 60 nodes for a graph of 30") {
		t.Errorf("a graph of 30 nodes: got %v", err)
	}
}
