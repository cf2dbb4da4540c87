package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// Result is what a trainer returns: the embeddings at the selected step,
// the learned context distribution, curves and statistics.
type Result struct {
	// Method names the trainer ("sparse", "dense", a baseline).
	Method string
	// N is the number of nodes and Half the width of each side, d/2.
	N, Half int
	// L and R are N x Half, row-major: Y = [L | R], and the score of the
	// arc u→v is L_u·R_v.
	L, R []float32
	// Q = softmax(q) is the learned context distribution over k = 1..C
	// (nil for methods without one); q holds the logits (nil when Q was
	// fixed, not learned: no logits were trained).
	Q, QLogits []float64
	// Curve holds one point per evaluation.
	Curve []CurvePoint
	// BestStep is the step (or epoch) whose embeddings are returned,
	// chosen by the train AUC when train pairs exist (each method says
	// how; the sparse trainer, without them, by the AUC of a sample of
	// the graph's own arcs), else the last.
	BestStep int
	// TrainAUC, TestAUC and TestDirectedAUC are measured at BestStep;
	// NaN when the pairs were not given. TrainAUC is the model-selection
	// AUC: on the validation pairs when the split has them
	// (Split.Selection).
	TrainAUC, TestAUC, TestDirectedAUC float64
	Stats                              Stats
}

// CurvePoint is one evaluation during training.
type CurvePoint struct {
	Step     int     // optimiser steps so far (dense: full-batch steps)
	Epoch    float64 // passes over the data in the trainer's own unit
	Loss     float64 // objective (exact for dense, a running estimate for sparse)
	TrainAUC float64 // model-selection AUC (Split.Selection); NaN when not evaluated
	TestAUC  float64
	Q        []float64
	Elapsed  time.Duration
}

// Stats are measurements of a run.
type Stats struct {
	// Stages lists wall time per stage in order ("powers", "train", ...).
	Stages []StageTime
	// EstimatedBytes is the pre-flight memory estimate, and
	// MemoryLimitBytes the limit it was checked against (the setting, or
	// the default taken from the machine; 0 where not recorded).
	EstimatedBytes   int64
	MemoryLimitBytes int64
	// PeakRSS is the process's peak resident set (VmHWM) at the end, in
	// bytes; 0 where unknown.
	PeakRSS int64
	// Pairs counts positive pairs processed, PairsPerSecond their rate
	// during training (sparse trainer).
	Pairs          int64
	PairsPerSecond float64
	// EvalTime is the part of the train stage spent in the evaluations
	// of the curve and in keeping the selected parameters (sparse
	// trainer, this process's share of a resumed run, as PairsPerSecond).
	EvalTime time.Duration
	// Stopped says what ended a sparse run: "length" (the planned
	// epochs), "converged" (-converge's rule, which shortened them),
	// "patience" (an early stop) or "time" (the time budget).
	Stopped string
	// RefineSteps counts the exact full-batch steps train.Refine took
	// after the run (0: none), and RefineFromAUC is the selection AUC
	// (or, without selection pairs, the fit to the graph's arcs) of the
	// model they started from: the curve's last point has the refined
	// model's.
	RefineSteps   int
	RefineFromAUC float64
}

// Score sets TrainAUC (on eval.Selection(): the validation pairs when
// eval has them), TestAUC and TestDirectedAUC from the embeddings r.L and
// r.R on every pair of eval (NaN for a list that is empty). At R-MAT
// scale 22 that is 128M pairs and half a minute; when ctx is cancelled it
// stops within a chunk of 65,536 pairs or a sort and returns ctx.Err().
// A nil eval, as the methods' Run accept, has no pairs: every AUC is NaN.
// A pair naming a row outside r's is an error wrapping ErrUnknownNode.
func (r *Result) Score(ctx context.Context, eval *Split) error {
	if r == nil {
		return errors.New("pipeline: no result (nil) to score")
	}
	if eval == nil {
		eval = &Split{}
	}
	n := 0 // the rows that L and R hold
	if r.Half > 0 {
		n = min(len(r.L), len(r.R)) / r.Half
	}
	if err := eval.CheckNodes(n); err != nil {
		return err
	}
	selPos, selNeg := eval.Selection()
	for _, m := range []struct {
		auc      *float64
		pos, neg []Pair
	}{{&r.TrainAUC, selPos, selNeg}, {&r.TestAUC, eval.Test, eval.TestNeg}, {&r.TestDirectedAUC, eval.Test, eval.TestDirectedNeg}} {
		*m.auc = math.NaN()
		if len(m.pos) == 0 || len(m.neg) == 0 {
			continue
		}
		rk, err := RankPairs(ctx, r.L, r.R, r.Half, m.pos, m.neg)
		if err != nil {
			return err
		}
		*m.auc = rk.AUC()
	}
	return nil
}

// Stage returns the wall time of the stage named name (0 when the run had
// no such stage).
func (s Stats) Stage(name string) time.Duration {
	for _, st := range s.Stages {
		if st.Name == name {
			return st.Duration
		}
	}
	return 0
}

// StageTime is the wall time of one stage.
type StageTime struct {
	Name     string
	Duration time.Duration
}

// EventKind classifies progress events.
type EventKind int

const (
	// StageStart and StageEnd bracket a stage (Stage holds its name).
	StageStart EventKind = iota
	StageEnd
	// Progress reports Done of Total units within a stage.
	Progress
	// Eval reports an evaluation point (Point is set).
	Eval
	// Note carries a message worth showing (Message is set).
	Note
)

// String returns the kind's name: "stage-start", "stage-end",
// "progress", "eval" or "note".
func (k EventKind) String() string {
	names := [...]string{StageStart: "stage-start", StageEnd: "stage-end", Progress: "progress", Eval: "eval", Note: "note"}
	if k < 0 || int(k) >= len(names) {
		return fmt.Sprintf("EventKind(%d)", int(k))
	}
	return names[k]
}

// Event is a progress report from a long-running library call. Which
// fields are set depends on Kind (see the EventKind constants).
type Event struct {
	Kind EventKind
	// Stage names the stage the event belongs to, as Stats.Stages does:
	// "train", "factorize", "powers", "log-svd", … A Note may come before
	// its stage starts: the sparse trainer's memory estimate for "train"
	// is said before any work, the start's stages included.
	Stage string
	// Done of Total units (Progress and Eval; a StageStart may give the
	// Total): Unit names them ("batches", "steps", "iterations",
	// "rounds"). Total may change during a stage whose length is not
	// known in advance: it grows as more is planned, and an eigensolver's
	// (the baselines' factorize stage) follows its convergence, so that
	// it may also shrink when the solver converges sooner than predicted.
	Done, Total int64
	Unit        string
	// Elapsed is the time since the stage started (Progress, StageEnd,
	// Eval).
	Elapsed time.Duration
	// Point is the evaluation of an Eval event.
	Point *CurvePoint
	// Message describes a StageStart or carries a Note.
	Message string
}

// Recorder receives progress events. Libraries never print; the command
// line tool implements Recorder to show progress. Implementations must be
// safe to call from the goroutine that runs the library call (events are
// never sent concurrently).
type Recorder interface {
	Record(Event)
}

// NopRecorder discards every event.
type NopRecorder struct{}

// Record implements Recorder.
func (NopRecorder) Record(Event) {}

// RecordFunc adapts a function to Recorder.
type RecordFunc func(Event)

// Record implements Recorder.
func (f RecordFunc) Record(e Event) { f(e) }

// CheckFinite returns an error wrapping ErrNotFinite, naming the first
// node whose row of L or R holds NaN or ±Inf, or nil.
func (r *Result) CheckFinite() error {
	for _, x := range [][]float32{r.L, r.R} {
		for i, v := range x {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return fmt.Errorf("embeddings %w: a value of row %d is %v (the %s run diverged; lower the learning rate)", ErrNotFinite, i/max(r.Half, 1), v, r.Method)
			}
		}
	}
	return nil
}
