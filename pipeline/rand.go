package pipeline

import (
	"math/rand/v2"
	"slices"
)

// Random stream purposes. Every random choice of a method comes from a
// PCG source seeded with the run's seed and a stream id derived from one
// of these purposes and the data shard, never from the goroutine.
const (
	StreamInit uint64 = 0x696e6974 // "init"
	StreamWalk uint64 = 0x77616c6b // "walk": anchors, walks and negatives of a shard
	StreamEval uint64 = 0x6576616c // "eval": subsampling evaluation pairs
)

// Stream returns the PCG source for a purpose and shard index.
func Stream(seed, purpose, shard uint64) *rand.Rand {
	return rand.New(rand.NewPCG(StreamSeed(seed, purpose, shard)))
}

// SubsamplePairs returns p when it has at most limit pairs, else limit
// of them drawn uniformly without replacement (the first limit entries
// of rng.Perm), in their order in p.
func SubsamplePairs(p []Pair, limit int, rng *rand.Rand) []Pair {
	if len(p) <= limit {
		return p
	}
	idx := rng.Perm(len(p))[:limit]
	slices.Sort(idx)
	out := make([]Pair, len(idx))
	for i, j := range idx {
		out[i] = p[j]
	}
	return out
}

// StreamSeed returns the two PCG seeds of Stream(seed, purpose, shard),
// for a caller that reseeds a source of its own (rand.PCG.Seed) instead
// of allocating one.
func StreamSeed(seed, purpose, shard uint64) (uint64, uint64) {
	return seed, mix64(purpose*0x9e3779b97f4a7c15 ^ mix64(shard))
}

// mix64 is SplitMix64's finaliser: a bijective scrambling of x.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
