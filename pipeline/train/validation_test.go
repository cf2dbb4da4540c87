package train_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/baseline"
	"github.com/wys-project/wys/pipeline/reference"
	"github.com/wys-project/wys/pipeline/train"
	"github.com/wys-project/wys/sparse"
)

// pairAUCBrute is the ROC-AUC of pos against neg under L_u·R_v, counted
// over every (positive, negative) pair with ties as one half.
func pairAUCBrute(res *pipeline.Result, pos, neg []pipeline.Pair) float64 {
	score := func(p pipeline.Pair) float64 {
		var s float64
		for i := 0; i < res.Half; i++ {
			s += float64(res.L[int(p.U)*res.Half+i]) * float64(res.R[int(p.V)*res.Half+i])
		}
		return s
	}
	var wins float64
	for _, p := range pos {
		for _, q := range neg {
			switch a, b := score(p), score(q); {
			case a > b:
				wins++
			case a == b:
				wins += 0.5
			}
		}
	}
	return wins / float64(len(pos)*len(neg))
}

// TestSelectionOnValidation: with validation pairs, both trainers select
// on and report the AUC of the validation pairs (the curve's at the
// selected step, and the result's), not of the train pairs;
// the train pairs here are labelled the wrong way round, so that the two
// AUCs are far apart.
func TestSelectionOnValidation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, tg := plantedSplit(t) // validation pairs come from the test edges: the training graph stays
	if err := s.HoldOutValidation(0.3, 3); err != nil {
		t.Fatal(err)
	}
	s.Train, s.TrainNeg = s.TrainNeg, s.Train
	sparseRes, err := train.Run(ctx, tg, s, train.Config{Dim: 8, Epochs: 40, Seed: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	denseRes, err := reference.Run(ctx, tg, s, reference.Config{Dim: 8, Steps: 300, Seed: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range []*pipeline.Result{sparseRes, denseRes} {
		val, tr := pairAUCBrute(res, s.Val, s.ValNeg), pairAUCBrute(res, s.Train, s.TrainNeg)
		if math.Abs(res.TrainAUC-val) > 1e-9 {
			t.Errorf("%s: selection AUC %v, want the validation AUC %v (train pairs: %v)", res.Method, res.TrainAUC, val, tr)
		}
		selected := math.NaN()
		for _, pt := range res.Curve {
			if pt.Step == res.BestStep {
				selected = pt.TrainAUC
			}
		}
		if math.Abs(selected-val) > 1e-9 {
			t.Errorf("%s: the curve's selection AUC at the selected step %d is %v, want the validation AUC %v", res.Method, res.BestStep, selected, val)
		}
		if val < 0.6 || tr > 0.4 {
			t.Errorf("%s: validation AUC %v, reversed train AUC %v: the check cannot tell them apart", res.Method, val, tr)
		}
	}
}

// notes records the messages of a run's events.
type notes []string

func (n *notes) Record(e pipeline.Event) { *n = append(*n, e.Message) }

// TestSelectionNamed: the run's messages name the AUC that selects the
// model and that -converge and -patience watch: the validation AUC when
// the split has validation pairs, else the train AUC.
func TestSelectionNamed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, tg := plantedSplit(t)
	for _, val := range []bool{false, true} {
		if val {
			if err := s.HoldOutValidation(0.3, 3); err != nil {
				t.Fatal(err)
			}
		}
		want, other := "train AUC", "validation AUC"
		if val {
			want, other = other, want
		}
		var n notes
		// Patience 1 on a run of 400 evaluations stops it early.
		if _, err := train.Run(ctx, tg, s, train.Config{Dim: 8, Epochs: 400, EvalEvery: 1, Patience: 1, Converge: true, Seed: 2}, &n); err != nil {
			t.Fatal(err)
		}
		all := strings.Join(n, "\n")
		if !strings.Contains(all, "ending when the "+want+" gains") || !strings.Contains(all, "early stop: no better "+want) || strings.Contains(all, other) {
			t.Errorf("validation pairs %v: messages name the %s\n%s", val, other, all)
		}
	}
}

// plantedSplit is a 40% split of a planted partition of 120 nodes, and
// its training graph.
func plantedSplit(t *testing.T) (*pipeline.Split, *pipeline.Graph) {
	g, err := pipeline.PlantedPartition(120, 4, 0.2, 0.01, 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.SplitEdges(context.Background(), g, 0.4, 3)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := s.TrainGraph(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return s, tg
}

// TestStopped: the result says what ended the run: its planned length, an
// early stop, the time budget (1ns: over at the first evaluation), or the
// convergence rule (Tolerance 1: it fires at MinEpochs = 10) when its
// annealing ends the run before its length, but not when the annealing
// (a quarter of the run so far: 2.5 epochs) reaches the length anyway.
func TestStopped(t *testing.T) {
	t.Parallel()
	s, tg := plantedSplit(t)
	for _, c := range []struct {
		cfg  train.Config
		want string
	}{
		{train.Config{Dim: 8, Epochs: 20, Seed: 2}, "length"},
		{train.Config{Dim: 8, Epochs: 400, EvalEvery: 1, Patience: 1, Seed: 2}, "patience"},
		{train.Config{Dim: 8, Epochs: 400, TimeBudget: 1, Seed: 2}, "time"},
		{train.Config{Dim: 8, Epochs: 40, EvalEvery: 1, Converge: true, Tolerance: 0.999, Seed: 2}, "converged"},
		{train.Config{Dim: 8, Epochs: 12, EvalEvery: 1, Converge: true, Tolerance: 0.999, Seed: 2}, "length"},
	} {
		res, err := train.Run(context.Background(), tg, s, c.cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats.Stopped != c.want {
			t.Errorf("%+v: stopped %q, want %q", c.cfg, res.Stats.Stopped, c.want)
		}
	}
}

// TestResumeAfterTimeBudget: a checkpointed run that its time budget
// stopped resumes, with more time, toward its planned length, and ends
// where an uninterrupted run ends, bit for bit; resumed with no more
// time it trains nothing and keeps the saved model.
func TestResumeAfterTimeBudget(t *testing.T) {
	t.Parallel()
	s, tg := plantedSplit(t)
	var last *train.State
	cfg := train.Config{Dim: 8, Epochs: 60, Seed: 3, Workers: 1, TimeBudget: 1, CheckpointEvery: time.Hour,
		Checkpoint: func(st *train.State) error { last = st; return nil }}
	cut, err := train.Run(context.Background(), tg, s, cfg, nil)
	if err != nil || cut.Stats.Stopped != "time" || last == nil || last.Batch >= last.Total {
		t.Fatalf("budget run: %v, stopped %q, state %+v", err, cut.Stats.Stopped, last)
	}
	st := *last
	cfg.Resume = &st
	again, err := train.Run(context.Background(), tg, s, cfg, nil) // the same budget: nothing to train
	if err != nil || again.Stats.Stopped != "time" || !slices.Equal(again.L, cut.L) || last.Batch != st.Batch {
		t.Errorf("resumed with the same budget: %v, stopped %q, at batch %d of %d", err, again.Stats.Stopped, last.Batch, st.Batch)
	}
	cfg.Resume, cfg.TimeBudget = &st, 0 // no budget: on to the planned length
	rest, err := train.Run(context.Background(), tg, s, cfg, nil)
	if err != nil || rest.Stats.Stopped != "length" || last.Batch != st.Total {
		t.Fatalf("resumed without a budget: %v, stopped %q, at batch %d of %d", err, rest.Stats.Stopped, last.Batch, st.Total)
	}
	cfg.Resume, cfg.Checkpoint = nil, nil
	whole, err := train.Run(context.Background(), tg, s, cfg, nil)
	if err != nil || !slices.Equal(whole.L, rest.L) || !slices.Equal(whole.R, rest.R) {
		t.Errorf("the resumed run differs from the uninterrupted one: %v", err)
	}
}

// TestResumeAfterTimeBudgetPatience: the evaluation a budget stop makes
// between two of the grid's is not in the checkpoint, so it does not
// count toward the patience of the resumed run, which stops where the
// uninterrupted one does, with the same model (before budgetStop it
// stopped one evaluation sooner).
func TestResumeAfterTimeBudgetPatience(t *testing.T) {
	t.Parallel()
	s, tg := plantedSplit(t)
	var last *train.State
	cfg := train.Config{Dim: 8, Epochs: 200, EvalEvery: 4, Patience: 2, Seed: 3, Workers: 1, TimeBudget: 1,
		CheckpointEvery: time.Hour, Checkpoint: func(st *train.State) error { last = st; return nil }}
	if _, err := train.Run(context.Background(), tg, s, cfg, nil); err != nil {
		t.Fatal(err)
	}
	st := *last
	cfg.Resume, cfg.TimeBudget = &st, 0
	rest, err := train.Run(context.Background(), tg, s, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Resume, cfg.Checkpoint = nil, nil
	whole, err := train.Run(context.Background(), tg, s, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rest.Stats.Stopped != whole.Stats.Stopped || rest.BestStep != whole.BestStep || len(rest.Curve) != len(whole.Curve) || !slices.Equal(rest.L, whole.L) {
		t.Errorf("resumed: stopped %q, model of step %d, %d evaluations; uninterrupted: %q, %d, %d",
			rest.Stats.Stopped, rest.BestStep, len(rest.Curve), whole.Stats.Stopped, whole.BestStep, len(whole.Curve))
	}
	// Resumed from the final checkpoint of the run -patience stopped: no
	// batch to train, and the run still says why it ended there.
	final := *last
	cfg.Resume, cfg.Checkpoint = &final, func(st *train.State) error { last = st; return nil }
	again, err := train.Run(context.Background(), tg, s, cfg, nil)
	if err != nil || whole.Stats.Stopped != "patience" || again.Stats.Stopped != "patience" || !slices.Equal(again.L, whole.L) {
		t.Errorf("resumed from the final checkpoint: %v, stopped %q (uninterrupted: %q)", err, again.Stats.Stopped, whole.Stats.Stopped)
	}
}

// TestSelectsBestValidation: on validation pairs, which the model is not
// fitted to, the sparse trainer keeps the evaluation with the highest
// validation AUC (the latest of equals), not the latest within the
// train AUC's SelectionMargin of it; at a high learning rate the curve
// falls back from its peak, where that margin kept a worse model.
func TestSelectsBestValidation(t *testing.T) {
	t.Parallel()
	s, tg := plantedSplit(t)
	if err := s.HoldOutValidation(0.3, 3); err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 4; seed++ {
		res, err := train.Run(context.Background(), tg, s, train.Config{Dim: 8, Epochs: 60, EvalEvery: 1, LR: 0.2, Seed: seed}, nil)
		if err != nil {
			t.Fatal(err)
		}
		best, step := math.Inf(-1), -1
		for _, pt := range res.Curve {
			if pt.TrainAUC >= best {
				best, step = pt.TrainAUC, pt.Step
			}
		}
		if res.BestStep != step {
			t.Errorf("seed %d: model of step %d kept, the best validation AUC %v is at step %d", seed, res.BestStep, best, step)
		}
	}
}

// TestCheckpointFailureNotFatal: a periodic or final checkpoint that
// cannot be saved (here every save after the first) is a note, and the
// run ends with the model of a run without checkpoints; the save at an
// interrupt still fails the run.
func TestCheckpointFailureNotFatal(t *testing.T) {
	t.Parallel()
	s, tg := plantedSplit(t)
	full := errors.New("no space left on device")
	saves := 0
	cfg := train.Config{Dim: 8, Epochs: 20, Seed: 4, Workers: 1, CheckpointEvery: time.Nanosecond,
		Checkpoint: func(*train.State) error {
			if saves++; saves > 1 {
				return full
			}
			return nil
		}}
	var got notes
	res, err := train.Run(context.Background(), tg, s, cfg, &got)
	if err != nil {
		t.Fatal(err)
	}
	failed, final := 0, 0
	for _, m := range got {
		if strings.Contains(m, "not saved (no space left on device)") {
			failed++
		}
		if strings.HasPrefix(m, "the final checkpoint, at batch ") {
			final++ // not "trying again": there is no next save
		}
	}
	if saves < 3 || failed != saves-1 || final != 1 {
		t.Errorf("%d saves, %d notes of a failed one, %d of the final one", saves, failed, final)
	}
	cfg.Checkpoint = nil
	plain, err := train.Run(context.Background(), tg, s, cfg, nil)
	if err != nil || !slices.Equal(plain.L, res.L) || !slices.Equal(plain.R, res.R) {
		t.Errorf("the run whose checkpoints failed ends with another model (%v)", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg.Checkpoint, cfg.CheckpointEvery = func(*train.State) error { return full }, time.Hour
	if _, err := train.Run(ctx, tg, s, cfg, atEval(cancel)); !errors.Is(err, full) || !errors.Is(err, context.Canceled) || !errors.Is(err, train.ErrNotSaved) {
		t.Errorf("interrupted run whose save fails: %v", err)
	}
}

// TestResolvedConfigRunsTheSame: a run of a resolved configuration (as
// a report records it) is the run of the configuration itself, with the
// regulariser turned off (β < 0) too; before BetaWeight, resolving
// turned β = −1 into 0, which the next Resolve read as the default 0.5.
func TestResolvedConfigRunsTheSame(t *testing.T) {
	t.Parallel()
	s, tg := plantedSplit(t)
	cfg := train.Config{Dim: 8, Epochs: 20, Seed: 1, Workers: 1, Objective: pipeline.ObjectiveConfig{Beta: -1}}
	a, err := train.Run(context.Background(), tg, s, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := train.Run(context.Background(), tg, s, cfg.Resolve(tg.N(), tg.Adj.NNZ()), nil)
	if err != nil || !slices.Equal(a.L, b.L) || !slices.Equal(a.Q, b.Q) {
		t.Errorf("resolved configuration: %v, Q %v against %v", err, b.Q, a.Q)
	}
}

// TestNoGraph: every method refuses a nil graph, one without a matrix and
// one of nodes without arcs with ErrEmptyGraph, where the first two had
// panicked and the SVD baseline had failed on a NaN; a result scored on
// a nil split (as Run accepts one) gets NaN AUCs.
func TestNoGraph(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	empty, err := sparse.NewFromCOO(ctx, 5, 5, nil, nil, nil, sparse.DupSum)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*pipeline.Graph{nil, {}, {Adj: empty}} {
		_, errTrain := train.Run(ctx, g, nil, train.Config{Dim: 2}, nil)
		_, errDense := reference.Run(ctx, g, nil, reference.Config{Dim: 2}, nil)
		_, errSVD := baseline.Run(ctx, g, nil, baseline.Config{Method: baseline.MethodSVD, Dim: 2}, nil)
		for _, err := range []error{errTrain, errDense, errSVD} {
			if !errors.Is(err, pipeline.ErrEmptyGraph) {
				t.Errorf("graph %v: %v, want ErrEmptyGraph", g, err)
			}
		}
	}
	res := &pipeline.Result{N: 2, Half: 1, L: []float32{1, 2}, R: []float32{3, 4}}
	if err := res.Score(ctx, nil); err != nil || !math.IsNaN(res.TestAUC) || !math.IsNaN(res.TrainAUC) {
		t.Errorf("scored on a nil split: %v, test AUC %v", err, res.TestAUC)
	}
}

// atEval returns a Recorder that calls cancel at the run's first
// evaluation, as an interrupt in the middle of a run.
func atEval(cancel context.CancelFunc) pipeline.Recorder {
	return pipeline.RecordFunc(func(e pipeline.Event) {
		if e.Kind == pipeline.Eval {
			cancel()
		}
	})
}

// TestMemoryAdvice: a run refused for memory at d = 128 names the largest
// dimension whose estimate fits (here 64, the limit being its estimate),
// and a run at that dimension passes the check; a limit below even d = 2
// says that the graph is too large.
func TestMemoryAdvice(t *testing.T) {
	t.Parallel()
	s, tg := plantedSplit(t)
	cfg := train.Config{Dim: 64, Epochs: 1, Seed: 1, Workers: 1}
	limit := cfg.EstimateMemory(tg.N(), tg.Adj.NNZ(), s.PairCount())
	cfg.Dim, cfg.MemoryLimit = 128, limit
	_, err := train.Run(context.Background(), tg, s, cfg, nil)
	if !errors.Is(err, pipeline.ErrMemory) || !strings.Contains(err.Error(), "lower the dimension: -dim 64 needs about") || !strings.Contains(err.Error(), "raise the limit (-max-memory)") {
		t.Fatalf("d = 128: %v", err)
	}
	cfg.Dim = 64
	if _, err := train.Run(context.Background(), tg, s, cfg, nil); err != nil {
		t.Errorf("d = 64, the advised dimension: %v", err)
	}
	cfg.MemoryLimit = 1000
	if _, err := train.Run(context.Background(), tg, s, cfg, nil); !errors.Is(err, pipeline.ErrMemory) || !strings.Contains(err.Error(), "even -dim 2 needs about") {
		t.Errorf("1000 bytes: %v", err)
	}
	// A batch far larger than the model: the batch is what to lower.
	cfg.BatchWalks = 1 << 22
	if got := train.DimAdvice(cfg, tg.N(), tg.Adj.NNZ(), s.PairCount(), 1000); !strings.HasPrefix(got, "lower the walks per batch (-batch)") {
		t.Errorf("batch of 2^22 walks: advice %q", got)
	}
}
