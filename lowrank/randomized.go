package lowrank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/sparse"
)

// ErrRank reports a rank that the operator cannot support.
var ErrRank = errors.New("lowrank: invalid rank")

// ErrFactorization reports a failed dense factorization.
var ErrFactorization = errors.New("lowrank: factorization failed")

// Options controls the randomized factorizations. The zero value of each
// field but Rank means its default.
type Options struct {
	// Rank is the number of singular triplets or eigenpairs kept (>= 1).
	Rank int
	// Oversample is the number of extra sketch columns; 0 means 10.
	Oversample int
	// PowerIters is the number of power iterations, each followed by a
	// re-orthonormalisation; 0 means 2. Set -1 for none.
	PowerIters int
	// Seed drives the Gaussian sketch (stream "sketch").
	Seed uint64
}

func (o Options) withDefaults() Options {
	if o.Oversample == 0 {
		o.Oversample = 10
	}
	if o.PowerIters == 0 {
		o.PowerIters = 2
	}
	if o.PowerIters < 0 {
		o.PowerIters = 0
	}
	return o
}

// Stats times the phases of a factorization.
type Stats struct {
	SpMM, QR, Small, Other time.Duration
	Total                  time.Duration
}

const streamSketch = 0x736b6574 // "sket"

// sketch returns an n x l block of standard normal entries.
func sketch(n, l int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, streamSketch))
	b := make([]float64, n*l)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	return b
}

// orthonormalize replaces the m x l row-major block y by an orthonormal
// basis of its columns (see qrTall).
func orthonormalize(ctx context.Context, y []float64, m, l int) error {
	_, err := qrTall(ctx, y, m, l, false)
	return err
}

// qrTall factors the m x l row-major block y = QR, overwrites y with Q
// and returns R (l x l) when wantR is set: CholeskyQR2 (two passes of
// Y ← Y R⁻¹ with RᵀR = YᵀY, R = R₂R₁; on a 326,000 x 138 block 2.8 s
// against 15.5 s for Householder through gonum's LAPACK), with a shifted
// pass first when YᵀY is too ill-conditioned for a plain one
// (cholQRPasses), falling back to Householder QR on what the passes left
// when they still refuse it. ctx is checked between the blocks of rows
// of each pass (not in the Householder fallback); once it is done, y is
// left partly transformed and ctx's error returned.
func qrTall(ctx context.Context, y []float64, m, l int, wantR bool) (*mat.Dense, error) {
	r := mat.NewDense(l, l, nil)
	for i := 0; i < l; i++ {
		r.Set(i, i, 1)
	}
	if m >= 4*l {
		done, err := cholQRPasses(ctx, y, m, l, r)
		if err != nil {
			return nil, err
		}
		if done {
			return r, nil
		}
	}
	rh, err := qrInPlace(y, m, l, wantR)
	if err != nil || !wantR {
		return nil, err
	}
	rh.Mul(rh, r)
	return rh, nil
}

// cholQRPasses orthonormalizes y in place by CholeskyQR2, multiplying
// each pass's R into r (r ← R_pass·r), and reports whether it did. When
// a first pass would refuse y (cond(Y) above about 1e7), shifted passes
// come first, at most maxShifted of them: shifted CholeskyQR3 (Fukaya,
// Kannan, Nakatsukasa, Zhang and Yamamoto, SIAM J. Sci. Comput. 42(1),
// 2020), whose shift keeps the Cholesky factorization stable whatever
// cond(Y) and divides it by about 1e4 to 1e5 (on blocks of 10⁴ to 10⁵
// rows), until the two plain passes take it. On the Chebyshev-filtered
// blocks of TopSVD, whose columns span many orders of magnitude, the
// Householder QR that took such blocks instead ran on one core for
// seconds at a time. It reports false, with y partly transformed and r
// holding what was done, when a pass still refuses.
func cholQRPasses(ctx context.Context, y []float64, m, l int, r *mat.Dense) (bool, error) {
	for plain, shifts := 0, 0; plain < 2; {
		rp, shifted, err := cholQR(ctx, y, m, l, plain == 0 && shifts < maxShifted)
		if err != nil || rp == nil {
			return false, err
		}
		r.Mul(rp, r)
		if shifted {
			shifts++
		} else {
			plain++
		}
	}
	return true, nil
}

// maxShifted is the most shifted passes cholQRPasses takes: enough for
// a condition number of about 1e16, the most a float64 block can have
// short of rank deficiency, which no shift mends.
const maxShifted = 3

// cholQR performs one CholeskyQR pass on y in place and returns its R,
// or nil, leaving y unchanged, when the Gram matrix is not numerically
// positive definite, or ctx's error once ctx is done. With shift set, a
// Gram matrix too ill-conditioned for a plain pass is shifted instead:
// the pass factors YᵀY + sI, s = 11(ml + l(l+1))·u·‖Y‖²_F, the shift of
// shifted CholeskyQR (‖Y‖_F ≥ ‖Y‖₂), and reports shifted.
func cholQR(ctx context.Context, y []float64, m, l int, shift bool) (r *mat.TriDense, shifted bool, err error) {
	workers := runtime.GOMAXPROCS(0)
	native := nativeBLAS()
	a := blas64.General{Rows: m, Cols: l, Stride: l, Data: y}
	g := blas64.Symmetric{N: l, Stride: l, Uplo: blas.Upper}
	if native {
		if g.Data, err = gramUpper(ctx, y, m, l, workers); err != nil {
			return nil, false, err
		}
	} else {
		g.Data = make([]float64, l*l)
		blas64.Syrk(blas.Trans, 1, a, 0, g)
	}
	ch, ok := plainCholesky(g.Data, l)
	if !ok && shift {
		ch, ok = shiftedCholesky(g.Data, m, l)
		shifted = true
	}
	if !ok {
		return nil, false, nil
	}
	r = &mat.TriDense{}
	ch.UTo(r)
	rt := r.RawTriangular()
	if !native {
		blas64.Trsm(blas.Right, blas.NoTrans, 1, rt, a)
		return r, shifted, ctx.Err()
	}
	// Each row's solve is its own, so blocks of rows run in parallel.
	err = sparse.ParallelFor(ctx, (m+gramRows-1)/gramRows, workers, func(b int) {
		lo, hi := b*gramRows, min(m, (b+1)*gramRows)
		blas64.Trsm(blas.Right, blas.NoTrans, 1, rt, blas64.General{Rows: hi - lo, Cols: l, Stride: l, Data: y[lo*l : hi*l]})
	})
	if err != nil {
		return nil, false, err
	}
	return r, shifted, nil
}

// plainCholesky factors the l x l Gram matrix g (upper triangle,
// row-major) unless its condition would make a CholeskyQR pass
// inaccurate: CholeskyQR2 is reliable while cond(Y) is below about 1e7.
func plainCholesky(g []float64, l int) (*mat.Cholesky, bool) {
	var dmax, dmin float64 = 0, math.Inf(1)
	for i := 0; i < l; i++ {
		d := g[i*l+i]
		dmax, dmin = math.Max(dmax, d), math.Min(dmin, d)
	}
	if !(dmin > dmax*1e-14) {
		return nil, false
	}
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(l, g)) {
		return nil, false
	}
	if c := ch.Cond(); math.IsInf(c, 0) || c > 1e14 {
		return nil, false
	}
	return &ch, true
}

// shiftedCholesky factors g + sI for the Gram matrix g of an m x l
// block (see cholQR), in place; it fails only on a g that is not finite.
func shiftedCholesky(g []float64, m, l int) (*mat.Cholesky, bool) {
	var trace float64
	for i := 0; i < l; i++ {
		trace += g[i*l+i]
	}
	if math.IsNaN(trace) || math.IsInf(trace, 0) {
		return nil, false
	}
	s := 11 * float64(m*l+l*(l+1)) * 0x1p-53 * trace
	for i := 0; i < l; i++ {
		g[i*l+i] += s
	}
	var ch mat.Cholesky
	return &ch, ch.Factorize(mat.NewSymDense(l, g))
}

// nativeBLAS reports whether blas64 runs gonum's own Go BLAS, whose
// Syrk and Trsm run on one core (a build with -tags openblas hands
// blas64 to OpenBLAS, which runs them threaded and faster than gramUpper).
func nativeBLAS() bool {
	_, ok := blas64.Implementation().(gonumblas.Implementation)
	return ok
}

// gramRows is the number of rows in one block of the Gram matrix's sum
// (and of cholQR's triangular solves).
const gramRows = 8192

// gramUpper returns the upper triangle of YᵀY (l x l, row-major) for the
// m x l row-major block y, for cholQR under gonum's own BLAS (see
// nativeBLAS): a partial sum per block of gramRows rows, in parallel,
// added in block order, so the result does not depend on the
// number of workers. It reads y row by row, four rows at a time, where
// blas64.Syrk's transposed product strides down the columns: on a
// 326,000 x 138 block it took 1.5 s on one core against Syrk's 5.8 s.
// It returns ctx's error once ctx is done (checked between blocks).
func gramUpper(ctx context.Context, y []float64, m, l, workers int) ([]float64, error) {
	nb := (m + gramRows - 1) / gramRows
	parts := make([][]float64, nb)
	err := sparse.ParallelFor(ctx, nb, workers, func(b int) {
		lo, hi := b*gramRows, min(m, (b+1)*gramRows)
		parts[b] = make([]float64, l*l)
		gramAdd(parts[b], y[lo*l:hi*l], hi-lo, l)
	})
	if err != nil {
		return nil, err
	}
	g := parts[0]
	for _, p := range parts[1:] {
		for i, x := range p {
			g[i] += x
		}
	}
	return g, nil
}

// gramAdd adds the upper triangle of YᵀY to g for the m x l row-major y.
func gramAdd(g, y []float64, m, l int) {
	i := 0
	for ; i+4 <= m; i += 4 {
		r0, r1, r2, r3 := y[i*l:(i+1)*l], y[(i+1)*l:(i+2)*l], y[(i+2)*l:(i+3)*l], y[(i+3)*l:(i+4)*l]
		for j := 0; j < l; j++ {
			a0, a1, a2, a3 := r0[j], r1[j], r2[j], r3[j]
			gj := g[j*l : (j+1)*l]
			for k := j; k < l; k++ {
				gj[k] += a0*r0[k] + a1*r1[k] + a2*r2[k] + a3*r3[k]
			}
		}
	}
	for ; i < m; i++ {
		r := y[i*l : (i+1)*l]
		for j, a := range r {
			gj := g[j*l : (j+1)*l]
			for k := j; k < l; k++ {
				gj[k] += a * r[k]
			}
		}
	}
}

// qrInPlace factors the m x l row-major block y = QR, overwrites y with Q
// (m x l, orthonormal columns) and returns R (l x l) when wantR is set.
func qrInPlace(y []float64, m, l int, wantR bool) (*mat.Dense, error) {
	a := blas64.General{Rows: m, Cols: l, Stride: l, Data: y}
	tau := make([]float64, l)
	work := make([]float64, 1)
	lapack64.Geqrf(a, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Geqrf(a, tau, work, len(work))
	var r *mat.Dense
	if wantR {
		r = mat.NewDense(l, l, nil)
		for i := 0; i < l; i++ {
			for j := i; j < l; j++ {
				r.Set(i, j, y[i*l+j])
			}
		}
	}
	lapack64.Orgqr(a, tau, work, -1)
	if int(work[0]) > len(work) {
		work = make([]float64, int(work[0]))
	}
	lapack64.Orgqr(a, tau, work, len(work))
	for _, x := range y[:min(len(y), l*l)] {
		if math.IsNaN(x) {
			return nil, fmt.Errorf("%w: NaN in QR", ErrFactorization)
		}
	}
	return r, nil
}

// SVD is a truncated singular value decomposition A ≈ U diag(S) Vᵀ.
type SVD struct {
	U *mat.Dense // m x r, orthonormal columns
	S []float64  // r, decreasing
	V *mat.Dense // n x r, orthonormal columns
	Stats
	// Iters and Residual are set by TopSVD, as Eigen's by TopEigSym for
	// AᵀA.
	Iters    int
	Residual float64
}

// SqrtFactorsTo writes L = U√S into l and R = V√S into r, row-major
// float32 with one column per singular value, so that L·Rᵀ is the
// truncated SVD; l and r hold at least as many rows as U and V.
func (s *SVD) SqrtFactorsTo(l, r []float32) {
	h := len(s.S)
	m, _ := s.U.Dims()
	n, _ := s.V.Dims()
	for j, x := range s.S {
		x = math.Sqrt(x)
		for i := 0; i < m; i++ {
			l[i*h+j] = float32(s.U.At(i, j) * x)
		}
		for i := 0; i < n; i++ {
			r[i*h+j] = float32(s.V.At(i, j) * x)
		}
	}
}

func checkRank(r, m, n int) error {
	if r < 1 || r > min(m, n) {
		return fmt.Errorf("%w: rank %d for a %d x %d operator (want 1..%d)", ErrRank, r, m, n, min(m, n))
	}
	return nil
}

// RandomizedSVD computes a rank-r truncated SVD of op in the style of
// Halko, Martinsson and Tropp (2011): a Gaussian sketch with oversampling,
// power iterations with re-orthonormalisation, and a small dense SVD.
// Memory: a few m x (r+p) and n x (r+p) blocks.
func RandomizedSVD(ctx context.Context, op Operator, opt Options) (*SVD, error) {
	opt = opt.withDefaults()
	m, n := op.Dims()
	if err := checkRank(opt.Rank, m, n); err != nil {
		return nil, err
	}
	start := time.Now()
	var st Stats
	l := min(opt.Rank+opt.Oversample, m, n)
	timed := func(d *time.Duration, f func() error) error {
		t := time.Now()
		err := f()
		*d += time.Since(t)
		return err
	}
	omega := sketch(n, l, opt.Seed)
	y := make([]float64, m*l)
	z := make([]float64, n*l)
	if err := timed(&st.SpMM, func() error { return op.MulBlockTo(ctx, y, omega, l) }); err != nil {
		return nil, err
	}
	omega = nil
	for it := 0; it < opt.PowerIters; it++ {
		if err := timed(&st.QR, func() error { return orthonormalize(ctx, y, m, l) }); err != nil {
			return nil, err
		}
		if err := timed(&st.SpMM, func() error { return op.MulTransBlockTo(ctx, z, y, l) }); err != nil {
			return nil, err
		}
		if err := timed(&st.QR, func() error { return orthonormalize(ctx, z, n, l) }); err != nil {
			return nil, err
		}
		if err := timed(&st.SpMM, func() error { return op.MulBlockTo(ctx, y, z, l) }); err != nil {
			return nil, err
		}
	}
	if err := timed(&st.QR, func() error { return orthonormalize(ctx, y, m, l) }); err != nil {
		return nil, err
	}
	// Bᵀ = Aᵀ Q (n x l); Bᵀ = Q2 R2; B = R2ᵀ Q2ᵀ; SVD of R2ᵀ (l x l).
	if err := timed(&st.SpMM, func() error { return op.MulTransBlockTo(ctx, z, y, l) }); err != nil {
		return nil, err
	}
	var r2 *mat.Dense
	if err := timed(&st.QR, func() error {
		var err error
		r2, err = qrTall(ctx, z, n, l, true)
		return err
	}); err != nil {
		return nil, err
	}
	var svd mat.SVD
	t := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !svd.Factorize(r2.T(), mat.SVDThin) {
		return nil, fmt.Errorf("%w: small SVD did not converge", ErrFactorization)
	}
	var ur, vr mat.Dense
	svd.UTo(&ur)
	svd.VTo(&vr)
	sv := svd.Values(nil)
	st.Small += time.Since(t)
	r := opt.Rank
	out := &SVD{S: sv[:r]}
	t = time.Now()
	// U = Q·Ur[:, :r], V = Q2·Vr[:, :r], each in the memory of its basis.
	out.U = mulInto(y, m, l, mat.DenseCopyOf(ur.Slice(0, l, 0, r)))
	out.V = mulInto(z, n, l, mat.DenseCopyOf(vr.Slice(0, l, 0, r)))
	st.Other += time.Since(t)
	st.Total = time.Since(start)
	out.Stats = st
	return out, ctx.Err()
}

// TallSVD returns the thin SVD y = U·diag(S)·Vᵀ of the m x k row-major
// matrix y (m >= k), every singular value: the QR of y (CholeskyQR2,
// Householder as the fallback, both in parallel where the BLAS allows)
// and the SVD of the k x k factor R, so that U = Q·U_R. It overwrites y
// with U, whose memory U uses; V is k x k. On tall matrices it is much
// faster than a direct SVD (gonum's mat.SVD is sequential Householder
// bidiagonalisation of all m rows).
func TallSVD(y []float64, m, k int) (*SVD, error) {
	if m < k || len(y) != m*k {
		return nil, fmt.Errorf("lowrank: TallSVD of a %d x %d matrix from %d values; want m >= k and m·k values", m, k, len(y))
	}
	r, err := qrTall(context.Background(), y, m, k, true)
	if err != nil {
		return nil, err
	}
	var svd mat.SVD
	if !svd.Factorize(r, mat.SVDThin) {
		return nil, fmt.Errorf("%w: small SVD did not converge", ErrFactorization)
	}
	var ur, vr mat.Dense
	svd.UTo(&ur)
	svd.VTo(&vr)
	return &SVD{U: mulInto(y, m, k, &ur), S: svd.Values(nil), V: &vr}, nil
}

// mulInto computes Y·W for the m x l row-major block y and the l x r
// matrix w (r <= l), writing the m x r result over y's own memory, block of
// rows by block of rows (a row block's result only overwrites rows already
// read), and returns it.
func mulInto(y []float64, m, l int, w *mat.Dense) *mat.Dense {
	_, r := w.Dims()
	const rows = 2048
	tmp := make([]float64, rows*r)
	wr := w.RawMatrix()
	for lo := 0; lo < m; lo += rows {
		hi := min(m, lo+rows)
		blk := blas64.General{Rows: hi - lo, Cols: l, Stride: l, Data: y[lo*l : hi*l]}
		dst := blas64.General{Rows: hi - lo, Cols: r, Stride: r, Data: tmp[:(hi-lo)*r]}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, blk, wr, 0, dst)
		copy(y[lo*r:hi*r], dst.Data)
	}
	return mat.NewDense(m, r, y[:m*r:m*r])
}

// Eigen is a truncated symmetric eigendecomposition A ≈ U diag(Values) Uᵀ.
type Eigen struct {
	U      *mat.Dense // n x r, orthonormal columns
	Values []float64  // r, by decreasing magnitude (TopEigSym: by value)
	Stats
	// Iters and Residual are set by TopEigSym: the filtered iterations
	// run, and the largest residual ‖Au − λu‖ of the pairs kept,
	// relative to the largest Ritz value's magnitude, at the end.
	Iters    int
	Residual float64
}

// RandomizedEigSym computes the r eigenpairs of largest magnitude of a
// symmetric operator (MulTransBlockTo is not used): range finder with
// power iterations on the sketch, then the eigendecomposition of the
// small projected matrix QᵀAQ. Keeping eigenvalues by magnitude keeps
// both ends of the spectrum (λ near −1 on bipartite-like parts of a
// normalised adjacency).
func RandomizedEigSym(ctx context.Context, op Operator, opt Options) (*Eigen, error) {
	opt = opt.withDefaults()
	n, c := op.Dims()
	if n != c {
		panic(mat.ErrShape)
	}
	if err := checkRank(opt.Rank, n, n); err != nil {
		return nil, err
	}
	start := time.Now()
	var st Stats
	l := min(opt.Rank+opt.Oversample, n)
	timed := func(d *time.Duration, f func() error) error {
		t := time.Now()
		err := f()
		*d += time.Since(t)
		return err
	}
	q := sketch(n, l, opt.Seed)
	y := make([]float64, n*l)
	for it := 0; it <= opt.PowerIters; it++ {
		if err := timed(&st.SpMM, func() error { return op.MulBlockTo(ctx, y, q, l) }); err != nil {
			return nil, err
		}
		q, y = y, q
		if err := timed(&st.QR, func() error { return orthonormalize(ctx, q, n, l) }); err != nil {
			return nil, err
		}
	}
	// T = Qᵀ A Q (l x l), symmetrised against rounding.
	if err := timed(&st.SpMM, func() error { return op.MulBlockTo(ctx, y, q, l) }); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t := time.Now()
	vals, w, err := projectedEigen(q, y, n, l)
	if err != nil {
		return nil, err
	}
	st.Small += time.Since(t)
	order := make([]int, l)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return math.Abs(vals[order[a]]) > math.Abs(vals[order[b]]) })
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r := opt.Rank
	sel := mat.NewDense(l, r, nil)
	out := &Eigen{Values: make([]float64, r)}
	for j := 0; j < r; j++ {
		out.Values[j] = vals[order[j]]
		for i := 0; i < l; i++ {
			sel.Set(i, j, w.At(i, order[j]))
		}
	}
	t = time.Now()
	y = nil // the last block no longer needed: U takes q's memory
	out.U = mulInto(q, n, l, sel)
	st.Other += time.Since(t)
	st.Total = time.Since(start)
	out.Stats = st
	return out, ctx.Err()
}
