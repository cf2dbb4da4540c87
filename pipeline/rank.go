package pipeline

import (
	"context"
	"math"
	"slices"
	"sort"
	"sync"
)

// Ranking holds a list of positive and a list of negative scores, each
// sorted once, from which AUC, AveragePrecision and HitsAtK are read
// without sorting again. A zero Ranking has no scores.
type Ranking struct {
	// lists holds the sorted keys: sorted[uint64] of float64 scores
	// (Rank, key64) or sorted[uint32] of float32 ones (RankPairs, key32).
	lists interface {
		auc() float64
		averagePrecision() float64
		hitsAtK(k int) float64
	}
	nanPos, nanNeg bool // a score of that list is NaN
	nPos, nNeg     int  // the lengths of the lists
}

// Rank sorts copies of the scores pos (positives) and neg (negatives).
// The two lists are sorted side by side, each by a radix sort when it is
// long (the AUC of two lists of 8M scores takes 0.6 s, 1.5 s with
// slices.Sort: BenchmarkAUC), in twice the lists' memory.
func Rank(pos, neg []float64) *Ranking {
	r := &Ranking{nPos: len(pos), nNeg: len(neg)}
	keys := func(x []float64) []uint64 {
		k := make([]uint64, len(x))
		for i, v := range x {
			k[i] = key64(v)
		}
		return k
	}
	r.lists, r.nanPos, r.nanNeg = sortPair(keys(pos), keys(neg), key64(math.Inf(-1)), key64(math.Inf(1)))
	return r
}

// RankPairs scores the pairs pos and neg as ScorePairs does and sorts
// the scores as Rank does, in a third of the memory: ScorePairs' scores
// are float32 sums, which RankPairs keeps in 4 bytes each instead of 8
// and sorts without a float64 copy. The measures are those of Rank of
// ScorePairs' lists. When ctx is cancelled it stops within a chunk of
// scoring or the sorts (well under a second for lists of 32M pairs) and
// returns ctx.Err().
func RankPairs(ctx context.Context, l, r []float32, half int, pos, neg []Pair) (*Ranking, error) {
	rk := &Ranking{nPos: len(pos), nNeg: len(neg)}
	p, err := scoreAll(ctx, l, r, half, pos, key32)
	if err != nil {
		return nil, err
	}
	n, err := scoreAll(ctx, l, r, half, neg, key32)
	if err != nil {
		return nil, err
	}
	inf := float32(math.Inf(1))
	rk.lists, rk.nanPos, rk.nanNeg = sortPair(p, n, key32(-inf), key32(inf))
	return rk, ctx.Err()
}

// sortPair sorts pos and neg side by side and reports whether either
// holds the key of a NaN: one below lo or above hi, the keys of −Inf and
// +Inf.
func sortPair[K uint32 | uint64](pos, neg []K, lo, hi K) (s sorted[K], nanPos, nanNeg bool) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sortKeys(pos)
	}()
	sortKeys(neg)
	wg.Wait()
	nan := func(k []K) bool { return len(k) > 0 && (k[0] < lo || k[len(k)-1] > hi) }
	return sorted[K]{pos, neg}, nan(pos), nan(neg)
}

// Len returns the number of positive and of negative scores.
func (r *Ranking) Len() (pos, neg int) {
	return r.nPos, r.nNeg
}

// AUC is the area under the ROC curve: the probability that a random
// positive scores above a random negative, ties counted as half. It is
// NaN when either list is empty or a score is NaN.
func (r *Ranking) AUC() float64 {
	switch {
	case r.nPos == 0 || r.nNeg == 0 || r.nanPos || r.nanNeg:
		return math.NaN()
	}
	return r.lists.auc()
}

// AveragePrecision is the average precision as AveragePrecision (the
// function) defines it: NaN when there is no positive or a score is NaN.
func (r *Ranking) AveragePrecision() float64 {
	switch {
	case r.nPos == 0 || r.nanPos || r.nanNeg:
		return math.NaN()
	}
	return r.lists.averagePrecision()
}

// HitsAtK is Hits@k as HitsAtK (the function) defines it: the share of
// positives that score strictly above the k-th highest negative, 1 when
// there are fewer than k negatives, NaN when there is no positive, k < 1
// or a score is NaN.
func (r *Ranking) HitsAtK(k int) float64 {
	switch {
	case r.nPos == 0 || k < 1 || r.nanNeg:
		return math.NaN()
	case r.nNeg < k:
		return 1
	case r.nanPos:
		return math.NaN()
	}
	return r.lists.hitsAtK(k)
}

// sorted are the keys of a positive and a negative list of scores, in
// ascending order, none of them NaN's.
type sorted[K uint32 | uint64] struct{ pos, neg []K }

// auc is Ranking.AUC of non-empty lists.
func (s sorted[K]) auc() float64 {
	p, n := s.pos, s.neg
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

// averagePrecision is Ranking.AveragePrecision with positives.
func (s sorted[K]) averagePrecision() float64 {
	p, n := s.pos, s.neg
	// The distinct scores from the highest down, each with the pairs of
	// both lists that share it.
	var ap float64
	tp, seen := 0, 0
	i, j := len(p)-1, len(n)-1
	for i >= 0 || j >= 0 {
		var k K
		switch {
		case j < 0 || (i >= 0 && p[i] >= n[j]):
			k = p[i]
		default:
			k = n[j]
		}
		newTP := 0
		for i >= 0 && p[i] == k {
			newTP++
			i--
		}
		for j >= 0 && n[j] == k {
			seen++
			j--
		}
		tp += newTP
		seen += newTP
		ap += float64(newTP) / float64(len(p)) * float64(tp) / float64(seen)
	}
	return ap
}

// hitsAtK is Ranking.HitsAtK with positives and at least k negatives.
func (s sorted[K]) hitsAtK(k int) float64 {
	p, n := s.pos, s.neg
	kth := n[len(n)-k]
	above := len(p) - sort.Search(len(p), func(i int) bool { return p[i] > kth })
	return float64(above) / float64(len(p))
}

// key64 maps a float64 to an unsigned integer of the same order: x < y
// exactly when key64(x) < key64(y) for x and y not NaN, and −0 and +0
// share a key as they compare equal. A NaN's key lies below that of −Inf
// or above that of +Inf.
func key64(x float64) uint64 {
	if x == 0 {
		x = 0 // −0 as +0
	}
	b := math.Float64bits(x)
	if b>>63 != 0 {
		return ^b // negative: the larger the magnitude, the smaller
	}
	return b | 1<<63
}

// key32 is key64 for a float32.
func key32(x float32) uint32 {
	if x == 0 {
		x = 0
	}
	b := math.Float32bits(x)
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

// radixMin is the shortest list sortKeys sorts by radix; shorter ones go
// to slices.Sort, faster there.
const radixMin = 1 << 12

// sortKeys sorts keys in ascending order.
func sortKeys[K uint32 | uint64](keys []K) {
	if len(keys) < radixMin {
		slices.Sort(keys)
		return
	}
	radixSort(keys, make([]K, len(keys)))
}

// radixSort sorts keys in ascending order by their bytes from the lowest
// (a least-significant-digit radix sort), using buf, of the same length,
// as scratch. A byte that every key shares is skipped: float64 scores
// widened from float32 share their three lowest bytes (all zero).
func radixSort[K uint32 | uint64](keys, buf []K) {
	var count [8][256]int
	for _, k := range keys {
		x := uint64(k)
		count[0][byte(x)]++
		count[1][byte(x>>8)]++
		count[2][byte(x>>16)]++
		count[3][byte(x>>24)]++
		count[4][byte(x>>32)]++
		count[5][byte(x>>40)]++
		count[6][byte(x>>48)]++
		count[7][byte(x>>56)]++
	}
	src, dst := keys, buf
	for d := range count {
		c := &count[d]
		shift := uint(8 * d)
		if c[byte(uint64(src[0])>>shift)] == len(src) {
			continue
		}
		sum := 0
		for b, m := range c {
			c[b] = sum
			sum += m
		}
		for _, k := range src {
			b := byte(uint64(k) >> shift)
			dst[c[b]] = k
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}
