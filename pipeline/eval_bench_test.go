package pipeline

import (
	"math/rand/v2"
	"testing"
)

// benchModel returns a 1M-node model at d = 128 (out of cache, as a large
// run's is at its final evaluation) and 2M uniform positive and negative
// pairs.
func benchModel() (l, r []float32, half int, pos, neg []Pair) {
	const n, m = 1 << 20, 1 << 21
	half = 64
	rng := rand.New(rand.NewPCG(1, 1))
	l, r = make([]float32, n*half), make([]float32, n*half)
	for i := range l {
		l[i], r[i] = rng.Float32(), rng.Float32()
	}
	pos, neg = make([]Pair, m), make([]Pair, m)
	for i := range pos {
		pos[i] = Pair{U: int32(rng.IntN(n)), V: int32(rng.IntN(n))}
		neg[i] = Pair{U: int32(rng.IntN(n)), V: int32(rng.IntN(n))}
	}
	return l, r, half, pos, neg
}

// BenchmarkPairAUC scores the positive and negative pairs of benchModel
// and takes their AUC.
func BenchmarkPairAUC(b *testing.B) {
	l, r, half, pos, neg := benchModel()
	for b.Loop() {
		PairAUC(l, r, half, pos, neg)
	}
}

// BenchmarkScorePairs scores the positive pairs of benchModel.
func BenchmarkScorePairs(b *testing.B) {
	l, r, half, pos, _ := benchModel()
	for b.Loop() {
		ScorePairs(l, r, half, pos)
	}
	b.ReportMetric(float64(len(pos))*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
}
