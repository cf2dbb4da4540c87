package sparse

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Sentinel errors returned (wrapped) by the constructors.
var (
	// ErrIndexRange reports an edge endpoint outside [0, rows) or [0, cols).
	ErrIndexRange = errors.New("sparse: index out of range")
	// ErrValue reports a NaN, infinite or negative edge weight where it is not allowed.
	ErrValue = errors.New("sparse: invalid value")
	// ErrTooLarge reports a dense conversion above MaxDenseElements.
	ErrTooLarge = errors.New("sparse: matrix too large for a dense copy")
)

// MaxDenseElements bounds ToDense: rows*cols above it is refused with
// ErrTooLarge rather than allocating (8 bytes each).
const MaxDenseElements = 1 << 28

// CSR is a sparse matrix in compressed sparse row form.
//
// Row i holds the column indices Indices[Indptr[i]:Indptr[i+1]] in strictly
// increasing order and the matching values in Data. The fields are exported
// for kernels and serialisation; code that changes them directly must keep
// the invariants (see Validate).
type CSR struct {
	rows, cols int
	// Indptr has rows+1 entries; Indptr[0] == 0 and Indptr[rows] == NNZ.
	Indptr []int
	// Indices holds column indices, sorted and unique within each row.
	Indices []int32
	// Data holds the values, one per index.
	Data []float64
}

var (
	_ mat.Matrix = (*CSR)(nil)
)

// DupPolicy says how NewFromCOO combines entries with the same (row, col).
type DupPolicy int

const (
	// DupSum adds duplicate values (the natural choice for weighted edge lists).
	DupSum DupPolicy = iota
	// DupFirst keeps the value of the first occurrence in input order.
	DupFirst
	// DupMax keeps the largest value.
	DupMax
)

// NewCSR returns a CSR from its raw parts after checking every invariant.
// The slices are used, not copied.
func NewCSR(rows, cols int, indptr []int, indices []int32, data []float64) (*CSR, error) {
	m := &CSR{rows: rows, cols: cols, Indptr: indptr, Indices: indices, Data: data}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// Validate checks the CSR invariants: len(Indptr) == rows+1, Indptr
// non-decreasing from 0 to NNZ, len(Data) == len(Indices), and column indices
// in range, strictly increasing within each row.
func (m *CSR) Validate() error {
	if m.rows < 0 || m.cols < 0 {
		return fmt.Errorf("sparse: negative dimension %d x %d", m.rows, m.cols)
	}
	if m.cols > math.MaxInt32 {
		return fmt.Errorf("sparse: %d columns exceed the int32 index range", m.cols)
	}
	if len(m.Indptr) != m.rows+1 {
		return fmt.Errorf("sparse: len(indptr) = %d, want rows+1 = %d", len(m.Indptr), m.rows+1)
	}
	if m.Indptr[0] != 0 || m.Indptr[m.rows] != len(m.Indices) {
		return fmt.Errorf("sparse: indptr must run from 0 to nnz = %d", len(m.Indices))
	}
	if len(m.Data) != len(m.Indices) {
		return fmt.Errorf("sparse: len(data) = %d, len(indices) = %d", len(m.Data), len(m.Indices))
	}
	for i := 0; i < m.rows; i++ {
		lo, hi := m.Indptr[i], m.Indptr[i+1]
		if hi < lo {
			return fmt.Errorf("sparse: indptr decreases at row %d", i)
		}
		prev := int32(-1)
		for _, j := range m.Indices[lo:hi] {
			if j < 0 || int(j) >= m.cols {
				return fmt.Errorf("%w: row %d has column %d, cols = %d", ErrIndexRange, i, j, m.cols)
			}
			if j <= prev {
				return fmt.Errorf("sparse: row %d columns not strictly increasing (%d after %d)", i, j, prev)
			}
			prev = j
		}
	}
	return nil
}

// NewFromCOO builds a rows x cols CSR from coordinate triples. w may be nil,
// meaning every value is 1. Entries with the same (row, col) are combined by
// dup. Values must be finite; the inputs are not modified. Memory: the
// result plus one int per row. It checks ctx every 1,048,576 entries (or
// rows) of each pass and on a cancel returns ctx.Err().
func NewFromCOO(ctx context.Context, rows, cols int, src, dst []int32, w []float64, dup DupPolicy) (*CSR, error) {
	return newFromCOO(ctx, cooCheck, rows, cols, src, dst, w, dup)
}

// cooCheck is how many entries NewFromCOO handles between two checks of
// its context: on R-MAT scale 22 (134M arcs, 16 s) the longest gap
// between two checks was 0.12 s, the median 25 ms.
const cooCheck = 1 << 20

// newFromCOO is NewFromCOO checking ctx every `every` entries, so that
// tests can cancel inside each pass of a small input.
func newFromCOO(ctx context.Context, every, rows, cols int, src, dst []int32, w []float64, dup DupPolicy) (*CSR, error) {
	if len(src) != len(dst) || (w != nil && len(w) != len(src)) {
		panic(mat.ErrShape)
	}
	if rows < 0 || cols < 0 || cols > math.MaxInt32 {
		return nil, fmt.Errorf("sparse: bad dimensions %d x %d", rows, cols)
	}
	indptr, err := cooRowStarts(ctx, every, rows, cols, src, dst, w)
	if err != nil {
		return nil, err
	}
	indices, data, err := cooScatter(ctx, every, indptr, src, dst, w)
	if err != nil {
		return nil, err
	}
	out, err := compressRows(ctx, every, indptr, indices, data, dup)
	if err != nil {
		return nil, err
	}
	return &CSR{rows: rows, cols: cols, Indptr: indptr, Indices: slices.Clip(indices[:out]), Data: slices.Clip(data[:out])}, nil
}

// cooRowStarts checks the entries and returns the rows+1 offsets at which
// each row's entries start in row order.
func cooRowStarts(ctx context.Context, every, rows, cols int, src, dst []int32, w []float64) ([]int, error) {
	counts := make([]int, rows+1)
	for lo := 0; lo < len(src); lo += every {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for e := lo; e < min(lo+every, len(src)); e++ {
			s, d := src[e], dst[e]
			if s < 0 || int(s) >= rows || d < 0 || int(d) >= cols {
				return nil, fmt.Errorf("%w: entry %d is (%d, %d) in a %d x %d matrix", ErrIndexRange, e, s, d, rows, cols)
			}
			if w != nil && (math.IsNaN(w[e]) || math.IsInf(w[e], 0)) {
				return nil, fmt.Errorf("%w: entry %d has weight %v", ErrValue, e, w[e])
			}
			counts[s+1]++
		}
	}
	for i := 0; i < rows; i++ {
		counts[i+1] += counts[i]
	}
	return counts, nil
}

// cooScatter returns the columns and values of the entries grouped by
// row, row i's at starts[i]:starts[i+1]. The counting sort by row keeps
// input order within a row (stable), which DupFirst relies on.
func cooScatter(ctx context.Context, every int, starts []int, src, dst []int32, w []float64) ([]int32, []float64, error) {
	indices, data, err := cooArrays(ctx, every, len(src), w == nil)
	if err != nil {
		return nil, nil, err
	}
	next := slices.Clone(starts[:len(starts)-1])
	for lo := 0; lo < len(src); lo += every {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		for e := lo; e < min(lo+every, len(src)); e++ {
			p := next[src[e]]
			next[src[e]]++
			indices[p] = dst[e]
			if w != nil {
				data[p] = w[e]
			}
		}
	}
	return indices, data, nil
}

// cooArrays returns n columns and n values, the values 1 when ones. It
// writes both arrays in order, which faults their fresh pages in a few
// at a time between checks of ctx: the scatter's random writes faulted
// in nearly all of them in its first 1,048,576 entries (0.6 s without a
// check at R-MAT scale 22).
func cooArrays(ctx context.Context, every, n int, ones bool) ([]int32, []float64, error) {
	indices := make([]int32, n)
	data := make([]float64, n)
	for lo := 0; lo < n; lo += every {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		hi := min(lo+every, n)
		clear(indices[lo:hi])
		if !ones {
			clear(data[lo:hi])
			continue
		}
		for p := lo; p < hi; p++ {
			data[p] = 1
		}
	}
	return indices, data, nil
}

// compressRows sorts each row of the grouped entries by column (stably)
// and combines duplicates by dup in place, turning indptr from the rows'
// starts into the CSR's row pointers. It returns the number of entries
// kept. It checks ctx before the first row and then before a row once
// `every` entries and rows have passed since the last check, so that a
// long hub row counts for its length.
func compressRows(ctx context.Context, every int, indptr []int, indices []int32, data []float64, dup DupPolicy) (int, error) {
	rows := len(indptr) - 1
	out, start, sinceCheck := 0, 0, every
	var ks keySorter
	for i := 0; i < rows; i++ {
		lo, hi := start, indptr[i+1]
		if sinceCheck >= every {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			sinceCheck = 0
		}
		sinceCheck += hi - lo + 1
		start = hi
		row := rowSorter{indices[lo:hi], data[lo:hi]}
		switch {
		case sort.IsSorted(row):
		case hi-lo <= shortRow:
			sort.Stable(row)
		default:
			ks.sort(row)
		}
		indptr[i] = out
		for p := lo; p < hi; p++ {
			if out > indptr[i] && indices[out-1] == indices[p] {
				switch dup {
				case DupSum:
					data[out-1] += data[p]
				case DupMax:
					data[out-1] = math.Max(data[out-1], data[p])
				}
				continue
			}
			indices[out] = indices[p]
			data[out] = data[p]
			out++
		}
	}
	indptr[rows] = out
	return out, nil
}

// shortRow is the longest row NewFromCOO sorts with sort.Stable (an
// insertion sort at this length); a longer one, an R-MAT hub's of tens of
// thousands of entries, is sorted by keySorter. On R-MAT scale 20 the
// stable merges of long rows were 10 of NewFromCOO's 13 s.
const shortRow = 64

// keySorter sorts a row stably by packing each entry's column and
// position into one uint64 key, sorting the keys (pdqsort) and permuting
// the row by them. Its buffers are reused from row to row.
type keySorter struct {
	keys []uint64
	idx  []int32
	val  []float64
}

func (k *keySorter) sort(row rowSorter) {
	k.keys, k.idx, k.val = k.keys[:0], append(k.idx[:0], row.idx...), append(k.val[:0], row.val...)
	for p, c := range row.idx {
		k.keys = append(k.keys, uint64(c)<<32|uint64(p))
	}
	slices.Sort(k.keys)
	for q, key := range k.keys {
		p := int(uint32(key))
		row.idx[q], row.val[q] = k.idx[p], k.val[p]
	}
}

type rowSorter struct {
	idx []int32
	val []float64
}

func (r rowSorter) Len() int           { return len(r.idx) }
func (r rowSorter) Less(a, b int) bool { return r.idx[a] < r.idx[b] }
func (r rowSorter) Swap(a, b int) {
	r.idx[a], r.idx[b] = r.idx[b], r.idx[a]
	r.val[a], r.val[b] = r.val[b], r.val[a]
}

// Dims returns the number of rows and columns.
func (m *CSR) Dims() (r, c int) { return m.rows, m.cols }

// NNZ returns the number of stored entries.
func (m *CSR) NNZ() int { return len(m.Indices) }

// Row returns the column indices and values of row i, as views into m.
func (m *CSR) Row(i int) ([]int32, []float64) {
	lo, hi := m.Indptr[i], m.Indptr[i+1]
	return m.Indices[lo:hi], m.Data[lo:hi]
}

// RowNNZ returns the number of stored entries in row i (its out-degree for
// an unweighted adjacency matrix).
func (m *CSR) RowNNZ(i int) int { return m.Indptr[i+1] - m.Indptr[i] }

// At returns the element at row i, column j, by binary search in row i.
// It implements mat.Matrix; hot paths use the block kernels instead.
func (m *CSR) At(i, j int) float64 {
	if uint(i) >= uint(m.rows) || uint(j) >= uint(m.cols) {
		panic(mat.ErrIndexOutOfRange)
	}
	idx, val := m.Row(i)
	k, ok := slices.BinarySearch(idx, int32(j))
	if !ok {
		return 0
	}
	return val[k]
}

// Has reports whether (i, j) is a stored entry.
func (m *CSR) Has(i, j int) bool {
	idx, _ := m.Row(i)
	return RowHas(idx, int32(j))
}

// RowHas reports whether the sorted column indices idx of one row (as Row
// returns them) hold column j: Has for a row already looked up, so that a
// caller checking many columns of one row fetches it once.
func RowHas(idx []int32, j int32) bool {
	// Outside the row's range no search is needed: most of the pairs a
	// trainer draws at random, on rows of a few neighbours.
	if len(idx) == 0 || j < idx[0] || j > idx[len(idx)-1] {
		return false
	}
	_, ok := slices.BinarySearch(idx, j)
	return ok
}

// T returns the implicit transpose, for mat.Matrix. Use Transpose for a CSR.
func (m *CSR) T() mat.Matrix { return mat.Transpose{Matrix: m} }

// Clone returns a deep copy of m.
func (m *CSR) Clone() *CSR {
	return &CSR{rows: m.rows, cols: m.cols, Indptr: slices.Clone(m.Indptr),
		Indices: slices.Clone(m.Indices), Data: slices.Clone(m.Data)}
}

// Transpose returns mᵀ as a new CSR (a counting sort, O(nnz + rows + cols)).
func (m *CSR) Transpose() *CSR {
	indptr := make([]int, m.cols+1)
	for _, j := range m.Indices {
		indptr[j+1]++
	}
	for j := 0; j < m.cols; j++ {
		indptr[j+1] += indptr[j]
	}
	next := slices.Clone(indptr[:m.cols])
	indices := make([]int32, len(m.Indices))
	data := make([]float64, len(m.Data))
	for i := 0; i < m.rows; i++ {
		for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
			j := m.Indices[p]
			q := next[j]
			next[j]++
			indices[q] = int32(i)
			data[q] = m.Data[p]
		}
	}
	return &CSR{rows: m.cols, cols: m.rows, Indptr: indptr, Indices: indices, Data: data}
}

// RowSums returns the sum of each row's values: the weighted out-degree of
// an adjacency matrix.
func (m *CSR) RowSums() []float64 {
	s := make([]float64, m.rows)
	for i := range s {
		_, val := m.Row(i)
		var t float64
		for _, v := range val {
			t += v
		}
		s[i] = t
	}
	return s
}

// OutDegrees returns the number of stored entries of each row.
func (m *CSR) OutDegrees() []int {
	d := make([]int, m.rows)
	for i := range d {
		d[i] = m.RowNNZ(i)
	}
	return d
}

// IsSymmetric reports whether m is square and equal to its transpose,
// values included.
func (m *CSR) IsSymmetric() bool {
	if m.rows != m.cols {
		return false
	}
	// Row i's entries below the diagonal, (i, j) with j < i, must meet
	// the entries (j, i) above it in row j in order: next[j] is the
	// first entry of row j above the diagonal not met yet. Rows are
	// visited in increasing i, so row j's are met in its column order.
	next := make([]int, m.rows)
	for j := range next {
		p, end := m.Indptr[j], m.Indptr[j+1]
		for p < end && int(m.Indices[p]) <= j {
			p++
		}
		next[j] = p
	}
	for i := 0; i < m.rows; i++ {
		for p := m.Indptr[i]; p < m.Indptr[i+1] && int(m.Indices[p]) < i; p++ {
			j := m.Indices[p]
			q := next[j]
			if q == m.Indptr[j+1] || int(m.Indices[q]) != i || m.Data[q] != m.Data[p] {
				return m.zerosSymmetric()
			}
			next[j]++
		}
	}
	// Every entry above the diagonal was met.
	for j, q := range next {
		if q != m.Indptr[j+1] {
			return m.zerosSymmetric()
		}
	}
	return true
}

// zerosSymmetric is IsSymmetric for a matrix whose stored entries are not
// symmetric as a pattern: stored zeros still make it symmetric when they
// are the only entries without a mirror (as a matrix, a stored zero is
// an absent entry).
func (m *CSR) zerosSymmetric() bool {
	if !slices.Contains(m.Data, 0) {
		return false
	}
	for i := 0; i < m.rows; i++ {
		idx, val := m.Row(i)
		for k, j := range idx {
			if m.At(int(j), i) != val[k] {
				return false
			}
		}
	}
	return true
}

// ScaleRows returns diag(s)·m as a new CSR with the same pattern.
func (m *CSR) ScaleRows(s []float64) *CSR {
	if len(s) != m.rows {
		panic(mat.ErrShape)
	}
	out := m.Clone()
	for i := 0; i < m.rows; i++ {
		for p := out.Indptr[i]; p < out.Indptr[i+1]; p++ {
			out.Data[p] *= s[i]
		}
	}
	return out
}

// RowNormalize returns the random-walk transition matrix T = D⁻¹A, with D the
// diagonal of row sums, and the list of dangling rows.
//
// Dangling-row policy: a row whose sum is zero (no out-arcs) stays all zero
// in T, as in the authors' released code. Such a row is substochastic: walks
// that reach the node stop there. The rows are returned so callers can
// report them.
func (m *CSR) RowNormalize() (t *CSR, dangling []int32) {
	sums := m.RowSums()
	inv := make([]float64, m.rows)
	for i, s := range sums {
		if s != 0 {
			inv[i] = 1 / s
		} else {
			dangling = append(dangling, int32(i))
		}
	}
	return m.ScaleRows(inv), dangling
}

// SymNormalize returns S = D^{-1/2} A D^{-1/2} with D the diagonal of row
// sums. For a symmetric A, S is symmetric and similar to T = D⁻¹A:
// T = D^{-1/2} S D^{1/2}. Rows and columns of zero-degree nodes are zero.
// It also returns the square roots of the row sums, the diagonal of D^{1/2}.
func (m *CSR) SymNormalize() (s *CSR, sqrtDeg []float64) {
	if m.rows != m.cols {
		panic(mat.ErrShape)
	}
	sums := m.RowSums()
	sqrtDeg = make([]float64, m.rows)
	inv := make([]float64, m.rows)
	for i, d := range sums {
		if d > 0 {
			sqrtDeg[i] = math.Sqrt(d)
			inv[i] = 1 / sqrtDeg[i]
		}
	}
	out := m.Clone()
	for i := 0; i < m.rows; i++ {
		for p := out.Indptr[i]; p < out.Indptr[i+1]; p++ {
			out.Data[p] *= inv[i] * inv[out.Indices[p]]
		}
	}
	return out, sqrtDeg
}

// ToDense returns m as a gonum dense matrix. It returns ErrTooLarge when
// rows*cols exceeds MaxDenseElements.
func (m *CSR) ToDense() (*mat.Dense, error) {
	if m.rows == 0 || m.cols == 0 {
		return nil, fmt.Errorf("sparse: cannot make a dense copy of an empty %d x %d matrix", m.rows, m.cols)
	}
	if float64(m.rows)*float64(m.cols) > MaxDenseElements {
		return nil, fmt.Errorf("%w: %d x %d is above %d elements", ErrTooLarge, m.rows, m.cols, MaxDenseElements)
	}
	d := mat.NewDense(m.rows, m.cols, nil)
	for i := 0; i < m.rows; i++ {
		idx, val := m.Row(i)
		for k, j := range idx {
			d.Set(i, int(j), val[k])
		}
	}
	return d, nil
}

// Bytes returns the memory held by m's slices.
func (m *CSR) Bytes() int64 {
	return int64(cap(m.Indptr))*8 + int64(cap(m.Indices))*4 + int64(cap(m.Data))*8
}
