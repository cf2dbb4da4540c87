package lowrank

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// TopOptions controls TopEigSym. The zero value of each field but Rank
// and Lo means its default.
type TopOptions struct {
	Options
	// Lo is a lower bound of the operator's spectrum (−1 for a
	// normalised adjacency D^{-1/2}AD^{-1/2}, 0 for AᵀA): the filter
	// damps [Lo, cut] and amplifies what lies above the cut.
	Lo float64
	// Degree is the degree of the Chebyshev filter applied per iteration;
	// 0 means 8.
	Degree int
	// MaxIters bounds the filtered iterations; 0 means 50.
	MaxIters int
	// Tol is the residual ‖Au − θu‖, relative to the largest Ritz value's
	// magnitude, at which each of the Rank wanted Ritz pairs has
	// converged (u of unit length); 0 means 1e-6.
	Tol float64
	// Progress, when set, is called after each Rayleigh–Ritz step with
	// the filtered iterations done so far and the largest relative
	// residual of the wanted pairs.
	Progress func(iters int, residual float64)
}

// TopEigSym computes the opt.Rank algebraically largest eigenpairs of a
// symmetric operator whose eigenvalues are all at least opt.Lo, by
// Chebyshev-filtered subspace iteration (Zhou and Saad, 2007): each
// iteration applies the degree-m Chebyshev polynomial that stays within
// [−1, 1] on [Lo, cut] and grows fast above it, cut being the smallest
// Ritz value of the current block, then a Rayleigh–Ritz step with the
// operator itself; it stops once the Rank wanted residuals are below Tol
// or after MaxIters iterations (Iters and Residual say which).
// Eigenvalues come by decreasing value.
//
// RandomizedEigSym's plain power iterations converge at the rate
// λ_{l+1}/λ_r, close to 1 when the wanted eigenvalues crowd against the
// rest of the spectrum, as the top of a normalised adjacency does on a
// clustered graph; the filter's rate is about exp(−m·√(2δ)) for a
// relative gap δ, far faster there.
//
// The result does not depend on the operator's number of workers when its
// products do not.
func TopEigSym(ctx context.Context, op Operator, opt TopOptions) (*Eigen, error) {
	opt = opt.withDefaults()
	n, c := op.Dims()
	if n != c {
		panic(mat.ErrShape)
	}
	if err := checkRank(opt.Rank, n, n); err != nil {
		return nil, err
	}
	if math.IsNaN(opt.Lo) || math.IsInf(opt.Lo, 0) {
		return nil, fmt.Errorf("lowrank: spectrum bound %g is not finite", opt.Lo)
	}
	start := time.Now()
	l := min(opt.Rank+opt.Oversample, n)
	q := sketch(n, l, opt.Seed)
	if err := orthonormalize(ctx, q, n, l); err != nil {
		return nil, err
	}
	f := &chebFilter{op: op, l: l}
	aq := make([]float64, n*l)
	var st Stats
	cut := opt.Lo
	for it := 0; ; it++ {
		// Rayleigh–Ritz on the current basis: Q ← Q·W, θ decreasing.
		t := time.Now()
		if err := op.MulBlockTo(ctx, aq, q, l); err != nil {
			return nil, err
		}
		st.SpMM += time.Since(t)
		t = time.Now()
		theta, w, err := ritz(q, aq, n, l)
		if err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		q = mulInto(q, n, l, w).RawMatrix().Data
		if err := ctx.Err(); err != nil { // each product is half a second at 325,729 x 74
			return nil, err
		}
		aq = mulInto(aq, n, l, w).RawMatrix().Data
		st.Small += time.Since(t)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		resid := maxResidual(q, aq, theta, n, l, opt.Rank) / math.Max(math.Abs(theta[0]), math.Abs(theta[l-1]))
		if opt.Progress != nil {
			opt.Progress(it, resid)
		}
		if it == opt.MaxIters || resid <= opt.Tol {
			out := &Eigen{Values: theta[:opt.Rank], U: mat.NewDense(n, opt.Rank, nil), Iters: it, Residual: resid}
			for i := 0; i < n; i++ {
				copy(out.U.RawRowView(i), q[i*l:i*l+opt.Rank])
			}
			st.Total = time.Since(start)
			out.Stats = st
			return out, ctx.Err()
		}
		cut = nextCut(cut, opt.Lo, theta, opt.Rank)
		t = time.Now()
		if err := f.apply(ctx, q, opt.Lo, cut, opt.Degree); err != nil {
			return nil, err
		}
		st.SpMM += time.Since(t)
		t = time.Now()
		if err := orthonormalize(ctx, q, n, l); err != nil {
			return nil, err
		}
		st.QR += time.Since(t)
	}
}

// withDefaults returns opt with its zero fields set, Options' included.
func (opt TopOptions) withDefaults() TopOptions {
	opt.Options = opt.Options.withDefaults()
	if opt.Degree == 0 {
		opt.Degree = 8
	}
	if opt.MaxIters == 0 {
		opt.MaxIters = 50
	}
	if opt.Tol == 0 {
		opt.Tol = ConvergedTol
	}
	return opt
}

// nextCut returns the upper end of the interval [lo, cut] the next filter
// damps, from the previous cut and the Ritz values θ (decreasing) of a
// block of which the first r are wanted. The cut is the block's smallest
// Ritz value, at most its l-th eigenvalue (Cauchy interlacing), so the
// wanted ones are above it. A cut within 0.1% of θ₁ − lo from lo (as in a
// rank-deficient AᵀA) is raised, so that the filter's scale stays finite:
// the eigenvalues between lo and the cut are then damped less, still
// below the ones above it.
func nextCut(cut, lo float64, theta []float64, r int) float64 {
	cut = math.Max(cut, theta[len(theta)-1])
	if !(cut < theta[r-1]) {
		cut = lo
	}
	return math.Max(cut, lo+1e-3*(theta[0]-lo))
}

// ritz returns the eigenvalues of the l x l matrix QᵀAQ by decreasing
// value and its eigenvectors as the columns of W in the same order.
func ritz(q, aq []float64, n, l int) ([]float64, *mat.Dense, error) {
	vals, v, err := projectedEigen(q, aq, n, l)
	if err != nil {
		return nil, nil, err
	}
	order := make([]int, l)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return vals[order[a]] > vals[order[b]] })
	theta := make([]float64, l)
	w := mat.NewDense(l, l, nil)
	for j, k := range order {
		theta[j] = vals[k]
		for i := 0; i < l; i++ {
			w.Set(i, j, v.At(i, k))
		}
	}
	return theta, w, nil
}

// maxResidual returns the largest residual ‖Aq_j − θ_j q_j‖ of the first
// r Ritz pairs (columns of the n x l blocks q and aq = A·q).
func maxResidual(q, aq, theta []float64, n, l, r int) float64 {
	res := make([]float64, r)
	for i := 0; i < n; i++ {
		qi, ai := q[i*l:i*l+r], aq[i*l:i*l+r]
		for j := range res {
			d := ai[j] - theta[j]*qi[j]
			res[j] += d * d
		}
	}
	var m float64
	for _, s := range res {
		m = math.Max(m, math.Sqrt(s))
	}
	return m
}

// chebFilter applies a Chebyshev polynomial of a symmetric operator to a
// block in place, with two work blocks of its own.
type chebFilter struct {
	op     Operator
	l      int
	y0, y1 []float64
	tmp    []float64
}

// apply replaces the n x l block x by T_m(σ(A))·x, where σ maps [lo, cut]
// onto [−1, 1]: |T_m| ≤ 1 there, and T_m grows like cosh(m·acosh σ) above
// cut. Three-term recurrence y_{j+1} = 2σ(A)y_j − y_{j−1}.
func (f *chebFilter) apply(ctx context.Context, x []float64, lo, cut float64, m int) error {
	if f.y0 == nil {
		f.y0, f.y1, f.tmp = make([]float64, len(x)), make([]float64, len(x)), make([]float64, len(x))
	}
	e, c := (cut-lo)/2, (cut+lo)/2
	// y0 = x, y1 = σ(A)x.
	copy(f.y0, x)
	if err := f.op.MulBlockTo(ctx, f.tmp, f.y0, f.l); err != nil {
		return err
	}
	for i, a := range f.tmp {
		f.y1[i] = (a - c*f.y0[i]) / e
	}
	y0, y1 := f.y0, f.y1
	for j := 2; j <= m; j++ {
		if err := f.op.MulBlockTo(ctx, f.tmp, y1, f.l); err != nil {
			return err
		}
		for i, a := range f.tmp {
			y0[i] = 2*(a-c*y1[i])/e - y0[i]
		}
		y0, y1 = y1, y0
	}
	copy(x, y1)
	return ctx.Err()
}

// gram is the operator AᵀA of an operator A.
type gram struct {
	a   Operator
	tmp []float64
}

func (o *gram) Dims() (r, c int) {
	_, c = o.a.Dims()
	return c, c
}

func (o *gram) MulBlockTo(ctx context.Context, dst, b []float64, k int) error {
	m, _ := o.a.Dims()
	if len(o.tmp) < m*k {
		o.tmp = make([]float64, m*k)
	}
	if err := o.a.MulBlockTo(ctx, o.tmp[:m*k], b, k); err != nil {
		return err
	}
	return o.a.MulTransBlockTo(ctx, dst, o.tmp[:m*k], k)
}

func (o *gram) MulTransBlockTo(ctx context.Context, dst, b []float64, k int) error {
	return o.MulBlockTo(ctx, dst, b, k)
}

// TopSVD computes the opt.Rank largest singular triplets of op as the top
// eigenpairs of AᵀA by TopEigSym (opt.Lo is ignored: the spectrum starts
// at 0), with U = AV/σ. Unlike RandomizedSVD's few power iterations it converges when the
// singular values crowd, as an adjacency matrix's do. Through AᵀA the
// squares σ² are accurate to the eigenvalue tolerance, so a singular
// value far below σ₁ carries an absolute error near √ε·σ₁; a zero one
// gets a zero column of U.
func TopSVD(ctx context.Context, op Operator, opt TopOptions) (*SVD, error) {
	opt.Lo = 0
	eig, err := TopEigSym(ctx, &gram{a: op}, opt)
	if err != nil {
		return nil, err
	}
	m, _ := op.Dims()
	r := len(eig.Values)
	v := eig.U
	u := make([]float64, m*r)
	if err := op.MulBlockTo(ctx, u, v.RawMatrix().Data, r); err != nil {
		return nil, err
	}
	out := &SVD{S: make([]float64, r), V: v, Stats: eig.Stats, Iters: eig.Iters, Residual: eig.Residual}
	for j, x := range eig.Values {
		out.S[j] = math.Sqrt(math.Max(x, 0))
	}
	for i := 0; i < m; i++ {
		for j, s := range out.S {
			if s > 0 {
				u[i*r+j] /= s
			} else {
				u[i*r+j] = 0
			}
		}
	}
	out.U = mat.NewDense(m, r, u)
	return out, ctx.Err()
}

// projectedEigen returns the eigenvalues and eigenvectors (columns, in
// gonum's order) of QᵀAQ for the n x l blocks q and aq = A·q, symmetrised
// against rounding.
func projectedEigen(q, aq []float64, n, l int) ([]float64, *mat.Dense, error) {
	small := mat.NewDense(l, l, nil)
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, blas64.General{Rows: n, Cols: l, Stride: l, Data: q},
		blas64.General{Rows: n, Cols: l, Stride: l, Data: aq}, 0, small.RawMatrix())
	sym := mat.NewSymDense(l, nil)
	for i := 0; i < l; i++ {
		for j := i; j < l; j++ {
			sym.SetSym(i, j, (small.At(i, j)+small.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return nil, nil, fmt.Errorf("%w: small eigendecomposition did not converge", ErrFactorization)
	}
	var v mat.Dense
	eig.VectorsTo(&v)
	return eig.Values(nil), &v, nil
}
