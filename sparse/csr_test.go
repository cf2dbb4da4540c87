package sparse

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/wys-project/wys/internal/ctxtest"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// randomCOO returns a random rows x cols coordinate list with about
// density*rows*cols entries, duplicates and empty rows included.
func randomCOO(rows, cols int, density float64, seed uint64) (src, dst []int32, w []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	n := int(density * float64(rows) * float64(cols))
	for e := 0; e < n; e++ {
		src = append(src, int32(rng.IntN(rows)))
		dst = append(dst, int32(rng.IntN(cols)))
		w = append(w, rng.Float64()+0.5)
	}
	return src, dst, w
}

// denseFromCOO is the oracle: a dense matrix built by plain loops.
func denseFromCOO(rows, cols int, src, dst []int32, w []float64, dup DupPolicy) *mat.Dense {
	d := mat.NewDense(rows, cols, nil)
	seen := make(map[[2]int32]bool)
	for e := range src {
		k := [2]int32{src[e], dst[e]}
		v := 1.0
		if w != nil {
			v = w[e]
		}
		i, j := int(src[e]), int(dst[e])
		switch {
		case !seen[k]:
			d.Set(i, j, v)
		case dup == DupSum:
			d.Set(i, j, d.At(i, j)+v)
		case dup == DupMax:
			d.Set(i, j, math.Max(d.At(i, j), v))
		}
		seen[k] = true
	}
	return d
}

type shape struct {
	name       string
	rows, cols int
	density    float64
}

var shapes = []shape{
	{"single", 1, 1, 1},
	{"empty-rows", 30, 30, 0.02},
	{"square", 50, 50, 0.1},
	{"wide", 7, 40, 0.3},
	{"tall", 60, 5, 0.3},
	{"dense", 20, 20, 2},
	// Rows of about 400 entries with many duplicates: past shortRow, so
	// NewFromCOO sorts them by keys (DupFirst must still see input order).
	{"long-rows", 3, 200, 2},
}

func TestNewFromCOOMatchesDense(t *testing.T) {
	t.Parallel()
	for _, s := range shapes {
		for _, dup := range []DupPolicy{DupSum, DupFirst, DupMax} {
			src, dst, w := randomCOO(s.rows, s.cols, s.density, 7)
			srcCopy, wCopy := slices.Clone(src), slices.Clone(w)
			m, err := NewFromCOO(t.Context(), s.rows, s.cols, src, dst, w, dup)
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			if err := m.Validate(); err != nil {
				t.Fatalf("%s: invariants: %v", s.name, err)
			}
			if !slices.Equal(src, srcCopy) || !slices.Equal(w, wCopy) {
				t.Fatalf("%s: inputs modified", s.name)
			}
			want := denseFromCOO(s.rows, s.cols, src, dst, w, dup)
			if !mat.Equal(m, want) {
				t.Errorf("%s dup=%d: CSR differs from dense oracle", s.name, dup)
			}
			got, err := m.ToDense()
			if err != nil || !mat.Equal(got, want) {
				t.Errorf("%s: ToDense differs (%v)", s.name, err)
			}
			// Every weight is at least 0.5, so the oracle's nonzeros are
			// exactly the stored entries.
			for i := range s.rows {
				for j := range s.cols {
					if m.Has(i, j) != (want.At(i, j) != 0) {
						t.Fatalf("%s: Has(%d, %d) = %v, the dense oracle holds %v", s.name, i, j, m.Has(i, j), want.At(i, j))
					}
				}
			}
		}
	}
}

func TestNewFromCOOErrors(t *testing.T) {
	t.Parallel()
	if _, err := NewFromCOO(t.Context(), 3, 3, []int32{0, 3}, []int32{1, 1}, nil, DupSum); !errors.Is(err, ErrIndexRange) {
		t.Errorf("row out of range: got %v", err)
	}
	if _, err := NewFromCOO(t.Context(), 3, 3, []int32{0}, []int32{-1}, nil, DupSum); !errors.Is(err, ErrIndexRange) {
		t.Errorf("negative column: got %v", err)
	}
	if _, err := NewFromCOO(t.Context(), 3, 3, []int32{0}, []int32{1}, []float64{math.NaN()}, DupSum); !errors.Is(err, ErrValue) {
		t.Errorf("NaN weight: got %v", err)
	}
	if _, err := NewCSR(2, 2, []int{0, 2, 2}, []int32{1, 0}, []float64{1, 1}); err == nil {
		t.Error("unsorted row accepted")
	}
	if _, err := NewCSR(2, 2, []int{0, 1}, []int32{1}, []float64{1}); err == nil {
		t.Error("short indptr accepted")
	}
}

func TestTransposeAndNormalise(t *testing.T) {
	t.Parallel()
	for _, s := range shapes {
		src, dst, w := randomCOO(s.rows, s.cols, s.density, 11)
		m, _ := NewFromCOO(t.Context(), s.rows, s.cols, src, dst, w, DupSum)
		d, _ := m.ToDense()
		var want mat.Dense
		want.CloneFrom(d.T())
		tr := m.Transpose()
		if err := tr.Validate(); err != nil {
			t.Fatalf("%s: transpose invariants: %v", s.name, err)
		}
		if !mat.Equal(tr, &want) {
			t.Errorf("%s: transpose differs", s.name)
		}
		tm, dangling := m.RowNormalize()
		for i := 0; i < s.rows; i++ {
			sum := mat.Sum(tm.rowDense(i))
			empty := m.RowNNZ(i) == 0
			if empty && sum != 0 || !empty && !scalar.EqualWithinAbs(sum, 1, 1e-12) {
				t.Errorf("%s: row %d of T sums to %v (empty row: %v)", s.name, i, sum, empty)
			}
			if empty != slices.Contains(dangling, int32(i)) {
				t.Errorf("%s: row %d dangling mismatch", s.name, i)
			}
		}
	}
}

// rowDense returns row i as a 1 x cols dense matrix (test helper).
func (m *CSR) rowDense(i int) *mat.Dense {
	d := mat.NewDense(1, m.cols, nil)
	idx, val := m.Row(i)
	for k, j := range idx {
		d.Set(0, int(j), val[k])
	}
	return d
}

func TestSymNormalizeSimilarToT(t *testing.T) {
	t.Parallel()
	// A symmetric random graph: T = D^{-1/2} S D^{1/2}.
	src, dst, _ := randomCOO(40, 40, 0.08, 3)
	src2 := append(slices.Clone(src), dst...)
	dst2 := append(slices.Clone(dst), src...)
	a, _ := NewFromCOO(t.Context(), 40, 40, src2, dst2, nil, DupFirst)
	if !a.IsSymmetric() {
		t.Fatal("expected symmetric")
	}
	s, sq := a.SymNormalize()
	if !s.IsSymmetric() {
		t.Error("S not symmetric")
	}
	tm, _ := a.RowNormalize()
	for i := 0; i < 40; i++ {
		for j := 0; j < 40; j++ {
			var want float64
			if sq[i] > 0 {
				want = s.At(i, j) * sq[j] / sq[i]
			}
			if !scalar.EqualWithinAbs(tm.At(i, j), want, 1e-12) {
				t.Fatalf("T[%d,%d] = %v, D^-1/2 S D^1/2 gives %v", i, j, tm.At(i, j), want)
			}
		}
	}
}

func TestMulBlockMatchesDense(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, s := range append(shapes, shape{"big", 3000, 2500, 0.004}) {
		for _, k := range []int{1, 3, 16} {
			src, dst, w := randomCOO(s.rows, s.cols, s.density, 5)
			m, _ := NewFromCOO(t.Context(), s.rows, s.cols, src, dst, w, DupSum)
			d, _ := m.ToDense()
			rng := rand.New(rand.NewPCG(9, 9))
			b := make([]float64, s.cols*k)
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			bCopy := slices.Clone(b)
			var want mat.Dense
			want.Mul(d, mat.NewDense(s.cols, k, b))
			var first []float64
			for _, workers := range []int{1, 2, 7} {
				out := make([]float64, s.rows*k)
				for i := range out {
					out[i] = math.NaN() // must be assigned, not accumulated
				}
				if err := MulBlockTo(ctx, out, m, b, k, workers); err != nil {
					t.Fatal(err)
				}
				// Tolerance: the kernel sums in a different order than gonum's GEMM.
				if !mat.EqualApprox(mat.NewDense(s.rows, k, out), &want, 1e-12) {
					t.Errorf("%s k=%d workers=%d: SpMM differs from dense product", s.name, k, workers)
				}
				if first == nil {
					first = out
				} else if !slices.Equal(first, out) {
					t.Errorf("%s k=%d: workers=%d not bitwise equal to workers=1", s.name, k, workers)
				}
			}
			if !slices.Equal(b, bCopy) {
				t.Error("input block modified")
			}
			// float32 against the float64 result.
			b32 := make([]float32, len(b))
			for i, v := range b {
				b32[i] = float32(v)
			}
			out32 := make([]float32, s.rows*k)
			if err := MulBlockTo(ctx, out32, m, b32, k, 2); err != nil {
				t.Fatal(err)
			}
			for i, v := range out32 {
				// float32 rounding: relative 1e-5 of the row's magnitude.
				if math.Abs(float64(v)-first[i]) > 1e-4*(1+math.Abs(first[i])) {
					t.Fatalf("%s: float32 SpMM element %d = %v, float64 gives %v", s.name, i, v, first[i])
				}
			}
		}
	}
}

func TestMulBlockCancelled(t *testing.T) {
	t.Parallel()
	src, dst, w := randomCOO(2000, 2000, 0.01, 1)
	m, _ := NewFromCOO(t.Context(), 2000, 2000, src, dst, w, DupSum)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := make([]float64, 2000*8)
	if err := MulBlockTo(ctx, out, m, make([]float64, 2000*8), 8, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestMulVecAndDense(t *testing.T) {
	t.Parallel()
	src, dst, w := randomCOO(25, 30, 0.2, 2)
	m, _ := NewFromCOO(t.Context(), 25, 30, src, dst, w, DupSum)
	d, _ := m.ToDense()
	x := make([]float64, 30)
	for i := range x {
		x[i] = float64(i%7) - 3
	}
	got := make([]float64, 25)
	m.MulVecTo(got, x)
	var want mat.VecDense
	want.MulVec(d, mat.NewVecDense(30, x))
	if !mat.EqualApprox(mat.NewVecDense(25, got), &want, 1e-12) {
		t.Error("MulVecTo differs from dense")
	}
	b := mat.NewDense(30, 4, nil)
	for i := 0; i < 30; i++ {
		for j := 0; j < 4; j++ {
			b.Set(i, j, float64(i*j%5))
		}
	}
	var wantM, gotM mat.Dense
	wantM.Mul(d, b)
	gotM.ReuseAs(25, 4)
	if err := m.MulDenseTo(context.Background(), &gotM, b, 2); err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(&gotM, &wantM, 1e-12) {
		t.Error("MulDenseTo differs from dense")
	}
}

func TestToDenseTooLarge(t *testing.T) {
	t.Parallel()
	m, _ := NewFromCOO(t.Context(), 1<<15, 1<<15, nil, nil, nil, DupSum)
	if _, err := m.ToDense(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("got %v, want ErrTooLarge", err)
	}
}

func TestParallelFor(t *testing.T) {
	t.Parallel()
	for _, workers := range []int{1, 2, 5} {
		hits := make([]int, 1000)
		if err := ParallelFor(context.Background(), len(hits), workers, func(i int) { hits[i]++ }); err != nil {
			t.Fatal(err)
		}
		for i, h := range hits {
			if h != 1 {
				t.Fatalf("workers=%d: index %d visited %d times", workers, i, h)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ParallelFor(ctx, 10, 2, func(int) {}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// csrOf stores the entries of the square matrix a that are not NaN (a
// zero is stored: a NaN marks an absent entry), row by row.
func csrOf(a [][]float64) *CSR {
	m := &CSR{rows: len(a), cols: len(a), Indptr: make([]int, len(a)+1)}
	for i, row := range a {
		for j, x := range row {
			if !math.IsNaN(x) {
				m.Indices = append(m.Indices, int32(j))
				m.Data = append(m.Data, x)
			}
		}
		m.Indptr[i+1] = len(m.Indices)
	}
	return m
}

// TestIsSymmetric checks IsSymmetric against the definition on small
// random matrices: symmetric ones, and ones with an entry changed, added
// or removed, some with stored zeros (which count as absent entries).
func TestIsSymmetric(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(6, 6))
	absent := math.NaN()
	counts := map[bool]int{}
	for trial := range 3000 {
		n := 1 + rng.IntN(7)
		a := make([][]float64, n)
		for i := range a {
			a[i] = make([]float64, n)
			for j := range a[i] {
				a[i][j] = absent
			}
		}
		for i := range n {
			for j := i; j < n; j++ {
				if rng.Float64() < 0.4 {
					a[i][j] = float64(rng.IntN(3)) // 0 is a stored zero
					a[j][i] = a[i][j]
				}
			}
		}
		if trial%4 != 0 {
			i, j := rng.IntN(n), rng.IntN(n)
			switch rng.IntN(3) {
			case 0:
				a[i][j] = absent
			case 1:
				a[i][j] = float64(rng.IntN(3))
			case 2:
				a[i][j] = 7
			}
		}
		want := true
		for i := range n {
			for j := range n {
				x, y := a[i][j], a[j][i]
				if math.IsNaN(x) {
					x = 0
				}
				if math.IsNaN(y) {
					y = 0
				}
				want = want && x == y
			}
		}
		counts[want]++
		if got := csrOf(a).IsSymmetric(); got != want {
			t.Fatalf("IsSymmetric = %v, want %v for %v", got, want, a)
		}
	}
	if counts[true] < 500 || counts[false] < 500 {
		t.Errorf("symmetric and not: %v cases; want both often", counts)
	}
}

// TestNewFromCOOCancelled builds a CSR that checks its context every 7
// entries, from short rows, empty rows and a hub row of 300 entries with
// duplicates, weighted or not, and cancels it at each check in turn:
// every cancel returns context.Canceled and no matrix, with no check
// after it; a cancel after the last check changes nothing (the dense
// oracle's matrix, bit for bit).
func TestNewFromCOOCancelled(t *testing.T) {
	t.Parallel()
	const rows, cols, every = 40, 100, 7
	src, dst, w := randomCOO(rows, cols, 0.05, 3)
	rng := rand.New(rand.NewPCG(4, 1))
	for range 300 {
		src, dst, w = append(src, 17), append(dst, int32(rng.IntN(cols))), append(w, rng.Float64()+0.5)
	}
	n := len(src)
	for _, c := range []struct {
		dup DupPolicy
		w   []float64
	}{{DupSum, w}, {DupFirst, w}, {DupMax, w}, {DupSum, nil}} {
		dup, w := c.dup, c.w
		probe := &ctxtest.CancelAfter{Context: t.Context(), N: math.MaxInt}
		if _, err := newFromCOO(probe, every, rows, cols, src, dst, w, dup); err != nil {
			t.Fatal(err)
		}
		// The three passes over the entries (counting, writing the
		// arrays, scattering) check every 7; the merge of the rows at
		// least at its start and after the hub row.
		checks := probe.Calls
		if low := 3*((n+every-1)/every) + 2; checks < low {
			t.Fatalf("dup=%d, weighted %v: %d checks of the context for %d entries, want at least %d", dup, w != nil, checks, n, low)
		}
		for k := 0; k <= checks; k++ {
			ctx := &ctxtest.CancelAfter{Context: t.Context(), N: k}
			m, err := newFromCOO(ctx, every, rows, cols, src, dst, w, dup)
			if !errors.Is(err, context.Canceled) || m != nil {
				t.Fatalf("dup=%d, weighted %v, cancelled at check %d of %d: matrix %v, error %v, want context.Canceled", dup, w != nil, k, checks, m != nil, err)
			}
			if ctx.Calls != max(k, 1) {
				t.Errorf("dup=%d, weighted %v, cancelled at check %d: %d checks, want it to stop there", dup, w != nil, k, ctx.Calls)
			}
		}
		m, err := newFromCOO(&ctxtest.CancelAfter{Context: t.Context(), N: checks + 1}, every, rows, cols, src, dst, w, dup)
		if err != nil {
			t.Fatalf("dup=%d, weighted %v, a cancel after the last check: %v", dup, w != nil, err)
		}
		want := denseFromCOO(rows, cols, src, dst, w, dup)
		distinct := map[[2]int32]bool{}
		for e := range src {
			distinct[[2]int32{src[e], dst[e]}] = true
		}
		if err := m.Validate(); err != nil || !mat.Equal(m, want) || m.NNZ() != len(distinct) {
			t.Errorf("dup=%d, weighted %v: the CSR (%d entries, invariants %v) differs from the dense oracle's %d entries", dup, w != nil, m.NNZ(), err, len(distinct))
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if m, err := NewFromCOO(ctx, rows, cols, src, dst, w, DupSum); !errors.Is(err, context.Canceled) || m != nil {
		t.Errorf("NewFromCOO with a cancelled context: matrix %v, error %v", m != nil, err)
	}
}
