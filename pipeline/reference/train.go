package reference

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/internal/sysmem"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// Config controls Run. The zero value means the paper's Table 1 setting
// in the authors' numerics: code formulation, C = 10, β = 0.5, d = 128
// (64 per side), 300 PercentDelta steps at rate 0.2, evaluation every 4
// steps.
type Config struct {
	// Objective selects the formulation, C, β and walks per node.
	Objective pipeline.ObjectiveConfig `json:"objective"`
	// Dim is the embedding width d of Y = [L | R] (each side d/2); 0 means 128.
	Dim int `json:"dim"`
	// Steps is the number of full-batch steps; 0 means 300.
	Steps int `json:"steps"`
	// Optimizer is PercentDelta ("" means it) or Adam.
	Optimizer string `json:"optimizer"`
	// LR is the learning rate; 0 means 0.2 for PercentDelta, 0.01 for Adam.
	LR float64 `json:"lr"`
	// EvalEvery is the number of steps between evaluations; 0 means 4.
	EvalEvery int `json:"eval_every_steps"`
	// Seed drives the initialisation L, R ~ U(−0.1, 0.1).
	Seed uint64 `json:"seed"`
	// Workers bounds the goroutines; 0 means GOMAXPROCS.
	Workers int `json:"workers"`
	// MemoryLimit in bytes; 0 means 90% of the machine's available memory
	// (MemAvailable in /proc/meminfo; no limit where that is unknown).
	MemoryLimit int64 `json:"memory_limit_bytes"`
	// Patience stops training when this many steps have passed since the
	// best train AUC, as the authors' code does with 100; 0 means never
	// stop early.
	Patience int `json:"patience"`
}

// Resolve returns c with every zero field replaced by its default: the
// configuration a run uses and its report records. It is the only place
// the dense reference's defaults live.
func (c Config) Resolve() Config {
	c.Objective = c.Objective.Resolve()
	if c.Dim == 0 {
		c.Dim = 128
	}
	if c.Steps == 0 {
		c.Steps = 300
	}
	if c.Optimizer == "" {
		c.Optimizer = PercentDelta
	}
	if c.LR == 0 {
		c.LR = DefaultPercentDeltaLR
		if c.Optimizer == Adam {
			c.LR = DefaultAdamLR
		}
	}
	if c.EvalEvery == 0 {
		c.EvalEvery = 4
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	return c
}

// Validate reports a configuration that cannot be used.
func (c Config) Validate() error {
	if err := c.Objective.Validate(); err != nil {
		return err
	}
	c = c.Resolve()
	bad := func(setting string, value any, want string) error {
		return &pipeline.SettingError{Pkg: "reference", Setting: setting, Value: value, Want: want}
	}
	switch {
	case c.Dim < 2 || c.Dim%2 != 0:
		return bad("dim", c.Dim, "want an even width of at least 2 (d/2 per side)")
	case c.Steps < 1:
		return bad("steps", c.Steps, "want at least 1 full-batch step")
	case c.Optimizer != PercentDelta && c.Optimizer != Adam:
		return bad("optimizer", c.Optimizer, fmt.Sprintf("want %s or %s", PercentDelta, Adam))
	case !(c.LR > 0) || math.IsInf(c.LR, 0):
		return bad("lr", c.LR, "want a positive learning rate (0: the optimizer's default)")
	case c.EvalEvery < 1:
		return bad("eval_every_steps", c.EvalEvery, "want at least 1 step between evaluations")
	case c.Patience < 0:
		return bad("patience", c.Patience, "want 0 (never stop early) or more steps")
	case c.MemoryLimit < 0:
		return bad("memory_limit_bytes", c.MemoryLimit, "want 0 (90% of the available memory) or a positive limit")
	}
	return nil
}

// CheckMemory estimates the bytes a dense float32 model of n nodes under
// cfg needs (BytesNeeded plus the embeddings, gradients and optimiser
// state) and returns the estimate, with an error wrapping pipeline.ErrMemory
// that names the estimate and the limit when it is above
// cfg.MemoryLimit (0: 90% of MemAvailable).
func CheckMemory(n int, cfg Config) (int64, error) {
	cfg = cfg.Resolve()
	need := BytesNeeded(n, matrices(cfg.Objective), 4) + int64(n)*int64(cfg.Dim)*4*8
	return need, checkLimit(need, cfg.MemoryLimit, fmt.Sprintf("%d nodes with C = %d", n, cfg.Objective.C), cfg.Objective.C)
}

// matrices returns the number of dense n x n context matrices a model
// holds at its peak besides the score matrix: one per attention entry,
// plus the identity and the two iterates used while the extra context
// types are built.
func matrices(obj pipeline.ObjectiveConfig) int {
	obj = obj.Resolve()
	c := obj.Contexts()
	if c > obj.C {
		c += 3
	}
	return c
}

// checkLimit returns an error wrapping pipeline.ErrMemory when need is
// above limit (0: 90% of the available memory, unlimited where unknown);
// c is the number of powers, which the fix offers to lower above 1.
func checkLimit(need, limit int64, what string, c int) error {
	fix := "use the sparse trainer (it needs O(|E| + N·d) memory)"
	if c > 1 {
		fix += " or lower C"
	}
	_, err := pipeline.CheckMemory(need, limit, "the dense matrices of "+what, fix)
	return err
}

// Run trains the dense reference on g:
// full-batch steps on the exact objective; every EvalEvery steps it
// measures the train AUC (split.Selection(): Train against TrainNeg, or the
// validation pairs) and the test AUC, and it
// returns the embeddings, Q and test AUC of the step with the best train
// AUC (the last step when the split has no train negatives).
// split, which may be nil, supplies only the evaluation pairs (without
// train pairs, the last step is kept); pairs naming rows outside g are an
// error wrapping pipeline.ErrUnknownNode.
//
// It is longer than 80 lines because the full-batch loop, evaluation and
// model selection read as one algorithm, as in the authors' code.
func Run(ctx context.Context, g *pipeline.Graph, split *pipeline.Split, cfg Config, rec pipeline.Recorder) (*pipeline.Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.Resolve()
	if rec == nil {
		rec = pipeline.NopRecorder{}
	}
	if split == nil {
		split = &pipeline.Split{}
	}
	if err := pipeline.CheckGraph(g); err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	if err := split.CheckGraph(g); err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	n := g.N()
	need, err := CheckMemory(n, cfg)
	if err != nil {
		return nil, err
	}
	res := &pipeline.Result{Method: "dense", N: n, Half: cfg.Dim / 2,
		TrainAUC: math.NaN(), TestAUC: math.NaN(), TestDirectedAUC: math.NaN()}
	res.Stats.EstimatedBytes = need

	rec.Record(pipeline.Event{Kind: pipeline.StageStart, Stage: "powers", Message: fmt.Sprintf("dense E[D]: %d x %d, C = %d", n, n, cfg.Objective.C)})
	t0 := time.Now()
	m, err := newModel[float32](ctx, g.Adj, cfg.Objective, cfg.Workers)
	if err != nil {
		return nil, err
	}
	res.Stats.Stages = append(res.Stats.Stages, pipeline.StageTime{Name: "powers", Duration: time.Since(t0)})
	rec.Record(pipeline.Event{Kind: pipeline.StageEnd, Stage: "powers", Elapsed: time.Since(t0)})

	half := cfg.Dim / 2
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x696e6974)) // stream "init"
	l := make([]float32, n*half)
	r := make([]float32, n*half)
	for i := range l {
		l[i] = float32(rng.Float64()*0.2 - 0.1)
	}
	for i := range r {
		r[i] = float32(rng.Float64()*0.2 - 0.1)
	}
	q := make([]float64, m.c)
	for i := range q {
		q[i] = 1
	}
	var adamL, adamR, adamQ adamState
	bestTrain := math.Inf(-1)
	selPos, selNeg := split.Selection()

	rec.Record(pipeline.Event{Kind: pipeline.StageStart, Stage: "train", Total: int64(cfg.Steps), Unit: "steps"})
	t1 := time.Now()
	for step := 1; step <= cfg.Steps; step++ {
		evalStep := step%cfg.EvalEvery == 0 || step == cfg.Steps
		val, err := m.evaluateLoss(ctx, l, r, half, q, evalStep)
		if errors.Is(err, pipeline.ErrNotFinite) && step > 1 {
			// Finite at the start, not after the steps: they diverged.
			return nil, fmt.Errorf("reference: step %d: %w (lower the learning rate)", step, err)
		}
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err() // a cancellation is the context's error, unchanged
		}
		if err != nil {
			return nil, fmt.Errorf("reference: step %d: %w", step, err)
		}
		switch cfg.Optimizer {
		case PercentDelta:
			decay := 1 - 0.99*float64(step-1)/float64(cfg.Steps)
			percentDelta(l, val.gl, cfg.LR, decay)
			percentDelta(r, val.gr, cfg.LR, decay)
			percentDelta(q, val.gq, cfg.LR, decay)
		case Adam:
			adamT(&adamL, l, val.gl, cfg.LR)
			adamT(&adamR, r, val.gr, cfg.LR)
			adamQ.step(q, val.gq, cfg.LR)
		}
		if evalStep {
			pt := pipeline.CurvePoint{Step: step, Epoch: float64(step), Loss: val.loss,
				TrainAUC: pipeline.PairAUC(l, r, half, selPos, selNeg),
				TestAUC:  pipeline.PairAUC(l, r, half, split.Test, split.TestNeg),
				Q:        pipeline.Softmax(q), Elapsed: time.Since(t1)}
			res.Curve = append(res.Curve, pt)
			rec.Record(pipeline.Event{Kind: pipeline.Eval, Stage: "train", Done: int64(step), Total: int64(cfg.Steps), Unit: "steps", Point: &pt, Elapsed: time.Since(t1)})
			better := pt.TrainAUC > bestTrain || (math.IsNaN(pt.TrainAUC) && step == cfg.Steps)
			if better {
				if !math.IsNaN(pt.TrainAUC) {
					bestTrain = pt.TrainAUC
				}
				res.BestStep = step
				res.L, res.R = slices.Clone(l), slices.Clone(r)
				res.Q, res.QLogits = pt.Q, slices.Clone(q)
				res.TrainAUC, res.TestAUC = pt.TrainAUC, pt.TestAUC
				res.TestDirectedAUC = pipeline.PairAUC(l, r, half, split.Test, split.TestDirectedNeg)
			}
		} else {
			rec.Record(pipeline.Event{Kind: pipeline.Progress, Stage: "train", Done: int64(step), Total: int64(cfg.Steps), Unit: "steps", Elapsed: time.Since(t1)})
		}
		if cfg.Patience > 0 && res.BestStep > 0 && step-res.BestStep >= cfg.Patience && step < cfg.Steps {
			rec.Record(pipeline.Event{Kind: pipeline.Note, Stage: "train", Message: fmt.Sprintf("no better train AUC for %d steps since step %d: stopping at step %d", step-res.BestStep, res.BestStep, step)})
			break
		}
	}
	res.Stats.Stages = append(res.Stats.Stages, pipeline.StageTime{Name: "train", Duration: time.Since(t1)})
	rec.Record(pipeline.Event{Kind: pipeline.StageEnd, Stage: "train", Elapsed: time.Since(t1)})
	res.Stats.PeakRSS = sysmem.PeakRSS()
	return res, nil
}

// Value is an exact evaluation of the objective, in float64.
type Value struct {
	// Loss = Positive + Negative + Regularizer.
	Loss float64
	// Positive is the −E[D]∘log σ(LRᵀ) term and Negative the
	// −1[A=0]∘log(1−σ(LRᵀ)) term over all N² entries (v, u), the diagonal
	// included, each aggregated as the formulation says: code, the mean
	// over N² entries with log(σ+1e-5) and log(1−σ+1e-5) and
	// E[D] = 80·N·diag(deg)·Σ_k Q_k T^k; paper, the sum with exact logs and
	// E[D] = 80·Σ_k Q_k T^k. (80 is obj.WalksPerNode, deg the row sums of
	// adj, T = D⁻¹A with zero rows for nodes without out-arcs.) With the
	// extra context types of obj (PPR, Adamic–Adar), their matrices join
	// the sum after T^C, each with its own entry of Q.
	Positive, Negative float64
	// Regularizer: code β·mean(q²) + 1e-6·(mean(L²) + mean(R²)), where the
	// means run over the obj.Contexts() entries of q and the N·d/2 entries of L and of
	// R; paper β‖q‖². β is obj.BetaWeight() after Resolve.
	Regularizer float64
	// GradL, GradR (N x d/2) and GradQ (obj.Contexts()) are the gradients of Loss.
	GradL, GradR *mat.Dense
	GradQ        []float64
}

// Evaluate returns the exact objective of the WYS model (L, R, q) on the
// graph adj under obj, and its gradients with respect to L, R and q, in
// float64: the full batch of N² entries, T^k from sparse x dense products,
// no sampling, with every term listed in Value. adj is used as given (an
// undirected graph must hold both arcs); L and R are N x d/2, q has
// obj.Contexts() logits (Q = softmax(q)); none is modified. It is the oracle for the
// scalable trainer's tests.
//
// Memory is (C+1)·N² float64s; Evaluate returns an error wrapping
// pipeline.ErrMemory, with the estimate and the limit (90% of MemAvailable),
// instead of allocating more. Mismatched shapes (a non-square adj, L or
// R not N x d/2, q not of obj.Contexts() entries) are an error wrapping
// mat.ErrShape that names them.
func Evaluate(ctx context.Context, adj *sparse.CSR, obj pipeline.ObjectiveConfig, l, r *mat.Dense, q []float64) (*Value, error) {
	n, cols := adj.Dims()
	ln, half := l.Dims()
	rn, rh := r.Dims()
	if n != cols || ln != n || rn != n || rh != half {
		return nil, fmt.Errorf("reference: Evaluate: adj %d x %d, L %d x %d, R %d x %d; want adj square and L, R both N x d/2: %w", n, cols, ln, half, rn, rh, mat.ErrShape)
	}
	if err := obj.Validate(); err != nil {
		return nil, err
	}
	obj = obj.Resolve()
	if len(q) != obj.Contexts() {
		return nil, fmt.Errorf("reference: Evaluate: %d attention logits, want %d (C and the extra context types): %w", len(q), obj.Contexts(), mat.ErrShape)
	}
	need := BytesNeeded(n, matrices(obj), 8) + 4*int64(n)*int64(half)*8
	if err := checkLimit(need, 0, fmt.Sprintf("Evaluate: %d nodes with C = %d", n, obj.C), obj.C); err != nil {
		return nil, err
	}
	m, err := newModel[float64](ctx, adj, obj, 0)
	if err != nil {
		return nil, err
	}
	flat := func(a *mat.Dense) []float64 {
		out := make([]float64, n*half)
		for i := 0; i < n; i++ {
			for j := 0; j < half; j++ {
				out[i*half+j] = a.At(i, j)
			}
		}
		return out
	}
	val, err := m.evaluate(ctx, flat(l), flat(r), half, q)
	if err != nil {
		return nil, err
	}
	return &Value{Loss: val.loss, Positive: val.positive, Negative: val.negative, Regularizer: val.regularise,
		GradL: mat.NewDense(n, half, val.gl), GradR: mat.NewDense(n, half, val.gr), GradQ: val.gq}, nil
}
