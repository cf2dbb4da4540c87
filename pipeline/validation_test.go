package pipeline_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/wys-project/wys/pipeline"
)

// pairsOf returns n distinct pairs (i, i+1) in order.
func pairsOf(n, offset int) []pipeline.Pair {
	p := make([]pipeline.Pair, n)
	for i := range p {
		p[i] = pipeline.Pair{U: int32(offset + i), V: int32(offset + i + 1)}
	}
	return p
}

// TestHoldOutValidation: the validation pairs are round(frac·n) of the
// test pairs and as many of the test non-edges; what is moved and what
// stays are each in the original order and together are the original
// list; the draw depends on the seed; Selection returns the validation
// pairs, and the train pairs without them.
func TestHoldOutValidation(t *testing.T) {
	for _, frac := range []float64{0.1, 0.25, 0.5} {
		for seed := uint64(1); seed <= 3; seed++ {
			test, neg := pairsOf(97, 0), pairsOf(97, 1000)
			s := &pipeline.Split{N: 2000, Train: pairsOf(50, 500), TrainNeg: pairsOf(50, 1500),
				Test: slices.Clone(test), TestNeg: slices.Clone(neg), TestDirectedNeg: directedNeg(test, neg)}
			if pos, _ := s.Selection(); !slices.Equal(pos, s.Train) {
				t.Fatal("Selection without validation pairs is not Train")
			}
			if err := s.HoldOutValidation(frac, seed); err != nil {
				t.Fatal(err)
			}
			want := int(math.Round(frac * 97))
			if len(s.Val) != want || len(s.ValNeg) != want || len(s.Test) != 97-want || len(s.TestNeg) != 97-want {
				t.Fatalf("frac %v: %d/%d validation, %d/%d test pairs; want %d and %d", frac, len(s.Val), len(s.ValNeg), len(s.Test), len(s.TestNeg), want, 97-want)
			}
			checkPartition(t, test, s.Val, s.Test)
			checkPartition(t, neg, s.ValNeg, s.TestNeg)
			checkDirectedNeg(t, test, neg, s)
			pos, negs := s.Selection()
			if !slices.Equal(pos, s.Val) || !slices.Equal(negs, s.ValNeg) {
				t.Error("Selection does not return the validation pairs")
			}
			// A second hold-out would drop the first's pairs: refused.
			if err := s.HoldOutValidation(frac, seed); !errors.Is(err, pipeline.ErrSplit) || len(s.Val) != want || len(s.Test) != 97-want {
				t.Errorf("second HoldOutValidation: %v, %d validation and %d test edges left", err, len(s.Val), len(s.Test))
			}
			again := &pipeline.Split{Test: slices.Clone(test), TestNeg: slices.Clone(neg)}
			other := &pipeline.Split{Test: slices.Clone(test), TestNeg: slices.Clone(neg)}
			if again.HoldOutValidation(frac, seed) != nil || other.HoldOutValidation(frac, seed+10) != nil {
				t.Fatal("a second draw failed")
			}
			if !slices.Equal(again.Val, s.Val) || !slices.Equal(again.ValNeg, s.ValNeg) {
				t.Error("the same seed drew other validation pairs")
			}
			if slices.Equal(other.Val, s.Val) {
				t.Error("another seed drew the same validation pairs")
			}
		}
	}
}

// directedNeg returns the reversed test arcs followed by the random
// negatives, as SplitEdges builds TestDirectedNeg.
func directedNeg(test, neg []pipeline.Pair) []pipeline.Pair {
	var out []pipeline.Pair
	for _, p := range test {
		out = append(out, pipeline.Pair{U: p.V, V: p.U})
	}
	return append(out, neg...)
}

// checkDirectedNeg requires that s.TestDirectedNeg is what SplitEdges
// would build from the remaining test pairs: their reversals, then the
// remaining non-edges.
func checkDirectedNeg(t *testing.T, test, neg []pipeline.Pair, s *pipeline.Split) {
	t.Helper()
	if want := directedNeg(s.Test, s.TestNeg); !slices.Equal(s.TestDirectedNeg, want) {
		t.Errorf("TestDirectedNeg has %d pairs, want the %d of the remaining test pairs (of %d)", len(s.TestDirectedNeg), len(want), len(directedNeg(test, neg)))
	}
}

// checkPartition requires that a and b are disjoint subsequences of orig
// whose union is orig.
func checkPartition(t *testing.T, orig, a, b []pipeline.Pair) {
	t.Helper()
	i, j := 0, 0
	for _, p := range orig {
		switch {
		case i < len(a) && a[i] == p:
			i++
		case j < len(b) && b[j] == p:
			j++
		default:
			t.Fatalf("pair %v is in neither list in order", p)
		}
	}
	if i != len(a) || j != len(b) {
		t.Fatalf("%d + %d pairs left over", len(a)-i, len(b)-j)
	}
}

func TestHoldOutValidationErrors(t *testing.T) {
	for _, c := range []struct {
		frac float64
		n    int
	}{{0, 10}, {1, 10}, {-0.1, 10}, {math.NaN(), 10}, {0.01, 10}, {0.99, 10}, {0.5, 1}} {
		s := &pipeline.Split{Test: pairsOf(c.n, 0), TestNeg: pairsOf(c.n, 100)}
		if err := s.HoldOutValidation(c.frac, 1); !errors.Is(err, pipeline.ErrSplit) {
			t.Errorf("frac %v of %d pairs: error %v, want ErrSplit", c.frac, c.n, err)
		}
		if len(s.Test) != c.n || len(s.Val) != 0 {
			t.Errorf("frac %v of %d pairs: the split changed on error", c.frac, c.n)
		}
	}
}

// TestReciprocalTrain compares ReciprocalTrain with a count over every
// two train pairs, on lists with repeats, self-loops and reversed pairs,
// and ReversedTest with a count over every test and train pair.
func TestReciprocalTrain(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		var train []pipeline.Pair
		for range 300 {
			train = append(train, pipeline.Pair{U: int32(rng.IntN(30)), V: int32(rng.IntN(30))})
		}
		want := 0
		for i, p := range train {
			if p.U == p.V || slices.Index(train[:i], p) >= 0 {
				continue // count each distinct pair once
			}
			if slices.Contains(train, pipeline.Pair{U: p.V, V: p.U}) {
				want++
			}
		}
		s := &pipeline.Split{Train: train}
		if got := s.ReciprocalTrain(); got != want || want == 0 {
			t.Errorf("seed %d: %d reciprocal pairs, want %d (and some)", seed, got, want)
		}
	}
	// ReversedTest against a count over every test and train pair.
	for seed := uint64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 10))
		var train, test []pipeline.Pair
		for range 200 {
			train = append(train, pipeline.Pair{U: int32(rng.IntN(20)), V: int32(rng.IntN(20))})
			test = append(test, pipeline.Pair{U: int32(rng.IntN(20)), V: int32(rng.IntN(20))})
		}
		want := 0
		for _, p := range test {
			if p.U != p.V && slices.Contains(train, pipeline.Pair{U: p.V, V: p.U}) {
				want++
			}
		}
		s := &pipeline.Split{Train: train, Test: test}
		if got := s.ReversedTest(); got != want || want == 0 {
			t.Errorf("seed %d: %d reversed test pairs, want %d (and some)", seed, got, want)
		}
	}
	once := &pipeline.Split{Train: []pipeline.Pair{{U: 0, V: 1}, {U: 1, V: 2}, {U: 2, V: 2}, {U: 0, V: 1}}}
	if got := once.ReciprocalTrain(); got != 0 {
		t.Errorf("edges listed once: %d reciprocal pairs, want 0", got)
	}
}
