package train

import (
	"context"
	"slices"

	"github.com/wys-project/wys/pipeline/internal/kernels"
	"github.com/wys-project/wys/sparse"
)

// prefetchAhead is how many rows ahead the updates ask for their rows.
const prefetchAhead = 4

// blockGrads is the reusable scratch of one row block's update: the
// block's rows that the batch touched, in increasing order, and their
// summed gradients in the same order (row rows[i] at grad[i*h:i*h+h]),
// with the sort keys that list them.
type blockGrads struct {
	rows            []int32
	grad            []float32
	keys, vkey, tmp []uint64
	// The terms of one row's sum: coefficients and vectors.
	as []float32
	xs [][]float32
}

// updateSorted takes the Adam or SGD step st of the batch: each row
// block's gradients are summed into its compact buffer (accumulateSorted),
// then the rows are updated in increasing order. The sums and the steps
// are those of accumulate and apply, the same arithmetic in the same
// order; only where the gradients are kept changes, a few thousand rows
// per block that stay in the cache instead of N x d/2 arrays written at
// random rows.
func (t *trainer) updateSorted(ctx context.Context, st rowStep) error {
	if t.blocks == nil {
		t.blocks = make([]blockGrads, 2*numBlocks)
	}
	// Both sides are summed before either is updated: the gradient of L
	// reads R and that of R reads L, both as they were before the step.
	err := sparse.ParallelFor(ctx, 2*numBlocks, t.cfg.Workers, func(i int) {
		blk, left := i/2, i%2 == 0
		if left {
			t.accumulateSorted(&t.blocks[i], t.byL[t.startL[blk]:t.startL[blk+1]], t.vecL[t.vstartL[blk]:t.vstartL[blk+1]], true)
		} else {
			t.accumulateSorted(&t.blocks[i], t.byR[t.startR[blk]:t.startR[blk+1]], t.vecR[t.vstartR[blk]:t.vstartR[blk+1]], false)
		}
	})
	if err != nil {
		return err
	}
	return sparse.ParallelFor(ctx, 2*numBlocks, t.cfg.Workers, func(i int) {
		if i%2 == 0 {
			t.blocks[i].apply(st, t.l, t.ml, t.vl, t.half)
		} else {
			t.blocks[i].apply(st, t.r, t.mr, t.vr, t.half)
		}
	})
}

// apply takes the step st on the rows of b in x (rows h wide, with their
// Adam moments m and v, or RMSProp's v), in increasing order, asking for
// each row's memory a few rows ahead.
func (b *blockGrads) apply(st rowStep, x, m, v []float32, h int) {
	for j, row := range b.rows {
		if j+prefetchAhead < len(b.rows) {
			o := int(b.rows[j+prefetchAhead]) * h
			kernels.Prefetch(x[o : o+h])
			switch st.kind {
			case stepAdam:
				kernels.Prefetch(m[o : o+h])
				kernels.Prefetch(v[o : o+h])
			case stepRMS:
				kernels.Prefetch(v[o : o+h])
			}
		}
		st.update(x, b.grad[j*h:j*h+h], m, v, int(row)*h)
	}
}

// accumulateSorted sums the gradient contributions of pairs and vecs (all
// in one row block) to L (left) or R into b: for each row its pairs in
// the order given, then its vectors in the order given, as accumulate
// does, with the rows listed in increasing order.
func (t *trainer) accumulateSorted(b *blockGrads, pairs []pairCoef, vecs []rowVec, left bool) {
	h := t.half
	other := t.r
	if !left {
		other = t.l
	}
	// Keys row<<32 | index sort by row and, within a row, by index: a
	// stable sort of the contributions by row.
	b.keys = b.keys[:0]
	for j, p := range pairs {
		row := p.v
		if !left {
			row = p.u
		}
		b.keys = append(b.keys, uint64(row)<<32|uint64(j))
	}
	b.vkey = b.vkey[:0]
	for j, x := range vecs {
		b.vkey = append(b.vkey, uint64(x.row)<<32|uint64(j))
	}
	sortByRow(b.keys, &b.tmp)
	sortByRow(b.vkey, &b.tmp)
	b.rows, b.grad = b.rows[:0], b.grad[:0]
	pi, vi := 0, 0
	for pi < len(b.keys) || vi < len(b.vkey) {
		row := uint64(1) << 32
		if pi < len(b.keys) {
			row = b.keys[pi] >> 32
		}
		if vi < len(b.vkey) {
			row = min(row, b.vkey[vi]>>32)
		}
		off := len(b.grad)
		b.grad = slices.Grow(b.grad, h)[:off+h]
		g := b.grad[off : off+h]
		clear(g)
		b.as, b.xs = b.as[:0], b.xs[:0]
		b.rows = append(b.rows, int32(row))
		for ; pi < len(b.keys) && b.keys[pi]>>32 == row; pi++ {
			if pi+prefetchAhead < len(b.keys) {
				a := pairs[uint32(b.keys[pi+prefetchAhead])]
				src := a.u
				if !left {
					src = a.v
				}
				kernels.Prefetch(other[int(src)*h : int(src)*h+h])
			}
			p := pairs[uint32(b.keys[pi])]
			src := p.u
			if !left {
				src = p.v
			}
			b.as, b.xs = append(b.as, p.coef), append(b.xs, other[int(src)*h:int(src)*h+h])
		}
		for ; vi < len(b.vkey) && b.vkey[vi]>>32 == row; vi++ {
			x := vecs[uint32(b.vkey[vi])]
			b.as, b.xs = append(b.as, 1), append(b.xs, t.shardVecs[x.shard][x.off:int(x.off)+h])
		}
		kernels.AxpyN(g, b.as, b.xs)
	}
}

// sortByRow sorts keys row<<32 | j whose low halves j increase along
// keys, with the result of slices.Sort: the keys are distinct, and a
// stable sort by row alone keeps each row's j in increasing order. It is
// an LSD radix sort of the rows' offsets from the smallest, 8 bits a
// pass (two passes for the 16,384 rows of a block of a million-node
// graph, where pdqsort's comparisons cost 7% of a batch), with *tmp as
// scratch.
func sortByRow(keys []uint64, tmp *[]uint64) {
	if len(keys) < 64 {
		slices.Sort(keys)
		return
	}
	lo, hi := keys[0]>>32, keys[0]>>32
	for _, k := range keys {
		lo, hi = min(lo, k>>32), max(hi, k>>32)
	}
	span := hi - lo
	if span >= 1<<24 {
		slices.Sort(keys)
		return
	}
	*tmp = slices.Grow((*tmp)[:0], len(keys))[:len(keys)]
	src, dst := keys, *tmp
	for shift := uint(0); shift == 0 || span>>shift > 0; shift += 8 {
		var count [257]int
		for _, k := range src {
			count[((k>>32-lo)>>shift)&0xff+1]++
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		for _, k := range src {
			d := ((k>>32 - lo) >> shift) & 0xff
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}
