package lowrank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/sparse"
)

// ErrTooLarge is returned by the dense twins above their size limit.
var ErrTooLarge = errors.New("lowrank: too large for a dense matrix")

// MaxDenseNodes bounds the dense twins (a few N x N float64 matrices).
const MaxDenseNodes = 16384

// Series holds every power T^k (k = 1..C) of the transition matrix
// T = D⁻¹A of a graph in factored form, and evaluates Σ_k c_k T^k.
//
// The smallest powers k <= Exact are exact and sparse (computed from the
// CSR per pair); the others come from a rank-r factorization:
//
//   - undirected (A symmetric): S = D^{-1/2} A D^{-1/2} ≈ U Λ Uᵀ (the
//     eigenpairs of largest magnitude, converged with
//     SeriesOptions.Converged), so T^k ≈ D^{-1/2} U Λ^k Uᵀ D^{1/2};
//   - directed: T ≈ U Σ Vᵀ (a truncated SVD), so
//     T^k ≈ U (Σ Vᵀ U)^{k−1} Σ Vᵀ with an r x r core.
//
// The paper's shortcut T^k = U Λ^k Vᵀ from an SVD of T is wrong for a
// non-symmetric T (VᵀU ≠ I); neither form above relies on it.
type Series struct {
	C, Exact int
	Directed bool

	t       *sparse.CSR // T = D⁻¹A
	sqrtDeg []float64   // undirected: sqrt of the weighted degrees

	// Undirected factors.
	u      *mat.Dense // n x r
	lambda []float64

	// Directed factors: T ≈ U Σ Vᵀ; cores[k-1] = (ΣVᵀU)^{k−1} Σ (r x r).
	du, dv *mat.Dense
	cores  []*mat.Dense
	// vcores[k-1] = V·core_kᵀ (n x r) when it fits in MaxCoreBytes, so
	// that (T^k)_vu = U_v · vcores[k-1]_u costs O(r).
	vcores []*mat.Dense

	Stats Stats
	// Residual is the converged factorization's largest relative
	// residual (SeriesOptions.Converged; TopEigSym's and TopSVD's
	// Residual): above ConvergedTol, it stopped at its iteration cap
	// before converging. 0 for the randomized factorizations.
	Residual float64
}

// ConvergedTol is the residual that SeriesOptions.Converged aims at:
// TopOptions' default Tol.
const ConvergedTol = 1e-6

// magnitudeEig returns the opt.Rank eigenpairs of largest magnitude of a
// symmetric operator whose spectrum lies in [−1, 1], each end converged
// by TopEigSym: the top of the operator and the top of its negation,
// merged by magnitude (ties to the positive). A bipartite graph's
// normalised adjacency has −λ for every λ, and an odd power of T needs
// both. Iters adds the two runs', Residual is the larger.
func magnitudeEig(ctx context.Context, op Operator, opt Options) (*Eigen, error) {
	top := TopOptions{Options: opt, Lo: -1}
	pos, err := TopEigSym(ctx, op, top)
	if err != nil {
		return nil, err
	}
	neg, err := TopEigSym(ctx, negated{op}, top)
	if err != nil {
		return nil, err
	}
	n, r := pos.U.RawMatrix().Rows, opt.Rank
	out := &Eigen{U: mat.NewDense(n, r, nil), Values: make([]float64, r),
		Iters: pos.Iters + neg.Iters, Residual: math.Max(pos.Residual, neg.Residual)}
	st := pos.Stats
	st.SpMM += neg.SpMM
	st.QR += neg.QR
	st.Small += neg.Small
	st.Other += neg.Other
	st.Total += neg.Total
	out.Stats = st
	i, j := 0, 0
	for k := range r {
		if j >= len(neg.Values) || (i < len(pos.Values) && pos.Values[i] >= neg.Values[j]) {
			out.Values[k] = pos.Values[i]
			out.U.ColView(k).(*mat.VecDense).CopyVec(pos.U.ColView(i))
			i++
			continue
		}
		out.Values[k] = -neg.Values[j]
		out.U.ColView(k).(*mat.VecDense).CopyVec(neg.U.ColView(j))
		j++
	}
	return out, nil
}

// negated is the operator −A.
type negated struct{ Operator }

func (o negated) MulBlockTo(ctx context.Context, dst, b []float64, k int) error {
	err := o.Operator.MulBlockTo(ctx, dst, b, k)
	for i := range dst {
		dst[i] = -dst[i]
	}
	return err
}

func (o negated) MulTransBlockTo(ctx context.Context, dst, b []float64, k int) error {
	err := o.Operator.MulTransBlockTo(ctx, dst, b, k)
	for i := range dst {
		dst[i] = -dst[i]
	}
	return err
}

// MaxCoreBytes bounds the memory of the directed series' precomputed
// V·core_kᵀ matrices (C of them, n x r float64); above it per-pair
// evaluation falls back to O(C·r²).
var MaxCoreBytes int64 = 2 << 30

// SeriesOptions controls NewSeries. Options.Rank and C must be set; the
// other zero fields mean their defaults.
type SeriesOptions struct {
	Options
	// C is the number of powers; it must be at least 1.
	C int
	// Exact is the number of smallest powers computed exactly from the
	// sparse matrix (0, 1 or 2); the low-rank part covers k > Exact.
	// A negative value means 0; the zero value means 1.
	Exact int
	// Directed selects the SVD form even for a symmetric A.
	Directed bool
	// Workers bounds the goroutines of the products; 0 means GOMAXPROCS.
	// The series does not depend on it.
	Workers int
	// Converged factors by TopEigSym (undirected: the eigenpairs of
	// largest magnitude, from the top of S and of −S) or TopSVD
	// (directed), which iterate to convergence, instead of
	// RandomizedEigSym and RandomizedSVD, whose few power iterations leave
	// a crowded top of the spectrum unconverged: on ca-HepTh's largest
	// component at rank 64 the randomized eigendecomposition's largest
	// value is 0.73 where S's is 1, so that row 0 of the factored T³ sums
	// to 0.054 instead of 1. It is far slower (there 18 s at rank 64 and
	// 76 s at rank 256, against 0.15 and 0.8 s: both ends of the spectrum
	// crowd; Series.Residual says how far it got) and worth it wherever
	// the powers themselves are used; a start that only needs their
	// leading directions does without.
	Converged bool
}

// NewSeries factors the transition matrix of the adjacency matrix adj.
// Undirected graphs (symmetric adj, Directed unset) use the symmetric
// eigendecomposition; others the SVD. Memory: the CSR and its transpose
// plus a few n x (r + oversampling) blocks.
func NewSeries(ctx context.Context, adj *sparse.CSR, opt SeriesOptions) (*Series, error) {
	if opt.C < 1 {
		return nil, fmt.Errorf("lowrank: C = %d, want at least 1", opt.C)
	}
	exact := opt.Exact
	if exact == 0 {
		exact = 1
	}
	if exact < 0 {
		exact = 0
	}
	if exact > 2 {
		return nil, fmt.Errorf("lowrank: %d exact powers asked, at most 2 are supported", exact)
	}
	n, _ := adj.Dims()
	s := &Series{C: opt.C, Exact: exact}
	s.t, _ = adj.RowNormalize()
	if !opt.Directed && adj.IsSymmetric() {
		sym, sq := adj.SymNormalize()
		s.sqrtDeg = sq
		op := NewCSROperator(sym, opt.Workers)
		var eig *Eigen
		var err error
		if opt.Converged {
			eig, err = magnitudeEig(ctx, op, opt.Options)
		} else {
			eig, err = RandomizedEigSym(ctx, op, opt.Options)
		}
		if err != nil {
			return nil, err
		}
		s.u, s.lambda, s.Stats, s.Residual = eig.U, eig.Values, eig.Stats, eig.Residual
		return s, nil
	}
	s.Directed = true
	op := NewCSROperator(s.t, opt.Workers)
	var svd *SVD
	var err error
	if opt.Converged {
		svd, err = TopSVD(ctx, op, TopOptions{Options: opt.Options})
	} else {
		svd, err = RandomizedSVD(ctx, op, opt.Options)
	}
	if err != nil {
		return nil, err
	}
	s.du, s.dv, s.Stats, s.Residual = svd.U, svd.V, svd.Stats, svd.Residual
	r := len(svd.S)
	// M = Σ Vᵀ U; cores: Σ, MΣ, M²Σ, …
	var vtu mat.Dense
	vtu.Mul(svd.V.T(), svd.U)
	m := mat.NewDense(r, r, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			m.Set(i, j, svd.S[i]*vtu.At(i, j))
		}
	}
	core := mat.NewDense(r, r, nil)
	for i := 0; i < r; i++ {
		core.Set(i, i, svd.S[i])
	}
	s.cores = append(s.cores, core)
	for k := 2; k <= opt.C; k++ {
		next := mat.NewDense(r, r, nil)
		next.Mul(m, s.cores[k-2])
		s.cores = append(s.cores, next)
	}
	if int64(opt.C)*int64(n)*int64(r)*8 <= MaxCoreBytes {
		for k := 1; k <= opt.C; k++ {
			if k <= exact {
				s.vcores = append(s.vcores, nil)
				continue
			}
			w := mat.NewDense(n, r, nil)
			w.Mul(svd.V, s.cores[k-1].T())
			s.vcores = append(s.vcores, w)
		}
	}
	return s, nil
}

// Bytes returns the memory of the factors the series holds (not of the
// transition matrix): U, the eigenvalues and √deg, or U, V, the r x r cores and
// the precomputed V·core_kᵀ tables of a directed series, which are C·n·r
// float64s (below MaxCoreBytes) and so the largest part.
func (s *Series) Bytes() int64 {
	b := int64(len(s.lambda)+len(s.sqrtDeg)) * 8
	for _, ms := range [][]*mat.Dense{{s.u, s.du, s.dv}, s.cores, s.vcores} {
		for _, m := range ms {
			if m != nil {
				r, c := m.Dims()
				b += int64(r) * int64(c) * 8
			}
		}
	}
	return b
}

// Rank returns the rank of the factorization.
func (s *Series) Rank() int {
	if s.Directed {
		_, r := s.du.Dims()
		return r
	}
	return len(s.lambda)
}

// exactPower returns (T^k)_vu for k = 1 or 2 from the sparse matrix.
func (s *Series) exactPower(k int, v, u int32) float64 {
	idx, val := s.t.Row(int(v))
	if k == 1 {
		if p, ok := slices.BinarySearch(idx, u); ok {
			return val[p]
		}
		return 0
	}
	var sum float64
	for p, w := range idx {
		sum += val[p] * s.t.At(int(w), int(u))
	}
	return sum
}

// PowersTo writes (T^k)_vu for k = 1..C into dst (length C): exact for
// k <= Exact, from the factors otherwise. Cost O(C·r) (for a directed
// graph through the precomputed V·core_kᵀ, or O(C·r²) when those exceed
// MaxCoreBytes), plus O(deg) for the exact terms.
//
// scratch is a work buffer of at least 2·Rank() values, or nil to
// allocate one per call: with a buffer the call allocates nothing, and
// calls with distinct buffers may run concurrently.
func (s *Series) PowersTo(dst, scratch []float64, v, u int32) {
	if scratch == nil {
		scratch = make([]float64, 2*s.Rank())
	}
	if len(scratch) < 2*s.Rank() {
		panic(mat.ErrShape)
	}
	s.powersTo(dst, v, u, scratch)
}

// powersTo is PowersTo with a scratch buffer of at least 2·Rank() values,
// so that evaluating many pairs allocates nothing.
func (s *Series) powersTo(dst []float64, v, u int32, scratch []float64) {
	if len(dst) != s.C {
		panic(mat.ErrShape)
	}
	for k := 1; k <= s.Exact && k <= s.C; k++ {
		dst[k-1] = s.exactPower(k, v, u)
	}
	if s.Exact >= s.C {
		return
	}
	if !s.Directed {
		r := len(s.lambda)
		uv := s.u.RawRowView(int(v))
		uu := s.u.RawRowView(int(u))
		a := scratch[:r]
		for i := 0; i < r; i++ {
			a[i] = uv[i] * uu[i]
		}
		var scale float64
		if s.sqrtDeg[v] > 0 {
			scale = s.sqrtDeg[u] / s.sqrtDeg[v]
		}
		pw := scratch[r : 2*r]
		copy(pw, s.lambda)
		for k := 1; k <= s.C; k++ {
			if k > s.Exact {
				var sum float64
				for i := 0; i < r; i++ {
					sum += a[i] * pw[i]
				}
				dst[k-1] = scale * sum
			}
			for i := range pw {
				pw[i] *= s.lambda[i]
			}
		}
		return
	}
	_, r := s.du.Dims()
	uv := s.du.RawRowView(int(v))
	vu := s.dv.RawRowView(int(u))
	if s.vcores != nil {
		for k := s.Exact + 1; k <= s.C; k++ {
			w := s.vcores[k-1].RawRowView(int(u))
			var sum float64
			for i, x := range uv {
				sum += x * w[i]
			}
			dst[k-1] = sum
		}
		return
	}
	x := scratch[:r]
	for k := s.Exact + 1; k <= s.C; k++ {
		// x = U_v · core_k; value = x · V_u.
		core := s.cores[k-1].RawMatrix()
		clear(x)
		for i := 0; i < r; i++ {
			if uv[i] == 0 {
				continue
			}
			row := core.Data[i*core.Stride : i*core.Stride+r]
			for j := range x {
				x[j] += uv[i] * row[j]
			}
		}
		var sum float64
		for j := range x {
			sum += x[j] * vu[j]
		}
		dst[k-1] = sum
	}
}

// Value returns Σ_k c_k (T^k)_vu.
func (s *Series) Value(c []float64, v, u int32) float64 {
	p := make([]float64, s.C)
	s.PowersTo(p, nil, v, u)
	var sum float64
	for k, x := range p {
		sum += c[k] * x
	}
	return sum
}

// PairValues writes Σ_k c_k (T^k)_vu of every pair into dst, in parallel
// over fixed chunks of pairs (each value is computed independently, so the
// result does not depend on the number of workers).
func (s *Series) PairValues(ctx context.Context, dst []float64, c []float64, pairs [][2]int32, workers int) error {
	if len(dst) != len(pairs) || len(c) != s.C {
		panic(mat.ErrShape)
	}
	const chunk = 4096
	nChunks := (len(pairs) + chunk - 1) / chunk
	return sparse.ParallelFor(ctx, nChunks, workers, func(i int) {
		p := make([]float64, s.C)
		scratch := make([]float64, 2*s.Rank())
		for j := i * chunk; j < min(len(pairs), (i+1)*chunk); j++ {
			s.powersTo(p, pairs[j][0], pairs[j][1], scratch)
			var sum float64
			for k, x := range p {
				sum += c[k] * x
			}
			dst[j] = sum
		}
	})
}

// RowsTo writes the dense rows Σ_k c_k T^k restricted to the given anchor
// rows into dst (len(rows) x N), for tests and small graphs.
func (s *Series) RowsTo(dst *mat.Dense, c []float64, rows []int32) {
	n, _ := s.t.Dims()
	r, cols := dst.Dims()
	if r != len(rows) || cols != n {
		panic(mat.ErrShape)
	}
	for i, v := range rows {
		for u := 0; u < n; u++ {
			dst.Set(i, u, s.Value(c, v, int32(u)))
		}
	}
}

// DensePowerSeries returns Σ_k c_k T^k (k = 1..len(c)) computed exactly
// with dense powers (P_k = T·P_{k−1} by sparse-dense products): the oracle
// for tests. It refuses graphs of more than MaxDenseNodes nodes.
func DensePowerSeries(adj *sparse.CSR, c []float64) (*mat.Dense, error) {
	n, _ := adj.Dims()
	if n > MaxDenseNodes {
		return nil, fmt.Errorf("%w: %d nodes, limit %d", ErrTooLarge, n, MaxDenseNodes)
	}
	tm, _ := adj.RowNormalize()
	sum := make([]float64, n*n)
	pow := make([]float64, n*n)
	next := make([]float64, n*n)
	for i := 0; i < n; i++ {
		pow[i*n+i] = 1
	}
	for k := range c {
		if err := sparse.MulBlockTo(context.Background(), next, tm, pow, n, 0); err != nil {
			return nil, err
		}
		pow, next = next, pow
		for i, x := range pow {
			sum[i] += c[k] * x
		}
	}
	return mat.NewDense(n, n, sum), nil
}

// DenseTo writes the factored Σ_k c_k T^k as a dense N x N matrix into
// dst: the exact sparse terms plus the low-rank part by matrix products.
// It refuses graphs of more than MaxDenseNodes nodes.
func (s *Series) DenseTo(dst *mat.Dense, c []float64) error {
	n, _ := s.t.Dims()
	if n > MaxDenseNodes {
		return fmt.Errorf("%w: %d nodes, limit %d", ErrTooLarge, n, MaxDenseNodes)
	}
	if r, cols := dst.Dims(); r != n || cols != n || len(c) != s.C {
		panic(mat.ErrShape)
	}
	// Low-rank part for k > Exact.
	if !s.Directed {
		r := len(s.lambda)
		h := make([]float64, r)
		for i, l := range s.lambda {
			p := 1.0
			for k := 1; k <= s.C; k++ {
				p *= l
				if k > s.Exact {
					h[i] += c[k-1] * p
				}
			}
		}
		left := mat.DenseCopyOf(s.u)
		right := mat.DenseCopyOf(s.u)
		for v := 0; v < n; v++ {
			var inv float64
			if s.sqrtDeg[v] > 0 {
				inv = 1 / s.sqrtDeg[v]
			}
			lr, rr := left.RawRowView(v), right.RawRowView(v)
			for i := range lr {
				lr[i] *= inv * h[i]
				rr[i] *= s.sqrtDeg[v]
			}
		}
		dst.Mul(left, right.T())
	} else {
		_, r := s.du.Dims()
		core := mat.NewDense(r, r, nil)
		for k := s.Exact + 1; k <= s.C; k++ {
			core.Add(core, scaled(c[k-1], s.cores[k-1]))
		}
		var uc mat.Dense
		uc.Mul(s.du, core)
		dst.Mul(&uc, s.dv.T())
	}
	// Exact sparse terms.
	if s.Exact >= 1 {
		eye := make([]float64, n*n)
		for i := 0; i < n; i++ {
			eye[i*n+i] = 1
		}
		p1 := make([]float64, n*n)
		if err := sparse.MulBlockTo(context.Background(), p1, s.t, eye, n, 0); err != nil {
			return err
		}
		raw := dst.RawMatrix()
		for i := 0; i < n; i++ {
			row := raw.Data[i*raw.Stride : i*raw.Stride+n]
			for j := range row {
				row[j] += c[0] * p1[i*n+j]
			}
		}
		if s.Exact >= 2 && s.C >= 2 {
			p2 := eye
			if err := sparse.MulBlockTo(context.Background(), p2, s.t, p1, n, 0); err != nil {
				return err
			}
			for i := 0; i < n; i++ {
				row := raw.Data[i*raw.Stride : i*raw.Stride+n]
				for j := range row {
					row[j] += c[1] * p2[i*n+j]
				}
			}
		}
	}
	return nil
}

// RelativeError returns ‖got − want‖_F / ‖want‖_F.
func RelativeError(got, want mat.Matrix) float64 { return relFrobenius(got, want) }

func scaled(a float64, m *mat.Dense) *mat.Dense {
	var out mat.Dense
	out.Scale(a, m)
	return &out
}

// relFrobenius returns ‖a − b‖_F / ‖b‖_F.
func relFrobenius(a, b mat.Matrix) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, 2) / math.Max(mat.Norm(b, 2), 1e-300)
}

// Spectral returns n x r factors (left, right) of the low-rank part of a
// weighted series Σ_k c_k T^k, balanced between the two sides, for a
// spectral start of embeddings L and R. For an undirected graph it
// factors the symmetric Σ_k c_k S^k ≈ U f(Λ) Uᵀ (S = D^{-1/2} A D^{-1/2},
// which has T's spectrum without the degree scaling), as
// left = U|f(Λ)|^{1/2} and right = U sign(f(Λ))|f(Λ)|^{1/2}; for a
// directed graph U·M·Vᵀ with M = Σ_k c_k core_k, through the SVD of the
// r x r matrix M = P Σ Wᵀ: left = U P Σ^{1/2}, right = V W Σ^{1/2}.
func (s *Series) Spectral(c []float64) (left, right *mat.Dense, err error) {
	if len(c) != s.C {
		panic(mat.ErrShape)
	}
	if !s.Directed {
		n, r := s.u.Dims()
		a, b := make([]float64, r), make([]float64, r)
		for i, l := range s.lambda {
			var f, pw float64 = 0, 1
			for _, ck := range c {
				pw *= l
				f += ck * pw
			}
			a[i] = math.Sqrt(math.Abs(f))
			b[i] = a[i]
			if f < 0 {
				b[i] = -a[i]
			}
		}
		// Row by row: a column at a time strides across every row of the
		// three n x r arrays (4 s at a million nodes and r = 64).
		left, right = mat.NewDense(n, r, nil), mat.NewDense(n, r, nil)
		for v := 0; v < n; v++ {
			uv, lv, rv := s.u.RawRowView(v), left.RawRowView(v), right.RawRowView(v)
			for i, x := range uv[:len(s.lambda)] {
				lv[i], rv[i] = a[i]*x, b[i]*x
			}
		}
		return left, right, nil
	}
	_, r := s.du.Dims()
	m := mat.NewDense(r, r, nil)
	for k, ck := range c {
		var t mat.Dense
		t.Scale(ck, s.cores[k])
		m.Add(m, &t)
	}
	var svd mat.SVD
	if !svd.Factorize(m, mat.SVDFull) {
		return nil, nil, errors.New("lowrank: SVD of the series core did not converge")
	}
	var p, w mat.Dense
	svd.UTo(&p)
	svd.VTo(&w)
	sv := svd.Values(nil)
	for j, x := range sv {
		sq := math.Sqrt(x)
		for i := 0; i < r; i++ {
			p.Set(i, j, p.At(i, j)*sq)
			w.Set(i, j, w.At(i, j)*sq)
		}
	}
	left, right = new(mat.Dense), new(mat.Dense)
	left.Mul(s.du, &p)
	right.Mul(s.dv, &w)
	return left, right, nil
}
