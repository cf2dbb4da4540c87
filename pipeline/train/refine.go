package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/wys-project/wys/internal/sysmem"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/reference"
)

// RefineConfig controls Refine. The zero value takes no step.
type RefineConfig struct {
	// Steps is the number of exact full-batch steps.
	Steps int `json:"steps"`
	// LR is their Adam rate; 0 means DefaultRefineLR.
	LR float64 `json:"lr"`
	// EvalEvery is the number of steps between evaluations; 0 means 5.
	// The last step is always evaluated.
	EvalEvery int `json:"eval_every_steps"`
	// Workers bounds the goroutines; 0 means GOMAXPROCS.
	Workers int `json:"-"`
	// MemoryLimit in bytes; 0 means 90% of the available memory.
	MemoryLimit int64 `json:"-"`
	// Seed draws the pairs that measure the fit of a run without train
	// pairs (FitPairs), as Run's with the same seed.
	Seed uint64 `json:"-"`
}

// DefaultRefineLR is RefineConfig.LR's default, the dense reference's
// Adam rate. Adam's first steps move every coordinate by about the rate;
// from the log-SVD start on ego-Facebook and PPI 0.05 reaches the dense
// reference sooner (docs/results.md, "Exact refinement").
const DefaultRefineLR = 0.01

// MaxRefineNodes bounds the graphs Refine takes: its E[D] and scores are
// dense N x N (2·4·N² bytes, 8 GiB here) and a step costs N²·d
// multiply-adds.
const MaxRefineNodes = DefaultLogSVDNodes

// Resolve returns c with every zero field but Steps replaced by its
// default.
func (c RefineConfig) Resolve() RefineConfig {
	if c.LR == 0 {
		c.LR = DefaultRefineLR
	}
	if c.EvalEvery == 0 {
		c.EvalEvery = 5
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	return c
}

// Validate reports a configuration that cannot be used.
func (c RefineConfig) Validate() error {
	bad := func(setting string, value any, want string) error {
		return &pipeline.SettingError{Pkg: "train", Setting: "refine." + setting, Value: value, Want: want}
	}
	switch {
	case c.Steps < 0:
		return bad("steps", c.Steps, "want 0 (no refinement) or more exact steps")
	case c.LR < 0 || math.IsNaN(c.LR) || math.IsInf(c.LR, 0):
		return bad("lr", c.LR, fmt.Sprintf("want a positive learning rate (0: %v)", DefaultRefineLR))
	case c.EvalEvery < 0:
		return bad("eval_every_steps", c.EvalEvery, "want 0 (every 5 steps) or more")
	case c.MemoryLimit < 0:
		return bad("memory_limit_bytes", c.MemoryLimit, "want 0 (90% of the available memory) or a positive limit")
	}
	return nil
}

// CheckRefine refuses, before a run, a refinement that could not take
// place on g: a graph of more than MaxRefineNodes nodes, or one whose
// dense matrices (reference.RefineBytes) do not fit cfg.MemoryLimit.
func CheckRefine(g *pipeline.Graph, obj pipeline.ObjectiveConfig, cfg RefineConfig) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.Steps == 0 {
		return nil
	}
	n := g.N()
	if n > MaxRefineNodes {
		return fmt.Errorf("train: %w: the exact refinement holds dense %d x %d matrices; it takes graphs of at most %d nodes (drop the refinement steps)", pipeline.ErrTooLarge, n, n, MaxRefineNodes)
	}
	return reference.CheckRefineMemory(n, obj, cfg.MemoryLimit)
}

// ErrNoQ is returned by Refine for a result without a context
// distribution Q (a baseline's).
var ErrNoQ = errors.New("train: the result has no context distribution Q to refine at")

// Refine continues a trained model res (the sparse trainer's or the
// dense reference's, on g under the objective obj it was trained with)
// by cfg.Steps exact full-batch Adam steps on L and R at its Q (learned
// or fixed), which stays fixed (reference.Refiner): the minibatch
// gradient samples E[D]'s rows, and on graphs where they are dense its
// noise is thousands of times the gradient's remaining signal once the
// easy part is fitted (docs/results.md, "Where the ego-Facebook gap
// sits"); exact steps keep descending there. The steps cost O(N²·d) time
// and O(N²) memory each, so Refine takes graphs of at most MaxRefineNodes
// nodes.
//
// res is updated in place: L and R become the refined ones (the last
// step's: no model selection; a Note says when its selection AUC is below
// the starting model's, as after too large a rate), every EvalEvery steps
// a curve point is appended (Step and Elapsed continue the run's; Epoch
// stays at its last value, the steps drawing no walks; Loss is the exact
// objective; TrainAUC is on eval.Selection(), or NaN with the fit on
// FitPairs in its place, as Run's, when eval has none), the stages
// "refine-setup" (E[D]) and "refine" (the steps) are timed,
// Stats.RefineSteps counts the steps, and the AUCs are scored again on
// eval (which may be nil). When ctx is cancelled it stops (between the
// setup's products, within a step between its GEMM panels and row
// blocks, or while scoring) and returns ctx.Err(), leaving res as it was.
func Refine(ctx context.Context, g *pipeline.Graph, eval *pipeline.Split, obj pipeline.ObjectiveConfig, res *pipeline.Result, cfg RefineConfig, rec pipeline.Recorder) error {
	if err := CheckRefine(g, obj, cfg); err != nil || cfg.Steps == 0 {
		return err
	}
	obj = obj.Resolve()
	if res == nil || res.Q == nil {
		return ErrNoQ
	}
	if n := g.N(); res.Half < 1 || len(res.L) != n*res.Half || len(res.R) != n*res.Half {
		return fmt.Errorf("train: Refine: L of %d and R of %d values at d/2 = %d, want %d rows each (the result of another graph?)", len(res.L), len(res.R), res.Half, n)
	}
	cfg = cfg.Resolve()
	if rec == nil {
		rec = pipeline.NopRecorder{}
	}
	if eval == nil {
		eval = &pipeline.Split{}
	}
	start := time.Now()
	// The run's clock: its training time, then the refinement's.
	base := res.Stats.Stage("train")
	var last pipeline.CurvePoint
	if n := len(res.Curve); n > 0 {
		last = res.Curve[n-1]
		base = max(base, last.Elapsed)
	}
	f, err := newRefiner(ctx, g, obj, res.Q, cfg, rec)
	if err != nil {
		return err
	}
	setup := time.Since(start)
	rec.Record(pipeline.Event{Kind: pipeline.StageStart, Stage: "refine", Total: int64(cfg.Steps), Unit: "steps",
		Message: fmt.Sprintf("%d exact full-batch step%s on L and R at the run's Q, held fixed (dense %d x %d)", cfg.Steps, map[bool]string{true: "s"}[cfg.Steps != 1], g.N(), g.N())})
	stepStart := time.Now()
	l, r := append([]float32(nil), res.L...), append([]float32(nil), res.R...)
	selPos, selNeg, selName := refinePairs(g, eval, cfg.Seed)
	startSel := pipeline.PairAUC(l, r, res.Half, selPos, selNeg)
	qreg := qPenalty(obj, res.QLogits)
	var curve []pipeline.CurvePoint
	for s := 1; s <= cfg.Steps; s++ {
		evalStep := s%cfg.EvalEvery == 0 || s == cfg.Steps
		loss, err := f.Step(ctx, l, r, res.Half, cfg.LR, evalStep)
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, pipeline.ErrNotFinite) {
			return fmt.Errorf("train: refinement step %d: %w (lower the refinement's learning rate)", s, err)
		}
		if err != nil {
			return fmt.Errorf("train: refinement step %d: %w", s, err)
		}
		if !evalStep {
			rec.Record(pipeline.Event{Kind: pipeline.Progress, Stage: "refine", Done: int64(s), Total: int64(cfg.Steps), Unit: "steps", Elapsed: time.Since(stepStart)})
			continue
		}
		pt := pipeline.CurvePoint{Step: last.Step + s, Epoch: last.Epoch, Loss: loss + qreg, Q: res.Q, Elapsed: base + time.Since(start),
			TrainAUC: pipeline.PairAUC(l, r, res.Half, selPos, selNeg),
			TestAUC:  pipeline.PairAUC(l, r, res.Half, eval.Test, eval.TestNeg)}
		curve = append(curve, pt)
		rec.Record(pipeline.Event{Kind: pipeline.Eval, Stage: "refine", Done: int64(s), Total: int64(cfg.Steps), Unit: "steps", Point: &pt, Elapsed: time.Since(stepStart)})
	}
	// Scored on a copy, so that a cancel while scoring leaves res as it was.
	scored := *res
	scored.L, scored.R = l, r
	if err := scored.Score(ctx, eval); err != nil {
		return err
	}
	keepRefined(res, &scored, cfg.Steps, curve, startSel, setup, time.Since(stepStart))
	rec.Record(pipeline.Event{Kind: pipeline.StageEnd, Stage: "refine", Elapsed: time.Since(stepStart)})
	if note := LoweredNote(curve, startSel, selName); note != "" {
		rec.Record(pipeline.Event{Kind: pipeline.Note, Stage: "refine", Message: note})
	}
	res.Stats.PeakRSS = sysmem.PeakRSS()
	return res.CheckFinite()
}

// qPenalty is the regulariser of the attention logits q: β·mean(q²) in
// the code formulation, β‖q‖² in the paper's; 0 for a fixed Q (q nil).
func qPenalty(obj pipeline.ObjectiveConfig, q []float64) float64 {
	var s float64
	for _, x := range q {
		s += x * x
	}
	s *= obj.BetaWeight()
	if obj.Formulation != pipeline.FormulationPaper && len(q) > 0 {
		s /= float64(len(q))
	}
	return s
}

// keepRefined makes res the refined model scored (its L, R and AUCs),
// with the refinement's number of steps, its curve points, its starting
// AUC from, and its stages' times.
func keepRefined(res, scored *pipeline.Result, steps int, curve []pipeline.CurvePoint, from float64, setup, took time.Duration) {
	copy(res.L, scored.L)
	copy(res.R, scored.R)
	res.TrainAUC, res.TestAUC, res.TestDirectedAUC = scored.TrainAUC, scored.TestAUC, scored.TestDirectedAUC
	res.Curve = append(res.Curve, curve...)
	res.Stats.RefineSteps, res.Stats.RefineFromAUC = steps, from
	res.Stats.Stages = append(res.Stats.Stages, pipeline.StageTime{Name: "refine-setup", Duration: setup},
		pipeline.StageTime{Name: "refine", Duration: took})
}

// refinePairs returns the pairs that Refine's points score as TrainAUC
// and their name: eval's selection pairs, or FitPairs without them.
func refinePairs(g *pipeline.Graph, eval *pipeline.Split, seed uint64) (pos, neg []pipeline.Pair, name string) {
	if pos, neg = eval.Selection(); len(pos) > 0 && len(neg) > 0 {
		return pos, neg, "selection AUC"
	}
	pos, neg = FitPairs(g, defaultEvalPairs, seed)
	return pos, neg, "fit to the graph's own arcs"
}

// LoweredNote returns a note when the refinement's last point (of
// curve, its points) scores below before, the AUC (named what) of the
// model it started from, by at least loweredBy, and "" otherwise.
// Refine keeps its last step's model: the note says what may help, a
// smaller rate when the exact objective rose over the points, fewer
// steps when it fell while the AUC did.
func LoweredNote(curve []pipeline.CurvePoint, before float64, what string) string {
	n := len(curve)
	if n == 0 || !(curve[n-1].TrainAUC <= before-loweredBy) {
		return ""
	}
	help := "fewer refinement steps may help: the exact objective fell while the AUC did"
	if curve[n-1].Loss > curve[0].Loss || n == 1 {
		help = "a smaller refinement rate may help"
		if n > 1 {
			help += ": the exact objective rose"
		}
	}
	return fmt.Sprintf("the refinement lowered the %s from %.4f to %.4f; its last step's model is the result (%s)", what, before, curve[n-1].TrainAUC, help)
}

// loweredBy is the least fall of the selection AUC that LoweredNote
// reports: a unit of the fourth decimal, which the notes print.
const loweredBy = 1e-4

// newRefiner builds the Refiner of Refine as its stage "refine-setup"
// (E[D], C − 1 sparse products, and the extra context types').
func newRefiner(ctx context.Context, g *pipeline.Graph, obj pipeline.ObjectiveConfig, Q []float64, cfg RefineConfig, rec pipeline.Recorder) (*reference.Refiner, error) {
	what := fmt.Sprintf("%d sparse products", obj.C-1)
	if extra := obj.ContextNames()[obj.C:]; len(extra) > 0 {
		what += ", then " + strings.Join(extra, " and ")
	}
	rec.Record(pipeline.Event{Kind: pipeline.StageStart, Stage: "refine-setup",
		Message: fmt.Sprintf("E[D] = Σ_k Q_k T^k at the run's Q, dense %d x %d (%s)", g.N(), g.N(), what)})
	start := time.Now()
	// A dense reference just run left its C+1 matrices to the collector:
	// return them before allocating two more.
	runtime.GC()
	f, err := reference.NewRefiner(ctx, g.Adj, obj, Q, cfg.Workers, cfg.MemoryLimit)
	if err == nil {
		rec.Record(pipeline.Event{Kind: pipeline.StageEnd, Stage: "refine-setup", Elapsed: time.Since(start)})
	}
	return f, err
}
