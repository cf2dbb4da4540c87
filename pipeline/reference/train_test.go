package reference

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/wys-project/wys/pipeline"
)

// plantedSplit is a small link-prediction task: a planted-partition graph
// (4 blocks, dense inside, sparse across) with half its edges held out.
func plantedSplit(t testing.TB, n int) *pipeline.Split {
	t.Helper()
	g, err := pipeline.PlantedPartition(n, 4, 0.25, 0.01, 11)
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.SplitEdges(context.Background(), g, 0.5, 12)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTrainPlantedPartition is the small-graph version of the Table 1
// command: both formulations learn to rank held-out edges above non-edges,
// and the result is the evaluation point with the best train AUC.
func TestTrainPlantedPartition(t *testing.T) {
	if testing.Short() {
		t.Skip("four dense training runs (over 1 s); skipped under -short")
	}
	t.Parallel()
	split := plantedSplit(t, 200)
	for _, tc := range []struct {
		f       pipeline.Formulation
		opt     string
		minTest float64 // measured 0.83-0.85; chance is 0.5
	}{
		{pipeline.FormulationCode, PercentDelta, 0.8},
		{pipeline.FormulationPaper, PercentDelta, 0.8},
		{pipeline.FormulationCode, Adam, 0.8},
	} {
		t.Run(string(tc.f)+"/"+tc.opt, func(t *testing.T) {
			t.Parallel()
			var evals, progress int
			rec := pipeline.RecordFunc(func(e pipeline.Event) {
				switch e.Kind {
				case pipeline.Eval:
					evals++
				case pipeline.Progress:
					progress++
				}
			})
			cfg := Config{Objective: pipeline.ObjectiveConfig{Formulation: tc.f, C: 5}, Dim: 16, Steps: 120, Optimizer: tc.opt, Seed: 3}
			res, err := runSplit(context.Background(), split, cfg, rec)
			if err != nil {
				t.Fatal(err)
			}
			if res.TestAUC < tc.minTest {
				t.Errorf("test AUC %.3f, want at least %.2f", res.TestAUC, tc.minTest)
			}
			if len(res.Curve) != 30 || evals != 30 || progress != 90 {
				t.Errorf("%d curve points, %d eval and %d progress events; want 30, 30, 90", len(res.Curve), evals, progress)
			}
			best := slices.MaxFunc(res.Curve, func(a, b pipeline.CurvePoint) int {
				if a.TrainAUC != b.TrainAUC {
					return cmpFloat(a.TrainAUC, b.TrainAUC)
				}
				return b.Step - a.Step // the earliest of equal points
			})
			if res.BestStep != best.Step || res.TrainAUC != best.TrainAUC || res.TestAUC != best.TestAUC {
				t.Errorf("best step %d (train %v, test %v), curve says step %d (train %v, test %v)",
					res.BestStep, res.TrainAUC, res.TestAUC, best.Step, best.TrainAUC, best.TestAUC)
			}
			var sum float64
			for _, x := range res.Q {
				sum += x
			}
			if len(res.Q) != 5 || math.Abs(sum-1) > 1e-12 || len(res.QLogits) != 5 {
				t.Errorf("Q %v (sum %v), logits %v", res.Q, sum, res.QLogits)
			}
			if res.N != split.N || res.Half != 8 || len(res.L) != split.N*8 || len(res.R) != split.N*8 {
				t.Errorf("N %d half %d, L %d R %d values", res.N, res.Half, len(res.L), len(res.R))
			}
			// The returned embeddings are those of the best step.
			if got := pipeline.PairAUC(res.L, res.R, res.Half, split.Test, split.TestNeg); got != res.TestAUC {
				t.Errorf("embeddings give test AUC %v, result says %v", got, res.TestAUC)
			}
			if res.Stats.EstimatedBytes <= 0 || len(res.Stats.Stages) != 2 {
				t.Errorf("stats %+v", res.Stats)
			}
		})
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestTrainWorkersIdentical: the same seed gives bitwise the same
// embeddings for any number of workers.
func TestTrainWorkersIdentical(t *testing.T) {
	t.Parallel()
	split := plantedSplit(t, 100)
	var first *pipeline.Result
	for _, w := range []int{1, 3} {
		res, err := runSplit(context.Background(), split, Config{Objective: pipeline.ObjectiveConfig{C: 4}, Dim: 8, Steps: 12, Seed: 5, Workers: w}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
			continue
		}
		if !slices.Equal(res.L, first.L) || !slices.Equal(res.R, first.R) || !slices.Equal(res.QLogits, first.QLogits) {
			t.Errorf("workers=%d: embeddings differ from workers=1", w)
		}
	}
}

func TestTrainPatience(t *testing.T) {
	t.Parallel()
	split := plantedSplit(t, 100)
	// A tiny Adam rate barely moves the embeddings; a patience of one
	// evaluation stops as soon as the train AUC fails to improve.
	res, err := runSplit(context.Background(), split, Config{Objective: pipeline.ObjectiveConfig{C: 3}, Dim: 8, Steps: 400,
		Optimizer: Adam, LR: 1e-9, EvalEvery: 1, Patience: 1, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	last := res.Curve[len(res.Curve)-1].Step
	if last >= 400 || last != res.BestStep+1 {
		t.Errorf("stopped at step %d, best step %d; want to stop one step after the best", last, res.BestStep)
	}
}

// TestTrainDivergedNamesFix: a step size that makes the loss overflow
// after finite first steps (PercentDelta at 1e6, the CLI's -lr 1e6) ends
// with ErrNotFinite and the fix, as the sparse trainer's error has it.
func TestTrainDivergedNamesFix(t *testing.T) {
	t.Parallel()
	_, err := runSplit(context.Background(), plantedSplit(t, 100), Config{Objective: pipeline.ObjectiveConfig{C: 3}, Dim: 8, Steps: 50, LR: 1e6, Seed: 1}, nil)
	if !errors.Is(err, pipeline.ErrNotFinite) || !strings.Contains(err.Error(), "(lower the learning rate)") {
		t.Errorf("got %v, want ErrNotFinite naming the learning rate", err)
	}
}

// TestTrainCancelled: a run cancelled before it starts, or during its
// steps (at the first evaluation), returns the context's error itself,
// as the pipeline package's documentation says.
func TestTrainCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := runSplit(ctx, plantedSplit(t, 100), Config{Dim: 8, Steps: 5}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	_, err = runSplit(ctx, plantedSplit(t, 100), Config{Dim: 8, Steps: 50, EvalEvery: 2}, atEval(cancel))
	if err != context.Canceled {
		t.Errorf("cancelled during the steps: %v, want context.Canceled itself", err)
	}
}

func TestMemoryGuard(t *testing.T) {
	t.Parallel()
	need, err := CheckMemory(8638, Config{MemoryLimit: 1 << 30})
	if !errors.Is(err, pipeline.ErrMemory) {
		t.Fatalf("got %v, want pipeline.ErrMemory", err)
	}
	// ca-HepTh at C = 10: 11 float32 matrices of 8638² plus embeddings.
	if want := int64(11 * 8638 * 8638 * 4); need < want || need > want+want/50 {
		t.Errorf("estimate %d bytes, want about %d", need, want)
	}
	for _, s := range []string{"3.1 GiB", "1.0 GiB", "8638 nodes", "C = 10"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	if _, err := CheckMemory(8638, Config{MemoryLimit: 1 << 40}); err != nil {
		t.Errorf("1 TiB limit: %v", err)
	}
	_, err = runSplit(context.Background(), plantedSplit(t, 100), Config{Dim: 8, MemoryLimit: 1000}, nil)
	if !errors.Is(err, pipeline.ErrMemory) {
		t.Errorf("Train with a 1000-byte limit: got %v, want pipeline.ErrMemory", err)
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, ""},
		{Config{Dim: 7}, "even"},
		{Config{Steps: -1}, "steps"},
		{Config{Optimizer: "sgd"}, `optimizer = "sgd": want percentdelta or adam`},
		{Config{LR: -1}, "learning rate"},
		{Config{EvalEvery: -2}, "eval_every_steps = -2"},
		{Config{Patience: -1}, "patience"},
		{Config{MemoryLimit: -1}, "memory_limit_bytes = -1"},
		{Config{Objective: pipeline.ObjectiveConfig{Formulation: "both"}}, "formulation"},
	} {
		err := tc.cfg.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: got %v, want an error mentioning %q", tc.cfg, err, tc.want)
		}
	}
}

// TestPercentDelta checks one step against the authors' formula worked
// by hand: μ = mean|g/(v±1e-5)|, v ← v − lr·decay·g/(μ+1e-5).
func TestPercentDelta(t *testing.T) {
	t.Parallel()
	v := []float64{1, -2, 0.5, 0}
	g := []float64{0.1, 0.4, -0.05, 0.2}
	mu := (0.1/(1+1e-5) + 0.4/(2+1e-5) + 0.05/(0.5+1e-5) + 0.2/1e-5) / 4
	step := 0.2 * 0.5 / (mu + 1e-5)
	want := []float64{1 - step*0.1, -2 - step*0.4, 0.5 + step*0.05, 0 - step*0.2}
	percentDelta(v, g, 0.2, 0.5)
	for i := range v {
		if math.Abs(v[i]-want[i]) > 1e-15 {
			t.Errorf("v[%d] = %v, want %v", i, v[i], want[i])
		}
	}
	// Away from zero, the mean relative change is lr·decay.
	rng := rand.New(rand.NewPCG(1, 1))
	x := make([]float32, 1000)
	gx := make([]float32, 1000)
	for i := range x {
		x[i] = float32(1 + rng.Float64())
		gx[i] = float32(rng.NormFloat64())
	}
	old := slices.Clone(x)
	percentDelta(x, gx, 0.2, 0.7)
	var rel float64
	for i := range x {
		rel += math.Abs(float64(x[i]-old[i]) / float64(old[i]))
	}
	if rel /= 1000; math.Abs(rel-0.14) > 1e-4 {
		t.Errorf("mean relative change %v, want 0.2·0.7 = 0.14", rel)
	}
}

// TestAdam: the first bias-corrected Adam step moves every coordinate by
// lr in the direction opposite to its gradient.
func TestAdam(t *testing.T) {
	t.Parallel()
	x := []float32{1, -1, 3}
	g := []float32{0.5, -2, 1e-3}
	var s adamState
	adamT(&s, x, g, 0.01)
	want := []float32{0.99, -0.99, 2.99}
	for i := range x {
		if math.Abs(float64(x[i]-want[i])) > 1e-5 {
			t.Errorf("x[%d] = %v, want %v", i, x[i], want[i])
		}
	}
}

// TestLogFloat32 compares the fast logarithm with math.Log over the range
// it is used on (σ + 1e-5 and 1 − σ + 1e-5) and beyond.
func TestLogFloat32(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 2))
	for i := 0; i < 200000; i++ {
		y := math.Exp(rng.Float64()*60 - 40)
		if i%2 == 0 {
			y = 1e-5 + rng.Float64()
		}
		if got, want := logFloat32(y), math.Log(y); math.Abs(got-want) > 1e-12 {
			t.Fatalf("logFloat32(%v) = %v, math.Log %v", y, got, want)
		}
	}
	for _, y := range []float64{1, 1e-5, 1 + 1e-5, math.Sqrt2, math.Nextafter(math.Sqrt2, 2), 0.5, 2} {
		if got, want := logFloat32(y), math.Log(y); math.Abs(got-want) > 1e-12 {
			t.Errorf("logFloat32(%v) = %v, math.Log %v", y, got, want)
		}
	}
}

// TestExpNegFloat32 compares the fast exponential with math.Exp over the
// range it is used on, −|g| for scores g.
func TestExpNegFloat32(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 3))
	for i := 0; i < 200000; i++ {
		x := -rng.Float64() * 50
		if i%4 == 0 {
			x = -rng.Float64() * 700
		}
		if got, want := expNegFloat32(x), math.Exp(x); math.Abs(got-want) > 1e-13*want {
			t.Fatalf("expNegFloat32(%v) = %v, math.Exp %v", x, got, want)
		}
	}
	for _, x := range []float64{0, -1e-300, -math.Ln2 / 128, -math.Ln2, -700} {
		if got, want := expNegFloat32(x), math.Exp(x); math.Abs(got-want) > 1e-13*want {
			t.Errorf("expNegFloat32(%v) = %v, math.Exp %v", x, got, want)
		}
	}
	if expNegFloat32(-701) != 0 || expNegFloat32(math.Inf(-1)) != 0 {
		t.Error("below −700 should give 0")
	}
}

// runSplit runs the reference on the training graph of split.
func runSplit(ctx context.Context, split *pipeline.Split, cfg Config, rec pipeline.Recorder) (*pipeline.Result, error) {
	g, err := split.TrainGraph(ctx)
	if err != nil {
		return nil, err
	}
	return Run(ctx, g, split, cfg, rec)
}

// atEval returns a Recorder that calls cancel at the run's first
// evaluation.
func atEval(cancel context.CancelFunc) pipeline.Recorder {
	return pipeline.RecordFunc(func(e pipeline.Event) {
		if e.Kind == pipeline.Eval {
			cancel()
		}
	})
}
