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

// aucBenchScores returns two lists of 8M scores, float32 values widened
// as ScorePairs makes them, the positives shifted up.
func aucBenchScores() (pos, neg []float64) {
	rng := rand.New(rand.NewPCG(2, 2))
	pos, neg = make([]float64, 1<<23), make([]float64, 1<<23)
	for i := range pos {
		pos[i] = float64(float32(rng.NormFloat64() + 1))
		neg[i] = float64(float32(rng.NormFloat64()))
	}
	return pos, neg
}

// BenchmarkAUC takes the AUC of two lists of 8M scores.
func BenchmarkAUC(b *testing.B) {
	pos, neg := aucBenchScores()
	for b.Loop() {
		AUC(pos, neg)
	}
}

// BenchmarkRankMeasures takes the AUC, the average precision and Hits@k
// at three k of two lists of 8M scores, as wys-sparse's report does.
func BenchmarkRankMeasures(b *testing.B) {
	pos, neg := aucBenchScores()
	for b.Loop() {
		AUC(pos, neg)
		AveragePrecision(pos, neg)
		for _, k := range []int{20, 50, 100} {
			HitsAtK(pos, neg, k)
		}
	}
}

// BenchmarkRanking takes the measures of BenchmarkRankMeasures from one
// Rank of the lists, as wys-sparse's report does.
func BenchmarkRanking(b *testing.B) {
	pos, neg := aucBenchScores()
	for b.Loop() {
		r := Rank(pos, neg)
		r.AUC()
		r.AveragePrecision()
		for _, k := range []int{20, 50, 100} {
			r.HitsAtK(k)
		}
	}
}
