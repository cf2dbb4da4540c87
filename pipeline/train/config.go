package train

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/wys-project/wys/pipeline"
)

// Sources of positive pairs of the sparse trainer.
const (
	SourceWalk     = "walk"
	SourceFactored = "factored"
)

// Starts of L and R (Config.Start).
const (
	StartSpectral = "spectral"
	StartRandom   = "random"
	StartLogSVD   = "log-svd"
)

// DefaultSpectralNodes is the largest graph, in nodes, that starts from
// the spectral factors by default. Above it the factorization's n x
// (r+10) float64 arrays (four of them: 2.4 KB per node at d = 128) would
// outweigh the trainer's own memory, and their time on such graphs is not
// measured, so larger graphs start from noise unless Start says otherwise.
const DefaultSpectralNodes = 1 << 20

// Optimizer names of the sparse trainer.
const (
	OptAdam         = "adam"
	OptSGD          = "sgd"
	OptPercentDelta = "percentdelta"
	OptRowRMS       = "rowrms"
	OptRMSProp      = "rmsprop"
)

// optimizers are the names Config.Optimizer accepts, in the order errors
// list them.
var optimizers = []string{OptAdam, OptRMSProp, OptRowRMS, OptSGD, OptPercentDelta}

// Config controls the sparse minibatch trainer. The zero value of every
// field means its default; each field says what 0 means. Resolve fills in
// the defaults (the only place they live) and Validate, which accepts the
// zeros, reports a setting that cannot be used before any work starts.
// The JSON form is the one run reports record.
type Config struct {
	// Objective selects the formulation (code by default), C, β and the
	// walks per node of E[D].
	Objective pipeline.ObjectiveConfig `json:"objective"`
	// Dim is the width d of Y = [L | R], each side d/2; 0 means 128.
	Dim int `json:"dim"`
	// Epochs is the length of the run in epochs; one epoch draws N random
	// walks (one per node on average), each giving C positive pairs.
	// 0 means DefaultEpochs(N, arcs).
	Epochs float64 `json:"epochs"`
	// Converge ends the run before Epochs once it has converged: when
	// the best train AUC (the model-selection score) gained less than
	// Tolerance over the second half of the run so far, the learning
	// rate is decayed linearly to a tenth over a final AnnealShare of the
	// run so far, and the run stops. The rule reads only the
	// evaluations, so the length is the same for any number of workers.
	// It is off by default: on the released splits the train AUC is
	// flat long before the test AUC is (ca-HepTh: from epoch 20, where
	// the test AUC is 92.4, not 94.0).
	Converge bool `json:"converge"`
	// Tolerance is the convergence rule's threshold on the train AUC
	// gained by doubling the run; 0 means DefaultTolerance.
	Tolerance float64 `json:"tolerance"`
	// Average, when positive, is the share of the run at its end over
	// which L and R are averaged (tail or Polyak–Ruppert averaging): at
	// most AverageSnapshots snapshots evenly spaced over the last Average
	// of the batches, the last batch included, whose mean is the model of
	// the final evaluation. It removes much of the minibatch noise left
	// in the last iterate, at the memory of one more copy of L and R
	// (benchmarks/results/table1-average.md). It needs a run of known
	// length, so it cannot be combined with Converge or TimeBudget, and a
	// run that Patience stops early keeps its selected model unaveraged.
	// 0 is off.
	Average float64 `json:"average,omitempty"`
	// TimeBudget, when positive, stops the run at the first evaluation
	// after this much training time (the best model so far is kept). The
	// length then depends on the machine's speed, unlike every other
	// setting.
	TimeBudget time.Duration `json:"time_budget_ns,omitempty"`
	// BatchWalks is the number of walks per minibatch; 0 means
	// DefaultBatchWalks(N), or the run's Epochs·N walks when fewer.
	// Larger batches take fewer steps per epoch, and q moves at most
	// about QLR per step: on PPI at 4096 walks (one step per epoch) Q
	// settles onto k = 1 only after about 2,500 epochs at the default
	// QLR, and after about 300 at 0.05, so raise QLR with the batch.
	BatchWalks int `json:"batch_walks"`
	// Negatives is the number of non-edge pairs drawn per positive pair;
	// 0 means 1. (The estimator weights them so that the objective is
	// unbiased whatever the number; more negatives lower its variance.)
	Negatives int `json:"negatives"`
	// NegativeBlock, when positive, draws the negatives as blocks of m x m
	// pairs: m uniform rows of L against m uniform rows of R, every pair
	// that is not an arc scored (at least Negatives per positive pair in
	// all). The estimate stays unbiased and deterministic; a block reads
	// 2m rows for m² pairs, so on graphs whose parameters do not fit in
	// the cache the negatives cost far less memory traffic than drawing
	// each pair's two rows. NegativePairs draws each negative pair on its
	// own. 0 means DefaultNegativeBlock with OptRMSProp on graphs of
	// DefaultBlockNodes nodes or more, NegativePairs otherwise: without
	// momentum, blocks of 16 at one negative run 1.6-1.8 times the pairs
	// per second of Adam pair by pair on uk-2007-05@100000 and
	// web-NotreDame and end level with it at the same length
	// (large-blocks-rmsprop.md), and end 0.9 points higher on R-MAT scale
	// 20 (scale20-blocks-rmsprop.md); with Adam they lose more per epoch
	// (large-blocks.md). Smaller graphs keep pairs: blocks are not
	// measured there as a default.
	NegativeBlock int `json:"negative_block,omitempty"`
	// Optimizer for L and R: OptAdam with lazy row updates, OptRMSProp
	// (lazy too: Adam without momentum, kernels.RMSRow, so that an update
	// reads and writes three arrays, not four), OptRowRMS (lazy too: Adam
	// without momentum and with one second moment per row,
	// kernels.RowRMSStep), OptSGD, or OptPercentDelta (the authors'
	// optimiser with the mean relative change taken over the rows a batch
	// touches). "" means OptAdam below DefaultBlockNodes nodes and
	// OptRMSProp (with negative blocks) from there; RMSProp ends level with
	// Adam on the released splits (table1-rmsprop.md). Both are invariant
	// to the scale of the objective, which varies with the graph's size
	// and degrees; RowRMS is too, and keeps one number per row where Adam
	// keeps two per element, so an update moves a third of the memory:
	// it trains faster when the parameters are far out of the cache
	// (benchmarks/results/kernels.md, large-rowrms.md) and ends within
	// 0.14 points of Adam's test AUC on the released splits
	// (table1-rowrms.md).
	Optimizer string `json:"optimizer"`
	// LR is the initial learning rate of L and R, decayed linearly to LR/10
	// over the run; 0 means 0.02 for Adam, RMSProp and RowRMS, 0.2 for SGD and
	// 0.02 for PercentDelta. With SGD and the paper formulation (a sum over N²
	// entries) the step is divided by N², which leaves the minimiser
	// unchanged.
	LR float64 `json:"lr"`
	// QLR is the learning rate of the attention logits q, which always use
	// Adam (their gradient's scale varies by orders of magnitude across
	// graphs and formulations); 0 means 0.005. It decays like LR.
	QLR float64 `json:"qlr"`
	// EvalEvery is the number of epochs between evaluations of the train
	// AUC (model selection) and test AUC; 0 means Epochs/20. An interval
	// of the run's length or more evaluates once, at its end.
	EvalEvery float64 `json:"eval_every_epochs"`
	// EvalPairs caps the pairs of each list used for the AUCs during
	// training (a seeded subsample); 0 means 200000. The final test AUC
	// uses every pair.
	EvalPairs int `json:"eval_pairs"`
	// Patience stops the run after this many evaluations without a better
	// train AUC; 0 means never stop early.
	Patience int `json:"patience"`
	// FixedQ, when not nil, fixes the context distribution (normalised to
	// sum 1, length Objective.Contexts()) instead of learning it:
	// DeepWalk's linear decay or GloVe's 1/k, for baselines.
	FixedQ []float64 `json:"fixed_q,omitempty"`
	// Seed drives every random choice. The same seed gives the same
	// embeddings for any number of workers. The zero Config's is 0;
	// wys-sparse's -seed defaults to 1.
	Seed uint64 `json:"seed"`
	// Workers bounds the goroutines; 0 means GOMAXPROCS.
	Workers int `json:"workers"`
	// MemoryLimit in bytes for the pre-flight check; 0 means 90% of the
	// machine's available memory when the run starts (see
	// pipeline.CheckMemory).
	MemoryLimit int64 `json:"memory_limit_bytes"`
	// Inputs records how the caller read the graph and drew its
	// evaluation pairs (a command's flags, such as test_fraction). A
	// checkpoint's fingerprint covers the graph and the pairs themselves,
	// so a resume with other inputs is refused either way; with Inputs
	// the refusal names them. Training does not read it.
	Inputs map[string]string `json:"inputs,omitempty"`
	// Source selects where positive pairs come from: SourceWalk ("" means
	// it), the walks' own step weights Q_k, or SourceFactored, the same
	// walks reweighted by the factored E[D] (see the package lowrank):
	// the pair (v, u) reached at any step carries
	// Σ_j Q_j (T^j)_vu / Σ_j (T^j)_vu and the q-gradient gets every
	// power's share, which is unbiased when the factored powers are
	// exact (the first two are) and lowers the variance of the
	// q-gradient. Its factorization iterates to convergence
	// (lowrank.SeriesOptions.Converged): the others are still truncated
	// at rank FactorRank, which on ca-HepTh leaves most of Σ_k T^k out
	// (benchmarks/results/lowrank-accuracy.md), so the weights are biased.
	Source string `json:"source"`
	// FactorRank is the rank r of the factorization that SourceFactored
	// and the spectral Start use; 0 means Dim/2.
	FactorRank int `json:"factor_rank"`
	// Start selects how L and R start. StartSpectral sets them from the
	// spectral factors of the transition-matrix series
	// (lowrank.Series.Spectral with uniform Q, rank FactorRank; its time
	// counts in the run's), each row scaled to unit length, so that every
	// score starts as the cosine of two nodes' rows. StartRandom draws
	// them uniform in ±0.1. "" means StartSpectral on a graph of at most
	// DefaultSpectralNodes nodes and at least FactorRank, StartRandom
	// otherwise (and always in the bucketed schedule, whose blocks never
	// hold the whole graph). At the default length the spectral start
	// ends 0.62 points higher on uk-2007-05@100000 (99.74 against 99.12),
	// 0.32 on soc-Slashdot0902 and 0.02 on email-Enron, ahead at every
	// point of the curve (benchmarks/results/large-warm-full.md), and on
	// web-NotreDame at 99.74 against 99.69, behind at first by the
	// factorization's 10 s (large-select.md, with today's model selection).
	// StartLogSVD, on graphs of at most DefaultLogSVDNodes nodes, sets
	// L = U√S and R = V√S from the rank-d/2 truncated SVD of
	// M_vu = log max(ρ_v·Σ_k Q_k (T^k)_vu, 1) at the starting Q, where
	// ρ_v is a positive entry's weight over a negative one's: the
	// objective's entrywise minimiser at a non-arc, clamped below at 0
	// as NetMF does. M is dense, N x N: O(N²) memory and
	// O(C·nnz·N + N²·d) time, which count in the run's. It starts near
	// the objective's minimum and wants a smaller LR than the default
	// (docs/results.md, "Log-SVD start").
	Start string `json:"start"`

	// Checkpoint, when not nil, is called between batches with the full
	// training state (see State) whenever CheckpointEvery has passed
	// since the last call, after the last batch, and when ctx is
	// cancelled (batches then run to their end, so the saved state is
	// consistent and a resumed run continues exactly where this one
	// stopped). The state's slices are the trainer's own: save them
	// before returning. An error stops the run.
	Checkpoint func(*State) error `json:"-"`
	// CheckpointEvery is the wall time between checkpoints; 0 means 5
	// minutes.
	CheckpointEvery time.Duration `json:"-"`
	// Resume, when not nil, continues a run from a saved state: with the
	// same graph, evaluation pairs and settings (checked through
	// Fingerprint), the result is bit-for-bit that of an uninterrupted
	// run.
	Resume *State `json:"-"`
}

// defaultEvalPairs is Config.EvalPairs' default.
const defaultEvalPairs = 200000

// MaxNegatives bounds Config.Negatives: beyond it a batch takes minutes
// for no measurable gain in variance.
const MaxNegatives = 1000

// MaxNegativeBlock bounds Config.NegativeBlock: a block's m² pairs all
// share 2m rows, so larger blocks only correlate the negatives more.
const MaxNegativeBlock = 256

// NegativePairs as Config.NegativeBlock draws each negative pair on its
// own, whatever the graph's size.
const NegativePairs = -1

// NegativesText describes how a resolved Config.NegativeBlock draws the
// negatives: "pair by pair" or "in blocks of m x m".
func NegativesText(block int) string {
	if block > 0 {
		return fmt.Sprintf("in blocks of %d x %d", block, block)
	}
	return "pair by pair"
}

// Defaults of large graphs: from DefaultBlockNodes nodes, the optimizer
// is OptRMSProp and, when it is, the negatives are drawn in blocks of
// DefaultNegativeBlock, unless set. There the parameters are far out of
// the cache, and blocks without momentum reach the test AUC of Adam pair
// by pair in about 0.6 of its time and are ahead of it at every equal
// time (benchmarks/results/large-blocks-rmsprop.md).
const (
	DefaultBlockNodes    = 100000
	DefaultNegativeBlock = 16
)

// Defaults of the run's length.
const (
	// DefaultWalksPerArc sets the default length of runs on small graphs
	// (see DefaultEpochs).
	DefaultWalksPerArc = 150
	// DefaultPairBudget caps the positive pairs of a default run (see
	// DefaultEpochs).
	DefaultPairBudget = 3e8
	// DefaultTolerance is the train AUC a doubling of the run must still
	// gain for a Converge run to go on.
	DefaultTolerance = 0.002
	// AnnealShare is the length of the final annealing phase of a
	// converged run, as a share of the run before it.
	AnnealShare = 0.25
	// MinEpochs is the shortest run the convergence rule and the pair
	// budget allow.
	MinEpochs = 10
)

// DefaultBatchWalks returns the default walks per minibatch for a graph
// of n nodes: 256, or about n/100 (a multiple of 64, at most 16384) on
// graphs of more than 25,600 nodes, so that an epoch is about 100 steps.
// A row of L or R then gets one Adam step from the summed gradient of
// several pairs instead of a full-sized step from each single noisy pair:
// at 10 epochs the test AUC on uk-2007-05@100000 rises from 95.5 (256
// walks) to 97.2 (1024), on web-NotreDame from 95.9 to 99.0 (3264),
// in no more time. The released splits (at most 8,638 nodes) keep 256.
func DefaultBatchWalks(n int) int {
	b := 64 * int(math.Round(float64(n)/6400))
	return min(max(256, b), 16384)
}

// DefaultEpochs returns the default number of epochs for a graph of n
// nodes and nnz arcs with k contexts per walk: max(400,
// DefaultWalksPerArc·nnz/n) (at least 400 walks per node and 150 per arc,
// so that denser graphs get longer runs: 463 epochs for ca-HepTh, ~1500
// for PPI, ~3300 for ego-Facebook, where the test AUC still rises),
// capped so that the run draws at most DefaultPairBudget positive pairs
// (k·n per epoch), but never below MinEpochs. The cap binds from about
// 75,000 nodes: 300 epochs on uk-2007-05@100000, 92 on web-NotreDame.
// Both parts are deterministic, so the ETA is known from the start.
func DefaultEpochs(n, nnz, k int) float64 {
	if n == 0 {
		return 400
	}
	e := math.Max(400, math.Ceil(DefaultWalksPerArc*float64(nnz)/float64(n)))
	budget := math.Floor(DefaultPairBudget / (float64(max(k, 1)) * float64(n)))
	return math.Max(MinEpochs, math.Min(e, budget))
}

// Resolve returns c with every zero field replaced by its default for a
// training graph of n nodes and nnz arcs: the configuration a run uses,
// and the one its report records. MemoryLimit stays as given (0 is
// resolved by the memory check when the run starts).
func (c Config) Resolve(n, nnz int) Config {
	c.Objective = c.Objective.Resolve()
	if c.Dim == 0 {
		c.Dim = 128
	}
	if c.Epochs == 0 {
		c.Epochs = DefaultEpochs(n, nnz, c.Objective.Contexts())
	}
	if c.Tolerance == 0 {
		c.Tolerance = DefaultTolerance
	}
	if c.BatchWalks == 0 {
		// A run shorter than a batch is one batch of its own walks, not
		// a whole default batch (3 nodes for 2 epochs: 6 walks, not 256).
		c.BatchWalks = int(min(float64(DefaultBatchWalks(n)), math.Max(1, math.Ceil(c.Epochs*float64(n)))))
	}
	if c.Negatives == 0 {
		c.Negatives = 1
	}
	if c.Optimizer == "" {
		c.Optimizer = OptAdam
		if n >= DefaultBlockNodes {
			c.Optimizer = OptRMSProp
		}
	}
	if c.NegativeBlock == 0 {
		c.NegativeBlock = NegativePairs
		if n >= DefaultBlockNodes && c.Optimizer == OptRMSProp {
			c.NegativeBlock = DefaultNegativeBlock
		}
	}
	if c.LR == 0 {
		c.LR = 0.02
		if c.Optimizer == OptSGD {
			c.LR = 0.2
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
	if c.Start == "" {
		c.Start = StartRandom
		if n <= DefaultSpectralNodes && c.FactorRank <= n {
			c.Start = StartSpectral
		}
	}
	if c.EvalEvery == 0 {
		c.EvalEvery = c.Epochs / 20
		if c.Converge {
			c.EvalEvery = min(c.Epochs/20, 1+math.Floor(math.Sqrt(float64(n)/1000)))
		}
	}
	if c.EvalPairs == 0 {
		c.EvalPairs = defaultEvalPairs
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.CheckpointEvery == 0 {
		c.CheckpointEvery = 5 * time.Minute
	}
	return c
}

// orList returns the names as "a, b or c".
func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// zeroOrPositive reports whether x is 0 (the default) or a positive finite
// number.
func zeroOrPositive(x float64) bool { return x == 0 || (x > 0 && !math.IsInf(x, 0)) }

// Validate reports a setting that cannot be used. It accepts the zero
// values (the defaults) and so runs on the configuration as given, before
// any input is read; errors name the field and the values it accepts.
func (c Config) Validate() error {
	if err := c.Objective.Validate(); err != nil {
		return err
	}
	bad := func(setting string, value any, want string) *pipeline.SettingError {
		return &pipeline.SettingError{Pkg: "train", Setting: setting, Value: value, Want: want}
	}
	switch {
	case c.Dim < 0 || c.Dim == 1 || c.Dim%2 != 0:
		return bad("dim", c.Dim, "want an even width of at least 2 (Y = [L | R], d/2 per side)")
	case !zeroOrPositive(c.Epochs):
		return bad("epochs", c.Epochs, "want a positive number (0: the default length)")
	case c.BatchWalks < 0:
		return bad("batch_walks", c.BatchWalks, "want at least 1 walk per minibatch (0: the default)")
	case c.NegativeBlock < NegativePairs || c.NegativeBlock > MaxNegativeBlock:
		return bad("negative_block", c.NegativeBlock, fmt.Sprintf("want 1 to %d rows per side, %d (pairs drawn one by one) or 0 (the default)", MaxNegativeBlock, NegativePairs))
	case c.Negatives < 0 || c.Negatives > MaxNegatives:
		return bad("negatives", c.Negatives, fmt.Sprintf("want 1 to %d per positive pair (the estimator is unbiased with any number, more only lower its variance)", MaxNegatives))
	case c.Optimizer != "" && !slices.Contains(optimizers, c.Optimizer):
		return bad("optimizer", c.Optimizer, "want "+orList(optimizers))
	case !zeroOrPositive(c.LR):
		return bad("lr", c.LR, "want a positive learning rate (0: the optimizer's default)")
	case !zeroOrPositive(c.QLR):
		return bad("qlr", c.QLR, "want a positive learning rate for q (0: 0.005)")
	case c.Source != "" && c.Source != SourceWalk && c.Source != SourceFactored:
		return bad("source", c.Source, fmt.Sprintf("want %s (positives weighted by the walk steps, the default) or %s (by the factored E[D])", SourceWalk, SourceFactored))
	case c.Start != "" && c.Start != StartSpectral && c.Start != StartRandom && c.Start != StartLogSVD:
		return bad("start", c.Start, fmt.Sprintf("want %s (L and R from the spectral factors), %s (uniform noise) or %s (the SVD of the objective's log minimiser)", StartSpectral, StartRandom, StartLogSVD))
	case c.FactorRank < 0:
		return bad("factor_rank", c.FactorRank, "want a rank of at least 1 (0: d/2)")
	case !zeroOrPositive(c.Tolerance) || c.Tolerance >= 1:
		return bad("tolerance", c.Tolerance, fmt.Sprintf("want a positive train-AUC gain below 1, a fraction of the AUC (%v is %v points; 0: that default)", DefaultTolerance, 100*DefaultTolerance))
	case c.TimeBudget < 0:
		return bad("time_budget_ns", c.TimeBudget, "want a positive duration (0: none)")
	case !(c.Average >= 0 && c.Average <= 1):
		return bad("average", c.Average, "want the share of the run to average over, from 0 (off) to 1")
	case c.Average > 0 && (c.Converge || c.TimeBudget > 0):
		err := bad("average", c.Average, "averaging needs a run of known length, which the convergence rule and the time budget end early; drop one of them")
		if c.Converge {
			err.With = append(err.With, "converge")
		}
		if c.TimeBudget > 0 {
			err.With = append(err.With, "time_budget_ns")
		}
		return err
	case !zeroOrPositive(c.EvalEvery):
		return bad("eval_every_epochs", c.EvalEvery, "want a positive number of epochs (0: a twentieth of the run)")
	case c.EvalPairs < 0:
		return bad("eval_pairs", c.EvalPairs, "want a positive number of pairs (0: the default)")
	case c.Patience < 0:
		return bad("patience", c.Patience, "want a number of evaluations (0: never stop early)")
	case c.Workers < 0:
		return bad("workers", c.Workers, "want at least 1 (0: all cores)")
	case c.MemoryLimit < 0:
		return bad("memory_limit_bytes", c.MemoryLimit, "want a positive limit (0: 90% of the available memory)")
	case c.CheckpointEvery < 0:
		return bad("checkpoint_every", c.CheckpointEvery, "want a positive duration (0: 5 minutes)")
	}
	if c.FixedQ != nil {
		want := c.Objective.Contexts()
		if len(c.FixedQ) != want {
			return bad("fixed_q", c.FixedQ, fmt.Sprintf("has %d entries, want %d (C = %d and the extra context types)", len(c.FixedQ), want, c.Objective.Resolve().C))
		}
		var s float64
		for _, x := range c.FixedQ {
			if !(x >= 0) || math.IsInf(x, 0) {
				return bad("fixed_q", c.FixedQ, fmt.Sprintf("entry %v is not a non-negative number", x))
			}
			s += x
		}
		if s == 0 {
			return bad("fixed_q", c.FixedQ, "sums to 0; want a positive weight somewhere")
		}
	}
	return nil
}

// EstimateMemory returns the bytes the sparse trainer needs for a graph of
// n nodes and nnz arcs with evalPairs evaluation pairs under the resolved
// configuration: parameters, optimiser moments and the best snapshot (8
// float32 matrices of n x d/2; 6 with RMSProp; 4 and two n-vectors with
// RowRMS; 2 more
// for the running means of Average), the gradient buffers (with
// PercentDelta two more such matrices and row stamps, otherwise the
// compact buffers of the rows a batch touches), the graph, the sampler's
// tables, the evaluation pairs, and the dense target of the log-SVD start
// (4·n² bytes) when a run that is not resumed uses it.
func (c Config) EstimateMemory(n, nnz, evalPairs int) int64 {
	d := c.Resolve(n, nnz)
	half := int64(d.Dim / 2)
	b := 8 * int64(n) * half * 4
	switch d.Optimizer {
	case OptRowRMS:
		b = 4*int64(n)*half*4 + 2*int64(n)*4
	case OptRMSProp:
		b = 6 * int64(n) * half * 4
	}
	if d.Optimizer == OptPercentDelta {
		b += 2*int64(n)*half*4 + int64(n)*8
	} else {
		pairs := int64(d.BatchWalks) * int64(d.Objective.Contexts()) * int64(1+d.Negatives)
		b += 2 * min(pairs, int64(n)) * half * 4
	}
	if d.Average > 0 {
		b += 2 * int64(n) * half * 4 // the running means of L and R
	}
	b += int64(n)*8*2 + int64(nnz)*12 // CSR
	b += int64(nnz)*8 + int64(n)*8    // weighted sampler tables (upper bound)
	b += int64(evalPairs) * 16
	if d.Objective.AdamicAdar {
		b += int64(nnz)*8 + int64(n)*8 // Adamic–Adar sampling table
	}
	if d.Source == SourceFactored || d.Start == StartSpectral {
		// The factors (n x r float64, and for a directed graph V and the
		// C precomputed V·core_kᵀ), the transpose of T and the sketch:
		// four n x (r + 10) blocks for the randomized factorization, nine
		// for the converged one of the factored source (TopEigSym's block,
		// its product, the filter's three, the Ritz vectors, and the two
		// ends' U and their merge; TopSVD's U, V and Gram blocks fit too).
		r := int64(d.FactorRank + 10)
		blocks := int64(4)
		if d.Source == SourceFactored {
			blocks = 9
			b += int64(d.Objective.C) * int64(n) * int64(d.FactorRank) * 8
		}
		b += int64(n)*r*8*blocks + int64(nnz)*12
	}
	if d.Start == StartLogSVD && d.Resume == nil {
		b += logSVDBytes(n, d.Dim/2)
	}
	return b + d.batchBytes()
}

// logSVDBytes is the memory of the log-SVD start on n nodes at rank
// half: the float32 target, three float64 column blocks of 256, and the
// SVD's bases, sketch and transposed blocks.
func logSVDBytes(n, half int) int64 {
	r := int64(half + 10)
	return int64(n)*int64(n)*4 + 3*int64(n)*256*8 + int64(n)*r*(8*3+4)
}

// batchBytes is the memory of one batch's pairs under the resolved
// configuration c: each pair and its coefficient, its two copies
// bucketed by row block and their two sort keys.
func (c Config) batchBytes() int64 {
	pairs := int64(c.BatchWalks) * int64(c.Objective.Contexts()) * int64(1+c.Negatives)
	b := pairs * (12*3 + 8*2)
	if m := int64(c.NegativeBlock); m > 0 {
		// Each block's 2m summed row gradients (d/2 float32 each) and
		// their references, for at least Negatives pairs per positive.
		blocks := (int64(c.BatchWalks)*int64(c.Objective.Contexts())*int64(c.Negatives) + m*m - 1) / (m * m)
		b += blocks * 2 * m * (int64(c.Dim/2)*4 + 12*2)
	}
	return b
}
