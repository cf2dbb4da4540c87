package train_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/internal/kernels"
	"github.com/wys-project/wys/pipeline/reference"
	"github.com/wys-project/wys/pipeline/train"
	"github.com/wys-project/wys/sparse"
)

// smallGraph returns a random graph of n nodes (both arcs when undirected;
// node 0 dangling when directed).
func smallGraph(n, m int, directed bool, seed uint64) *pipeline.Graph {
	rng := rand.New(rand.NewPCG(seed, 11))
	var src, dst []int32
	for e := 0; e < m; e++ {
		u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
		if u == v || (directed && u == 0) {
			continue
		}
		src, dst = append(src, u), append(dst, v)
		if !directed {
			src, dst = append(src, v), append(dst, u)
		}
	}
	a, err := sparse.NewFromCOO(context.Background(), n, n, src, dst, nil, sparse.DupFirst)
	if err != nil {
		panic(err)
	}
	return &pipeline.Graph{Adj: a, IDs: pipeline.IdentityIDs(n), Directed: directed}
}

// weighArcs gives each arc (v, u) of g the weight 0.1 + 1.5·((v+u) mod 13),
// the same both ways.
func weighArcs(g *pipeline.Graph) {
	n, _ := g.Adj.Dims()
	for v := 0; v < n; v++ {
		for p := g.Adj.Indptr[v]; p < g.Adj.Indptr[v+1]; p++ {
			g.Adj.Data[p] = 0.1 + 1.5*float64((v+int(g.Adj.Indices[p]))%13)
		}
	}
	g.Weighted = true
}

// TestEstimatorUnbiased draws many independent minibatch estimates of the
// objective and its gradient and compares their mean with the dense
// reference's exact values, within 4.5 standard errors per coordinate
// (with a small absolute floor for coordinates whose estimate has no
// variance).
func TestEstimatorUnbiased(t *testing.T) {
	if testing.Short() {
		t.Skip("tens of thousands of minibatch estimates (3–6 s); over 1 s, skipped under -short")
	}
	t.Parallel()
	cases := []struct {
		name     string
		f        pipeline.Formulation
		directed bool
		n        int
		ppr      float64
		aa       bool
		factored bool
		block    int
		parts    int // > 0: the bucketed schedule's estimate with this many partitions
	}{
		{"code-undirected", pipeline.FormulationCode, false, 30, 0, false, false, 0, 0},
		{"paper-undirected", pipeline.FormulationPaper, false, 20, 0, false, false, 0, 0},
		{"code-directed", pipeline.FormulationCode, true, 25, 0, false, false, 0, 0},
		{"paper-directed", pipeline.FormulationPaper, true, 20, 0, false, false, 0, 0},
		// The extra context types of the paper's Extensions.
		{"code-undirected-ppr-aa", pipeline.FormulationCode, false, 30, 0.3, true, false, 0, 0},
		{"paper-directed-ppr-aa", pipeline.FormulationPaper, true, 20, 0.2, true, false, 0, 0},
		{"code-directed-aa", pipeline.FormulationCode, true, 25, 0, true, false, 0, 0},
		// Walk pairs reweighted by the factored E[D] at full rank (exact
		// factors): unbiased too.
		{"code-undirected-factored", pipeline.FormulationCode, false, 30, 0, false, true, 0, 0},
		{"paper-directed-factored", pipeline.FormulationPaper, true, 20, 0, false, true, 0, 0},
		// Negatives in blocks of 3 x 3 uniform pairs.
		{"code-undirected-block", pipeline.FormulationCode, false, 30, 0, false, false, 3, 0},
		{"paper-directed-block", pipeline.FormulationPaper, true, 20, 0, false, false, 3, 0},
		// The bucketed schedule: the mean of an epoch's P rounds, with the
		// negatives drawn inside each bucket by its share of the area.
		{"code-undirected-bucketed3", pipeline.FormulationCode, false, 30, 0, false, false, 0, 3},
		{"paper-directed-bucketed4", pipeline.FormulationPaper, true, 20, 0, false, false, 0, 4},
		{"code-directed-bucketed2", pipeline.FormulationCode, true, 25, 0, false, false, 0, 2},
		// The code formulation without its ε (ExactLogs).
		{"code-exact-undirected", pipeline.FormulationCode, false, 30, 0, false, false, 0, 0},
		{"code-exact-directed-block", pipeline.FormulationCode, true, 25, 0, false, false, 3, 0},
		// Weighted arcs (weights 0.1 to 18.1): walks step by weight, and the
		// code formulation counts them per mean arc weight.
		{"code-undirected-weighted", pipeline.FormulationCode, false, 30, 0, false, false, 0, 0},
		{"paper-directed-weighted", pipeline.FormulationPaper, true, 20, 0, false, false, 0, 0},
		{"code-directed-weighted-bucketed3", pipeline.FormulationCode, true, 25, 0, false, false, 0, 3},
	}
	const draws = 6000
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := smallGraph(c.n, 3*c.n, c.directed, 3)
			if strings.Contains(c.name, "-weighted") {
				weighArcs(g)
			}
			half := 2
			obj := pipeline.ObjectiveConfig{Formulation: c.f, C: 4, Beta: 0.3, PPR: c.ppr, AdamicAdar: c.aa,
				ExactLogs: strings.HasPrefix(c.name, "code-exact")}
			C := obj.Contexts()
			cfg := train.Config{Objective: obj, Dim: 2 * half, Negatives: 2, NegativeBlock: c.block, Workers: 1}
			if c.factored {
				cfg.Source, cfg.FactorRank = train.SourceFactored, c.n
			}
			rng := rand.New(rand.NewPCG(5, 5))
			l := make([]float32, c.n*half)
			r := make([]float32, c.n*half)
			// Exact logs differ from the code formulation's only where σ or
			// 1−σ is near its ε = 1e-5, so those cases score many pairs
			// beyond ±11.5.
			scale := 0.5
			if obj.ExactLogs {
				scale = 4
			}
			for i := range l {
				l[i] = float32(rng.NormFloat64() * scale)
				r[i] = float32(rng.NormFloat64() * scale)
			}
			q := []float64{0.3, -0.2, 0.5, 0.1, 0.4, -0.3}[:C]
			toDense := func(x []float32) *mat.Dense {
				d := mat.NewDense(c.n, half, nil)
				for i := 0; i < c.n; i++ {
					for j := 0; j < half; j++ {
						d.Set(i, j, float64(x[i*half+j]))
					}
				}
				return d
			}
			exact, err := reference.Evaluate(context.Background(), g.Adj, obj, toDense(l), toDense(r), q)
			if err != nil {
				t.Fatal(err)
			}
			type acc struct{ sum, sq float64 }
			var loss acc
			gl := make([]acc, len(l))
			gr := make([]acc, len(r))
			gq := make([]acc, C)
			add := func(a *acc, x float64) { a.sum += x; a.sq += x * x }
			draws := draws
			if c.factored {
				draws = 2000 // each estimate factors the graph anew
			}
			for d := 0; d < draws; d++ {
				est, err := train.EstimateObjective(context.Background(), g, cfg, l, r, q, 16, uint64(d)+1)
				if c.parts > 0 {
					est, err = train.EstimateBucketed(context.Background(), g, cfg, c.parts, l, r, q, 16, uint64(d)+1)
				}
				if err != nil {
					t.Fatal(err)
				}
				add(&loss, est.Loss)
				for i := range l {
					add(&gl[i], est.GradL[i])
					add(&gr[i], est.GradR[i])
				}
				for k := range gq {
					add(&gq[k], est.GradQ[k])
				}
			}
			check := func(what string, a acc, want float64) {
				nd := float64(draws)
				mean := a.sum / nd
				se := math.Sqrt(math.Max(a.sq/nd-mean*mean, 0) / nd)
				// float32 parameters and coefficients: relative 1e-5 floor.
				if math.Abs(mean-want) > 4.5*se+1e-5*(math.Abs(want)+1e-3) {
					t.Errorf("%s: mean of estimates %.6g ± %.2g, exact %.6g", what, mean, se, want)
				}
			}
			check("loss", loss, exact.Loss)
			for i := 0; i < c.n; i++ {
				for j := 0; j < half; j++ {
					check("dL", gl[i*half+j], exact.GradL.At(i, j))
					check("dR", gr[i*half+j], exact.GradR.At(i, j))
				}
			}
			for k := range gq {
				check("dq", gq[k], exact.GradQ[k])
			}
		})
	}
}

// TestOneStepMatchesEstimate checks the update path (bucketing by row
// block, accumulation, the optimiser) against the dense gradient of the
// same minibatch: one SGD step must move every parameter by −lr times the
// estimate, and the result must not depend on the number of workers.
func TestOneStepMatchesEstimate(t *testing.T) {
	t.Parallel()
	g := smallGraph(40, 160, false, 8)
	const lr = 50
	obj := pipeline.ObjectiveConfig{Formulation: pipeline.FormulationPaper, C: 3}
	n, half := 40, 3
	// Negatives drawn pair by pair, and in blocks of 3 x 3.
	for _, block := range []int{0, 3} {
		var first []float32
		for _, workers := range []int{1, 2, 3} {
			// One batch covering the whole run: Epochs·N walks = BatchWalks.
			cfg := train.Config{Objective: obj, Dim: 2 * half, Optimizer: train.OptSGD, LR: lr, QLR: 0.01,
				Epochs: 1, BatchWalks: n, Negatives: 2, NegativeBlock: block, Seed: 9, Workers: workers}
			res, init, est := oneBatch(t, g, cfg)
			// SGD divides the paper formulation's step by N².
			step := lr / float64(n*n)
			for i := range init.L {
				want := float64(init.L[i]) - step*est.GradL[i]
				if math.Abs(float64(res.L[i])-want) > 1e-5 {
					t.Fatalf("block=%d workers=%d: L[%d] = %v after one step, want %v", block, workers, i, res.L[i], want)
				}
				want = float64(init.R[i]) - step*est.GradR[i]
				if math.Abs(float64(res.R[i])-want) > 1e-5 {
					t.Fatalf("block=%d workers=%d: R[%d] = %v after one step, want %v", block, workers, i, res.R[i], want)
				}
			}
			for k := range init.QLogits {
				// q always steps with Adam: its first step is QLR·g/(|g|+1e-8).
				g := est.GradQ[k]
				if want := init.QLogits[k] - 0.01*g/(math.Abs(g)+1e-8); math.Abs(res.QLogits[k]-want) > 1e-9 {
					t.Errorf("block=%d workers=%d: q[%d] = %v, want %v", block, workers, k, res.QLogits[k], want)
				}
			}
			if first == nil {
				first = res.L
			} else {
				for i := range first {
					if first[i] != res.L[i] {
						t.Fatalf("block=%d workers=%d: embeddings differ from workers=1", block, workers)
					}
				}
			}
		}
	}
}

// TestResumeBitForBit interrupts a run at a checkpoint, saves it to disk,
// resumes from the file and compares with the uninterrupted run.
func TestResumeBitForBit(t *testing.T) {
	t.Parallel()
	g := smallGraph(60, 240, false, 4)
	split, err := pipeline.SplitEdges(context.Background(), g, 0.3, 2)
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := split.TrainGraph(t.Context())
	path := t.TempDir() + "/state.ckpt"
	saved := false
	cfg := train.Config{Dim: 8, Epochs: 20, BatchWalks: 32, EvalEvery: 2, Seed: 5, Workers: 2,
		CheckpointEvery: time.Nanosecond}
	cfg.Checkpoint = func(st *train.State) error {
		if st.Batch == 17 && !saved {
			saved = true
			return train.WriteCheckpoint(path, st)
		}
		return nil
	}
	full, err := train.Run(context.Background(), tg, split, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !saved {
		t.Fatal("no checkpoint at batch 17")
	}
	st, err := train.ReadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Checkpoint = nil
	cfg.Resume = st
	cfg.Workers = 1 // resuming on another worker count changes nothing
	// Progress after a resume counts the time before it too, so that a
	// rate Done/Elapsed counts every batch once.
	var early []int64
	rec := pipeline.RecordFunc(func(e pipeline.Event) {
		if (e.Kind == pipeline.Progress || e.Kind == pipeline.Eval) && e.Elapsed < st.Elapsed {
			early = append(early, e.Done)
		}
	})
	resumed, err := train.Run(context.Background(), tg, split, cfg, rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(early) > 0 {
		t.Errorf("events at batches %v report less time than the %v trained before the resume", early, st.Elapsed)
	}
	// The rate is that of the resumed process: its pairs over its time.
	if got, want := resumed.Stats.PairsPerSecond*resumed.Stats.Stage("train").Seconds(), float64(resumed.Stats.Pairs-st.Pairs); math.Abs(got-want) > 1e-6*want {
		t.Errorf("pairs/s × training time = %v, want the %v pairs drawn after the resume", got, want)
	}
	for i := range full.L {
		if full.L[i] != resumed.L[i] || full.R[i] != resumed.R[i] {
			t.Fatalf("resumed run differs at %d", i)
		}
	}
	if full.TestAUC != resumed.TestAUC || full.BestStep != resumed.BestStep || len(full.Curve) != len(resumed.Curve) {
		t.Errorf("resumed run: AUC %v step %d curve %d; uninterrupted %v %d %d",
			resumed.TestAUC, resumed.BestStep, len(resumed.Curve), full.TestAUC, full.BestStep, len(full.Curve))
	}
	// A checkpoint of another run is refused, naming what differs.
	cfg.Seed, cfg.Negatives = 6, 2
	_, err = train.Run(context.Background(), tg, split, cfg, nil)
	if want := "settings that differ: negatives 2 (checkpoint: 1), seed 6 (checkpoint: 5)"; !errors.Is(err, train.ErrCheckpoint) || !strings.Contains(err.Error(), want) {
		t.Errorf("foreign checkpoint: %v; want an error naming %q", err, want)
	}
	var sm *train.SettingsMismatch
	if !errors.As(err, &sm) || !slices.Equal(sm.Diffs, []train.SettingDiff{{"negatives", "2", "1"}, {"seed", "6", "5"}}) {
		t.Errorf("foreign checkpoint: %#v; want a *SettingsMismatch listing negatives and seed", err)
	}
	// A setting left at zero now (absent from the settings) is named too.
	cfg.Seed, cfg.Negatives, cfg.Average = 5, 0, 0.5
	_, err = train.Run(context.Background(), tg, split, cfg, nil)
	if want := "settings that differ: average 0.5 (checkpoint: not set)"; !errors.Is(err, train.ErrCheckpoint) || !strings.Contains(err.Error(), want) {
		t.Errorf("a setting the checkpoint lacks: %v; want an error naming %q", err, want)
	}
	cfg.Average = 0
	// The time budget may change: it ends the run without changing a
	// batch (a run a scheduler stopped resumes with a longer -time).
	cfg.TimeBudget = time.Hour
	if _, err = train.Run(context.Background(), tg, split, cfg, nil); err != nil {
		t.Errorf("resume with another time budget: %v", err)
	}
	cfg.TimeBudget = 0
	// With the same settings on other evaluation pairs, it says so.
	cfg.Seed, cfg.Negatives = 5, 0
	_, err = train.Run(context.Background(), tg, &pipeline.Split{Train: split.Train}, cfg, nil)
	if err == nil || !strings.Contains(err.Error(), "the graph's arcs or the evaluation pairs differ") {
		t.Errorf("other evaluation pairs: %v", err)
	}
}

// oneBatch runs cfg (one batch covering the whole run: Epochs·N walks =
// BatchWalks) and returns its result, the initial parameters (rebuilt
// from the same seed: rerunning with a tiny rate and subtracting would
// not be exact) and the estimate of the objective at them over the same
// batch (cfg.Seed is the batch's seed).
func oneBatch(t *testing.T, g *pipeline.Graph, cfg train.Config) (*pipeline.Result, *train.Params, *train.Estimate) {
	t.Helper()
	res, err := train.Run(context.Background(), g, nil, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	init, err := train.InitialParameters(context.Background(), g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	est, err := train.EstimateObjective(context.Background(), g, cfg, init.L, init.R, init.QLogits, g.N(), cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	return res, init, est
}

// TestOneStepMomentsOnly checks the updates of the optimisers without
// momentum against the dense gradient of the same minibatch, from zero
// state (where the bias correction cancels 1 − β2), for 1, 2 and 3
// workers, which must give the same bytes. RowRMS moves each row by
// −lr·g/√mean(g²); RMSprop moves each element by −lr·g/(|g| + ε/√(1−β2)),
// nearly −lr·sign(g).
func TestOneStepMomentsOnly(t *testing.T) {
	t.Parallel()
	g := smallGraph(40, 160, false, 8)
	const lr, half = 0.01, 3
	obj := pipeline.ObjectiveConfig{Formulation: pipeline.FormulationPaper, C: 3}
	for _, c := range []struct {
		opt  string
		step func(row []float64, j int) float64 // row: the gradient of the row of element j
	}{
		{train.OptRowRMS, func(row []float64, j int) float64 {
			var ms float64
			for _, gj := range row {
				ms += gj * gj
			}
			if ms == 0 {
				return 0
			}
			return lr * row[j] / math.Sqrt(ms/float64(len(row)))
		}},
		{train.OptRMSProp, func(row []float64, j int) float64 {
			return lr * row[j] / (math.Abs(row[j]) + kernels.AdamEps/math.Sqrt(1-kernels.AdamB2))
		}},
	} {
		var first []float32
		for _, workers := range []int{1, 2, 3} {
			cfg := train.Config{Objective: obj, Dim: 2 * half, Optimizer: c.opt, LR: lr,
				Epochs: 1, BatchWalks: 40, Negatives: 2, Seed: 9, Workers: workers}
			res, init, est := oneBatch(t, g, cfg)
			moved := 0
			for _, side := range []struct {
				name    string
				got, x0 []float32
				grad    []float64
			}{{"L", res.L, init.L, est.GradL}, {"R", res.R, init.R, est.GradR}} {
				for j := range side.grad {
					o := j / half * half
					want := float64(side.x0[j]) - c.step(side.grad[o:o+half], j-o)
					if math.Abs(float64(side.got[j])-want) > 1e-5 {
						t.Fatalf("%s, workers=%d: %s[%d] = %v after one step, want %v", c.opt, workers, side.name, j, side.got[j], want)
					}
					if side.got[j] != side.x0[j] {
						moved++
					}
				}
			}
			if moved == 0 {
				t.Fatalf("%s, workers=%d: no element moved", c.opt, workers)
			}
			if first == nil {
				first = res.L
			} else if !slices.Equal(first, res.L) {
				t.Fatalf("%s, workers=%d: embeddings differ from workers=1", c.opt, workers)
			}
		}
	}
}

// TestResumeMomentsOnly resumes runs whose optimisers keep second
// moments without first moments (RMSprop: one per element; RowRMS: one
// per row) from a file and compares with the uninterrupted run.
func TestResumeMomentsOnly(t *testing.T) {
	t.Parallel()
	g := smallGraph(60, 240, false, 4)
	for _, c := range []struct {
		opt   string
		wantV int
	}{{train.OptRMSProp, 60 * 4}, {train.OptRowRMS, 60}} {
		cfg := train.Config{Dim: 8, Epochs: 20, BatchWalks: 32, EvalEvery: 2, Seed: 5, Workers: 2, Optimizer: c.opt}
		resumeAt(t, g, cfg, 17, func(st *train.State) {
			if len(st.VL) != c.wantV || st.ML != nil {
				t.Errorf("%s: checkpoint holds %d second moments of L and %d first moments, want %d and none", c.opt, len(st.VL), len(st.ML), c.wantV)
			}
		})
	}
}

// resumeAt runs cfg on g (on cfg.Workers workers) saving a checkpoint
// after batch batches, which check inspects, then resumes it on 1 worker
// and fails the test unless both runs end with the same bytes.
func resumeAt(t *testing.T, g *pipeline.Graph, cfg train.Config, batch int64, check func(*train.State)) {
	t.Helper()
	path := t.TempDir() + "/state.ckpt"
	saved := false
	cfg.CheckpointEvery = time.Nanosecond
	cfg.Checkpoint = func(st *train.State) error {
		if st.Batch == batch && !saved {
			saved = true
			check(st)
			return train.WriteCheckpoint(path, st)
		}
		return nil
	}
	full, err := train.Run(context.Background(), g, nil, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := train.ReadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Checkpoint, cfg.Resume, cfg.Workers = nil, st, 1
	resumed, err := train.Run(context.Background(), g, nil, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(full.L, resumed.L) || !slices.Equal(full.R, resumed.R) {
		t.Fatal("resumed run differs from the uninterrupted one")
	}
}

// TestNegativeLossUnbiased checks the loss of the non-edge terms, which
// the trainer sums as one logarithm of a product per shard: with 0.001
// walks per node the positive terms are a thousandth of the loss, so the
// mean of the estimates must match the dense reference's exact loss
// through its negative part (a 1% error there fails it), for negatives
// drawn pair by pair, in blocks and by the bucketed schedule.
func TestNegativeLossUnbiased(t *testing.T) {
	if testing.Short() {
		t.Skip("3,000 estimates of 256 walks (about 2 s); over 1 s, skipped under -short")
	}
	t.Parallel()
	const n, half, draws = 30, 2, 1000
	g := smallGraph(n, 3*n, false, 3)
	obj := pipeline.ObjectiveConfig{Formulation: pipeline.FormulationCode, C: 3, Beta: 0.3, WalksPerNode: 0.001}
	rng := rand.New(rand.NewPCG(6, 6))
	l := make([]float32, n*half)
	r := make([]float32, n*half)
	ld := mat.NewDense(n, half, nil)
	rd := mat.NewDense(n, half, nil)
	for i := range l {
		l[i] = float32(rng.NormFloat64() * 2)
		r[i] = float32(rng.NormFloat64() * 2)
		ld.Set(i/half, i%half, float64(l[i]))
		rd.Set(i/half, i%half, float64(r[i]))
	}
	q := []float64{0.03, -0.02, 0.05}
	exact, err := reference.Evaluate(context.Background(), g.Adj, obj, ld, rd, q)
	if err != nil {
		t.Fatal(err)
	}
	if exact.Negative < 0.99*exact.Loss {
		t.Fatalf("the negative terms are %.3g of a loss of %.3g: the test needs them to dominate", exact.Negative, exact.Loss)
	}
	for _, c := range []struct{ block, parts int }{{0, 0}, {3, 0}, {0, 3}} {
		cfg := train.Config{Objective: obj, Dim: 2 * half, Negatives: 2, NegativeBlock: c.block, Workers: 1}
		var sum, sq float64
		for d := 0; d < draws; d++ {
			est, err := train.EstimateObjective(context.Background(), g, cfg, l, r, q, 256, uint64(d)+1)
			if c.parts > 0 {
				est, err = train.EstimateBucketed(context.Background(), g, cfg, c.parts, l, r, q, 256, uint64(d)+1)
			}
			if err != nil {
				t.Fatal(err)
			}
			sum += est.Loss
			sq += est.Loss * est.Loss
		}
		mean := sum / draws
		se := math.Sqrt(math.Max(sq/draws-mean*mean, 0) / draws)
		if math.Abs(mean-exact.Loss) > 4.5*se+1e-5*math.Abs(exact.Loss) {
			t.Errorf("block %d, %d partitions: mean loss %.6g ± %.2g, exact %.6g (negative terms %.6g)", c.block, c.parts, mean, se, exact.Loss, exact.Negative)
		}
	}
}

// TestEvalTime checks that Stats.EvalTime counts the evaluations inside
// the train stage: a recorder that sleeps on every evaluation event
// (recorded from inside the evaluation) adds its sleeps to EvalTime, and
// EvalTime stays below the train stage's time.
func TestEvalTime(t *testing.T) {
	t.Parallel()
	g := smallGraph(60, 240, false, 4)
	const nap = 20 * time.Millisecond
	evals := 0
	rec := pipeline.RecordFunc(func(e pipeline.Event) {
		if e.Kind == pipeline.Eval {
			evals++
			time.Sleep(nap)
		}
	})
	res, err := train.Run(context.Background(), g, nil, train.Config{Dim: 8, Epochs: 10, BatchWalks: 32, EvalEvery: 2, Seed: 5}, rec)
	if err != nil {
		t.Fatal(err)
	}
	if evals != 5 {
		t.Fatalf("%d evaluations, want 5", evals)
	}
	if min := time.Duration(evals) * nap; res.Stats.EvalTime < min {
		t.Errorf("EvalTime %v, want at least the %v slept in %d evaluations", res.Stats.EvalTime, min, evals)
	}
	if tr := res.Stats.Stage("train"); res.Stats.EvalTime >= tr {
		t.Errorf("EvalTime %v, want less than the train stage's %v", res.Stats.EvalTime, tr)
	}
}

// TestResultLogits: a learned Q comes with logits whose softmax it is; a
// fixed Q comes with none (its softmax would be uniform), in the
// in-memory trainer and the bucketed schedule alike.
func TestResultLogits(t *testing.T) {
	g := smallGraph(60, 240, false, 3)
	for _, fixed := range [][]float64{nil, {10, 9, 8, 7, 6, 5, 4, 3, 2, 1}} {
		cfg := train.Config{Start: train.StartRandom, Dim: 8, Epochs: 3, Seed: 2, FixedQ: fixed}
		res, err := train.Run(context.Background(), g, nil, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		s, err := train.NewSchedule(g, cfg, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		bres, err := s.Result(context.Background(), s.Init(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for name, r := range map[string]*pipeline.Result{"Run": res, "Schedule": bres} {
			switch {
			case fixed != nil && r.QLogits != nil:
				t.Errorf("%s, fixed Q: logits %v, want none", name, r.QLogits)
			case fixed == nil && len(r.QLogits) != len(r.Q):
				t.Errorf("%s: %d logits for %d entries of Q", name, len(r.QLogits), len(r.Q))
			case fixed == nil:
				for k, p := range pipeline.Softmax(r.QLogits) {
					if math.Abs(p-r.Q[k]) > 1e-12 {
						t.Errorf("%s: softmax of the logits %v, Q %v", name, pipeline.Softmax(r.QLogits), r.Q)
						break
					}
				}
			}
		}
	}
}
