package pipeline_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wys-project/wys/internal/ctxtest"
	"github.com/wys-project/wys/pipeline"
)

// TestTrainGraphCancelled cancels the training graph of an undirected
// split of 540,000 pairs (1,080,000 arcs, past the 1,048,576 between two
// checks), and of a directed one of 50,000, at each check of its context
// in turn: every
// cancel returns context.Canceled and no graph, with no check after it;
// a cancel after the last check changes nothing (the graph holds exactly
// the arcs of the pairs, weight 1).
func TestTrainGraphCancelled(t *testing.T) {
	t.Parallel()
	const n, pairs = 2000, 540_000
	rng := rand.New(rand.NewPCG(9, 1))
	train := make([]pipeline.Pair, pairs)
	for k := range train {
		train[k] = pipeline.Pair{U: int32(rng.IntN(n)), V: int32(rng.IntN(n))}
	}
	for _, directed := range []bool{false, true} {
		s := &pipeline.Split{N: n, IDs: pipeline.IdentityIDs(n), Directed: directed, Train: train}
		if directed {
			s.Train = train[:50_000]
		}
		probe := &ctxtest.CancelAfter{Context: t.Context(), N: math.MaxInt}
		if _, err := s.TrainGraph(probe); err != nil {
			t.Fatal(err)
		}
		checks := probe.Calls
		// The loop over the pairs checks once; each of NewFromCOO's four
		// passes over the arcs at its start and after 1,048,576.
		if !directed && checks < 9 {
			t.Fatalf("undirected: %d checks of the context for %d arcs, want at least 9", checks, 2*pairs)
		}
		for k := 0; k <= checks; k++ {
			ctx := &ctxtest.CancelAfter{Context: t.Context(), N: k}
			g, err := s.TrainGraph(ctx)
			if !errors.Is(err, context.Canceled) || g != nil {
				t.Fatalf("directed=%v, cancelled at check %d of %d: graph %v, error %v, want context.Canceled", directed, k, checks, g != nil, err)
			}
			if ctx.Calls != max(k, 1) {
				t.Errorf("directed=%v, cancelled at check %d: %d checks, want it to stop there", directed, k, ctx.Calls)
			}
		}
		g, err := s.TrainGraph(&ctxtest.CancelAfter{Context: t.Context(), N: checks + 1})
		if err != nil {
			t.Fatalf("directed=%v, a cancel after the last check: %v", directed, err)
		}
		checkTrainArcs(t, g, s)
	}
}

// checkTrainArcs checks that g holds the arcs of s's training pairs
// (both of each pair when s is undirected), once each and of weight 1,
// in strictly increasing columns.
func checkTrainArcs(t *testing.T, g *pipeline.Graph, s *pipeline.Split) {
	t.Helper()
	want := map[pipeline.Pair]bool{}
	for _, p := range s.Train {
		want[p] = true
		if !s.Directed {
			want[pipeline.Pair{U: p.V, V: p.U}] = true
		}
	}
	if err := g.Adj.Validate(); err != nil || g.N() != s.N || g.Directed != s.Directed || g.IDs != s.IDs {
		t.Fatalf("directed=%v: graph of %d nodes, directed %v, invariants %v", s.Directed, g.N(), g.Directed, err)
	}
	if g.Adj.NNZ() != len(want) {
		t.Errorf("directed=%v: %d arcs, want %d", s.Directed, g.Adj.NNZ(), len(want))
	}
	for i := range g.N() {
		idx, val := g.Adj.Row(i)
		for k, j := range idx {
			if !want[pipeline.Pair{U: int32(i), V: j}] || val[k] != 1 {
				t.Fatalf("directed=%v: arc %d→%d of weight %v is not a training pair's", s.Directed, i, j, val[k])
			}
		}
	}
}
