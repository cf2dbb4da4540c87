package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/wys-project/wys/lowrank"
	"github.com/wys-project/wys/sparse"
)

// Sources of positive pairs of the sparse trainer.
const (
	SourceWalk     = "walk"
	SourceFactored = "factored"
)

// Optimizer names of the sparse trainer.
const (
	OptAdam         = "adam"
	OptSGD          = "sgd"
	OptPercentDelta = "percentdelta"
)

// ErrNotFinite reports a NaN or infinite loss during training.
var ErrNotFinite = errors.New("pipeline: loss is not finite")

// ErrMemory reports a run whose memory estimate exceeds the limit.
var ErrMemory = errors.New("pipeline: not enough memory")

// TrainConfig controls the sparse minibatch trainer. The zero value is a
// sensible default for every field; each field says what 0 means.
type TrainConfig struct {
	// Objective selects the formulation (code by default), C, β and the
	// walks per node of E[D].
	Objective ObjectiveConfig
	// Dim is the width d of Y = [L | R], each side d/2; 0 means 128.
	Dim int
	// Epochs is the length of the run in epochs; one epoch draws N random
	// walks (one per node on average), each giving C positive pairs.
	// 0 means max(400, WalksPerArc·|arcs|/N): at least 400 walks per node
	// and DefaultWalksPerArc walks per arc of the graph, so that denser
	// graphs get proportionally longer runs (anchors are drawn by degree,
	// so this is 150 walks per unit of degree). On the released splits
	// this is 463 epochs for ca-HepTh, ~1500 for PPI and ~3300 for
	// ego-Facebook, where 400 epochs stopped 2 (PPI) and 0.4
	// (ego-Facebook) points short of the dense reference.
	Epochs float64
	// BatchWalks is the number of walks per minibatch; 0 means 256.
	BatchWalks int
	// Negatives is the number of non-edge pairs drawn per positive pair;
	// 0 means 1. (The estimator weights them so that the objective is
	// unbiased whatever the number; more negatives lower its variance.)
	Negatives int
	// Optimizer for L and R: OptAdam ("" means it) with lazy row updates,
	// OptSGD, or OptPercentDelta (the authors' optimiser with the mean
	// relative change taken over the rows a batch touches). Adam is the
	// default because it is invariant to the scale of the objective, which
	// varies with the graph's size and degrees.
	Optimizer string
	// LR is the initial learning rate of L and R, decayed linearly to LR/10
	// over the run; 0 means 0.02 for Adam, 0.2 for SGD and 0.02 for
	// PercentDelta. With SGD and the paper formulation (a sum over N²
	// entries) the step is divided by N², which leaves the minimiser
	// unchanged.
	LR float64
	// QLR is the learning rate of the attention logits q, which always use
	// Adam (their gradient's scale varies by orders of magnitude across
	// graphs and formulations); 0 means 0.005. It decays like LR.
	QLR float64
	// EvalEvery is the number of epochs between evaluations of the train
	// AUC (model selection) and test AUC; 0 means Epochs/20.
	EvalEvery float64
	// EvalPairs caps the pairs of each list used for the AUCs during
	// training (a seeded subsample); 0 means 200000. The final test AUC
	// uses every pair.
	EvalPairs int
	// Patience stops the run after this many evaluations without a better
	// train AUC; 0 means never stop early.
	Patience int
	// FixedQ, when not nil, fixes the context distribution (normalised to
	// sum 1, length C) instead of learning it: DeepWalk's linear decay or
	// GloVe's 1/k, for baselines.
	FixedQ []float64
	// Seed drives every random choice. The same seed gives the same
	// embeddings for any number of workers.
	Seed uint64
	// Workers bounds the goroutines; 0 means GOMAXPROCS.
	Workers int
	// MemoryLimit in bytes for the pre-flight check; 0 means 90% of the
	// machine's available memory.
	MemoryLimit int64
	// Checkpoint, when not nil, is called between batches with the full
	// training state (see TrainState) whenever CheckpointEvery has passed
	// since the last call, after the last batch, and when ctx is
	// cancelled (batches then run to their end, so the saved state is
	// consistent and a resumed run continues exactly where this one
	// stopped). The state's slices are the trainer's own: save them
	// before returning. An error stops the run.
	Checkpoint func(*TrainState) error
	// CheckpointEvery is the wall time between checkpoints; 0 means 5 minutes.
	CheckpointEvery time.Duration
	// Source selects where positive pairs come from: SourceWalk ("" means
	// it), the walks' own step weights Q_k, or SourceFactored, the same
	// walks reweighted by the factored E[D] (see the package lowrank):
	// the pair (v, u) reached at any step carries
	// Σ_j Q_j (T^j)_vu / Σ_j (T^j)_vu and the q-gradient gets every
	// power's share, which is unbiased when the factored powers are
	// exact (the first two are) and lowers the variance of the
	// q-gradient.
	Source string
	// FactorRank is the rank r of the factorization that SourceFactored
	// and WarmStart use; 0 means Dim/2 (the CLI's -rank).
	FactorRank int
	// WarmStart starts L and R from the spectral factors of the
	// transition-matrix series (lowrank.Series.Spectral with uniform Q,
	// rank Dim/2), scaled so that the mean score of the arcs is 1,
	// instead of uniform noise.
	WarmStart bool
	// Resume, when not nil, continues a run from a saved state: with the
	// same graph, evaluation pairs and settings (checked through
	// CheckpointFingerprint), the result is bit-for-bit that of an
	// uninterrupted run.
	Resume *TrainState
}

// DefaultWalksPerArc sets the default length of a run (see
// TrainConfig.Epochs).
const DefaultWalksPerArc = 150

// DefaultEpochs returns the default number of epochs for a graph of n
// nodes and nnz arcs: max(400, DefaultWalksPerArc·nnz/n).
func DefaultEpochs(n, nnz int) float64 {
	if n == 0 {
		return 400
	}
	return math.Max(400, math.Ceil(DefaultWalksPerArc*float64(nnz)/float64(n)))
}

// shardWalks is the number of walks drawn by one shard: the unit of
// random streams and of parallel work. It is fixed so that results do not
// depend on the number of workers.
const shardWalks = 64

// numBlocks is the number of row blocks over which gradients are
// accumulated, each by one goroutine in pair order.
const numBlocks = 64

// WithDefaults returns c with every zero field replaced by its default.
func (c TrainConfig) WithDefaults() TrainConfig {
	c.Objective = c.Objective.WithDefaults()
	if c.Dim == 0 {
		c.Dim = 128
	}
	if c.Epochs == 0 {
		c.Epochs = 400
	}
	if c.BatchWalks == 0 {
		c.BatchWalks = 256
	}
	if c.Negatives == 0 {
		c.Negatives = 1
	}
	if c.Optimizer == "" {
		c.Optimizer = OptAdam
	}
	if c.LR == 0 {
		switch c.Optimizer {
		case OptSGD:
			c.LR = 0.2
		case OptAdam:
			c.LR = 0.02
		default:
			c.LR = 0.02
		}
	}
	if c.QLR == 0 {
		c.QLR = 0.005
	}
	if c.Source == "" {
		c.Source = SourceWalk
	}
	if c.FactorRank == 0 {
		c.FactorRank = c.Dim / 2
	}
	if c.EvalEvery == 0 {
		c.EvalEvery = c.Epochs / 20
	}
	if c.EvalPairs == 0 {
		c.EvalPairs = 200000
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	return c
}

// Validate reports a configuration that cannot be used, before any work.
func (c TrainConfig) Validate() error {
	if err := c.Objective.Validate(); err != nil {
		return err
	}
	d := c.WithDefaults()
	switch {
	case d.Dim < 2 || d.Dim%2 != 0:
		return fmt.Errorf("pipeline: dimension %d must be even and at least 2 (Y = [L | R], d/2 per side)", c.Dim)
	case !(d.Epochs > 0) || math.IsInf(d.Epochs, 0):
		return fmt.Errorf("pipeline: epochs = %v, want a positive number", c.Epochs)
	case d.BatchWalks < 1:
		return fmt.Errorf("pipeline: batch size %d, want at least 1 walk", c.BatchWalks)
	case d.Negatives < 1:
		return fmt.Errorf("pipeline: negatives = %d, want at least 1 per positive pair", c.Negatives)
	case d.Optimizer != OptAdam && d.Optimizer != OptSGD && d.Optimizer != OptPercentDelta:
		return fmt.Errorf("pipeline: unknown optimizer %q (want %q, %q or %q)", c.Optimizer, OptAdam, OptSGD, OptPercentDelta)
	case !(d.LR > 0) || math.IsInf(d.LR, 0):
		return fmt.Errorf("pipeline: learning rate %v, want a positive number", c.LR)
	case d.Source != SourceWalk && d.Source != SourceFactored:
		return fmt.Errorf("pipeline: unknown source of positives %q (want %q or %q)", c.Source, SourceWalk, SourceFactored)
	case d.FactorRank < 1:
		return fmt.Errorf("pipeline: factorization rank %d, want at least 1", c.FactorRank)
	case !(d.QLR > 0) || math.IsInf(d.QLR, 0):
		return fmt.Errorf("pipeline: attention learning rate %v, want a positive number", c.QLR)
	case !(d.EvalEvery > 0):
		return fmt.Errorf("pipeline: eval-every = %v epochs, want a positive number", c.EvalEvery)
	case d.EvalPairs < 1 || d.Patience < 0:
		return fmt.Errorf("pipeline: eval pairs %d and patience %d must be positive", c.EvalPairs, c.Patience)
	}
	if c.FixedQ != nil {
		if len(c.FixedQ) != d.Objective.Contexts() {
			return fmt.Errorf("pipeline: fixed Q has %d entries, want %d (C = %d and the extra context types)", len(c.FixedQ), d.Objective.Contexts(), d.Objective.C)
		}
		var s float64
		for _, x := range c.FixedQ {
			if !(x >= 0) || math.IsInf(x, 0) {
				return fmt.Errorf("pipeline: fixed Q entry %v is not a non-negative number", x)
			}
			s += x
		}
		if s == 0 {
			return fmt.Errorf("pipeline: fixed Q sums to 0")
		}
	}
	return nil
}

// EstimateMemory returns the bytes the sparse trainer needs for a graph of
// n nodes and nnz arcs: parameters, optimiser moments, gradient buffers and
// the best snapshot (10 float32 matrices of n x d/2), the graph, the
// sampler's tables and the evaluation pairs.
func (c TrainConfig) EstimateMemory(n, nnz, evalPairs int) int64 {
	d := c.WithDefaults()
	half := int64(d.Dim / 2)
	b := 10 * int64(n) * half * 4
	b += int64(n)*8*2 + int64(nnz)*12 // CSR
	b += int64(nnz)*8 + int64(n)*8    // weighted sampler tables (upper bound)
	b += int64(n) * 8                 // row stamps
	b += int64(evalPairs) * 16
	if d.Objective.AdamicAdar {
		b += int64(nnz)*8 + int64(n)*8 // Adamic–Adar sampling table
	}
	if d.Source == SourceFactored || d.WarmStart {
		// The factors (n x r float64, and for a directed graph V and the
		// C precomputed V·core_kᵀ), the transpose of T and the sketch.
		r := int64(d.FactorRank + 10)
		b += int64(n)*r*8*4 + int64(nnz)*12
		if d.Source == SourceFactored {
			b += int64(d.Objective.C) * int64(n) * int64(d.FactorRank) * 8
		}
	}
	pairs := int64(d.BatchWalks) * int64(d.Objective.Contexts()) * int64(1+d.Negatives)
	b += pairs * 12 * 3
	return b
}

// Train runs the sparse trainer on the training graph of split, selecting
// the embeddings by train AUC (Train against TrainNeg) and reporting the
// test AUC (Test against TestNeg, and TestDirectedNeg when present).
func Train(ctx context.Context, split *Split, cfg TrainConfig, rec Recorder) (*Result, error) {
	g, err := split.TrainGraph()
	if err != nil {
		return nil, err
	}
	return TrainGraph(ctx, g, split, cfg, rec)
}

// TrainGraph runs the sparse trainer on g. eval, which may be nil,
// supplies the pairs for model selection and testing (its graph is not
// used). Without train pairs the embeddings of the last step are returned.
func TrainGraph(ctx context.Context, g *Graph, eval *Split, cfg TrainConfig, rec Recorder) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Epochs == 0 {
		cfg.Epochs = DefaultEpochs(g.N(), g.Adj.NNZ())
	}
	cfg = cfg.WithDefaults()
	if rec == nil {
		rec = NopRecorder{}
	}
	if eval == nil {
		eval = &Split{}
	}
	n := g.N()
	if n == 0 || g.Adj.NNZ() == 0 {
		return nil, fmt.Errorf("pipeline: %w: the training graph has no arcs", ErrEmptyGraph)
	}
	evalPairs := len(eval.Train) + len(eval.TrainNeg) + len(eval.Test) + len(eval.TestNeg) + len(eval.TestDirectedNeg)
	need := cfg.EstimateMemory(n, g.Adj.NNZ(), evalPairs)
	limit := cfg.MemoryLimit
	if limit == 0 {
		limit = AvailableMemory() * 9 / 10
	}
	if limit > 0 && need > limit {
		return nil, fmt.Errorf("%w: %d nodes at d = %d need about %s, above the limit of %s; lower the dimension",
			ErrMemory, n, cfg.Dim, FormatBytes(need), FormatBytes(limit))
	}
	rec.Record(Event{Kind: Note, Stage: "train", Message: fmt.Sprintf("memory estimate %s (limit %s)", FormatBytes(need), FormatBytes(limit))})

	var series *lowrank.Series
	var factorTime time.Duration
	if cfg.Source == SourceFactored || cfg.WarmStart {
		if cfg.FactorRank > n {
			return nil, fmt.Errorf("pipeline: factorization rank %d exceeds the %d nodes of the graph; lower the rank", cfg.FactorRank, n)
		}
		rec.Record(Event{Kind: StageStart, Stage: "factorize", Message: fmt.Sprintf("rank %d factorization of T (C = %d powers)", cfg.FactorRank, cfg.Objective.C)})
		t0 := time.Now()
		var err error
		series, err = factorSeries(ctx, g, cfg, cfg.Seed)
		if err != nil {
			return nil, err
		}
		factorTime = time.Since(t0)
		rec.Record(Event{Kind: StageEnd, Stage: "factorize", Elapsed: factorTime})
	}
	t := newTrainer(g, cfg)
	res := &Result{Method: "sparse", N: n, Half: t.half, TrainAUC: math.NaN(), TestAUC: math.NaN(), TestDirectedAUC: math.NaN()}
	res.Stats.EstimatedBytes = need
	if series != nil {
		res.Stats.Stages = append(res.Stats.Stages, StageTime{Name: "factorize", Duration: factorTime})
		if cfg.Source == SourceFactored {
			t.series = series
		}
		if cfg.WarmStart && cfg.Resume == nil {
			if err := t.warmStart(series); err != nil {
				return nil, err
			}
		}
	}

	// Evaluation subsamples, fixed for the run.
	erng := streamRNG(cfg.Seed, streamEval, 0)
	sub := func(p []Pair) []Pair {
		if len(p) <= cfg.EvalPairs {
			return p
		}
		idx := erng.Perm(len(p))[:cfg.EvalPairs]
		slices.Sort(idx)
		out := make([]Pair, len(idx))
		for i, j := range idx {
			out[i] = p[j]
		}
		return out
	}
	trPos, trNeg := sub(eval.Train), sub(eval.TrainNeg)
	tePos, teNeg := sub(eval.Test), sub(eval.TestNeg)

	walksTotal := int64(math.Ceil(cfg.Epochs * float64(n)))
	batches := (walksTotal + int64(cfg.BatchWalks) - 1) / int64(cfg.BatchWalks)
	evalBatches := max(1, int64(math.Round(cfg.EvalEvery*float64(n)/float64(cfg.BatchWalks))))
	rec.Record(Event{Kind: StageStart, Stage: "train", Total: batches, Unit: "batches",
		Message: fmt.Sprintf("%d walks of length %d in %d batches", walksTotal, cfg.Objective.C, batches)})
	start := time.Now()
	best := math.Inf(-1)
	sinceBest := 0
	var lossSum float64
	var lossCount int
	first := int64(0)
	var resumedElapsed time.Duration
	var fp string
	if cfg.Resume != nil || cfg.Checkpoint != nil {
		fp = CheckpointFingerprint(g, eval, cfg)
	}
	if st := cfg.Resume; st != nil {
		if st.Fingerprint != fp {
			return nil, fmt.Errorf("%w: it was written by a run with another graph, evaluation pairs or settings", ErrCheckpoint)
		}
		if st.N != n || st.Half != t.half || st.C != t.k || st.Batch > batches {
			return nil, fmt.Errorf("%w: its shapes do not fit this run", ErrCheckpoint)
		}
		copy(t.l, st.L)
		copy(t.r, st.R)
		copy(t.q, st.QLogits)
		if t.ml != nil {
			copy(t.ml, st.ML)
			copy(t.vl, st.VL)
			copy(t.mr, st.MR)
			copy(t.vr, st.VR)
		}
		copy(t.mq, st.MQ)
		copy(t.vq, st.VQ)
		t.step, t.pairs, first = st.Step, st.Pairs, st.Batch
		best, sinceBest, lossSum, lossCount = st.Best, st.SinceBest, st.LossSum, st.LossCount
		res.BestStep, res.Curve = st.BestStep, slices.Clone(st.Curve)
		if st.BestL != nil {
			res.L, res.R = slices.Clone(st.BestL), slices.Clone(st.BestR)
			res.Q, res.QLogits = slices.Clone(st.BestQ), slices.Clone(st.BestQLogits)
		}
		resumedElapsed = st.Elapsed
		rec.Record(Event{Kind: Note, Stage: "train", Message: fmt.Sprintf("resumed at batch %d of %d", first, batches)})
	}
	every := cfg.CheckpointEvery
	if every == 0 {
		every = 5 * time.Minute
	}
	lastSave := time.Now()
	save := func(done int64) error {
		st := &TrainState{Fingerprint: fp, N: n, Half: t.half, C: t.k, Batch: done, Step: t.step, Pairs: t.pairs,
			Elapsed: resumedElapsed + time.Since(start),
			L:       t.l, R: t.r, ML: t.ml, VL: t.vl, MR: t.mr, VR: t.vr, QLogits: t.q, MQ: t.mq, VQ: t.vq,
			Best: best, SinceBest: sinceBest, BestStep: res.BestStep, BestL: res.L, BestR: res.R,
			BestQ: res.Q, BestQLogits: res.QLogits, Curve: res.Curve, LossSum: lossSum, LossCount: lossCount}
		lastSave = time.Now()
		return cfg.Checkpoint(st)
	}
	// With checkpoints, a batch always runs to its end (a few milliseconds)
	// and an interrupt is honoured between batches, after saving the
	// state, so that the run can be resumed from the point it stopped.
	bctx := ctx
	if cfg.Checkpoint != nil {
		bctx = context.WithoutCancel(ctx)
	}
	for b := first; b < batches; b++ {
		if err := ctx.Err(); err != nil {
			if cfg.Checkpoint != nil && b > first {
				if serr := save(b); serr != nil {
					return nil, errors.Join(err, fmt.Errorf("pipeline: checkpoint: %w", serr))
				}
			}
			return nil, err
		}
		if cfg.Checkpoint != nil && b > first && time.Since(lastSave) >= every {
			if err := save(b); err != nil {
				return nil, fmt.Errorf("pipeline: checkpoint: %w", err)
			}
		}
		frac := float64(b) / float64(batches)
		lr := cfg.LR * (1 - 0.9*frac)
		loss, err := t.batch(bctx, uint64(b), lr)
		if err != nil {
			return nil, err
		}
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			epoch := float64(b*int64(cfg.BatchWalks)) / float64(n)
			return nil, fmt.Errorf("%w: %v at epoch %.2f, batch %d (lower the learning rate)", ErrNotFinite, loss, epoch, b)
		}
		lossSum += loss
		lossCount++
		done := b + 1
		if done%evalBatches == 0 || done == batches {
			pt := CurvePoint{Step: int(done), Epoch: float64(done*int64(cfg.BatchWalks)) / float64(n),
				Loss: lossSum / float64(lossCount), Q: t.Q(), Elapsed: time.Since(start)}
			lossSum, lossCount = 0, 0
			pt.TrainAUC = PairAUC(t.l, t.r, t.half, trPos, trNeg)
			pt.TestAUC = PairAUC(t.l, t.r, t.half, tePos, teNeg)
			res.Curve = append(res.Curve, pt)
			rec.Record(Event{Kind: Eval, Stage: "train", Done: done, Total: batches, Unit: "batches", Point: &pt, Elapsed: pt.Elapsed})
			if pt.TrainAUC > best || (math.IsNaN(pt.TrainAUC) && done == batches) {
				if !math.IsNaN(pt.TrainAUC) {
					best = pt.TrainAUC
				}
				sinceBest = 0
				res.BestStep = int(done)
				res.L, res.R = slices.Clone(t.l), slices.Clone(t.r)
				res.Q, res.QLogits = pt.Q, slices.Clone(t.q)
			} else {
				sinceBest++
				if cfg.Patience > 0 && sinceBest >= cfg.Patience {
					rec.Record(Event{Kind: Note, Stage: "train", Message: fmt.Sprintf("early stop: no better train AUC in %d evaluations", sinceBest)})
					break
				}
			}
		} else if done%16 == 0 {
			rec.Record(Event{Kind: Progress, Stage: "train", Done: done, Total: batches, Unit: "batches", Elapsed: time.Since(start)})
		}
	}
	if cfg.Checkpoint != nil {
		if err := save(batches); err != nil {
			return nil, fmt.Errorf("pipeline: checkpoint: %w", err)
		}
	}
	elapsed := time.Since(start)
	rec.Record(Event{Kind: StageEnd, Stage: "train", Elapsed: elapsed})
	res.Stats.Stages = append(res.Stats.Stages, StageTime{Name: "train", Duration: elapsed})
	res.Stats.Pairs = t.pairs
	res.Stats.PairsPerSecond = float64(t.pairs) / elapsed.Seconds()
	res.TrainAUC = PairAUC(res.L, res.R, res.Half, eval.Train, eval.TrainNeg)
	res.TestAUC = PairAUC(res.L, res.R, res.Half, eval.Test, eval.TestNeg)
	res.TestDirectedAUC = PairAUC(res.L, res.R, res.Half, eval.Test, eval.TestDirectedNeg)
	res.Stats.PeakRSS = PeakRSS()
	return res, nil
}

// trainer holds the parameters, optimiser state and scratch space.
type trainer struct {
	cfg    TrainConfig
	adj    *sparse.CSR
	n      int
	half   int
	c      int // walk length C
	k      int // attention entries: C, then the extra context types
	walker *walker
	paper  bool
	eps    float64

	l, r   []float32
	q      []float64
	fixedQ []float64

	// Estimator weights: each walk's pairs carry posScale/walks, each
	// negative negScale/negatives (see batch).
	posScale, negScale float64

	// Adam moments (lazy: updated for touched rows only).
	ml, vl, mr, vr []float32
	mq, vq         []float64
	step           int64

	// Gradient buffers and per-row stamps of the batch that last touched them.
	gl, gr         []float32
	stampL, stampR []uint32
	stamp          uint32

	shards []shardOut
	pairs  int64

	// series, when not nil, reweights walk pairs by the factored E[D]
	// (SourceFactored).
	series *lowrank.Series

	// Pairs of the current batch bucketed by row block (see bucket).
	byL, byR       []pairCoef
	startL, startR [numBlocks + 1]int
}

// pairCoef is one sampled pair and dJ/dg for it, already weighted.
type pairCoef struct {
	v, u int32
	coef float32
}

type shardOut struct {
	pairs []pairCoef
	dQ    []float64 // ∂J/∂Q_k estimates
	loss  float64
	pos   int64
	// Scratch of the factored source: the powers of one pair and the
	// series' buffer.
	pw, scratch []float64
}

func newTrainer(g *Graph, cfg TrainConfig) *trainer {
	n := g.N()
	half := cfg.Dim / 2
	obj := cfg.Objective
	t := &trainer{cfg: cfg, adj: g.Adj, n: n, half: half, c: obj.C, k: obj.Contexts(),
		paper:  obj.Formulation == FormulationPaper,
		walker: newWalker(g.Adj, obj.Formulation == FormulationPaper)}
	if obj.AdamicAdar {
		t.walker.initAdamicAdar()
	}
	nnz := float64(g.Adj.NNZ())
	nn := float64(n) * float64(n)
	if t.paper {
		// Σ_vu 80·Σ_k Q_k T^k_vu ℓ = 80·N·E_{v uniform}[...]; negatives summed.
		t.posScale = obj.WalksPerNode * float64(n)
		t.negScale = nn - nnz
	} else {
		// (1/N²)·Σ_v 80·N·deg(v)·Σ_k Q_k Σ_u T^k_vu ℓ = (80·vol/N)·E_{v∝deg}[...].
		vol := 0.0
		for _, x := range g.Adj.Data {
			vol += x
		}
		t.posScale = obj.WalksPerNode * vol / float64(n)
		t.negScale = (nn - nnz) / nn
		t.eps = CodeLogEpsilon
	}
	rng := streamRNG(cfg.Seed, streamInit, 0)
	t.l = make([]float32, n*half)
	t.r = make([]float32, n*half)
	for i := range t.l {
		t.l[i] = float32(rng.Float64()*0.2 - 0.1)
	}
	for i := range t.r {
		t.r[i] = float32(rng.Float64()*0.2 - 0.1)
	}
	t.q = make([]float64, t.k)
	for i := range t.q {
		t.q[i] = 1
	}
	if cfg.FixedQ != nil {
		var s float64
		for _, x := range cfg.FixedQ {
			s += x
		}
		t.fixedQ = make([]float64, t.k)
		for i, x := range cfg.FixedQ {
			t.fixedQ[i] = x / s
		}
	}
	if cfg.Optimizer == OptAdam {
		t.ml, t.vl = make([]float32, n*half), make([]float32, n*half)
		t.mr, t.vr = make([]float32, n*half), make([]float32, n*half)
	}
	t.mq, t.vq = make([]float64, t.k), make([]float64, t.k)
	t.gl, t.gr = make([]float32, n*half), make([]float32, n*half)
	t.stampL, t.stampR = make([]uint32, n), make([]uint32, n)
	return t
}

// Q returns the current context distribution.
func (t *trainer) Q() []float64 {
	if t.fixedQ != nil {
		return slices.Clone(t.fixedQ)
	}
	return Softmax(t.q)
}

// posTerm returns ℓ+(g) = −log σ(g) (paper) or −log(σ(g)+ε) (code) and
// its derivative with respect to g.
func (t *trainer) posTerm(g float64) (loss, grad float64) {
	s := sigmoid(g)
	if t.paper {
		return softplus(-g), -(1 - s)
	}
	return -math.Log(s + t.eps), -s * (1 - s) / (s + t.eps)
}

// negTerm returns ℓ−(g) = −log(1−σ(g)) (paper) or −log(1−σ(g)+ε) (code)
// and its derivative.
func (t *trainer) negTerm(g float64) (loss, grad float64) {
	s := sigmoid(g)
	if t.paper {
		return softplus(g), s
	}
	return -math.Log(1 - s + t.eps), s * (1 - s) / (1 - s + t.eps)
}

// sampleShard draws the walks and negatives of one shard and computes each
// pair's weighted dJ/dg, the ∂J/∂Q_k estimate and the loss estimate.
// walks is the shard's number of walks; totalWalks and totalNeg are the
// batch's, which set the estimator weights. It only reads the parameters.
func (t *trainer) sampleShard(out *shardOut, seed uint64, shard uint64, walks, totalWalks, totalNeg int, Q []float64) {
	rng := streamRNG(seed, streamWalk, shard)
	out.pairs = out.pairs[:0]
	if out.dQ == nil {
		out.dQ = make([]float64, t.k)
	}
	clear(out.dQ)
	out.loss, out.pos = 0, 0
	h := t.half
	wPos := t.posScale / float64(totalWalks)
	wNeg := t.negScale / float64(totalNeg)
	for w := 0; w < walks; w++ {
		v := t.walker.anchor(rng)
		lv := t.l[int(v)*h : int(v)*h+h]
		cur := v
		for k := 0; k < t.c; k++ {
			next, ok := t.walker.step(rng, cur)
			if !ok {
				break
			}
			cur = next
			g := float64(dot32(lv, t.r[int(cur)*h:int(cur)*h+h]))
			loss, grad := t.posTerm(g)
			if t.series != nil && t.factoredPair(out, v, cur, wPos, Q, loss, grad) {
				continue
			}
			out.addPair(v, cur, k, wPos, Q, loss, grad)
		}
		// One pair per extra context type, drawn from its row of the
		// context matrix (exactly, so the estimate stays unbiased).
		k := t.c
		if alpha := t.cfg.Objective.PPR; alpha > 0 {
			if u, ok := t.walker.ppr(rng, v, alpha); ok {
				t.extraPair(out, v, u, k, wPos, Q)
			}
			k++
		}
		if t.cfg.Objective.AdamicAdar {
			if u, ok := t.walker.adamicAdar(rng, v); ok {
				t.extraPair(out, v, u, k, wPos, Q)
			}
		}
	}
	negs := walks * t.k * t.cfg.Negatives
	for i := 0; i < negs; i++ {
		v, u := negative(t.adj, t.n, rng)
		g := float64(dot32(t.l[int(v)*h:int(v)*h+h], t.r[int(u)*h:int(u)*h+h]))
		loss, grad := t.negTerm(g)
		out.loss += wNeg * loss
		out.pairs = append(out.pairs, pairCoef{v, u, float32(wNeg * grad)})
	}
}

// factoredPair adds the walk pair (v, u) with the factored weights: with
// p_j = (T^j)_vu for j = 1..C, the pair carries Σ_j Q_j p_j / Σ_j p_j (a
// step of a walk reaches u with probability (1/C)·Σ_j p_j averaged over
// the C steps, so this weighting is unbiased with exact p) and the
// q-gradient gets p_j / Σ_j p_j of the loss for each j. It reports false,
// leaving the pair to the walk weights, when the factored powers of a
// pair the walk did reach sum to almost nothing (a low-rank artefact).
func (t *trainer) factoredPair(out *shardOut, v, u int32, wPos float64, Q []float64, loss, grad float64) bool {
	if out.pw == nil {
		out.pw = make([]float64, t.c)
		out.scratch = make([]float64, 2*t.series.Rank())
	}
	t.series.PowersInto(out.pw, out.scratch, v, u)
	var den, num float64
	for j, p := range out.pw {
		den += p
		num += Q[j] * p
	}
	if !(den > 1e-9) {
		return false
	}
	w := math.Max(num/den, 0)
	out.loss += wPos * w * loss
	for j, p := range out.pw {
		out.dQ[j] += wPos * loss * p / den
	}
	out.pairs = append(out.pairs, pairCoef{v, u, float32(wPos * w * grad)})
	out.pos++
	return true
}

// factorSeries factors the transition matrix of g at rank cfg.FactorRank
// for the C powers (the first two exact), with the sketch drawn from seed.
func factorSeries(ctx context.Context, g *Graph, cfg TrainConfig, seed uint64) (*lowrank.Series, error) {
	return lowrank.NewSeries(ctx, g.Adj, lowrank.SeriesOptions{Options: lowrank.Options{Rank: cfg.FactorRank, Seed: seed},
		C: cfg.Objective.C, Exact: 2, Directed: g.Directed, Workers: cfg.Workers})
}

// warmStart sets L and R from the spectral factors of Σ_k T^k/C (the
// leading half columns; the rest keep their random start), scaled so that
// the mean score L_v·R_u over the arcs is 1.
func (t *trainer) warmStart(series *lowrank.Series) error {
	c := make([]float64, t.c)
	for k := range c {
		c[k] = 1 / float64(t.c)
	}
	left, right, err := series.Spectral(c)
	if err != nil {
		return err
	}
	_, r := left.Dims()
	cols := min(r, t.half)
	var mean float64
	for v := 0; v < t.n; v++ {
		lv := left.RawRowView(v)[:cols]
		idx, _ := t.adj.Row(v)
		for _, u := range idx {
			ru := right.RawRowView(int(u))
			for i, x := range lv {
				mean += x * ru[i]
			}
		}
	}
	mean /= float64(t.adj.NNZ())
	gamma := 1.0
	if mean != 0 {
		gamma = 1 / math.Sqrt(math.Abs(mean))
	}
	h := t.half
	for v := 0; v < t.n; v++ {
		lv, rv := left.RawRowView(v), right.RawRowView(v)
		for i := 0; i < cols; i++ {
			t.l[v*h+i] = float32(gamma * lv[i])
			t.r[v*h+i] = float32(gamma * rv[i])
		}
	}
	return nil
}

// extraPair adds the positive pair (v, u) of attention entry k.
func (t *trainer) extraPair(out *shardOut, v, u int32, k int, wPos float64, Q []float64) {
	h := t.half
	g := float64(dot32(t.l[int(v)*h:int(v)*h+h], t.r[int(u)*h:int(u)*h+h]))
	loss, grad := t.posTerm(g)
	out.addPair(v, u, k, wPos, Q, loss, grad)
}

// addPair records the positive pair (v, u) of attention entry k, with
// ℓ+ = loss and dℓ+/dg = grad, weighted wPos·Q_k.
func (out *shardOut) addPair(v, u int32, k int, wPos float64, Q []float64, loss, grad float64) {
	out.loss += wPos * Q[k] * loss
	out.dQ[k] += wPos * loss
	out.pairs = append(out.pairs, pairCoef{v, u, float32(wPos * Q[k] * grad)})
	out.pos++
}

// sampleBatch runs the shards of batch b in parallel and returns them in
// shard order.
func (t *trainer) sampleBatch(ctx context.Context, b uint64, walks int) ([]shardOut, error) {
	nShards := (walks + shardWalks - 1) / shardWalks
	if cap(t.shards) < nShards {
		t.shards = make([]shardOut, nShards)
	}
	shards := t.shards[:nShards]
	Q := t.Q()
	totalNeg := walks * t.k * t.cfg.Negatives
	err := sparse.ParallelFor(ctx, nShards, t.cfg.Workers, func(s int) {
		sw := min(shardWalks, walks-s*shardWalks)
		t.sampleShard(&shards[s], t.cfg.Seed, b<<20|uint64(s), sw, walks, totalNeg, Q)
	})
	return shards, err
}

// batch runs one minibatch step and returns its loss estimate.
func (t *trainer) batch(ctx context.Context, b uint64, lr float64) (float64, error) {
	walks := t.cfg.BatchWalks
	shards, err := t.sampleBatch(ctx, b, walks)
	if err != nil {
		return 0, err
	}
	var loss float64
	dQ := make([]float64, t.k)
	for i := range shards {
		loss += shards[i].loss
		t.pairs += shards[i].pos
		for k, x := range shards[i].dQ {
			dQ[k] += x
		}
	}
	loss += t.qRegulariser()
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return loss, nil
	}
	t.stamp++
	t.step++
	t.bucket(shards)
	touched := make([][]int32, 2*numBlocks)
	err = sparse.ParallelFor(ctx, 2*numBlocks, t.cfg.Workers, func(i int) {
		blk, left := i/2, i%2 == 0
		if left {
			touched[i] = t.accumulate(t.byL[t.startL[blk]:t.startL[blk+1]], true)
		} else {
			touched[i] = t.accumulate(t.byR[t.startR[blk]:t.startR[blk+1]], false)
		}
	})
	if err != nil {
		return 0, err
	}
	var pdScale [2]float64
	if t.cfg.Optimizer == OptPercentDelta {
		pdScale = t.percentDeltaScales(touched, lr)
	}
	err = sparse.ParallelFor(ctx, 2*numBlocks, t.cfg.Workers, func(blk int) {
		if blk%2 == 0 {
			t.apply(t.l, t.gl, t.ml, t.vl, touched[blk], lr, pdScale[0])
		} else {
			t.apply(t.r, t.gr, t.mr, t.vr, touched[blk], lr, pdScale[1])
		}
	})
	if err != nil {
		return 0, err
	}
	if t.fixedQ == nil {
		t.updateQ(dQ, t.cfg.QLR*lr/t.cfg.LR)
	}
	return loss, nil
}

// bucket lists the batch's pairs by the row block of their L row (byL)
// and of their R row (byR), each in shard and pair order: a stable
// counting sort, O(pairs).
func (t *trainer) bucket(shards []shardOut) {
	blockSize := (t.n + numBlocks - 1) / numBlocks
	total := 0
	for i := range shards {
		total += len(shards[i].pairs)
	}
	if cap(t.byL) < total {
		t.byL = make([]pairCoef, total)
		t.byR = make([]pairCoef, total)
	}
	t.byL, t.byR = t.byL[:total], t.byR[:total]
	var countL, countR [numBlocks + 1]int
	for i := range shards {
		for _, p := range shards[i].pairs {
			countL[int(p.v)/blockSize+1]++
			countR[int(p.u)/blockSize+1]++
		}
	}
	for b := 0; b < numBlocks; b++ {
		countL[b+1] += countL[b]
		countR[b+1] += countR[b]
	}
	t.startL, t.startR = countL, countR
	for i := range shards {
		for _, p := range shards[i].pairs {
			bl, br := int(p.v)/blockSize, int(p.u)/blockSize
			t.byL[countL[bl]] = p
			countL[bl]++
			t.byR[countR[br]] = p
			countR[br]++
		}
	}
}

// accumulate sums, in order, the gradient contributions of pairs (all in
// one row block) to L (left) or R, and returns the rows it touched.
func (t *trainer) accumulate(pairs []pairCoef, left bool) []int32 {
	h := t.half
	var rows []int32
	grad, stamp, other := t.gl, t.stampL, t.r
	if !left {
		grad, stamp, other = t.gr, t.stampR, t.l
	}
	for _, p := range pairs {
		row, src := p.v, p.u
		if !left {
			row, src = p.u, p.v
		}
		g := grad[int(row)*h : int(row)*h+h]
		if stamp[row] != t.stamp {
			stamp[row] = t.stamp
			clear(g)
			rows = append(rows, row)
		}
		axpy32(g, p.coef, other[int(src)*h:int(src)*h+h])
	}
	return rows
}

// apply updates the touched rows of one parameter matrix.
func (t *trainer) apply(x, g, m, v []float32, rows []int32, lr, pdScale float64) {
	h := t.half
	// The code formulation's 1e-6·mean(x²) regulariser, applied to the
	// rows a batch touches (weight decay), with its exact per-row gradient.
	var decay float32
	if !t.paper {
		decay = float32(2 * CodeEmbeddingReg / float64(t.n*h))
	}
	if t.cfg.Optimizer == OptSGD || t.cfg.Optimizer == OptPercentDelta {
		a := float32(lr)
		if t.paper {
			a = float32(lr / (float64(t.n) * float64(t.n)))
		}
		if t.cfg.Optimizer == OptPercentDelta {
			a = float32(pdScale)
		}
		for _, row := range rows {
			xr, gr := x[int(row)*h:int(row)*h+h], g[int(row)*h:int(row)*h+h]
			for j := range xr {
				xr[j] -= a * (gr[j] + decay*xr[j])
			}
		}
		return
	}
	c1 := 1 - math.Pow(adamB1, float64(t.step))
	c2 := 1 - math.Pow(adamB2, float64(t.step))
	a := float32(lr * math.Sqrt(c2) / c1)
	for _, row := range rows {
		o := int(row) * h
		adamRow(x[o:o+h], g[o:o+h], m[o:o+h], v[o:o+h], a, decay)
	}
}

// percentDeltaScales returns the PercentDelta step scales of L and R for
// this batch: lr / mean_i |g_i / x_i| over the elements of the rows the
// batch touched (the minibatch version of the authors' per-tensor
// rescaling; lr already carries the linear decay). The mean is summed in
// block order, so it does not depend on the number of workers.
func (t *trainer) percentDeltaScales(touched [][]int32, lr float64) [2]float64 {
	h := t.half
	var out [2]float64
	for side := 0; side < 2; side++ {
		x, g := t.l, t.gl
		if side == 1 {
			x, g = t.r, t.gr
		}
		var sum float64
		var count int
		for blk := side; blk < len(touched); blk += 2 {
			for _, row := range touched[blk] {
				o := int(row) * h
				for j := o; j < o+h; j++ {
					sum += math.Abs(float64(g[j]) / signedEps(float64(x[j])))
				}
				count += h
			}
		}
		if count > 0 {
			out[side] = lr / (sum/float64(count) + 1e-12)
		}
	}
	return out
}

// signedEps returns x moved away from zero by 1e-8, keeping its sign.
func signedEps(x float64) float64 {
	if x >= 0 {
		return x + 1e-8
	}
	return x - 1e-8
}

// qRegulariser returns β·mean(q²) (code) or β‖q‖² (paper).
func (t *trainer) qRegulariser() float64 {
	if t.fixedQ != nil {
		return 0
	}
	var s float64
	for _, x := range t.q {
		s += x * x
	}
	s *= t.cfg.Objective.Beta
	if !t.paper {
		s /= float64(t.k)
	}
	return s
}

// qGradient returns dJ/dq from the ∂J/∂Q_k estimates, through the softmax,
// plus the regulariser's gradient.
func (t *trainer) qGradient(dQ []float64) []float64 {
	Q := Softmax(t.q)
	var mean float64
	for k := range dQ {
		mean += Q[k] * dQ[k]
	}
	g := make([]float64, t.k)
	beta := t.cfg.Objective.Beta
	for j := range g {
		g[j] = Q[j] * (dQ[j] - mean)
		if t.paper {
			g[j] += 2 * beta * t.q[j]
		} else {
			g[j] += 2 * beta * t.q[j] / float64(t.k)
		}
	}
	return g
}

func (t *trainer) updateQ(dQ []float64, lr float64) {
	g := t.qGradient(dQ)
	c1 := 1 - math.Pow(adamB1, float64(t.step))
	c2 := 1 - math.Pow(adamB2, float64(t.step))
	for j := range t.q {
		t.mq[j] = adamB1*t.mq[j] + (1-adamB1)*g[j]
		t.vq[j] = adamB2*t.vq[j] + (1-adamB2)*g[j]*g[j]
		t.q[j] -= lr * (t.mq[j] / c1) / (math.Sqrt(t.vq[j]/c2) + adamEps)
	}
}

// Estimate is one minibatch estimate of the objective and its gradient.
type Estimate struct {
	Loss         float64
	GradL, GradR []float64 // N x d/2, row-major
	GradQ        []float64 // length Objective.Contexts()
	Pairs        int       // positive pairs drawn
}

// EstimateObjective draws one minibatch of walks (and cfg.Negatives
// negatives per positive pair) from stream seed and returns the sparse
// trainer's estimate of the objective at (l, r, q) and of its full
// gradient, densely. The estimate is unbiased: its mean over seeds is the
// exact objective that package reference computes (the code
// formulation's 1e-6 embedding regulariser is added exactly here; during
// training it is applied to the rows a batch touches). It is meant for
// tests and diagnostics: memory O(N·d).
func EstimateObjective(ctx context.Context, g *Graph, cfg TrainConfig, l, r []float32, q []float64, walks int, seed uint64) (*Estimate, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	cfg.Seed = seed
	t := newTrainer(g, cfg)
	if len(l) != len(t.l) || len(r) != len(t.r) || len(q) != t.k {
		panic("pipeline: EstimateObjective: parameter shapes do not match the graph and dimension")
	}
	copy(t.l, l)
	copy(t.r, r)
	copy(t.q, q)
	if cfg.Source == SourceFactored {
		series, err := factorSeries(ctx, g, cfg, 1)
		if err != nil {
			return nil, err
		}
		t.series = series
	}
	shards, err := t.sampleBatch(ctx, 0, walks)
	if err != nil {
		return nil, err
	}
	h := t.half
	est := &Estimate{GradL: make([]float64, len(l)), GradR: make([]float64, len(r))}
	dQ := make([]float64, t.k)
	for i := range shards {
		est.Loss += shards[i].loss
		est.Pairs += int(shards[i].pos)
		for k, x := range shards[i].dQ {
			dQ[k] += x
		}
		for _, p := range shards[i].pairs {
			for j := 0; j < h; j++ {
				est.GradL[int(p.v)*h+j] += float64(p.coef) * float64(r[int(p.u)*h+j])
				est.GradR[int(p.u)*h+j] += float64(p.coef) * float64(l[int(p.v)*h+j])
			}
		}
	}
	est.Loss += t.qRegulariser()
	if t.fixedQ == nil {
		est.GradQ = t.qGradient(dQ)
	} else {
		est.GradQ = make([]float64, t.k)
	}
	if !t.paper {
		scale := CodeEmbeddingReg / float64(t.n*h)
		for i := range l {
			est.Loss += scale * (float64(l[i])*float64(l[i]) + float64(r[i])*float64(r[i]))
			est.GradL[i] += 2 * scale * float64(l[i])
			est.GradR[i] += 2 * scale * float64(r[i])
		}
	}
	return est, nil
}

// Params are the trainable parameters of the WYS model.
type Params struct {
	L, R    []float32 // N x d/2, row-major
	QLogits []float64 // q, length Objective.Contexts(); Q = softmax(q)
}

// InitialParameters returns the parameters the sparse trainer starts from
// for g and cfg: L, R ~ U(−0.1, 0.1) from the seed's "init" stream, q = 1.
func InitialParameters(g *Graph, cfg TrainConfig) (*Params, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t := newTrainer(g, cfg.WithDefaults())
	return &Params{L: t.l, R: t.r, QLogits: t.q}, nil
}
