package sparse

import (
	"context"
	"runtime"
	"sort"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
	"gonum.org/v1/gonum/mat"
)

// Float is the element type of the dense blocks the kernels read and write.
type Float interface{ ~float32 | ~float64 }

// serialWork is the number of multiply-adds below which the kernels do not
// start goroutines: the fan-out costs more than it saves.
const serialWork = 1 << 16

// chunkWork is the target number of multiply-adds per scheduled chunk of
// rows; cancellation is checked between chunks.
const chunkWork = 1 << 20

// MulVecTo computes dst = m·x. It assigns every element of dst.
func (m *CSR) MulVecTo(dst, x []float64) {
	if len(dst) != m.rows || len(x) != m.cols {
		panic(mat.ErrShape)
	}
	for i := 0; i < m.rows; i++ {
		idx, val := m.Row(i)
		var s float64
		for k, j := range idx {
			s += val[k] * x[j]
		}
		dst[i] = s
	}
}

// MulBlockTo computes dst = m·b, where b is a cols x k block and dst a
// rows x k block, both dense and row-major with stride k. It assigns every
// element of dst; b is not modified and must not overlap dst.
//
// The rows of dst are split into chunks of similar work, computed by up to
// workers goroutines (workers <= 0 means GOMAXPROCS). Each output row is
// summed by one goroutine in the row's column order, so the result is
// bitwise identical for every worker count. The context is checked between
// chunks; on cancellation dst is partly written and ctx.Err() is returned.
func MulBlockTo[T Float](ctx context.Context, dst []T, m *CSR, b []T, k, workers int) error {
	if k < 0 || len(b) != m.cols*k || len(dst) != m.rows*k {
		panic(mat.ErrShape)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	work := (m.NNZ() + m.rows) * k
	if workers == 1 || work < serialWork {
		for lo := 0; lo < m.rows; {
			hi := m.nextChunk(lo, k)
			mulRows(dst, m, b, k, lo, hi)
			lo = hi
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return nil
	}
	bounds := m.chunks(k)
	var next atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for w := 0; w < workers && w < len(bounds)-1; w++ {
		g.Go(func() error {
			for {
				c := int(next.Add(1)) - 1
				if c >= len(bounds)-1 {
					return nil
				}
				if err := gctx.Err(); err != nil {
					return err
				}
				mulRows(dst, m, b, k, bounds[c], bounds[c+1])
			}
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// nextChunk returns the end of the chunk of rows that starts at lo.
func (m *CSR) nextChunk(lo, k int) int {
	per := chunkWork / max(k, 1)
	target := m.Indptr[lo] + per
	// First row whose start is beyond the target, but at least one row and
	// at most per rows (empty rows still cost k stores each).
	hi := lo + sort.SearchInts(m.Indptr[lo+1:], target) + 1
	return min(max(hi, lo+1), lo+max(per, 1), m.rows)
}

// chunks splits the rows into consecutive ranges of similar work.
func (m *CSR) chunks(k int) []int {
	bounds := []int{0}
	for lo := 0; lo < m.rows; {
		lo = m.nextChunk(lo, k)
		bounds = append(bounds, lo)
	}
	return bounds
}

// mulRows computes rows [lo, hi) of dst = m·b. Four source rows are
// combined per pass over the output row, so that four independent gathers
// are in flight and the output row is loaded and stored a quarter as often.
func mulRows[T Float](dst []T, m *CSR, b []T, k, lo, hi int) {
	for i := lo; i < hi; i++ {
		d := dst[i*k : i*k+k]
		clear(d)
		p, end := m.Indptr[i], m.Indptr[i+1]
		for ; p+4 <= end; p += 4 {
			j0, j1, j2, j3 := int(m.Indices[p]), int(m.Indices[p+1]), int(m.Indices[p+2]), int(m.Indices[p+3])
			v0, v1, v2, v3 := T(m.Data[p]), T(m.Data[p+1]), T(m.Data[p+2]), T(m.Data[p+3])
			b0 := b[j0*k : j0*k+k]
			b1 := b[j1*k : j1*k+k]
			b2 := b[j2*k : j2*k+k]
			b3 := b[j3*k : j3*k+k]
			for c := range d {
				d[c] += v0*b0[c] + v1*b1[c] + v2*b2[c] + v3*b3[c]
			}
		}
		for ; p < end; p++ {
			j, v := int(m.Indices[p]), T(m.Data[p])
			bj := b[j*k : j*k+k]
			for c := range d {
				d[c] += v * bj[c]
			}
		}
	}
}

// MulDenseTo computes dst = m·b for gonum matrices, with the same
// determinism guarantees as MulBlockTo. dst must be rows x c and b cols x c.
func (m *CSR) MulDenseTo(ctx context.Context, dst *mat.Dense, b mat.Matrix, workers int) error {
	br, bc := b.Dims()
	dr, dc := dst.Dims()
	if br != m.cols || dr != m.rows || dc != bc {
		panic(mat.ErrShape)
	}
	if dr == 0 || dc == 0 {
		return ctx.Err()
	}
	bd := mat.DenseCopyOf(b)
	braw := bd.RawMatrix()
	bs := braw.Data
	if braw.Stride != bc {
		bs = make([]float64, br*bc)
		for i := 0; i < br; i++ {
			copy(bs[i*bc:(i+1)*bc], braw.Data[i*braw.Stride:])
		}
	}
	out := make([]float64, dr*dc)
	if err := MulBlockTo(ctx, out, m, bs, bc, workers); err != nil {
		return err
	}
	dst.Copy(mat.NewDense(dr, dc, out))
	return nil
}

// ParallelFor calls fn(i) for every i in [0, n) on up to workers
// goroutines (workers <= 0 means GOMAXPROCS) that take indices in turn.
// The calls must not depend on each other; then the result does not
// depend on the number of workers. The context is checked between calls;
// on cancellation the remaining indices are skipped and ctx.Err() is
// returned. No goroutine is left running.
func ParallelFor(ctx context.Context, n, workers int, fn func(i int)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers == 1 || n <= 1 {
		for i := 0; i < n; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			fn(i)
		}
		return ctx.Err()
	}
	var next atomic.Int64
	var g errgroup.Group
	for w := 0; w < min(workers, n); w++ {
		g.Go(func() error {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return nil
				}
				fn(i)
			}
		})
	}
	g.Wait()
	return ctx.Err()
}
