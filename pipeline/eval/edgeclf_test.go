package eval

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/wys-project/wys/pipeline"
)

// TestEdgeFeatures checks each operator on a pair worked by hand:
// x_0 = (1, −2, 3), x_1 = (0.5, 4, −1).
func TestEdgeFeatures(t *testing.T) {
	x := []float64{1, -2, 3, 0.5, 4, -1}
	for op, want := range map[string][]float64{
		OpAverage:  {0.75, 1, 1},
		OpHadamard: {0.5, -8, -3},
		OpL1:       {0.5, 6, 4},
		OpL2:       {0.25, 36, 16},
	} {
		got, err := EdgeFeatures(x, 3, []pipeline.Pair{{U: 0, V: 1}}, op)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %v, %v; want %v", op, got, err, want)
		}
	}
	if _, err := EdgeFeatures(x, 3, []pipeline.Pair{{U: 0, V: 1}}, "cosine"); err == nil {
		t.Error("unknown operator accepted")
	}
}

// TestEdgeClassifierPlanted: nodes of two classes with a class-marking
// coordinate; edges join nodes of one class, non-edges nodes of two.
// The Hadamard product of the marks separates them exactly (AUC 1), and
// the average cannot (it is symmetric in the two classes' signs).
func TestEdgeClassifierPlanted(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n, f := 200, 4
	x := make([]float64, n*f)
	for v := range n {
		sign := float64(1 - 2*(v%2))
		x[v*f] = sign * (1 + rng.Float64())
		for j := 1; j < f; j++ {
			x[v*f+j] = rng.NormFloat64()
		}
	}
	pairs := func(same bool, k int) []pipeline.Pair {
		var out []pipeline.Pair
		for len(out) < k {
			u, v := rng.IntN(n), rng.IntN(n)
			if u != v && (u%2 == v%2) == same {
				out = append(out, pipeline.Pair{U: int32(u), V: int32(v)})
			}
		}
		return out
	}
	s := &pipeline.Split{N: n, Train: pairs(true, 300), TrainNeg: pairs(false, 300), Test: pairs(true, 200), TestNeg: pairs(false, 200)}
	had, err := EdgeClassifier(context.Background(), x, f, s, OpHadamard, EdgeClassifierConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if had.TestAUC != 1 || had.TrainPairs != [2]int{300, 300} {
		t.Errorf("hadamard: %+v, want test AUC 1 on 300 + 300 pairs", had)
	}
	avg, err := EdgeClassifier(context.Background(), x, f, s, OpAverage, EdgeClassifierConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if avg.TestAUC > 0.75 {
		t.Errorf("average separates what it cannot see: %+v", avg)
	}
	// A cap of 100 training pairs per class fits on a seeded subsample.
	capped, err := EdgeClassifier(context.Background(), x, f, s, OpHadamard, EdgeClassifierConfig{MaxTrainPairs: 100, Seed: 3})
	if err != nil || capped.TrainPairs != [2]int{100, 100} || capped.TestAUC < 0.99 {
		t.Errorf("capped: %+v, %v", capped, err)
	}
}

// TestEdgeFeaturesOutOfRange: a pair naming a node the features do not
// have (a split of another graph) is an error wrapping
// pipeline.ErrUnknownNode from EdgeFeatures and EdgeClassifier; both
// panicked with a slice index out of range.
func TestEdgeFeaturesOutOfRange(t *testing.T) {
	x := []float64{1, -2, 3, 0.5, 4, -1} // two nodes of three features
	for _, p := range []pipeline.Pair{{U: 0, V: 2}, {U: 2, V: 0}, {U: -1, V: 1}} {
		if _, err := EdgeFeatures(x, 3, []pipeline.Pair{{U: 0, V: 1}, p}, OpHadamard); !errors.Is(err, pipeline.ErrUnknownNode) {
			t.Errorf("pair %v: got %v, want ErrUnknownNode", p, err)
		}
	}
	s := &pipeline.Split{N: 2, Train: []pipeline.Pair{{U: 0, V: 1}}, TrainNeg: []pipeline.Pair{{U: 1, V: 1}},
		Test: []pipeline.Pair{{U: 0, V: 5}}, TestNeg: []pipeline.Pair{{U: 1, V: 0}}}
	if _, err := EdgeClassifier(context.Background(), x, 3, s, OpHadamard, EdgeClassifierConfig{}); !errors.Is(err, pipeline.ErrUnknownNode) {
		t.Errorf("EdgeClassifier: got %v, want ErrUnknownNode", err)
	}
}

// TestEdgeMargins: the margins of 10,000 pairs, computed a chunk at a
// time, equal w·op(x_u, x_v) + b summed pair by pair from the operator's
// definition; a cancelled context stops them with its error.
func TestEdgeMargins(t *testing.T) {
	const n, f, m = 50, 3, 10000
	rng := rand.New(rand.NewPCG(4, 4))
	x := make([]float64, n*f)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	p := []float64{0.5, -1, 2, 0.25} // w, then b
	pairs := make([]pipeline.Pair, m)
	for i := range pairs {
		pairs[i] = pipeline.Pair{U: int32(rng.IntN(n)), V: int32(rng.IntN(n))}
	}
	got, err := edgeMargins(context.Background(), x, f, pairs, OpL2, p)
	if err != nil {
		t.Fatal(err)
	}
	for i, pr := range pairs {
		want := p[f]
		for j := range f {
			d := x[int(pr.U)*f+j] - x[int(pr.V)*f+j]
			want += p[j] * d * d
		}
		if math.Abs(got[i]-want) > 1e-12*(1+math.Abs(want)) {
			t.Fatalf("pair %d: margin %v, want %v", i, got[i], want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := edgeMargins(ctx, x, f, pairs, OpL2, p); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: got %v, want context.Canceled", err)
	}
}
