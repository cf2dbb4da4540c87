package train_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/internal/ctxtest"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/reference"
	"github.com/wys-project/wys/pipeline/train"
	"github.com/wys-project/wys/sparse"
)

// exactLoss is the dense reference's float64 objective (reference.Evaluate)
// at a result's L, R and q.
func exactLoss(t *testing.T, g *pipeline.Graph, obj pipeline.ObjectiveConfig, res *pipeline.Result) float64 {
	q := res.QLogits
	if q == nil { // a fixed Q: logits whose softmax it is
		q = make([]float64, len(res.Q))
		for i, x := range res.Q {
			q[i] = math.Log(x)
		}
	}
	t.Helper()
	n := g.N()
	dense := func(x []float32) *mat.Dense {
		d := make([]float64, len(x))
		for i, v := range x {
			d[i] = float64(v)
		}
		return mat.NewDense(n, res.Half, d)
	}
	v, err := reference.Evaluate(context.Background(), g.Adj, obj, dense(res.L), dense(res.R), q)
	if err != nil {
		t.Fatal(err)
	}
	return v.Loss
}

// TestRefine: exact steps after a short run lower the exact objective
// (reference.Evaluate, float64), keep Q, extend the curve and the stages,
// and rescore the result on the split (against a brute-force AUC); the
// same steps with one worker give the same bytes.
func TestRefine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, tg := plantedSplit(t)
	cfg := train.Config{Dim: 8, Epochs: 30, Seed: 2}
	obj := cfg.Resolve(tg.N(), tg.Adj.NNZ()).Objective
	var first *pipeline.Result
	for _, workers := range []int{2, 1} {
		cfg.Workers = workers
		res, err := train.Run(ctx, tg, s, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		before, points, q := exactLoss(t, tg, obj, res), len(res.Curve), slices.Clone(res.Q)
		last := res.Curve[points-1]
		rc := train.RefineConfig{Steps: 12, EvalEvery: 5, Workers: workers}
		if err := train.Refine(ctx, tg, s, obj, res, rc, nil); err != nil {
			t.Fatal(err)
		}
		if after := exactLoss(t, tg, obj, res); !(after < before) {
			t.Errorf("workers=%d: exact objective %v after 12 steps, %v before", workers, after, before)
		}
		if !slices.Equal(res.Q, q) {
			t.Errorf("workers=%d: Q changed from %v to %v", workers, q, res.Q)
		}
		// Points at steps 5, 10 and 12, numbered after the run's.
		if got := res.Curve[points:]; len(got) != 3 || got[0].Step != last.Step+5 || got[2].Step != last.Step+12 || got[2].Elapsed < last.Elapsed {
			t.Errorf("workers=%d: refinement points %+v after the run's last %+v; want steps +5, +10, +12", workers, got, last)
		}
		if res.Stats.RefineSteps != 12 || res.Stats.Stage("refine") == 0 || res.Stats.Stage("refine-setup") == 0 {
			t.Errorf("workers=%d: RefineSteps %d, refine stages %v", workers, res.Stats.RefineSteps, res.Stats.Stages)
		}
		if want := pairAUCBrute(res, s.Test, s.TestNeg); math.Abs(res.TestAUC-want) > 1e-12 || res.TestAUC != res.Curve[len(res.Curve)-1].TestAUC {
			t.Errorf("workers=%d: test AUC %v, brute force %v, last point %v", workers, res.TestAUC, want, res.Curve[len(res.Curve)-1].TestAUC)
		}
		if first == nil {
			first = res
		} else if !slices.Equal(res.L, first.L) || !slices.Equal(res.R, first.R) {
			t.Error("1 worker: refined L or R differ from 2 workers'")
		}
	}
}

// TestRefineRefuses: bad settings, a graph above MaxRefineNodes, a
// result without Q, a memory limit, and a cancelled context, which leaves
// the result as it was.
func TestRefineRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, tg := plantedSplit(t)
	obj := pipeline.ObjectiveConfig{}.Resolve()
	for _, rc := range []train.RefineConfig{{Steps: -1}, {Steps: 3, LR: -1}, {Steps: 3, LR: math.NaN()}, {Steps: 3, EvalEvery: -2}} {
		var se *pipeline.SettingError
		if err := train.CheckRefine(tg, obj, rc); !errors.As(err, &se) {
			t.Errorf("%+v: error %v, want a *pipeline.SettingError", rc, err)
		}
	}
	n := train.MaxRefineNodes + 1
	adj, err := sparse.NewCSR(n, n, make([]int, n+1), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	big := &pipeline.Graph{Adj: adj}
	if err := train.CheckRefine(big, obj, train.RefineConfig{Steps: 1}); err == nil {
		t.Errorf("%d nodes: no error", n)
	}
	if err := train.CheckRefine(tg, obj, train.RefineConfig{Steps: 1, MemoryLimit: 1000}); !errors.Is(err, pipeline.ErrMemory) {
		t.Errorf("limit 1000 bytes: error %v, want pipeline.ErrMemory", err)
	}
	res, err := train.Run(ctx, tg, s, train.Config{Dim: 8, Epochs: 10, Seed: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	noQ := *res
	noQ.Q, noQ.QLogits = nil, nil
	if err := train.Refine(ctx, tg, s, obj, &noQ, train.RefineConfig{Steps: 1}, nil); !errors.Is(err, train.ErrNoQ) {
		t.Errorf("no Q: error %v, want train.ErrNoQ", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	l, points := slices.Clone(res.L), len(res.Curve)
	if err := train.Refine(cancelled, tg, s, obj, res, train.RefineConfig{Steps: 3}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}
	if !slices.Equal(res.L, l) || len(res.Curve) != points || res.Stats.RefineSteps != 0 {
		t.Error("cancelled: the result changed")
	}
	// Cancelled at every check in turn (the setup's products, a step's
	// panels and row blocks, the scoring), until a refinement completes:
	// each cancelled one leaves the result as it was.
	stages, auc := len(res.Stats.Stages), res.TestAUC
	for n := 2; ; n++ {
		at := &ctxtest.CancelAfter{Context: ctx, N: n}
		err := train.Refine(at, tg, s, obj, res, train.RefineConfig{Steps: 2, EvalEvery: 1, Workers: 1}, nil)
		if err == nil {
			if n < 4 {
				t.Errorf("completed with a cancel at check %d", n)
			}
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at check %d: error %v", n, err)
		}
		if !slices.Equal(res.L, l) || len(res.Curve) != points || len(res.Stats.Stages) != stages || res.TestAUC != auc || res.Stats.RefineSteps != 0 {
			t.Fatalf("cancelled at check %d of %d: the result changed", n, at.Calls)
		}
	}
}

// TestRefineFixedQAndWholeGraph: a run with a fixed Q (no logits) is
// refined at that Q, and a run without train pairs gets the fit to its
// own arcs (FitPairs) in the refinement's curve, as Run's curve has it.
func TestRefineFixedQAndWholeGraph(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, tg := plantedSplit(t)
	cfg := train.Config{Dim: 8, Epochs: 20, Seed: 2, FixedQ: []float64{4, 3, 2, 1}, Objective: pipeline.ObjectiveConfig{C: 4}}
	obj := cfg.Resolve(tg.N(), tg.Adj.NNZ()).Objective
	for _, eval := range []*pipeline.Split{s, nil} {
		res, err := train.Run(ctx, tg, eval, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.QLogits != nil {
			t.Fatalf("fixed Q: logits %v", res.QLogits)
		}
		before := exactLoss(t, tg, obj, res)
		if err := train.Refine(ctx, tg, eval, obj, res, train.RefineConfig{Steps: 5, Seed: 2}, nil); err != nil {
			t.Fatalf("fixed Q, split %v: %v", eval != nil, err)
		}
		if after := exactLoss(t, tg, obj, res); !(after < before) {
			t.Errorf("fixed Q, split %v: exact objective %v after 5 steps, %v before", eval != nil, after, before)
		}
		last := res.Curve[len(res.Curve)-1]
		if eval == nil {
			pos, neg := train.FitPairs(tg, 200000, 2)
			if want := pipeline.PairAUC(res.L, res.R, res.Half, pos, neg); last.TrainAUC != want || !math.IsNaN(res.TrainAUC) {
				t.Errorf("whole graph: last point's fit %v, want %v on FitPairs; result's train AUC %v, want NaN", last.TrainAUC, want, res.TrainAUC)
			}
		}
	}
}

// TestRefineLowersNote: a rate far too large lowers the selection AUC
// (scored by brute force before and after), and Refine says so in a
// Note; at the default rate, which raises it here, there is none.
func TestRefineLowersNote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, tg := plantedSplit(t)
	cfg := train.Config{Dim: 8, Epochs: 30, Seed: 2}
	obj := cfg.Resolve(tg.N(), tg.Adj.NNZ()).Objective
	pos, neg := s.Selection()
	for _, c := range []struct {
		lr    float64
		lower bool
	}{{1e6, true}, {0, false}} {
		res, err := train.Run(ctx, tg, s, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		before := pairAUCBrute(res, pos, neg)
		var notes []string
		rec := pipeline.RecordFunc(func(e pipeline.Event) {
			if e.Kind == pipeline.Note && e.Stage == "refine" {
				notes = append(notes, e.Message)
			}
		})
		if err := train.Refine(ctx, tg, s, obj, res, train.RefineConfig{Steps: 10, LR: c.lr}, rec); err != nil {
			t.Fatal(err)
		}
		after := pairAUCBrute(res, pos, neg)
		if lower := after < before; lower != c.lower || len(notes) != map[bool]int{true: 1}[lower] {
			t.Errorf("lr %v: selection AUC %v before, %v after; notes %q", c.lr, before, after, notes)
		}
		if c.lower && !strings.Contains(notes[0], "smaller refinement rate") {
			t.Errorf("lr %v: the note %q does not name the rate", c.lr, notes[0])
		}
		if math.Abs(res.Stats.RefineFromAUC-before) > 1e-12 {
			t.Errorf("lr %v: RefineFromAUC %v, brute force %v", c.lr, res.Stats.RefineFromAUC, before)
		}
	}
	// The AUC falls while the objective does: fewer steps, not a smaller rate.
	fell := []pipeline.CurvePoint{{Loss: 5, TrainAUC: 0.72}, {Loss: 4, TrainAUC: 0.70}}
	if note := train.LoweredNote(fell, 0.71, "validation AUC"); !strings.Contains(note, "from 0.7100 to 0.7000") || !strings.Contains(note, "fewer refinement steps") {
		t.Errorf("AUC lowered as the objective fell: note %q", note)
	}
	for _, before := range []float64{0.70, 0.70005} { // not lowered, or by less than a unit of the fourth decimal
		if note := train.LoweredNote(fell, before, "validation AUC"); note != "" {
			t.Errorf("AUC %v before, 0.70 after: note %q", before, note)
		}
	}
}
