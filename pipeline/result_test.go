package pipeline

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

func TestStatsStage(t *testing.T) {
	s := Stats{Stages: []StageTime{{"factorize", 2 * time.Second}, {"train", 5 * time.Second}}}
	if got := s.Stage("train"); got != 5*time.Second {
		t.Errorf("Stage(train) = %v, want 5s", got)
	}
	if got := s.Stage("powers"); got != 0 {
		t.Errorf("Stage(powers) = %v, want 0 for a missing stage", got)
	}
}

// TestResultScore checks Score against a brute-force AUC (the share of
// (positive, negative) pairs ranked right, ties counting half) of the
// scores L_u·R_v, and NaN for lists that are empty.
func TestResultScore(t *testing.T) {
	res := &Result{N: 4, Half: 2,
		L: []float32{1, 0, 0, 1, 1, 1, -1, 0},
		R: []float32{0, 1, 1, 0, 2, 0, 0, -1}}
	score := func(p Pair) float64 {
		return float64(res.L[2*p.U]*res.R[2*p.V] + res.L[2*p.U+1]*res.R[2*p.V+1])
	}
	brute := func(pos, neg []Pair) float64 {
		var s float64
		for _, p := range pos {
			for _, q := range neg {
				switch a, b := score(p), score(q); {
				case a > b:
					s++
				case a == b:
					s += 0.5
				}
			}
		}
		return s / float64(len(pos)*len(neg))
	}
	eval := &Split{
		Train:    []Pair{{U: 0, V: 1}, {U: 2, V: 2}},
		TrainNeg: []Pair{{U: 3, V: 2}, {U: 1, V: 0}, {U: 0, V: 3}},
		Test:     []Pair{{U: 1, V: 2}, {U: 2, V: 0}},
		TestNeg:  []Pair{{U: 3, V: 3}, {U: 0, V: 0}},
	}
	if err := res.Score(context.Background(), eval); err != nil {
		t.Fatal(err)
	}
	if want := brute(eval.Train, eval.TrainNeg); math.Abs(res.TrainAUC-want) > 1e-12 {
		t.Errorf("train AUC %v, want %v", res.TrainAUC, want)
	}
	if want := brute(eval.Test, eval.TestNeg); math.Abs(res.TestAUC-want) > 1e-12 {
		t.Errorf("test AUC %v, want %v", res.TestAUC, want)
	}
	if !math.IsNaN(res.TestDirectedAUC) {
		t.Errorf("directed AUC %v without directed negatives, want NaN", res.TestDirectedAUC)
	}
	// A split of a larger graph names rows the result does not have.
	for _, p := range []Pair{{U: 4, V: 0}, {U: 0, V: -1}} {
		bad := &Split{Test: []Pair{p}, TestNeg: eval.TestNeg}
		if err := res.Score(context.Background(), bad); !errors.Is(err, ErrUnknownNode) {
			t.Errorf("test pair %v of 4 rows: %v, want ErrUnknownNode", p, err)
		}
	}
}

// TestEmptyGraphs: SplitEdges refuses a nil or empty graph with
// ErrEmptyGraph, and LargestComponent returns it as is.
func TestEmptyGraphs(t *testing.T) {
	for _, g := range []*Graph{nil, {}} {
		if _, err := SplitEdges(context.Background(), g, 0.5, 1); !errors.Is(err, ErrEmptyGraph) {
			t.Errorf("SplitEdges(%v): %v, want ErrEmptyGraph", g, err)
		}
		if got := LargestComponent(g); got != g {
			t.Errorf("LargestComponent(%v) = %v", g, got)
		}
	}
}

func TestEventKindString(t *testing.T) {
	for k, want := range map[EventKind]string{StageStart: "stage-start", StageEnd: "stage-end", Progress: "progress", Eval: "eval", Note: "note", 7: "EventKind(7)", -1: "EventKind(-1)"} {
		if got := k.String(); got != want {
			t.Errorf("%d: %q, want %q", int(k), got, want)
		}
	}
}
