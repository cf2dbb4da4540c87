package pipeline

import (
	"slices"
	"testing"
)

// TestSubsamplePairs: the kept pairs are distinct members of the list in
// their original order, the same for the same stream, another for
// another stream; a list within the limit is returned whole.
func TestSubsamplePairs(t *testing.T) {
	var pairs []Pair
	for i := range 1000 {
		pairs = append(pairs, Pair{U: int32(i), V: int32(i + 1)})
	}
	a, b := SubsamplePairs(pairs, 100, Stream(7, StreamEval, 0)), SubsamplePairs(pairs, 100, Stream(7, StreamEval, 0))
	if len(a) != 100 || !slices.Equal(a, b) || !slices.IsSortedFunc(a, func(p, q Pair) int { return int(p.U - q.U) }) ||
		len(slices.CompactFunc(slices.Clone(a), func(p, q Pair) bool { return p == q })) != 100 {
		t.Errorf("subsample of 100: %v…", a[:3])
	}
	if c := SubsamplePairs(pairs, 100, Stream(7, StreamEval, 1)); slices.Equal(a, c) {
		t.Error("streams 0 and 1 drew the same pairs")
	}
	if got := SubsamplePairs(pairs[:50], 100, Stream(7, StreamEval, 0)); len(got) != 50 {
		t.Errorf("a list within the limit is cut: %d", len(got))
	}
}
