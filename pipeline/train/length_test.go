package train_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/train"
	"github.com/wys-project/wys/sparse"
)

func TestDefaultEpochs(t *testing.T) {
	for _, c := range []struct {
		name      string
		n, nnz, k int
		want      float64
	}{
		{"empty", 0, 0, 10, 400},
		{"sparse graph: 400 walks per node", 1000, 2000, 10, 400},
		// ca-HepTh's released training graph: 150·26660/8638 = 462.96.
		{"ca-HepTh: 150 walks per arc", 8638, 26660, 10, 463},
		// uk-2007-05@100000 with half of its edges held out: 150 walks
		// per arc would be 4170 epochs; 3e8 pairs / (10 · 1e5) = 300.
		{"uk-2007-05@100000: pair budget", 100000, 2779574, 10, 300},
		{"more contexts, fewer epochs", 100000, 2779574, 12, 250},
		{"R-MAT scale 22: never below MinEpochs", 1 << 22, 60000000, 10, train.MinEpochs},
	} {
		if got := train.DefaultEpochs(c.n, c.nnz, c.k); got != c.want {
			t.Errorf("%s: DefaultEpochs(%d, %d, %d) = %v, want %v", c.name, c.n, c.nnz, c.k, got, c.want)
		}
		if c.n > 0 && c.want > train.MinEpochs && c.want*float64(c.k*c.n) > train.DefaultPairBudget {
			t.Errorf("%s: %v epochs draw more than the pair budget", c.name, c.want)
		}
	}
}

func TestDefaultBatchWalks(t *testing.T) {
	for _, c := range []struct{ n, want int }{
		{0, 256}, {8638, 256}, {25600, 256}, {32000, 320},
		{100000, 1024},   // 100000/6400 = 15.6 shards of 64 walks
		{325729, 3264},   // 51 shards
		{1 << 22, 16384}, // capped
	} {
		if got := train.DefaultBatchWalks(c.n); got != c.want {
			t.Errorf("DefaultBatchWalks(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// TestShortRunOneBatch checks that a run shorter than the default batch
// draws its own walks, not a whole batch: 3 nodes for 2 epochs are one
// batch of 6 walks, 60 positive pairs at C = 10 (it drew 256 walks, 85
// epochs, before), while a batch given explicitly stays as given.
func TestShortRunOneBatch(t *testing.T) {
	if got := (train.Config{Epochs: 2}).Resolve(3, 6).BatchWalks; got != 6 {
		t.Errorf("2 epochs of 3 nodes: batches of %d walks, want 6", got)
	}
	if got := (train.Config{Epochs: 0.001}).Resolve(3, 6).BatchWalks; got != 1 {
		t.Errorf("0.001 epochs of 3 nodes: batches of %d walks, want 1", got)
	}
	if got := (train.Config{Epochs: 2, BatchWalks: 100}).Resolve(3, 6).BatchWalks; got != 100 {
		t.Errorf("-batch 100: batches of %d walks, want 100", got)
	}
	src := []int32{0, 1, 2, 1, 2, 0}
	dst := []int32{1, 2, 0, 0, 1, 2}
	adj, err := sparse.NewFromCOO(t.Context(), 3, 3, src, dst, nil, sparse.DupFirst)
	if err != nil {
		t.Fatal(err)
	}
	res, err := train.Run(context.Background(), &pipeline.Graph{Adj: adj}, nil, train.Config{Dim: 2, Epochs: 2, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Pairs != 60 {
		t.Errorf("2 epochs of a triangle drew %d positive pairs, want 60 (6 walks of 10 steps)", res.Stats.Pairs)
	}
}

// annealStart recomputes the convergence rule from a run's curve: the
// first evaluation, from MinEpochs on, where the best train AUC so far
// exceeds the best at half that epoch by less than tol.
func annealStart(curve []pipeline.CurvePoint, tol float64) (pipeline.CurvePoint, bool) {
	for i, p := range curve {
		if p.Epoch < train.MinEpochs {
			continue
		}
		best, half := math.Inf(-1), math.Inf(-1)
		for _, q := range curve[:i+1] {
			best = math.Max(best, q.TrainAUC)
			if q.Epoch <= p.Epoch/2 {
				half = math.Max(half, q.TrainAUC)
			}
		}
		if !math.IsInf(half, -1) && best-half < tol {
			return p, true
		}
	}
	return pipeline.CurvePoint{}, false
}

// TestConvergeRule checks that a Converge run stops where the rule, applied
// by hand to its curve, says (after an annealing phase of a quarter of the
// run), and that a run resumed during the annealing ends bit-for-bit where
// the uninterrupted one did, on another number of workers.
func TestConvergeRule(t *testing.T) {
	t.Parallel()
	g := smallGraph(80, 400, false, 7)
	split, err := pipeline.SplitEdges(context.Background(), g, 0.3, 3)
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := split.TrainGraph(t.Context())
	var states []*train.State
	cfg := train.Config{Dim: 8, Epochs: 4000, Converge: true, BatchWalks: 16, EvalEvery: 1, Seed: 9, Workers: 2,
		CheckpointEvery: time.Nanosecond}
	cfg.Checkpoint = func(st *train.State) error {
		if st.AnnealFrom > 0 && st.Batch > st.AnnealFrom && len(states) == 0 {
			c := *st
			for _, p := range []*[]float32{&c.L, &c.R, &c.ML, &c.VL, &c.MR, &c.VR, &c.BestL, &c.BestR} {
				*p = append([]float32(nil), *p...)
			}
			for _, p := range []*[]float64{&c.QLogits, &c.MQ, &c.VQ, &c.BestQ, &c.BestQLogits} {
				*p = append([]float64(nil), *p...)
			}
			c.Curve = append([]pipeline.CurvePoint(nil), c.Curve...)
			states = append(states, &c)
		}
		return nil
	}
	full, err := train.Run(context.Background(), tg, split, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := annealStart(full.Curve, train.DefaultTolerance)
	if !ok {
		t.Fatalf("the curve never meets the rule (last epoch %.1f)", full.Curve[len(full.Curve)-1].Epoch)
	}
	wantEnd := p.Step + int(math.Ceil(train.AnnealShare*float64(p.Step)))
	last := full.Curve[len(full.Curve)-1]
	if last.Step != wantEnd {
		t.Errorf("run ended at batch %d; the rule met at batch %d (epoch %.1f) gives %d", last.Step, p.Step, p.Epoch, wantEnd)
	}
	if last.Epoch >= cfg.Epochs/10 {
		t.Errorf("run of %.1f epochs: the rule did not shorten it", last.Epoch)
	}
	if len(states) == 0 {
		t.Fatal("no checkpoint during the annealing phase")
	}
	cfg.Checkpoint, cfg.Resume, cfg.Workers = nil, states[0], 1
	resumed, err := train.Run(context.Background(), tg, split, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range full.L {
		if full.L[i] != resumed.L[i] || full.R[i] != resumed.R[i] {
			t.Fatalf("resumed run differs at %d", i)
		}
	}
	if len(resumed.Curve) != len(full.Curve) || resumed.TestAUC != full.TestAUC {
		t.Errorf("resumed: %d evaluations, test AUC %v; uninterrupted: %d, %v", len(resumed.Curve), resumed.TestAUC, len(full.Curve), full.TestAUC)
	}
}

// TestTimeBudget checks that a spent budget ends the run at the next
// batch, with an evaluation there and its model kept.
func TestTimeBudget(t *testing.T) {
	t.Parallel()
	g := smallGraph(60, 240, false, 4)
	res, err := train.Run(context.Background(), g, nil, train.Config{Dim: 8, Epochs: 100, BatchWalks: 16, TimeBudget: time.Nanosecond, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Curve) != 1 || res.Curve[0].Step != 1 || res.BestStep != 1 {
		t.Errorf("budget spent: curve %d points, last step %d, best step %d; want 1 point at batch 1", len(res.Curve), res.Curve[len(res.Curve)-1].Step, res.BestStep)
	}
}

// TestCancelWithinABatch cancels a run whose first shard alone draws 64M
// negatives (64 walks of C = 1000 steps, 1000 negatives per positive: tens
// of seconds of work) and expects it back well within a second of the
// cancel, with the context's error.
func TestCancelWithinABatch(t *testing.T) {
	t.Parallel()
	g := smallGraph(600, 3000, false, 5)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := train.Run(ctx, g, nil, train.Config{Objective: pipeline.ObjectiveConfig{C: 1000}, Dim: 8, Epochs: 1, BatchWalks: 64, Negatives: train.MaxNegatives, Seed: 1}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("returned %v after the start, cancelled at 100ms: want within a second of the cancel", took)
	}
}
