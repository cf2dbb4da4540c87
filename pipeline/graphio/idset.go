package graphio

import (
	"math/bits"
	"slices"
)

// idSet collects distinct integer ids in memory proportional to their
// number. Small ids, as SNAP's 0..N−1 are, set a bit in low, a bit set
// that grows while it takes at most one byte per id added (plus
// 128 KiB): no sorting. Other ids wait in pend, which is sorted and
// merged into the sorted set uniq once it is as long as uniq (and at
// least minPend, 2^20 when 0), so each is sorted once and merging costs
// amortised linear time. An id may end up both in uniq and in low (it
// came before low grew over it); sorted merges the two.
type idSet struct {
	uniq, pend []uint64
	minPend    int
	low        []uint64 // bit v%64 of low[v/64]: id v was added
	added      int
}

// lowBase is the number of words low may always take (128 KiB).
const lowBase = 1 << 14

func (s *idSet) add(v uint64) {
	s.added++
	if w := v / 64; w < uint64(len(s.low)) || s.growLow(w) {
		s.low[w] |= 1 << (v % 64)
		return
	}
	s.pend = append(s.pend, v)
	limit := s.minPend
	if limit == 0 {
		limit = 1 << 20
	}
	if len(s.pend) >= max(len(s.uniq), limit) {
		s.flush()
	}
}

// growLow grows low to hold word w, to at least twice its length (so
// that growing copies each word a bounded number of times), if its budget
// of added/8 + lowBase words allows, and reports whether it did.
func (s *idSet) growLow(w uint64) bool {
	n := max(w+1, 2*uint64(len(s.low)))
	if n > uint64(s.added/8+lowBase) {
		return false
	}
	low := make([]uint64, n)
	copy(low, s.low)
	s.low = low
	return true
}

// flush merges pend into uniq.
func (s *idSet) flush() {
	slices.Sort(s.pend)
	s.uniq, s.pend = mergeUnique(s.uniq, slices.Compact(s.pend)), s.pend[:0]
}

// sorted returns the distinct ids added, in increasing order, and empties
// the set.
func (s *idSet) sorted() []uint64 {
	s.flush()
	var small []uint64
	if len(s.low) > 0 {
		n := 0
		for _, x := range s.low {
			n += bits.OnesCount64(x)
		}
		small = make([]uint64, 0, n)
		for w, x := range s.low {
			for ; x != 0; x &= x - 1 {
				small = append(small, uint64(w)*64+uint64(bits.TrailingZeros64(x)))
			}
		}
	}
	out := s.uniq
	if len(small) > 0 {
		out = mergeUnique(small, s.uniq)
	}
	*s = idSet{}
	return out
}

// mergeUnique returns the sorted union of the sorted sets a and b: a
// when b is empty, else a new slice.
func mergeUnique(a, b []uint64) []uint64 {
	if len(b) == 0 {
		return a
	}
	n, i, j := 0, 0, 0 // size of the union
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			i++
			j++
		}
		n++
	}
	n += len(a) - i + len(b) - j
	out := make([]uint64, 0, n)
	i, j = 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return append(append(out, a[i:]...), b[j:]...)
}

// idIndex finds the rank of an id in a sorted slice of distinct ids.
// When the ids span at most 16 values per id (SNAP's 0..N−1 do), it
// counts bits: a bit set of the span and the count of ids before each
// 64-bit word, at most 0.19 bytes per value spanned, which stays in cache
// where the ids themselves would not. Otherwise the span is cut into at
// most len(uniq) equal buckets, start[b] is the first rank in bucket b,
// and a binary search runs inside the bucket.
type idIndex struct {
	uniq  []uint64
	min   uint64
	shift uint
	start []int32

	bits   []uint64 // bit (v−min)%64 of bits[(v−min)/64]: v is an id
	before []int32  // ids below word w's
}

func newIDIndex(uniq []uint64) idIndex {
	n := len(uniq)
	x := idIndex{uniq: uniq, min: uniq[0]}
	span := uniq[n-1] - uniq[0]
	if span/16 < uint64(n) {
		x.bits = make([]uint64, span/64+1)
		for _, v := range uniq {
			d := v - x.min
			x.bits[d/64] |= 1 << (d % 64)
		}
		x.before = make([]int32, len(x.bits))
		c := 0
		for w, b := range x.bits {
			x.before[w] = int32(c)
			c += bits.OnesCount64(b)
		}
		return x
	}
	for span>>x.shift >= uint64(n) {
		x.shift++
	}
	nb := int(span>>x.shift) + 1
	x.start = make([]int32, nb+1)
	b := 0
	for i, v := range uniq {
		for bv := int((v - x.min) >> x.shift); b <= bv; b++ {
			x.start[b] = int32(i)
		}
	}
	for ; b <= nb; b++ {
		x.start[b] = int32(n)
	}
	return x
}

// row returns the rank of v, which must be in the slice.
func (x *idIndex) row(v uint64) int32 {
	d := v - x.min
	if x.bits != nil {
		w := d / 64
		return x.before[w] + int32(bits.OnesCount64(x.bits[w]&(1<<(d%64)-1)))
	}
	b := d >> x.shift
	lo, hi := x.start[b], x.start[b+1]
	r, _ := slices.BinarySearch(x.uniq[lo:hi], v)
	return lo + int32(r)
}
