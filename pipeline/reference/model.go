package reference

import (
	"context"
	"fmt"
	"math"
	"runtime"

	"golang.org/x/sync/errgroup"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// Float is the precision of a model: float32 for training, float64 for
// the exact evaluator used as an oracle in tests.
type Float interface{ ~float32 | ~float64 }

// model holds the dense transition-matrix powers of one graph and one
// formulation, and evaluates the objective and its gradients.
type model[T Float] struct {
	n, c int
	obj  pipeline.ObjectiveConfig
	adj  *sparse.CSR
	// pow holds T^1..T^C, power-major: pow[(k−1)·n² + v·n + u] = (T^k)_vu.
	pow []T
	// rowW[v] is the starting mass P0_vv with the loss normalisation folded
	// in, so that E[D]_vu / norm = rowW[v]·Σ_k Q_k (T^k)_vu.
	rowW    []float64
	negW    float64 // weight of one negative entry: 1/N² (code) or 1 (paper)
	logEps  float64 // epsilon inside the logs: 1e-5 (code) or 0 (paper, exact logs)
	workers int
	// fast selects expNegFloat32 and logFloat32 over math.Exp and math.Log
	// (float32 models only: the float64 oracle uses the standard library).
	fast bool
	// fixedQ marks a Refiner's model, whose one "power" is Σ_k Q_k T^k
	// at Q = [1]: an evaluation without the loss takes gradientRows,
	// which computes neither logarithms nor a q-gradient.
	fixedQ bool
	// g is the n x n score matrix G = L Rᵀ, overwritten in place by
	// dJ/dG on every evaluation.
	g []T
	// Scratch reused by every evaluation, so that a step allocates almost
	// nothing (garbage would let the heap grow to twice the model before
	// a collection): the gradients and one pair of row buffers per worker.
	gl, gr []T
	rows   chan *rowScratch[T]
}

// rowScratch holds the per-row buffers of one worker.
type rowScratch[T Float] struct {
	erow  []T       // Σ_k Q_k (T^k)_v·
	lprow []float64 // log σ(g_v·) (code: log(σ + ε))
}

// BytesNeeded estimates the memory of a dense model with n nodes, c powers
// and element size elem bytes: the c powers of T and the score matrix,
// each n x n. Nothing else of size n² is allocated.
func BytesNeeded(n, c, elem int) int64 {
	nn := int64(n) * int64(n)
	return (int64(c) + 1) * nn * int64(elem)
}

// prepare sets what the model's evaluations read besides its matrices:
// the entries' weights, the logarithms' ε and a row scratch per worker.
func (m *model[T]) prepare() {
	m.rowW, m.negW = m.obj.EntryWeights(m.adj)
	m.logEps = m.obj.LogEpsilon()
	m.rows = make(chan *rowScratch[T], m.workers)
	for range m.workers {
		m.rows <- &rowScratch[T]{erow: make([]T, m.n), lprow: make([]float64, m.n)}
	}
}

// newModel computes the C powers of the transition matrix T = D⁻¹A of adj
// row block by row block with sparse products, T^k = T·T^{k−1}: C·nnz·N
// multiply-adds and no dense x dense product.
func newModel[T Float](ctx context.Context, adj *sparse.CSR, obj pipeline.ObjectiveConfig, workers int) (*model[T], error) {
	obj = obj.Resolve()
	if err := obj.Validate(); err != nil {
		return nil, err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	n, cols := adj.Dims()
	if n != cols {
		panic(mat.ErrSquare)
	}
	c := obj.Contexts()
	nn := n * n
	m := &model[T]{n: n, c: c, obj: obj, adj: adj, workers: workers,
		pow: make([]T, c*nn), g: make([]T, nn)}
	_, m.fast = any(T(0)).(float32)
	m.prepare()
	tm, _ := adj.RowNormalize()
	for v := 0; v < n; v++ {
		idx, val := tm.Row(v)
		for j, u := range idx {
			m.pow[v*n+int(u)] = T(val[j])
		}
	}
	for k := 1; k < obj.C; k++ {
		if err := sparse.MulBlockTo(ctx, m.pow[k*nn:(k+1)*nn], tm, m.pow[(k-1)*nn:k*nn], n, workers); err != nil {
			return nil, err
		}
	}
	if c > obj.C {
		// The extra context types, applied to the identity with sparse
		// products (PPR by its power series, Adamic–Adar as A·H·A).
		eye := make([]T, nn)
		for v := 0; v < n; v++ {
			eye[v*n+v] = 1
		}
		if err := pipeline.ApplyContexts(ctx, m.pow[obj.C*nn:], adj, obj, eye, n, workers); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// value is an objective evaluation: the loss and its gradients.
type value[T Float] struct {
	loss       float64
	gl, gr     []T       // n x half
	gq         []float64 // c
	positive   float64   // −Σ E log σ part (normalised)
	negative   float64   // −Σ 1[A=0] log(1−σ) part (normalised)
	regularise float64
}

// gemm computes c = op(a)·op(b) (assigning) through gonum's BLAS (or
// OpenBLAS when built with -tags openblas).
func gemm[T Float](ta, tb bool, m, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
	tA, tB := blas.NoTrans, blas.NoTrans
	if ta {
		tA = blas.Trans
	}
	if tb {
		tB = blas.Trans
	}
	switch a := any(a).(type) {
	case []float32:
		blas32.Implementation().Sgemm(tA, tB, m, n, k, 1, a, lda, any(b).([]float32), ldb, 0, any(c).([]float32), ldc)
	case []float64:
		blas64.Implementation().Dgemm(tA, tB, m, n, k, 1, a, lda, any(b).([]float64), ldb, 0, any(c).([]float64), ldc)
	}
}

// evaluate returns the objective at (l, r, q) and its exact gradients.
// The gradient slices of the value belong to the model and are
// overwritten by the next evaluation.
func (m *model[T]) evaluate(ctx context.Context, l, r []T, half int, q []float64) (*value[T], error) {
	return m.evaluateLoss(ctx, l, r, half, q, true)
}

// panelRows is the number of rows of one GEMM panel of an evaluation:
// between panels a cancelled context stops it within a panel's time
// (N x 1024 x d/2 multiply-adds: at 32,768 nodes and d = 128 in gonum's
// GEMM on this project's 2-core machine, 0.6 s for G's panel, against
// about 28 s for the three whole products). gonum's GEMM sums a panel's
// entries exactly as the whole product's (the row offsets are multiples
// of its 64-row block; TestPanelsBitwise), so with it every evaluation
// goes in panels. OpenBLAS's may round a panel differently, so with it
// only graphs of more than wholeNodes nodes do.
const panelRows = 1024

// wholeNodes is the largest graph whose products are each one GEMM call
// with OpenBLAS, as before panels: every graph this project records
// results on with the dense model (ca-HepTh's 9,877 nodes the largest),
// whose results recorded with OpenBLAS stay reproducible bit for bit; OpenBLAS takes at most about a second for a
// product there.
const wholeNodes = 10000

// panels calls f on the row ranges [lo, hi) of n rows, panelRows at a
// time (with OpenBLAS, all at once up to wholeNodes), and returns
// ctx.Err() before a range when ctx is cancelled.
func panels(ctx context.Context, n int, f func(lo, hi int)) error {
	if n > wholeNodes || BLAS == "gonum" {
		return panelsOf(ctx, n, panelRows, f)
	}
	return panelsOf(ctx, n, n, f)
}

// panelsOf is panels with step rows a range.
func panelsOf(ctx context.Context, n, step int, f func(lo, hi int)) error {
	for lo := 0; lo < n; lo += step {
		if err := ctx.Err(); err != nil {
			return err
		}
		f(lo, min(n, lo+step))
	}
	return nil
}

// blockRows is the number of rows of one unit of element work. Partial
// sums are reduced in block order, so that results do not depend on the
// number of workers.
const blockRows = 32

// evaluateLoss is evaluate; when withLoss is false the negative term of
// the loss (not needed for any gradient) is not computed, saving one
// logarithm per matrix entry, and the returned loss is NaN.
//
// It is longer than 80 lines because the loss, both gradients and the
// q-gradient are one fused pass over each row block, the dense hot loop.
func (m *model[T]) evaluateLoss(ctx context.Context, l, r []T, half int, q []float64, withLoss bool) (*value[T], error) {
	n, c := m.n, m.c
	if len(l) != n*half || len(r) != n*half || len(q) != c {
		panic(mat.ErrShape)
	}
	// G = L Rᵀ (the transposed operand is as fast as or faster than an
	// explicit Rᵀ in both BLAS builds; see BenchmarkGEMM).
	if len(m.gl) != n*half {
		m.gl = make([]T, n*half)
		m.gr = make([]T, n*half)
	}
	err := panels(ctx, n, func(lo, hi int) { gemm(false, true, hi-lo, n, half, l[lo*half:], half, r, half, m.g[lo*n:], n) })
	if err != nil {
		return nil, err
	}

	Q := pipeline.Softmax(q)
	QT := make([]T, c)
	for k := range Q {
		QT[k] = T(Q[k])
	}
	nb := (n + blockRows - 1) / blockRows
	parts := make([]blockSums, nb)
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(m.workers)
	for b := 0; b < nb; b++ {
		eg.Go(func() error {
			if err := ectx.Err(); err != nil {
				return err
			}
			buf := <-m.rows
			if m.fixedQ && !withLoss {
				m.gradientRows(buf, b*blockRows, min(n, (b+1)*blockRows))
			} else {
				parts[b] = m.rowBlock(buf, b*blockRows, min(n, (b+1)*blockRows), QT, withLoss)
			}
			m.rows <- buf
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	val := &value[T]{gl: m.gl, gr: m.gr, gq: make([]float64, c)}
	dQ := make([]float64, c)
	for _, p := range parts {
		val.positive += p.pos
		val.negative += p.neg
		for k, x := range p.dq { // none from the Refiner's gradient-only pass
			dQ[k] += x
		}
	}
	// dJ/dL = Γ R, dJ/dR = Γᵀ L, with Γ = dJ/dG now in m.g.
	// (Γᵀ's rows are Γ's columns: a panel of them starts at column lo.)
	err = panels(ctx, n, func(lo, hi int) {
		gemm(false, false, hi-lo, half, n, m.g[lo*n:], n, r, half, val.gl[lo*half:], half)
		gemm(true, false, hi-lo, half, n, m.g[lo:], n, l, half, val.gr[lo*half:], half)
	})
	if err != nil {
		return nil, err
	}
	// dJ/dq through the softmax: dq_j = Q_j (dQ_j − Σ_k Q_k dQ_k).
	var mean float64
	for k := range dQ {
		mean += Q[k] * dQ[k]
	}
	for j := range val.gq {
		val.gq[j] = Q[j] * (dQ[j] - mean)
	}
	// Regularisers.
	beta := m.obj.BetaWeight()
	if m.obj.Formulation == pipeline.FormulationPaper {
		for j, x := range q {
			val.regularise += beta * x * x
			val.gq[j] += 2 * beta * x
		}
	} else {
		for j, x := range q {
			val.regularise += beta * x * x / float64(c)
			val.gq[j] += 2 * beta * x / float64(c)
		}
		scale := pipeline.CodeEmbeddingReg / float64(n*half)
		for i := range l {
			val.regularise += scale * (float64(l[i])*float64(l[i]) + float64(r[i])*float64(r[i]))
			val.gl[i] += T(2 * scale * float64(l[i]))
			val.gr[i] += T(2 * scale * float64(r[i]))
		}
	}
	val.loss = val.positive + val.negative + val.regularise
	if math.IsNaN(val.loss) || math.IsInf(val.loss, 0) {
		return nil, fmt.Errorf("loss %w: %v (positive %v, negative %v, regulariser %v)", pipeline.ErrNotFinite, val.loss, val.positive, val.negative, val.regularise)
	}
	if !withLoss {
		val.loss, val.negative = math.NaN(), math.NaN()
	}
	return val, nil
}

// blockSums are the loss terms of a block of rows, normalised as the
// formulation says, and the derivatives of the positive term with respect
// to Q: dq[k−1] = −Σ_vu rowW_v (T^k)_vu log σ(g_vu).
type blockSums struct {
	pos, neg float64
	dq       []float64
}

// rowBlock does the element work of rows lo..hi−1: it replaces the scores
// G_vu in m.g by dJ/dG_vu and returns the rows' loss terms and their
// partial derivatives with respect to Q.
//
// It is longer than 80 lines because it is one fused pass over a row
// block of every context matrix, the dense hot loop.
func (m *model[T]) rowBlock(buf *rowScratch[T], lo, hi int, QT []T, withLoss bool) (p blockSums) {
	n, c, nn := m.n, m.c, m.n*m.n
	eps, negW := m.logEps, m.negW
	exact := eps == 0
	p.dq = make([]float64, c)
	erow, lprow := buf.erow, buf.lprow
	for v := lo; v < hi; v++ {
		clear(erow)
		for k, qk := range QT {
			axpy(qk, m.pow[k*nn+v*n:k*nn+v*n+n], erow)
		}
		rw := m.rowW[v]
		idx, _ := m.adj.Row(v)
		next := 0 // pointer into the sorted edge columns of row v
		var rowPos, rowNeg float64
		grow := m.g[v*n : v*n+n]
		for u, gv := range grow {
			isEdge := next < len(idx) && int(idx[next]) == u
			if isEdge {
				next++
			}
			g := float64(gv)
			e := rw * float64(erow[u])
			// One exponential gives σ(g) and, with exact logs (the paper
			// formulation, ExactLogs), log σ(g) = −log(1+e^−g) and
			// log(1−σ(g)) = log σ(g) − g.
			var s, lp, dg, x float64
			if m.fast {
				x = expNegFloat32(-math.Abs(g))
			} else {
				x = math.Exp(-math.Abs(g))
			}
			if g >= 0 {
				s = 1 / (1 + x)
				if exact {
					lp = -math.Log1p(x)
				}
			} else {
				s = x / (1 + x)
				if exact {
					lp = g - math.Log1p(x)
				}
			}
			if exact {
				// d/dg log σ = 1−σ, d/dg log(1−σ) = −σ.
				dg = -e * (1 - s)
				if !isEdge {
					dg += negW * s
					if withLoss {
						rowNeg -= negW * (lp - g)
					}
				}
			} else {
				// d/dg log(σ+ε) = σ(1−σ)/(σ+ε), d/dg log(1−σ+ε) = −σ(1−σ)/(1−σ+ε).
				if m.fast {
					lp = logFloat32(s + eps)
				} else {
					lp = math.Log(s + eps)
				}
				ds := s * (1 - s)
				dg = -e * ds / (s + eps)
				if !isEdge {
					dg += negW * ds / (1 - s + eps)
					if withLoss {
						if m.fast {
							rowNeg -= negW * logFloat32(1-s+eps)
						} else {
							rowNeg -= negW * math.Log(1-s+eps)
						}
					}
				}
			}
			rowPos -= e * lp
			lprow[u] = lp
			grow[u] = T(dg)
		}
		p.pos += rowPos
		p.neg += rowNeg
		for k := 0; k < c; k++ {
			p.dq[k] -= rw * dot(m.pow[k*nn+v*n:k*nn+v*n+n], lprow)
		}
	}
	return p
}

// dot returns Σ_i x_i·y_i in float64, over four partial sums (always in
// the same order).
func dot[T Float](x []T, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(x[i]) * y[i]
		s1 += float64(x[i+1]) * y[i+1]
		s2 += float64(x[i+2]) * y[i+2]
		s3 += float64(x[i+3]) * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i]) * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy computes y += a·x through the BLAS of the build.
func axpy[T Float](a T, x, y []T) {
	switch x := any(x).(type) {
	case []float32:
		blas32.Implementation().Saxpy(len(x), float32(a), x, 1, any(y).([]float32), 1)
	case []float64:
		blas64.Implementation().Daxpy(len(x), float64(a), x, 1, any(y).([]float64), 1)
	}
}

// expTable holds 2^(i/64), i = 0..63.
var expTable = func() (t [64]float64) {
	for i := range t {
		t[i] = math.Exp2(float64(i) / 64)
	}
	return t
}()

// expNegFloat32 returns e^x for x ≤ 0 with a relative error below 1e-13
// (far below float32 resolution), and 0 below −700 (where e^x < 1e-304
// no longer changes σ): x = (j/64)·ln 2 + r with |r| ≤ ln 2/128,
// e^x = 2^⌊j/64⌋ · 2^((j mod 64)/64) · e^r, the last factor summed to r⁵.
func expNegFloat32(x float64) float64 {
	if x < -700 {
		return 0
	}
	j := int64(math.Floor(x*(64/math.Ln2) + 0.5))
	r := x - float64(j)*(math.Ln2/64)
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120)))))
	// j = 64·hi + lo with lo in 0..63 (arithmetic shift floors).
	hi, lo := j>>6, j&63
	return math.Float64frombits(uint64(hi+1023)<<52) * expTable[lo] * p
}

// logTable holds, for c_i = 1 + i/128 (i = 0..127), 1/c_i and ln c_i.
var logTable = func() (t [128]struct{ inv, log float64 }) {
	for i := range t {
		c := 1 + float64(i)/128
		t[i].inv, t[i].log = 1/c, math.Log(c)
	}
	return t
}()

// logFloat32 returns ln(y) for a positive normal y with an absolute error
// below 1e-12 (far below float32 resolution), without a division: with
// y = 2^e·m, m in [1, 2), and c_i ≤ m the 7-bit truncation of m,
// ln y = e·ln 2 + ln c_i + ln(1 + r), r = m/c_i − 1 in [0, 1/128), the last
// term summed to r⁵ (truncation error below 4e-14).
func logFloat32(y float64) float64 {
	b := math.Float64bits(y)
	e := float64(int64(b>>52) - 1023)
	t := &logTable[b>>45&127]
	r := math.Float64frombits(b&(1<<52-1)|1023<<52)*t.inv - 1
	p := r * (1 + r*(-1.0/2+r*(1.0/3+r*(-1.0/4+r*(1.0/5)))))
	return e*math.Ln2 + t.log + p
}
