package pipeline

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
)

// specialScores are the values whose order a key must keep: signed
// zeros, infinities, the extremes and denormals.
var specialScores = []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64,
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 1, -1, 0.5, -0.5, 1e-300, -1e300}

// TestScoreKey checks that key64 and key32 order every pair of scores as
// the float comparisons do, equality included (−0 == +0), and put NaN's
// outside the keys of ±Inf.
func TestScoreKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	xs := slices.Clone(specialScores)
	for range 200 {
		xs = append(xs, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(40)-20)), float64(float32(rng.NormFloat64())))
	}
	for _, x := range xs {
		for _, y := range xs {
			kx, ky := key64(x), key64(y)
			if (x < y) != (kx < ky) || (x == y) != (kx == ky) {
				t.Fatalf("%v, %v: keys %#x, %#x", x, y, kx, ky)
			}
			x32, y32 := float32(x), float32(y)
			jx, jy := key32(x32), key32(y32)
			if (x32 < y32) != (jx < jy) || (x32 == y32) != (jx == jy) {
				t.Fatalf("float32 %v, %v: keys %#x, %#x", x32, y32, jx, jy)
			}
		}
	}
	inf := math.Inf(1)
	for _, nan := range []float64{math.NaN(), -math.NaN(), math.Float64frombits(0x7ff0000000000001), math.Float64frombits(0xfff8000000000001)} {
		if k := key64(nan); k >= key64(-inf) && k <= key64(inf) {
			t.Errorf("NaN %#x: key %#x between those of ±Inf", math.Float64bits(nan), k)
		}
		if k := key32(float32(nan)); k >= key32(float32(-inf)) && k <= key32(float32(inf)) {
			t.Errorf("float32 NaN %#x: key %#x between those of ±Inf", math.Float32bits(float32(nan)), k)
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

// TestSortKeys checks the radix sort (lists above radixMin) and the
// short path against slices.Sort of the scores themselves, for both
// widths of key.
func TestSortKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 17, radixMin - 1, radixMin, radixMin + 1, 3 * radixMin, 50000} {
		for _, levels := range []int{0, 1, 7, 300} {
			x := randomScores(rng, n, levels)
			if levels == 0 && n > 1000 {
				for i := range x[:n/2] { // unwidened float64 scores too
					x[i] = rng.NormFloat64()
				}
			}
			got64, got32 := make([]uint64, n), make([]uint32, n)
			for i, v := range x {
				got64[i], got32[i] = key64(v), key32(float32(v))
			}
			sortKeys(got64)
			sortKeys(got32)
			want := slices.Clone(x)
			slices.Sort(want)
			want32 := make([]float32, n)
			for i, v := range x {
				want32[i] = float32(v)
			}
			slices.Sort(want32)
			for i, v := range want {
				if got64[i] != key64(v) || got32[i] != key32(want32[i]) {
					t.Fatalf("n %d, levels %d: keys %d are %#x, %#x, want %#x, %#x (%v)", n, levels, i, got64[i], got32[i], key64(v), key32(want32[i]), v)
				}
			}
		}
	}
}

// TestRankNaN checks that Rank reports a NaN score in a list long enough
// for the radix sort, of either sign.
func TestRankNaN(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, nan := range []float64{math.NaN(), math.Copysign(math.NaN(), -1)} {
		x, y := randomScores(rng, 2*radixMin, 0), randomScores(rng, 2*radixMin, 0)
		x[radixMin+5] = nan
		if r := Rank(x, y); !math.IsNaN(r.AUC()) || !math.IsNaN(r.AveragePrecision()) {
			t.Errorf("NaN %#x among the positives: AUC %v, AP %v", math.Float64bits(nan), r.AUC(), r.AveragePrecision())
		}
		if r := Rank(y, x); !math.IsNaN(r.AUC()) || !math.IsNaN(r.HitsAtK(3)) {
			t.Errorf("NaN %#x among the negatives: AUC %v, Hits@3 %v", math.Float64bits(nan), r.AUC(), r.HitsAtK(3))
		}
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

// TestRankPairs checks that RankPairs measures what Rank of ScorePairs'
// lists does, bit for bit, on lists long enough for the radix sort, and
// that it reports a NaN score.
func TestRankPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const n, half = 500, 3
	l, r := make([]float32, n*half), make([]float32, n*half)
	for i := range l {
		// Few levels: many tied scores.
		l[i], r[i] = float32(rng.IntN(5)-2), float32(rng.IntN(5)-2)
	}
	pairs := func(m int) []Pair {
		p := make([]Pair, m)
		for i := range p {
			p[i] = Pair{U: int32(rng.IntN(n)), V: int32(rng.IntN(n))}
		}
		return p
	}
	pos, neg := pairs(3*radixMin+7), pairs(2*radixMin+1)
	got, err := RankPairs(context.Background(), l, r, half, pos, neg)
	if err != nil {
		t.Fatal(err)
	}
	want := Rank(ScorePairs(l, r, half, pos), ScorePairs(l, r, half, neg))
	if got.AUC() != want.AUC() || got.AveragePrecision() != want.AveragePrecision() || got.HitsAtK(30) != want.HitsAtK(30) {
		t.Errorf("RankPairs: AUC %v, AP %v, Hits@30 %v; Rank of the scores: %v, %v, %v",
			got.AUC(), got.AveragePrecision(), got.HitsAtK(30), want.AUC(), want.AveragePrecision(), want.HitsAtK(30))
	}
	if a := PairAUC(l, r, half, pos, neg); a != bruteAUC(ScorePairs(l, r, half, pos), ScorePairs(l, r, half, neg)) {
		t.Errorf("PairAUC %v, brute force %v", a, bruteAUC(ScorePairs(l, r, half, pos), ScorePairs(l, r, half, neg)))
	}
	l[int(neg[5].U)*half] = float32(math.NaN())
	if got, _ := RankPairs(context.Background(), l, r, half, pos, neg); !math.IsNaN(got.AUC()) || !math.IsNaN(got.HitsAtK(1)) {
		t.Errorf("a NaN score: AUC %v, Hits@1 %v", got.AUC(), got.HitsAtK(1))
	}
}

// countingCtx reports itself cancelled from the after-th call of Err on,
// counting the calls; safe for concurrent use.
type countingCtx struct {
	context.Context
	after int64
	calls atomic.Int64
}

func (c *countingCtx) Err() error {
	if c.calls.Add(1) >= c.after {
		return context.Canceled
	}
	return nil
}

// TestRankPairsCancelled checks that RankPairs and Result.Score stop
// scoring soon after a cancel: a cancel at the third check of 64 chunks
// of pairs returns context.Canceled after a few checks more (one per
// worker), not after every chunk.
func TestRankPairsCancelled(t *testing.T) {
	const n, half = 100, 2
	l, r := make([]float32, n*half), make([]float32, n*half)
	pairs := make([]Pair, 32*scoreChunk)
	for i := range pairs {
		pairs[i] = Pair{U: int32(i % n), V: int32(i / 7 % n)}
	}
	ctx := &countingCtx{Context: context.Background(), after: 3}
	if _, err := RankPairs(ctx, l, r, half, pairs, pairs); !errors.Is(err, context.Canceled) || ctx.calls.Load() > 12 {
		t.Errorf("RankPairs: %v after %d checks of the context", err, ctx.calls.Load())
	}
	res := &Result{L: l, R: r, Half: half}
	ctx = &countingCtx{Context: context.Background(), after: 3}
	if err := res.Score(ctx, &Split{Test: pairs, TestNeg: pairs}); !errors.Is(err, context.Canceled) || ctx.calls.Load() > 12 {
		t.Errorf("Score: %v after %d checks of the context", err, ctx.calls.Load())
	}
}
