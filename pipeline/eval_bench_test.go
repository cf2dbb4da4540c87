package pipeline

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkPairAUC scores 2M positive and 2M negative pairs of a
// 1M-node model at d = 128 (out of cache, as a large run's final
// evaluation is) and takes their AUC.
func BenchmarkPairAUC(b *testing.B) {
	const n, half, m = 1 << 20, 64, 1 << 21
	rng := rand.New(rand.NewPCG(1, 1))
	l, r := make([]float32, n*half), make([]float32, n*half)
	for i := range l {
		l[i], r[i] = rng.Float32(), rng.Float32()
	}
	pos, neg := make([]Pair, m), make([]Pair, m)
	for i := range pos {
		pos[i] = Pair{U: int32(rng.IntN(n)), V: int32(rng.IntN(n))}
		neg[i] = Pair{U: int32(rng.IntN(n)), V: int32(rng.IntN(n))}
	}
	b.ResetTimer()
	for b.Loop() {
		PairAUC(l, r, half, pos, neg)
	}
}
