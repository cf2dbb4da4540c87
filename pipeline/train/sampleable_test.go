package train_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/train"
	"github.com/wys-project/wys/sparse"
)

// fullGraph returns the graph on n nodes with every ordered pair an arc,
// the self-pairs too except those of the first skip nodes.
func fullGraph(t *testing.T, n, skip int) *pipeline.Graph {
	t.Helper()
	var src, dst []int32
	for u := range n {
		for v := range n {
			if u != v || u >= skip {
				src, dst = append(src, int32(u)), append(dst, int32(v))
			}
		}
	}
	a, err := sparse.NewFromCOO(t.Context(), n, n, src, dst, nil, sparse.DupFirst)
	if err != nil {
		t.Fatal(err)
	}
	return &pipeline.Graph{Adj: a, IDs: pipeline.IdentityIDs(n)}
}

// TestRunRefusesGraphWithoutNonArcs: a graph whose adjacency has no zero
// entry (a complete graph with every self-loop kept) leaves the rejection
// sampler of negatives nothing to draw; Run and NewSchedule refuse it
// instead of drawing forever, and a graph with a single zero entry (one
// self-pair) still trains. The runs are watched so that a hang fails the
// test instead of stalling it.
func TestRunRefusesGraphWithoutNonArcs(t *testing.T) {
	t.Parallel()
	cfg := train.Config{Dim: 2, Epochs: 2, BatchWalks: 4, Seed: 1, Workers: 1}
	within := func(f func() error) error {
		done := make(chan error, 1)
		go func() { done <- f() }()
		select {
		case err := <-done:
			return err
		case <-time.After(2 * time.Minute):
			t.Fatal("no result after 2 minutes: the negative sampler is looping")
			return nil
		}
	}
	full := fullGraph(t, 3, 0)
	err := within(func() error { _, err := train.Run(context.Background(), full, nil, cfg, nil); return err })
	if !errors.Is(err, train.ErrNoNegatives) {
		t.Fatalf("Run on a graph with no zero entry: err = %v, want ErrNoNegatives", err)
	}
	bcfg := cfg
	bcfg.Start = train.StartRandom
	err = within(func() error { _, err := train.NewSchedule(full, bcfg, 1, 1); return err })
	if !errors.Is(err, train.ErrNoNegatives) {
		t.Fatalf("NewSchedule on a graph with no zero entry: err = %v, want ErrNoNegatives", err)
	}
	oneZero := fullGraph(t, 3, 1)
	err = within(func() error { _, err := train.Run(context.Background(), oneZero, nil, cfg, nil); return err })
	if err != nil {
		t.Fatalf("Run on a graph with one zero entry (self-pair 0): %v", err)
	}
}

// TestRunLengthBeyondCounters: a length whose walks (Epochs·N) exceed
// MaxWalks is refused as a SettingError on epochs by Run and NewSchedule,
// instead of overflowing the batch count (which left a run of no batch,
// with no embeddings); MaxWalks/N epochs are accepted by the check.
func TestRunLengthBeyondCounters(t *testing.T) {
	t.Parallel()
	g := smallGraph(40, 120, false, 3)
	for _, epochs := range []float64{1e18, 1e300, float64(train.MaxWalks)/40 + 1} {
		cfg := train.Config{Dim: 4, Epochs: epochs, Seed: 1, Workers: 1, TimeBudget: time.Second}
		_, err := train.Run(context.Background(), g, nil, cfg, nil)
		var se *pipeline.SettingError
		if !errors.As(err, &se) || se.Setting != "epochs" {
			t.Errorf("Run, epochs %g on 40 nodes: err = %v, want a SettingError on epochs", epochs, err)
		}
		cfg.TimeBudget, cfg.Start = 0, train.StartRandom
		if _, err := train.NewSchedule(g, cfg, 1, 1); !errors.As(err, &se) || se.Setting != "epochs" {
			t.Errorf("NewSchedule, epochs %g on 40 nodes: err = %v, want a SettingError on epochs", epochs, err)
		}
	}
	cfg := train.Config{Dim: 4, Epochs: float64(train.MaxWalks) / 40, Start: train.StartRandom}
	if _, err := train.NewSchedule(g, cfg, 1, 1); err != nil {
		t.Errorf("NewSchedule, MaxWalks/40 epochs on 40 nodes: %v", err)
	}
}

// TestEvalEveryBeyondRun: an evaluation interval longer than the run
// evaluates once, at its end, as one of the run's length does (the
// interval in batches overflowed int64 into an evaluation after every
// batch).
func TestEvalEveryBeyondRun(t *testing.T) {
	t.Parallel()
	g := smallGraph(40, 120, false, 3)
	for _, every := range []float64{4, 1e300} {
		cfg := train.Config{Dim: 4, Epochs: 4, BatchWalks: 8, EvalEvery: every, Seed: 1, Workers: 1}
		res, err := train.Run(context.Background(), g, nil, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		// 4 epochs of 40 walks in batches of 8: 20 batches.
		if len(res.Curve) != 1 || res.Curve[0].Step != 20 {
			t.Errorf("EvalEvery %g: %d evaluations (first at step %d), want 1 at step 20", every, len(res.Curve), res.Curve[0].Step)
		}
	}
}

// TestBucketWithoutNonArcs: on K4 split in P = 2 parts of two nodes each,
// every pair across the parts is an arc, so the two buckets across have
// no negatives (share 0) while those within keep the self-pairs. The
// schedule trains to finite embeddings; the buckets across weighed their
// empty negative term by 0/0.
func TestBucketWithoutNonArcs(t *testing.T) {
	t.Parallel()
	g := fullGraph(t, 4, 4) // every pair u ≠ v: K4 without self-loops
	cfg := train.Config{Objective: pipeline.ObjectiveConfig{C: 2}, Dim: 2, Epochs: 20, BatchWalks: 4, Seed: 1, Workers: 1, Start: train.StartRandom}
	s, err := train.NewSchedule(g, cfg, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	pt := s.Partition()
	for _, u := range pt.Members[0] {
		for _, v := range pt.Members[1] {
			if !g.Adj.Has(int(u), int(v)) {
				t.Fatalf("pair (%d, %d) across the parts is not an arc: the test needs a full bucket", u, v)
			}
		}
	}
	m, err := s.Train(context.Background(), nil)
	if err != nil {
		t.Fatalf("bucketed K4, P = 2: %v", err)
	}
	l, r, _ := s.Embeddings(m)
	res := &pipeline.Result{N: 4, Half: 1, L: l, R: r}
	if err := res.CheckFinite(); err != nil {
		t.Fatal(err)
	}
}
