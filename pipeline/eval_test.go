package pipeline

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bruteAUC counts every (positive, negative) pair: the definition.
func bruteAUC(pos, neg []float64) float64 {
	var s float64
	for _, p := range pos {
		for _, n := range neg {
			switch {
			case p > n:
				s++
			case p == n:
				s += 0.5
			}
		}
	}
	return s / float64(len(pos)*len(neg))
}

func TestAUCMatchesBruteForce(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		np, nn := 1+rng.IntN(40), 1+rng.IntN(40)
		levels := 1 + rng.IntN(6) // few levels: many ties
		pos := make([]float64, np)
		neg := make([]float64, nn)
		for i := range pos {
			pos[i] = float64(rng.IntN(levels))
		}
		for i := range neg {
			neg[i] = float64(rng.IntN(levels)) - 0.5*float64(rng.IntN(2))
		}
		if got, want := AUC(pos, neg), bruteAUC(pos, neg); math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d: AUC %v, brute force %v", trial, got, want)
		}
	}
	// Larger inputs with continuous scores, partly separated, and NaN.
	pos := make([]float64, 1500)
	neg := make([]float64, 1100)
	for i := range pos {
		pos[i] = rng.NormFloat64() + 0.7
	}
	for i := range neg {
		neg[i] = rng.NormFloat64()
	}
	if got, want := AUC(pos, neg), bruteAUC(pos, neg); math.Abs(got-want) > 1e-12 {
		t.Errorf("continuous scores: AUC %v, brute force %v", got, want)
	}
	if !math.IsNaN(AUC([]float64{1, math.NaN()}, []float64{0})) {
		t.Error("a NaN score should give NaN")
	}
	if AUC([]float64{1}, nil) == AUC([]float64{1}, nil) {
		t.Error("empty negatives should give NaN")
	}
	if got := AUC([]float64{2, 3}, []float64{1}); got != 1 {
		t.Errorf("perfect separation: %v", got)
	}
	if got := AUC([]float64{1}, []float64{1}); got != 0.5 {
		t.Errorf("tie: %v", got)
	}
}

func TestScorePairs(t *testing.T) {
	t.Parallel()
	l := []float32{1, 2, 3, 4}
	r := []float32{5, 6, 7, 8}
	got := ScorePairs(l, r, 2, []Pair{{0, 1}, {1, 0}})
	if got[0] != 1*7+2*8 || got[1] != 3*5+4*6 {
		t.Errorf("got %v", got)
	}
}
