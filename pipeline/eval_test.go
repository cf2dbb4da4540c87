package pipeline

import (
	"math"
	"math/rand/v2"
	"slices"
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
	// A list of several chunks, scored on goroutines: every score is the
	// float32 dot product summed in order, as a plain loop computes it.
	rng := rand.New(rand.NewPCG(1, 2))
	const n, half = 300, 5
	l, r = make([]float32, n*half), make([]float32, n*half)
	for i := range l {
		l[i], r[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	pairs := make([]Pair, 3*scoreChunk+17)
	for i := range pairs {
		pairs[i] = Pair{U: int32(rng.IntN(n)), V: int32(rng.IntN(n))}
	}
	got = ScorePairs(l, r, half, pairs)
	for i, p := range pairs {
		var s float32
		for j := 0; j < half; j++ {
			s += l[int(p.U)*half+j] * r[int(p.V)*half+j]
		}
		if got[i] != float64(s) {
			t.Fatalf("pair %d (%d, %d): %v, want %v", i, p.U, p.V, got[i], s)
		}
	}
}

// TestAUCStdErr checks Hanley and McNeil's standard error against the
// spread of AUCs measured on many independent samples of exponential
// scores, the model under which their formula holds: positives with mean
// μ against negatives with mean 1 have AUC μ/(1+μ).
func TestAUCStdErr(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	const reps, np, nn = 3000, 300, 200
	for _, mu := range []float64{1, 4, 199} {
		a := mu / (1 + mu)
		pos, neg := make([]float64, np), make([]float64, nn)
		var s, s2 float64
		for range reps {
			for i := range pos {
				pos[i] = mu * rng.ExpFloat64()
			}
			for i := range neg {
				neg[i] = rng.ExpFloat64()
			}
			v := AUC(pos, neg)
			s += v
			s2 += v * v
		}
		mean := s / reps
		sd := math.Sqrt((s2 - s*mean) / (reps - 1))
		// The sample standard deviation of 3000 draws is within 4% of
		// the true one with probability above 0.99.
		if got := AUCStdErr(a, np, nn); math.Abs(got-sd) > 0.04*sd || math.Abs(mean-a) > 4*sd/math.Sqrt(reps) {
			t.Errorf("AUC %.4f: standard error %.3g, spread of %d samples %.3g (mean %.4f)", a, got, reps, sd, mean)
		}
	}
	for _, c := range []struct {
		a        float64
		pos, neg int
	}{{1.5, 10, 10}, {math.NaN(), 10, 10}, {0.9, 0, 10}, {0.9, 10, 0}} {
		if got := AUCStdErr(c.a, c.pos, c.neg); !math.IsNaN(got) {
			t.Errorf("AUCStdErr(%v, %d, %d) = %v, want NaN", c.a, c.pos, c.neg, got)
		}
	}
	if got := AUCStdErr(1, 10, 10); got != 0 {
		t.Errorf("AUCStdErr(1, 10, 10) = %v, want 0", got)
	}
}

// bruteAP is average precision from its definition: for every distinct
// score t, from the highest, the precision and recall of calling each
// pair scoring at least t positive, counted afresh.
func bruteAP(pos, neg []float64) float64 {
	ts := append(append([]float64(nil), pos...), neg...)
	slices.Sort(ts)
	ts = slices.Compact(ts)
	slices.Reverse(ts)
	var ap, prevRecall float64
	for _, t := range ts {
		var tp, fp float64
		for _, v := range pos {
			if v >= t {
				tp++
			}
		}
		for _, v := range neg {
			if v >= t {
				fp++
			}
		}
		recall := tp / float64(len(pos))
		ap += (recall - prevRecall) * tp / (tp + fp)
		prevRecall = recall
	}
	return ap
}

// TestAveragePrecision checks against scikit-learn 1.2.1's
// average_precision_score on three small cases (ties across and within
// the classes), and against bruteAP on random scores with many ties.
func TestAveragePrecision(t *testing.T) {
	for _, tc := range []struct {
		pos, neg []float64
		want     float64 // average_precision_score([1]*len(pos)+[0]*len(neg), pos+neg)
	}{
		{[]float64{0.9, 0.8, 0.8, 0.3, 0.1}, []float64{0.8, 0.7, 0.3, 0.2, 0.05, 0}, 0.7253968253968254},
		{[]float64{3, 1, 2, 2, 5}, []float64{2, 2, 4, 0, 1, 1, 3}, 0.5909090909090908},
		{[]float64{1, 1}, []float64{1, 1, 1}, 0.4},
	} {
		if got := AveragePrecision(tc.pos, tc.neg); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("AveragePrecision(%v, %v) = %v, scikit-learn %v", tc.pos, tc.neg, got, tc.want)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		pos := make([]float64, 1+rng.IntN(30))
		neg := make([]float64, rng.IntN(30))
		levels := 1 + rng.IntN(10)
		for i := range pos {
			pos[i] = float64(rng.IntN(levels) + rng.IntN(3))
		}
		for i := range neg {
			neg[i] = float64(rng.IntN(levels))
		}
		if got, want := AveragePrecision(pos, neg), bruteAP(pos, neg); math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d: AveragePrecision = %v, brute force %v (pos %v, neg %v)", trial, got, want, pos, neg)
		}
	}
	if !math.IsNaN(AveragePrecision(nil, []float64{1})) || !math.IsNaN(AveragePrecision([]float64{math.NaN()}, nil)) {
		t.Error("want NaN without positives or with a NaN score")
	}
	if got := AveragePrecision([]float64{1, 2}, nil); got != 1 {
		t.Errorf("without negatives: %v, want 1", got)
	}
}

// countHits is Hits@k by counting, for each positive, the negatives that
// score at least as high (a hit when fewer than k do).
func countHits(pos, neg []float64, k int) float64 {
	var hits float64
	for _, p := range pos {
		above := 0
		for _, n := range neg {
			if n >= p {
				above++
			}
		}
		if above < k {
			hits++
		}
	}
	return hits / float64(len(pos))
}

// TestHitsAtK checks against counting, for each positive, the negatives
// that score at least as high (a hit when fewer than k do), and OGB's
// rule of 1 when there are fewer than k negatives.
func TestHitsAtK(t *testing.T) {
	if got := HitsAtK([]float64{5, 3, 2, 1}, []float64{4, 2, 2, 0}, 2); got != 0.5 {
		t.Errorf("Hits@2 = %v, want 0.5 (5 and 3 beat the second negative, 2; 2 ties it)", got)
	}
	if got := HitsAtK([]float64{0}, []float64{1, 2}, 3); got != 1 {
		t.Errorf("Hits@3 with 2 negatives = %v, want 1 (OGB's rule)", got)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 200; trial++ {
		pos := make([]float64, 1+rng.IntN(20))
		neg := make([]float64, rng.IntN(40))
		for i := range pos {
			pos[i] = float64(rng.IntN(8))
		}
		for i := range neg {
			neg[i] = float64(rng.IntN(8))
		}
		k := 1 + rng.IntN(10)
		if len(neg) < k {
			continue
		}
		if got, want := HitsAtK(pos, neg, k), countHits(pos, neg, k); got != want {
			t.Fatalf("trial %d: Hits@%d = %v, counted %v", trial, k, got, want)
		}
	}
	if !math.IsNaN(HitsAtK(nil, []float64{1}, 1)) || !math.IsNaN(HitsAtK([]float64{1}, []float64{1}, 0)) || !math.IsNaN(HitsAtK([]float64{1}, []float64{math.NaN()}, 1)) {
		t.Error("want NaN without positives, with k < 1 or with a NaN score")
	}
	if got := HitsAtK([]float64{math.NaN()}, []float64{1}, 3); got != 1 {
		t.Errorf("Hits@3 with 1 negative and a NaN positive = %v, want 1 (OGB's rule comes first)", got)
	}
}

// TestNormalizeRows checks each row against its own norm computed apart:
// unit length, the same direction, and a zero row left at zero.
func TestNormalizeRows(t *testing.T) {
	x := []float64{3, 4, 0, 0, 0, 0, -1, 2, 2}
	NormalizeRows(x, 3)
	want := []float64{0.6, 0.8, 0, 0, 0, 0, -1.0 / 3, 2.0 / 3, 2.0 / 3}
	for i := range x {
		if math.Abs(x[i]-want[i]) > 1e-15 {
			t.Fatalf("NormalizeRows = %v, want %v", x, want)
		}
	}
}
