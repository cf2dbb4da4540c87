package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/wys-project/wys/internal/sysmem"
	"github.com/wys-project/wys/lowrank"
	"github.com/wys-project/wys/pipeline"
)

// Run trains Watch Your Step embeddings of g with the sparse minibatch
// trainer. eval, which may be nil, supplies the pairs for model selection
// (eval.Selection(): Train against TrainNeg, or Val against ValNeg when
// the split has them; the last step whose train AUC is within
// SelectionStdErrs standard errors of the best is kept) and
// testing (Test against TestNeg, and TestDirectedNeg when present); its
// graph is not used, so g must be its training graph (Split.TrainGraph).
// Without train pairs the model is selected in the same way on a sample
// of g's own arcs against as many uniform non-edges (FitPairs), whose AUC
// is in the result's Curve while its TrainAUC stays NaN. cfg is validated
// and resolved for g (see Config.Resolve); progress goes to rec, which
// may be nil.
//
// A graph that pipeline.CheckGraph refuses, and a split that
// pipeline.Split.CheckGraph refuses for g (one of another graph, or
// whose test edges are all arcs of g), are errors. Run stops between
// batches when ctx is cancelled and returns ctx.Err().
func Run(ctx context.Context, g *pipeline.Graph, eval *pipeline.Split, cfg Config, rec pipeline.Recorder) (*pipeline.Result, error) {
	cfg, eval, err := checkInputs(g, eval, cfg)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		rec = pipeline.NopRecorder{}
	}
	r, err := newRun(ctx, g, eval, cfg, rec)
	if err != nil {
		return nil, err
	}
	if err := r.restore(cfg.Resume); err != nil {
		return nil, err
	}
	if err := r.loop(ctx); err != nil {
		return nil, err
	}
	res, err := r.finish(ctx, eval)
	if err != nil {
		return nil, err
	}
	if err := res.CheckFinite(); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	return res, nil
}

// MaxWalks is the most walks a run can plan (2^50 ≈ 1.1e15, years of
// training): its batch and pair counters are int64.
const MaxWalks = 1 << 50

// plannedWalks returns the walks of a run of cfg (resolved) on n nodes,
// Epochs·N rounded up, or an error when they exceed MaxWalks, which ends
// with hint (the trainer's: that a time budget bounds a run; the bucketed
// schedule, which takes none, gives "").
func plannedWalks(cfg Config, n int, hint string) (int64, error) {
	walks := math.Ceil(cfg.Epochs * float64(n))
	if !(walks <= MaxWalks) {
		return 0, &pipeline.SettingError{Pkg: "train", Setting: "epochs", Value: cfg.Epochs,
			Want: fmt.Sprintf("%.3g walks on %d nodes, more than the %.3g a run can plan: want at most %.3g epochs%s", walks, n, float64(MaxWalks), math.Floor(MaxWalks/float64(n)), hint)}
	}
	return int64(walks), nil
}

// budgetHint is the trainer's end of plannedWalks' error.
const budgetHint = " (a time budget bounds a run by its time)"

// ErrNoNegatives reports a training graph in which every ordered pair of
// nodes, the self-pairs included, is an arc: there is no negative to draw.
var ErrNoNegatives = errors.New("no non-arcs to draw as negatives")

// checkSampleable refuses a training graph the sampler cannot draw
// from: one without arcs, or one in which every ordered pair of nodes, the
// self-pairs included, is an arc, so that there is no non-arc to draw as a
// negative (the rejection sampler would draw forever).
func checkSampleable(g *pipeline.Graph) error {
	if err := pipeline.CheckGraph(g); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	n, nnz := int64(g.N()), int64(g.Adj.NNZ())
	if nnz >= n*n {
		return fmt.Errorf("train: all %d x %d pairs of the graph's nodes, the self-pairs included, are arcs: %w; drop the self-loops, so that the self-pairs serve as negatives", n, n, ErrNoNegatives)
	}
	return nil
}

// run is one training run: the trainer, the fixed evaluation subsamples,
// the model-selection state and the result being built.
type run struct {
	cfg      Config
	rec      pipeline.Recorder
	t        *trainer
	res      *pipeline.Result
	n        int
	fp       string   // fingerprint, for checkpoints
	settings []string // what the fingerprint covers, as text
	start    time.Time

	batches, evalBatches int64
	first                int64 // the batch to start from (after a resume)
	firstPairs           int64 // positive pairs drawn before a resume
	// capBatches is the planned length, over which the learning rate
	// decays; batches becomes shorter when a converged run anneals from
	// annealFrom (0: not annealing) at the rate annealLR.
	capBatches, annealFrom int64
	annealLR               float64
	// avg averages the run's tail (nil: Config.Average is 0).
	avg *averager

	trPos, trNeg, tePos, teNeg []pipeline.Pair

	best       float64 // best train AUC so far
	validation bool    // the model is selected on validation pairs (selName)
	planned    int64   // the length the time budget cut short, else 0
	saved      bool    // the final checkpoint is written (budgetStop)
	sinceBest  int     // evaluations since the best
	lossSum    float64 // loss since the last evaluation
	lossCount  int

	resumedElapsed time.Duration
	lastSave       time.Time
}

// startLogSVD runs the log-SVD start as its own stage.
func (r *run) startLogSVD(ctx context.Context, g *pipeline.Graph) error {
	n := r.n
	r.rec.Record(pipeline.Event{Kind: pipeline.StageStart, Stage: "log-svd", Message: fmt.Sprintf("rank %d SVD of the log target (%d x %d, C = %d powers)", r.t.half, n, n, r.cfg.Objective.C)})
	t0 := time.Now()
	if err := r.t.logSVDStart(ctx, g); err != nil {
		return err
	}
	d := time.Since(t0)
	r.rec.Record(pipeline.Event{Kind: pipeline.StageEnd, Stage: "log-svd", Elapsed: d})
	r.res.Stats.Stages = append(r.res.Stats.Stages, pipeline.StageTime{Name: "log-svd", Duration: d})
	return nil
}

// Check returns the error Run would return for cfg on g and eval before
// its first step, from a resume's state aside: a setting or a length it
// refuses, a graph it cannot sample, the log-SVD start on too large a
// graph, or a memory estimate above the limit (pipeline.ErrMemory,
// naming how to lower it). A caller that writes files before it runs
// calls it first.
func Check(g *pipeline.Graph, eval *pipeline.Split, cfg Config) error {
	cfg, eval, err := checkInputs(g, eval, cfg)
	if err != nil {
		return err
	}
	_, _, err = preflight(g, eval, cfg, pipeline.NopRecorder{})
	return err
}

// checkInputs is Run's first step and Check's: it validates cfg, checks
// that g can be sampled and eval belongs to it, and returns cfg resolved
// for g (its planned length checked) and eval (an empty split for nil).
func checkInputs(g *pipeline.Graph, eval *pipeline.Split, cfg Config) (Config, *pipeline.Split, error) {
	if err := cfg.Validate(); err != nil {
		return cfg, nil, err
	}
	if err := checkSampleable(g); err != nil {
		return cfg, nil, err
	}
	if err := eval.CheckGraph(g); err != nil {
		return cfg, nil, fmt.Errorf("train: %w", err)
	}
	cfg = cfg.Resolve(g.N(), g.Adj.NNZ())
	if _, err := plannedWalks(cfg, g.N(), budgetHint); err != nil {
		return cfg, nil, err
	}
	if eval == nil {
		eval = &pipeline.Split{}
	}
	return cfg, eval, nil
}

// preflight refuses a run that cannot start (the log-SVD start on too
// large a graph) or whose memory estimate is above the limit, naming what
// makes the estimate large and how to lower it, and returns the estimate
// and the limit it was checked against.
func preflight(g *pipeline.Graph, eval *pipeline.Split, cfg Config, rec pipeline.Recorder) (need, limit int64, err error) {
	n := g.N()
	logSVD := cfg.Start == StartLogSVD && cfg.Resume == nil
	if logSVD {
		if err := logSVDFits(n, cfg.Dim/2); err != nil {
			return 0, 0, err
		}
	}
	need = cfg.EstimateMemory(n, g.Adj.NNZ(), eval.PairCount())
	limit = pipeline.MemoryLimit(cfg.MemoryLimit) // once: the advice and the check see one limit
	what, fix := fmt.Sprintf("%d nodes at d = %d", n, cfg.Dim), ""
	if batch := cfg.batchBytes(); batch > need/2 {
		what = fmt.Sprintf("batches of %d walks with %d negatives per positive pair (%s of pairs)", cfg.BatchWalks, cfg.Negatives, sysmem.FormatBytes(batch))
	}
	if start := logSVDBytes(n, cfg.Dim/2); logSVD && start > need/2 {
		what = fmt.Sprintf("%d nodes with the log-SVD start's dense %d x %d target (%s with its working space)", n, n, n, sysmem.FormatBytes(start))
		fix = "start from the spectral factors (-start spectral)"
	} else if limit > 0 && need > limit {
		fix = DimAdvice(cfg, n, g.Adj.NNZ(), eval.PairCount(), limit) // the batch's fix when its pairs are most of the estimate
	}
	limit, err = pipeline.CheckMemory(need, limit, what, fix)
	if err != nil {
		return 0, 0, err
	}
	rec.Record(pipeline.Event{Kind: pipeline.Note, Stage: "train", Message: fmt.Sprintf("memory estimate %s (limit %s)", sysmem.FormatBytes(need), sysmem.FormatBytes(limit))})
	return need, limit, nil
}

// DimAdvice is the fix of a memory refusal whose estimate
// (Config.EstimateMemory of n nodes, nnz arcs and pairs evaluation pairs)
// grows with the dimension: the largest d below cfg.Dim whose estimate is
// within limit, or, when even d = 2 is not, that the graph alone is too
// large. When one batch's pairs are most of the estimate, it says to
// lower the batch instead.
func DimAdvice(cfg Config, n, nnz, pairs int, limit int64) string {
	if cfg.Resolve(n, nnz).batchBytes() > cfg.EstimateMemory(n, nnz, pairs)/2 {
		return "lower the walks per batch (-batch) or the negatives (-negatives)"
	}
	raise := "run it where more memory is available"
	if cfg.MemoryLimit > 0 {
		raise = "raise the limit (-max-memory) if the machine has the memory"
	}
	for d := cfg.Dim - 2; d >= 2; d -= 2 {
		c := cfg
		c.Dim, c.FactorRank = d, 0
		if need := c.EstimateMemory(n, nnz, pairs); need <= limit {
			return fmt.Sprintf("lower the dimension: -dim %d needs about %s; or %s", d, sysmem.FormatBytes(need), raise)
		}
	}
	c := cfg
	c.Dim, c.FactorRank = 2, 0
	return fmt.Sprintf("even -dim 2 needs about %s: the graph is too large for the limit; %s", sysmem.FormatBytes(c.EstimateMemory(n, nnz, pairs)), raise)
}

// newRun checks memory, factors the transition matrix when the source or
// the warm start needs it, starts L and R, and sets up the trainer and
// the evaluation subsamples.
func newRun(ctx context.Context, g *pipeline.Graph, eval *pipeline.Split, cfg Config, rec pipeline.Recorder) (*run, error) {
	n := g.N()
	need, limit, err := preflight(g, eval, cfg, rec)
	if err != nil {
		return nil, err
	}

	series, factorTime, err := runFactorize(ctx, g, cfg, rec)
	if err != nil {
		return nil, err
	}
	t := newTrainer(g, cfg)
	if err := ctx.Err(); err != nil { // the setup's steps take seconds at a million nodes
		return nil, err
	}
	r := &run{cfg: cfg, rec: rec, t: t, n: n, best: math.Inf(-1),
		res: &pipeline.Result{Method: "sparse", N: n, Half: t.half, TrainAUC: math.NaN(), TestAUC: math.NaN(), TestDirectedAUC: math.NaN()}}
	r.res.Stats.EstimatedBytes, r.res.Stats.MemoryLimitBytes = need, limit
	if series != nil {
		r.res.Stats.Stages = append(r.res.Stats.Stages, pipeline.StageTime{Name: "factorize", Duration: factorTime})
		if cfg.Source == SourceFactored {
			t.series = series
		}
		if cfg.Start == StartSpectral && cfg.Resume == nil {
			if err := t.warmStart(ctx, series); err != nil {
				return nil, err
			}
		}
	}

	if cfg.Start == StartLogSVD && cfg.Resume == nil {
		if err := r.startLogSVD(ctx, g); err != nil {
			return nil, err
		}
	}
	r.setEvalPairs(g, eval)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	walksTotal, _ := plannedWalks(cfg, n, budgetHint) // checked by Run
	r.batches = (walksTotal + int64(cfg.BatchWalks) - 1) / int64(cfg.BatchWalks)
	r.capBatches = r.batches
	r.avg = newAverager(cfg.Average, r.batches)
	// At most the run's length: a longer interval evaluates at the end.
	r.evalBatches = max(1, int64(math.Min(math.Round(cfg.EvalEvery*float64(n)/float64(cfg.BatchWalks)), float64(r.batches))))
	unit := "batches"
	if r.batches == 1 {
		unit = "batch"
	}
	// Batches are whole: the walks run are the planned ones rounded up.
	walksRun := r.batches * int64(cfg.BatchWalks)
	msg := fmt.Sprintf("%d walks of length %d in %d %s (%s, negatives %s)", walksRun, cfg.Objective.C, r.batches, unit, cfg.Optimizer, NegativesText(cfg.NegativeBlock))
	if 100*(walksRun-walksTotal) > walksTotal {
		msg += fmt.Sprintf(", %.4g epochs: %g rounded up to whole batches of %d walks", float64(walksRun)/float64(n), cfg.Epochs, cfg.BatchWalks)
	}
	if cfg.Converge {
		msg += fmt.Sprintf(" at most, ending when the %s gains less than %g per doubling of the run", r.selName(), cfg.Tolerance)
	}
	rec.Record(pipeline.Event{Kind: pipeline.StageStart, Stage: "train", Total: r.batches, Unit: "batches", Message: msg})
	if cfg.Resume != nil || cfg.Checkpoint != nil {
		r.fp, r.settings = Fingerprint(g, eval, cfg), settingsOf(g, cfg)
	}
	r.start = time.Now()
	r.lastSave = r.start
	return r, nil
}

// setEvalPairs draws the evaluation subsamples, fixed for the run (at most
// EvalPairs of each list), and, without train pairs, the sample of the
// graph's own arcs that stands in for them.
func (r *run) setEvalPairs(g *pipeline.Graph, eval *pipeline.Split) {
	cfg := r.cfg
	erng := pipeline.Stream(cfg.Seed, pipeline.StreamEval, 0)
	sub := func(p []pipeline.Pair) []pipeline.Pair { return pipeline.SubsamplePairs(p, cfg.EvalPairs, erng) }
	selPos, selNeg := eval.Selection()
	r.trPos, r.trNeg = sub(selPos), sub(selNeg)
	r.validation = eval.HasValidation()
	r.tePos, r.teNeg = sub(eval.Test), sub(eval.TestNeg)
	if len(r.trPos) == 0 || len(r.trNeg) == 0 {
		r.trPos, r.trNeg = fitPairs(g, cfg.EvalPairs, erng)
	}
}

// selName names what selects the model: "train AUC" or "validation AUC".
func (r *run) selName() string {
	if r.validation {
		return "validation AUC"
	}
	return "train AUC"
}

// restore continues from a saved state, when st is not nil.
func (r *run) restore(st *State) error {
	if st == nil {
		return nil
	}
	t := r.t
	if st.Fingerprint != r.fp {
		if st.Settings == nil {
			return fmt.Errorf("%w: it was written by a run with another graph, evaluation pairs or settings", ErrCheckpoint)
		}
		return settingsDiff(st.Settings, r.settings)
	}
	if st.N != r.n || st.Half != t.half || st.C != t.k || st.Batch > r.batches {
		return fmt.Errorf("%w: its shapes do not fit this run", ErrCheckpoint)
	}
	copy(t.l, st.L)
	copy(t.r, st.R)
	copy(t.q, st.QLogits)
	copy(t.ml, st.ML)
	copy(t.vl, st.VL)
	copy(t.mr, st.MR)
	copy(t.vr, st.VR)
	copy(t.mq, st.MQ)
	copy(t.vq, st.VQ)
	t.step, t.pairs, r.first, r.firstPairs = st.Step, st.Pairs, st.Batch, st.Pairs
	if st.Total > 0 {
		r.batches = st.Total
	}
	r.annealFrom, r.annealLR = st.AnnealFrom, st.AnnealLR
	if r.avg != nil && st.AvgN > 0 {
		r.avg.l, r.avg.r, r.avg.n = slices.Clone(st.AvgL), slices.Clone(st.AvgR), st.AvgN
	}
	r.best, r.sinceBest, r.lossSum, r.lossCount = st.Best, st.SinceBest, st.LossSum, st.LossCount
	r.res.BestStep, r.res.Curve = st.BestStep, slices.Clone(st.Curve)
	if st.BestL != nil {
		r.res.L, r.res.R = slices.Clone(st.BestL), slices.Clone(st.BestR)
		r.res.Q, r.res.QLogits = slices.Clone(st.BestQ), slices.Clone(st.BestQLogits)
	}
	r.resumedElapsed = st.Elapsed
	r.rec.Record(pipeline.Event{Kind: pipeline.Note, Stage: "train", Message: fmt.Sprintf("resumed at batch %d of %d", r.first, r.batches)})
	return nil
}

// loop runs the batches from r.first on, evaluating and checkpointing
// along the way, until the last batch, an early stop, an error or
// cancellation.
func (r *run) loop(ctx context.Context) error {
	cfg := r.cfg
	// With checkpoints, a batch always runs to its end (a few milliseconds)
	// and an interrupt is honoured between batches, after saving the
	// state, so that the run can be resumed from the point it stopped.
	bctx := ctx
	if cfg.Checkpoint != nil {
		bctx = context.WithoutCancel(ctx)
	}
	for b := r.first; b < r.batches; b++ {
		if b == r.first && b > 0 && r.overBudget() {
			r.budgetStop(b) // resumed with no more time than it had: nothing to train
			break
		}
		if err := ctx.Err(); err != nil {
			if cfg.Checkpoint != nil && b > r.first {
				if serr := r.snapshot(b); serr != nil {
					return errors.Join(err, fmt.Errorf("train: %w at batch %d: %w", ErrNotSaved, b, serr))
				}
			}
			return err
		}
		if cfg.Checkpoint != nil && b > r.first && time.Since(r.lastSave) >= cfg.CheckpointEvery {
			r.trySnapshot(b, false)
		}
		if err := r.step(bctx, b); err != nil {
			return err
		}
		done := b + 1
		if r.avg.due(done, r.batches) {
			if err := r.avg.add(bctx, r.t.l, r.t.r, r.t.half, cfg.Workers); err != nil {
				return err
			}
		}
		if done%r.evalBatches == 0 || done == r.batches {
			if stop := r.evaluate(done); stop || r.overBudget() {
				r.stop(done, stop)
				break
			}
		} else if r.overBudget() {
			r.budgetStop(done)
			break
		} else if done%16 == 0 {
			r.rec.Record(pipeline.Event{Kind: pipeline.Progress, Stage: "train", Done: done, Total: r.batches, Unit: "batches", Elapsed: r.elapsed()})
		}
	}
	switch {
	case r.res.Stats.Stopped != "":
	case r.cfg.Patience > 0 && r.sinceBest >= r.cfg.Patience: // resumed from the final checkpoint of a run -patience stopped
		r.res.Stats.Stopped = "patience"
	case r.annealFrom > 0 && r.batches < r.capBatches: // the annealing shortened the run
		r.res.Stats.Stopped = "converged"
	default:
		r.res.Stats.Stopped = "length"
	}
	if cfg.Checkpoint != nil && !r.saved {
		r.trySnapshot(r.batches, true)
	}
	return nil
}

// trySnapshot saves the state after done batches as a periodic or final
// checkpoint, whose failure (a full disk) does not end the run: the
// checkpoint written before stays whole (WriteCheckpoint replaces it
// atomically), a note says so, and the next periodic save tries again.
// The save at an interrupt, which is what the interrupt asks for, fails
// the run instead (ErrNotSaved). A final save (the run's end) is not
// tried again, and its note says so.
func (r *run) trySnapshot(done int64, final bool) {
	err := r.snapshot(done)
	switch {
	case err == nil:
	case final:
		r.rec.Record(pipeline.Event{Kind: pipeline.Note, Stage: "train", Message: fmt.Sprintf(
			"the final checkpoint, at batch %d, was not saved (%v): the checkpoint directory holds the one saved before it, if any, and a resume would train from there again", done, err)})
	default:
		r.rec.Record(pipeline.Event{Kind: pipeline.Note, Stage: "train", Message: fmt.Sprintf(
			"checkpoint at batch %d not saved (%v): a resume starts from the one saved before it, if any; trying again in %v", done, err, r.cfg.CheckpointEvery)})
	}
}

// budgetStop ends, after done batches, a run whose time budget ran out
// between two evaluations. The run's final checkpoint is written first,
// so that it holds no evaluation at done: an uninterrupted run makes
// none there, and a resume that counted one toward -patience or the
// convergence rule would go on differently. Then the model at done is
// evaluated, unless the curve ends there already.
func (r *run) budgetStop(done int64) {
	if r.cfg.Checkpoint != nil {
		r.planned = r.batches
		r.trySnapshot(done, true)
		r.saved = true
	}
	if n := len(r.res.Curve); n == 0 || r.res.Curve[n-1].Step != int(done) {
		r.evaluate(done)
	}
	r.stop(done, false)
}

// stop ends the run after done batches, by an early stop (patience) or
// else the time budget. A run the budget stops keeps its planned length
// in its checkpoint (r.planned), so that a longer -time resumes it.
func (r *run) stop(done int64, patience bool) {
	if patience {
		r.res.Stats.Stopped = "patience"
	} else {
		r.res.Stats.Stopped, r.planned = "time", r.batches
		r.rec.Record(pipeline.Event{Kind: pipeline.Note, Stage: "train", Message: fmt.Sprintf("time budget (%v) reached: stopped at batch %d of %d, epoch %.4g", r.cfg.TimeBudget, done, r.batches, r.epoch(done))})
	}
	r.batches = done
}

// epoch is the epoch after done batches: their walks over the N walks of
// an epoch.
func (r *run) epoch(done int64) float64 {
	return float64(done*int64(r.cfg.BatchWalks)) / float64(r.n)
}

// overBudget reports whether the time budget, if any, is spent.
func (r *run) overBudget() bool {
	return r.cfg.TimeBudget > 0 && r.elapsed() >= r.cfg.TimeBudget
}

// elapsed is the run's training time so far, the time before a resume
// included, so that progress rates and curve times count every batch once.
func (r *run) elapsed() time.Duration { return r.resumedElapsed + time.Since(r.start) }

// lr returns the learning rate of batch b: decayed linearly from LR to
// LR/10 over the planned length, or, once a converged run anneals, from
// the rate at that point to a tenth of it over the annealing phase.
func (r *run) lr(b int64) float64 {
	if r.annealFrom > 0 {
		frac := float64(b-r.annealFrom) / float64(r.batches-r.annealFrom)
		return r.annealLR * (1 - 0.9*frac)
	}
	return decayedLR(r.cfg.LR, b, r.capBatches)
}

// decayedLR is lr decayed linearly to a tenth over total batches, at batch b.
func decayedLR(lr float64, b, total int64) float64 {
	return lr * (1 - 0.9*float64(b)/float64(total))
}

// step runs batch b with the decayed learning rate and adds its loss to
// the running mean; a non-finite loss is an error.
func (r *run) step(ctx context.Context, b int64) error {
	lr := r.lr(b)
	loss, err := r.t.batch(ctx, uint64(b), lr)
	if err != nil {
		return err
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return fmt.Errorf("train: loss %w: %v at epoch %.2f, batch %d (lower the learning rate)", pipeline.ErrNotFinite, loss, r.epoch(b), b)
	}
	r.lossSum += loss
	r.lossCount++
	return nil
}

// SelectionStdErrs and SelectionSaturation set the model-selection
// margin: an evaluation's parameters are kept when its train AUC is at
// most SelectionMargin below the best so far.
const (
	SelectionStdErrs    = 2
	SelectionSaturation = 1e-3
)

// SelectionMargin returns how far below the best train AUC best (on pos
// and neg train pairs) an evaluation still ties with it: the largest of
// SelectionStdErrs standard errors (pipeline.AUCStdErr), the best's own
// distance from 1 capped at SelectionSaturation, and the best's distance
// above 1 − SelectionSaturation. The last two matter once the model
// misorders fewer than one train pair in a thousand. The train pairs are
// arcs the model is fitted to, and there a rise of that error to at most
// twice its best, or to anything under one in a thousand, is the model
// trading fit on them for generalisation, not a worse model: on
// web-NotreDame (half held out, defaults) the train AUC peaks at 0.999896
// at epoch 41 and falls to 0.999834 by epoch 92 while the test AUC rises
// from 99.53 to 99.74, and the standard errors alone kept epoch 64
// (99.67); on p2p-Gnutella31 (half held out, rmsprop in blocks of 16) it
// peaks at 0.9999937 at epoch 60 and ends at 0.9999777, more than twice
// the best's error, while the test AUC rises from 55.7 to 72.8.
func SelectionMargin(best float64, pos, neg int) float64 {
	m := max(math.Min(1-best, SelectionSaturation), best-(1-SelectionSaturation))
	if se := pipeline.AUCStdErr(best, pos, neg); se > 0 {
		m = math.Max(m, SelectionStdErrs*se)
	}
	return math.Max(m, 0)
}

// evaluate records a curve point after done batches, keeps the parameters
// when the train AUC is within SelectionMargin of the best so far (the
// validation AUC: at or above it), and reports whether patience has run
// out.
func (r *run) evaluate(done int64) (stop bool) {
	t, res := r.t, r.res
	start := time.Now()
	defer func() { res.Stats.EvalTime += time.Since(start) }()
	pt := pipeline.CurvePoint{Step: int(done), Epoch: r.epoch(done),
		Loss: r.lossSum / float64(r.lossCount), Q: t.Q(), Elapsed: r.elapsed()}
	r.lossSum, r.lossCount = 0, 0
	if done == r.batches && r.avg != nil && r.avg.n > 0 {
		// The run's end: its model is the mean of the snapshots.
		copy(t.l, r.avg.l)
		copy(t.r, r.avg.r)
		r.rec.Record(pipeline.Event{Kind: pipeline.Note, Stage: "train", Message: r.avg.note()})
	}
	pt.TrainAUC = pipeline.PairAUC(t.l, t.r, t.half, r.trPos, r.trNeg)
	pt.TestAUC = pipeline.PairAUC(t.l, t.r, t.half, r.tePos, r.teNeg)
	res.Curve = append(res.Curve, pt)
	r.rec.Record(pipeline.Event{Kind: pipeline.Eval, Stage: "train", Done: done, Total: r.batches, Unit: "batches", Point: &pt, Elapsed: pt.Elapsed})
	// Keep the latest point whose train AUC ties with the best (see
	// SelectionMargin): once the train AUC saturates, its remaining ups
	// and downs are noise, while the model still generalises better. The
	// validation pairs are held out, not fitted, so there the best is
	// kept, as -patience counts from it. The averaged model of the run's
	// end is always kept: it is what Config.Average asks for.
	floor := r.best
	if !r.validation {
		floor -= SelectionMargin(r.best, len(r.trPos), len(r.trNeg))
	}
	end := done == r.batches
	keep := pt.TrainAUC >= floor || (math.IsNaN(pt.TrainAUC) && end) || (end && r.avg != nil && r.avg.n > 0)
	if keep {
		// Overwrite the kept copy in place: once the train AUC saturates
		// almost every evaluation is kept, and a fresh clone each time
		// would leave the previous one to the collector. Checkpoint saves
		// the state before it returns, so nothing else holds res.L.
		res.BestStep = int(done)
		res.L, res.R = append(res.L[:0], t.l...), append(res.R[:0], t.r...)
		res.Q, res.QLogits = pt.Q, t.logits()
	}
	improved := pt.TrainAUC > r.best
	if improved {
		r.best = pt.TrainAUC
		r.sinceBest = 0
	}
	r.converged(pt)
	if improved {
		return false
	}
	r.sinceBest++
	if r.cfg.Patience > 0 && r.sinceBest >= r.cfg.Patience {
		r.rec.Record(pipeline.Event{Kind: pipeline.Note, Stage: "train", Message: fmt.Sprintf("early stop: no better %s in %d evaluation%s", r.selName(), r.sinceBest, map[bool]string{true: "s"}[r.sinceBest != 1])})
		return true
	}
	return false
}

// converged applies the convergence rule after the evaluation pt: when
// the best train AUC gained less than Tolerance since the evaluation at
// half of the run so far, the run anneals over AnnealShare more of it.
func (r *run) converged(pt pipeline.CurvePoint) {
	if !r.cfg.Converge || r.annealFrom > 0 || pt.Epoch < MinEpochs || math.IsInf(r.best, -1) {
		return
	}
	half := math.Inf(-1)
	for _, p := range r.res.Curve {
		if p.Epoch <= pt.Epoch/2 && p.TrainAUC > half {
			half = p.TrainAUC
		}
	}
	if math.IsInf(half, -1) || r.best-half >= r.cfg.Tolerance {
		return
	}
	done := int64(pt.Step)
	r.annealFrom, r.annealLR = done, r.lr(done)
	r.batches = min(r.capBatches, done+int64(math.Ceil(AnnealShare*float64(done))))
	r.rec.Record(pipeline.Event{Kind: pipeline.Note, Stage: "train", Message: fmt.Sprintf(
		"converged: the %s gained %.2f points since epoch %.4g, under the tolerance of %.4g; annealing the learning rate over %d more batches",
		r.selName(), 100*(r.best-half), pt.Epoch/2, 100*r.cfg.Tolerance, r.batches-done)})
}

// snapshot hands the state after done batches to cfg.Checkpoint.
func (r *run) snapshot(done int64) error {
	t, res := r.t, r.res
	st := &State{Fingerprint: r.fp, N: r.n, Half: t.half, C: t.k, Batch: done, Step: t.step, Pairs: t.pairs,
		Elapsed: r.elapsed(),
		L:       t.l, R: t.r, ML: t.ml, VL: t.vl, MR: t.mr, VR: t.vr, QLogits: t.q, MQ: t.mq, VQ: t.vq,
		Best: r.best, SinceBest: r.sinceBest, BestStep: res.BestStep, BestL: res.L, BestR: res.R,
		BestQ: res.Q, BestQLogits: res.QLogits, Curve: res.Curve, LossSum: r.lossSum, LossCount: r.lossCount,
		Total: r.batches, AnnealFrom: r.annealFrom, AnnealLR: r.annealLR, Settings: r.settings}
	if r.planned > 0 {
		st.Total = r.planned // stopped by the time budget: a longer one goes on
	}
	if r.avg != nil {
		st.AvgL, st.AvgR, st.AvgN = r.avg.l, r.avg.r, r.avg.n
	}
	r.lastSave = time.Now()
	return r.cfg.Checkpoint(st)
}

// finish records the statistics and scores the selected embeddings on
// every pair of eval.
func (r *run) finish(ctx context.Context, eval *pipeline.Split) (*pipeline.Result, error) {
	res := r.res
	elapsed := time.Since(r.start)
	r.rec.Record(pipeline.Event{Kind: pipeline.StageEnd, Stage: "train", Elapsed: elapsed})
	res.Stats.Stages = append(res.Stats.Stages, pipeline.StageTime{Name: "train", Duration: elapsed})
	res.Stats.Pairs = r.t.pairs
	// The rate of this process: the pairs drawn before a resume were
	// drawn in the time before it.
	res.Stats.PairsPerSecond = float64(r.t.pairs-r.firstPairs) / elapsed.Seconds()
	if err := res.Score(ctx, eval); err != nil {
		return nil, err
	}
	res.Stats.PeakRSS = sysmem.PeakRSS()
	return res, nil
}

// runFactorize factors T for the factored source or the spectral start (a
// resumed run has its L and R: it factors only for the factored source),
// recording the stage and a note when a converged factorization stopped
// short; nil when neither needs it.
func runFactorize(ctx context.Context, g *pipeline.Graph, cfg Config, rec pipeline.Recorder) (*lowrank.Series, time.Duration, error) {
	if cfg.Source != SourceFactored && (cfg.Start != StartSpectral || cfg.Resume != nil) {
		return nil, 0, nil
	}
	n := g.N()
	if cfg.FactorRank > n {
		return nil, 0, fmt.Errorf("train: factorization rank %d exceeds the %d nodes of the graph; lower the rank", cfg.FactorRank, n)
	}
	rec.Record(pipeline.Event{Kind: pipeline.StageStart, Stage: "factorize", Message: fmt.Sprintf("rank %d factorization of T (C = %d powers)", cfg.FactorRank, cfg.Objective.C)})
	t0 := time.Now()
	series, err := factorSeries(ctx, g, cfg, cfg.Seed)
	if err != nil {
		return nil, 0, err
	}
	took := time.Since(t0)
	if series.Residual > lowrank.ConvergedTol {
		rec.Record(pipeline.Event{Kind: pipeline.Note, Stage: "factorize", Message: fmt.Sprintf(
			"the factorization stopped at its iteration cap with a relative residual of %.2g, above its aim of %g (the top of the spectrum crowds): the factored powers are less accurate than converged ones",
			series.Residual, lowrank.ConvergedTol)})
	}
	rec.Record(pipeline.Event{Kind: pipeline.StageEnd, Stage: "factorize", Elapsed: took})
	return series, took, nil
}
