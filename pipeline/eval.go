package pipeline

import (
	"context"
	"math"

	"github.com/wys-project/wys/pipeline/internal/kernels"
	"github.com/wys-project/wys/sparse"
)

// AUC returns the area under the ROC curve of scores pos (positives)
// against neg (negatives): the probability that a random positive scores
// above a random negative, ties counted as half. It sorts copies of the
// inputs (see Rank, which keeps them sorted for other measures). It
// returns NaN when either side is empty or a score is NaN.
func AUC(pos, neg []float64) float64 {
	if len(pos) == 0 || len(neg) == 0 {
		return math.NaN()
	}
	return Rank(pos, neg).AUC()
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
// row-major. Every pair must name rows 0..N−1 (one that does not panics
// with an index out of range; Split.CheckNodes checks a split's pairs).
// Lists longer than scoreChunk pairs are scored in chunks on up to
// GOMAXPROCS goroutines; each score is the same float32 sum either way.
func ScorePairs(l, r []float32, half int, pairs []Pair) []float64 {
	// Background: nothing cancels the chunks (one of them runs on the
	// caller's goroutine).
	out, _ := scoreAll(context.Background(), l, r, half, pairs, widen)
	return out
}

// widen is float64, as a function.
func widen(x float32) float64 { return float64(x) }

// scoreAll returns as(L_u·R_v) for every pair, scored in chunks as
// ScorePairs says; when ctx is cancelled it stops taking chunks and
// returns ctx.Err().
func scoreAll[T any](ctx context.Context, l, r []float32, half int, pairs []Pair, as func(float32) T) ([]T, error) {
	out := make([]T, len(pairs))
	chunks := (len(pairs) + scoreChunk - 1) / scoreChunk
	err := sparse.ParallelFor(ctx, chunks, 0, func(c int) {
		lo, hi := c*scoreChunk, min((c+1)*scoreChunk, len(pairs))
		scorePairs(out[lo:hi], l, r, half, pairs[lo:hi], as)
	})
	return out, err
}

// scoreChunk is the number of pairs ScorePairs scores as one piece of
// work. The final evaluation of an R-MAT scale 20 run scores 31M pairs
// (8M in each of four lists), which took 10 s on one core.
const scoreChunk = 1 << 16

// scoreAhead is how many pairs ahead scorePairs prefetches rows.
const scoreAhead = 8

// scorePairs writes as(L_u·R_v) of each pair into out.
func scorePairs[T any](out []T, l, r []float32, half int, pairs []Pair, as func(float32) T) {
	for i, p := range pairs {
		// The rows are read at random: ask for those of a pair a few
		// ahead, so that their loads overlap this pair's sum.
		if i+scoreAhead < len(pairs) {
			q := pairs[i+scoreAhead]
			kernels.Prefetch(l[int(q.U)*half : int(q.U)*half+half])
			kernels.Prefetch(r[int(q.V)*half : int(q.V)*half+half])
		}
		a := l[int(p.U)*half : int(p.U)*half+half]
		b := r[int(p.V)*half : int(p.V)*half+half]
		var s float32
		for j := range a {
			s += a[j] * b[j]
		}
		out[i] = as(s)
	}
}

// PairAUC scores positives and negatives with ScorePairs and returns their
// AUC (NaN when either list is empty). Nothing cancels it: for lists of
// millions of pairs, RankPairs takes a context.
func PairAUC(l, r []float32, half int, pos, neg []Pair) float64 {
	if len(pos) == 0 || len(neg) == 0 {
		return math.NaN()
	}
	rk, _ := RankPairs(context.Background(), l, r, half, pos, neg)
	return rk.AUC()
}

// AveragePrecision returns the average precision of scores pos
// (positives) against neg (negatives) as scikit-learn's
// average_precision_score computes it: Σ_n (R_n − R_{n−1})·P_n over the
// distinct scores n in decreasing order, where P_n and R_n are the
// precision and recall of calling every pair scoring at least n
// positive (tied pairs enter together). It is the area under the
// precision-recall curve without interpolation; a random scoring gets
// the share of positives, |pos|/(|pos|+|neg|). It returns NaN when pos
// is empty or a score is NaN.
func AveragePrecision(pos, neg []float64) float64 {
	if len(pos) == 0 {
		return math.NaN()
	}
	return Rank(pos, neg).AveragePrecision()
}

// HitsAtK returns Hits@k as the Open Graph Benchmark's link-prediction
// evaluator defines it: the share of positives that score strictly above
// the k-th highest negative score (1 when there are fewer than k
// negatives). It returns NaN when pos is empty, k < 1 or a score is NaN.
func HitsAtK(pos, neg []float64, k int) float64 {
	if len(pos) == 0 || k < 1 {
		return math.NaN()
	}
	return Rank(pos, neg).HitsAtK(k)
}

// NormalizeRows scales each row of the row-major matrix x (f columns) to
// unit L2 norm in place; a zero row stays zero. Features of unit rows
// (eval) and ProNE's embeddings (baseline) use it.
func NormalizeRows(x []float64, f int) {
	for i := 0; i+f <= len(x); i += f {
		row := x[i : i+f]
		var s float64
		for _, v := range row {
			s += v * v
		}
		if s > 0 {
			s = 1 / math.Sqrt(s)
			for j := range row {
				row[j] *= s
			}
		}
	}
}
