package pipeline

import (
	"math"
	"slices"
)

// AUC returns the area under the ROC curve of scores pos (positives)
// against neg (negatives): the probability that a random positive scores
// above a random negative, ties counted as half. It sorts copies of the
// inputs: O((p+n) log(p+n)). It returns NaN when either side is empty or a
// score is NaN.
func AUC(pos, neg []float64) float64 {
	if len(pos) == 0 || len(neg) == 0 {
		return math.NaN()
	}
	p := slices.Clone(pos)
	n := slices.Clone(neg)
	for _, v := range p {
		if math.IsNaN(v) {
			return math.NaN()
		}
	}
	for _, v := range n {
		if math.IsNaN(v) {
			return math.NaN()
		}
	}
	slices.Sort(p)
	slices.Sort(n)
	// For each positive, count negatives strictly below and equal to it.
	var wins float64
	lo, hi := 0, 0 // n[:lo] < v, n[:hi] <= v
	for _, v := range p {
		for lo < len(n) && n[lo] < v {
			lo++
		}
		if hi < lo {
			hi = lo
		}
		for hi < len(n) && n[hi] <= v {
			hi++
		}
		wins += float64(lo) + 0.5*float64(hi-lo)
	}
	return wins / (float64(len(p)) * float64(len(n)))
}

// AUCStdErr returns the standard error of an AUC a measured on pos
// positives against neg negatives, by Hanley and McNeil's formula
// (Radiology 143, 1982), which models the scores as exponential:
//
//	SE² = (a(1−a) + (pos−1)(a/(2−a) − a²) + (neg−1)(2a²/(1+a) − a²)) / (pos·neg).
//
// It returns NaN when a is not in [0, 1] or either count is zero.
func AUCStdErr(a float64, pos, neg int) float64 {
	if !(a >= 0 && a <= 1) || pos <= 0 || neg <= 0 {
		return math.NaN()
	}
	q1, q2 := a/(2-a), 2*a*a/(1+a)
	p, n := float64(pos), float64(neg)
	v := (a*(1-a) + (p-1)*(q1-a*a) + (n-1)*(q2-a*a)) / (p * n)
	return math.Sqrt(math.Max(v, 0))
}

// ScorePairs returns L_u·R_v for every pair, where L and R are N x half
// row-major.
func ScorePairs(l, r []float32, half int, pairs []Pair) []float64 {
	out := make([]float64, len(pairs))
	for i, p := range pairs {
		a := l[int(p.U)*half : int(p.U)*half+half]
		b := r[int(p.V)*half : int(p.V)*half+half]
		var s float32
		for j := range a {
			s += a[j] * b[j]
		}
		out[i] = float64(s)
	}
	return out
}

// PairAUC scores positives and negatives with ScorePairs and returns their
// AUC (NaN when either list is empty).
func PairAUC(l, r []float32, half int, pos, neg []Pair) float64 {
	if len(pos) == 0 || len(neg) == 0 {
		return math.NaN()
	}
	return AUC(ScorePairs(l, r, half, pos), ScorePairs(l, r, half, neg))
}
