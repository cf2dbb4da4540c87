package pipeline

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// specialScores are the values whose order a key must keep: signed
// zeros, infinities, the extremes and denormals.
var specialScores = []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64,
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 1, -1, 0.5, -0.5, 1e-300, -1e300}

// TestScoreKey checks that scoreKey orders every pair of scores as the
// float comparisons do, equality included (−0 == +0).
func TestScoreKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	xs := slices.Clone(specialScores)
	for range 200 {
		xs = append(xs, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(40)-20)), float64(float32(rng.NormFloat64())))
	}
	for _, x := range xs {
		for _, y := range xs {
			kx, ky := scoreKey(x), scoreKey(y)
			if (x < y) != (kx < ky) || (x == y) != (kx == ky) {
				t.Fatalf("%v, %v: keys %#x, %#x", x, y, kx, ky)
			}
		}
	}
}

// randomScores returns n scores for the radix path: float32 values
// widened (their low bytes shared), from few levels (many ties) or a
// continuum, with the special values mixed in.
func randomScores(rng *rand.Rand, n, levels int) []float64 {
	x := make([]float64, n)
	for i := range x {
		switch {
		case rng.IntN(50) == 0:
			x[i] = specialScores[rng.IntN(len(specialScores))]
		case levels > 0:
			x[i] = float64(rng.IntN(levels)-levels/2) / 4
		default:
			x[i] = float64(float32(rng.NormFloat64() * 3))
		}
	}
	return x
}

// TestSortedKeys checks the radix sort (lists above radixMin) and the
// short path against slices.Sort of the scores themselves.
func TestSortedKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 17, radixMin - 1, radixMin, radixMin + 1, 3 * radixMin, 50000} {
		for _, levels := range []int{0, 1, 7, 300} {
			x := randomScores(rng, n, levels)
			if levels == 0 && n > 1000 {
				for i := range x[:n/2] { // unwidened float64 scores too
					x[i] = rng.NormFloat64()
				}
			}
			got, nan := sortedKeys(x)
			want := slices.Clone(x)
			slices.Sort(want)
			if nan || len(got) != n {
				t.Fatalf("n %d: %d keys, NaN %v", n, len(got), nan)
			}
			for i, v := range want {
				if got[i] != scoreKey(v) {
					t.Fatalf("n %d, levels %d: key %d is %#x, want %#x (%v)", n, levels, i, got[i], scoreKey(v), v)
				}
			}
		}
	}
	x := randomScores(rng, 2*radixMin, 0)
	x[radixMin+5] = math.NaN()
	if _, nan := sortedKeys(x); !nan {
		t.Error("a NaN score was not reported")
	}
}

// TestRankingLarge checks AUC, AveragePrecision and HitsAtK on lists
// long enough for the radix sort against the counting definitions.
func TestRankingLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, levels := range []int{5, 200, 0} {
		pos, neg := randomScores(rng, radixMin+300, levels), randomScores(rng, radixMin+900, levels)
		for i := range pos {
			pos[i] += 0.25 // partly separated
		}
		r := Rank(pos, neg)
		if got, want := r.AUC(), bruteAUC(pos, neg); math.Abs(got-want) > 1e-12 {
			t.Errorf("levels %d: AUC %v, brute force %v", levels, got, want)
		}
		if levels > 0 { // bruteAP is quadratic in the distinct scores
			if got, want := r.AveragePrecision(), bruteAP(pos, neg); math.Abs(got-want) > 1e-12 {
				t.Errorf("levels %d: AP %v, brute force %v", levels, got, want)
			}
		}
		for _, k := range []int{1, 20, 1000} {
			if got, want := r.HitsAtK(k), countHits(pos, neg, k); got != want {
				t.Errorf("levels %d: Hits@%d %v, counted %v", levels, k, got, want)
			}
		}
	}
}
