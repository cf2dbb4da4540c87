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

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// Float is the precision of a model: float32 for training, float64 for
// the exact evaluator used as an oracle in tests.
type Float interface{ ~float32 | ~float64 }

// model holds the dense expected co-occurrence terms of one graph and one
// formulation, and evaluates the objective and its gradients.
type model[T Float] struct {
	n, c    int
	obj     pipeline.ObjectiveConfig
	adj     *sparse.CSR
	w       []T // w[(v*n+u)*c + k-1] = rowWeight(v) · (T^k)_vu
	negW    float64
	logEps  float64
	workers int
	// scratch
	g []T // n x n scores, then dJ/dG in place
}

// rowWeights returns the weight of each row of E[D] with the normalisation
// of the loss folded in: code 80·N·deg(v)/N² (mean over N² entries),
// paper 80 (sum).
func rowWeights(adj *sparse.CSR, obj pipeline.ObjectiveConfig) []float64 {
	n, _ := adj.Dims()
	w := make([]float64, n)
	deg := adj.RowSums()
	for v := range w {
		if obj.Formulation == pipeline.FormulationPaper {
			w[v] = obj.WalksPerNode
		} else {
			w[v] = obj.WalksPerNode * float64(n) * deg[v] / (float64(n) * float64(n))
		}
	}
	return w
}

// BytesNeeded estimates the memory of a dense model with n nodes, c powers
// and element size elem bytes: c weighted powers, two power buffers and the
// score matrix, each n x n.
func BytesNeeded(n, c, elem int) int64 {
	nn := int64(n) * int64(n)
	return (int64(c) + 3) * nn * int64(elem)
}

// newModel computes the C weighted powers of the transition matrix of adj.
func newModel[T Float](ctx context.Context, adj *sparse.CSR, obj pipeline.ObjectiveConfig, workers int) (*model[T], error) {
	obj = obj.WithDefaults()
	if err := obj.Validate(); err != nil {
		return nil, err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	n, _ := adj.Dims()
	c := obj.C
	m := &model[T]{n: n, c: c, obj: obj, adj: adj, workers: workers,
		w: make([]T, n*n*c), g: make([]T, n*n)}
	if obj.Formulation == pipeline.FormulationPaper {
		m.negW = 1
	} else {
		m.negW = 1 / (float64(n) * float64(n))
		m.logEps = pipeline.CodeLogEpsilon
	}
	tm, _ := adj.RowNormalize()
	rw := rowWeights(adj, obj)
	// P_1 = T as dense rows; P_k = T · P_{k−1}.
	prev := make([]T, n*n)
	next := make([]T, n*n)
	for v := 0; v < n; v++ {
		idx, val := tm.Row(v)
		for j, u := range idx {
			prev[v*n+int(u)] = T(val[j])
		}
	}
	for k := 0; k < c; k++ {
		if k > 0 {
			if err := sparse.MulBlockTo(ctx, next, tm, prev, n, workers); err != nil {
				return nil, err
			}
			prev, next = next, prev
		}
		for v := 0; v < n; v++ {
			wv := T(rw[v])
			row := prev[v*n : v*n+n]
			base := v * n * c
			for u, x := range row {
				m.w[base+u*c+k] = wv * x
			}
		}
		if err := ctx.Err(); err != nil {
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

// transpose returns the half x n transpose of an n x half matrix.
func transpose[T Float](a []T, n, half int) []T {
	t := make([]T, len(a))
	for i := 0; i < n; i++ {
		for j := 0; j < half; j++ {
			t[j*n+i] = a[i*half+j]
		}
	}
	return t
}

// evaluate returns the objective at (l, r, q) and its exact gradients.
func (m *model[T]) evaluate(ctx context.Context, l, r []T, half int, q []float64) (*value[T], error) {
	return m.evaluateLoss(ctx, l, r, half, q, true)
}

// evaluateLoss is evaluate; when withLoss is false the negative term of
// the loss (not needed for any gradient) is not computed, saving one
// logarithm per matrix entry, and the returned loss is NaN.
func (m *model[T]) evaluateLoss(ctx context.Context, l, r []T, half int, q []float64, withLoss bool) (*value[T], error) {
	n, c := m.n, m.c
	if len(l) != n*half || len(r) != n*half || len(q) != c {
		panic(fmt.Sprintf("reference: shapes L %d, R %d, q %d for n=%d half=%d C=%d", len(l), len(r), len(q), n, half, c))
	}
	// G = L Rᵀ, through Rᵀ so that both operands are untransposed (the
	// faster path of gonum's pure-Go GEMM).
	rt := transpose(r, n, half)
	gemm(false, false, n, n, half, l, half, rt, n, m.g, n)

	Q := pipeline.Softmax(q)
	QT := make([]T, c)
	for k := range Q {
		QT[k] = T(Q[k])
	}
	paper := m.obj.Formulation == pipeline.FormulationPaper
	eps := m.logEps
	negW := m.negW

	// Row blocks: each computes its partial sums; they are reduced in block
	// order so that the result does not depend on the number of workers.
	const blockRows = 64
	nb := (n + blockRows - 1) / blockRows
	type partial struct {
		pos, neg float64
		dq       []float64
	}
	parts := make([]partial, nb)
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(m.workers)
	for b := 0; b < nb; b++ {
		eg.Go(func() error {
			if err := ectx.Err(); err != nil {
				return err
			}
			p := partial{dq: make([]float64, c)}
			rowDQ := make([]float64, c)
			for v := b * blockRows; v < min(n, (b+1)*blockRows); v++ {
				idx, _ := m.adj.Row(v)
				next := 0 // pointer into the sorted edge columns of row v
				var rowPos, rowNeg float64
				clear(rowDQ)
				grow := m.g[v*n : v*n+n]
				wrow := m.w[v*n*c : (v+1)*n*c]
				for u := 0; u < n; u++ {
					isEdge := next < len(idx) && int(idx[next]) == u
					if isEdge {
						next++
					}
					wk := wrow[u*c : u*c+c]
					var e T
					for k, x := range wk {
						e += QT[k] * x
					}
					g := float64(grow[u])
					var lp, ln, dg float64
					if paper {
						// log σ(g) = −pipeline.Softplus(−g), log(1−σ(g)) = −pipeline.Softplus(g).
						lp = -pipeline.Softplus(-g)
						if withLoss {
							ln = -pipeline.Softplus(g)
						}
						s := pipeline.Sigmoid(g)
						dg = -float64(e) * (1 - s)
						if !isEdge {
							dg += negW * s
						}
					} else {
						s := pipeline.Sigmoid(g)
						lp = math.Log(s + eps)
						if withLoss {
							ln = math.Log(1 - s + eps)
						}
						ds := s * (1 - s)
						dg = -float64(e) * ds / (s + eps)
						if !isEdge {
							dg += negW * ds / (1 - s + eps)
						}
					}
					rowPos -= float64(e) * lp
					if !isEdge {
						rowNeg -= negW * ln
					}
					if e != 0 {
						for k, x := range wk {
							rowDQ[k] -= float64(x) * lp
						}
					}
					grow[u] = T(dg)
				}
				p.pos += rowPos
				p.neg += rowNeg
				for k := range rowDQ {
					p.dq[k] += rowDQ[k]
				}
			}
			parts[b] = p
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	val := &value[T]{gl: make([]T, n*half), gr: make([]T, n*half), gq: make([]float64, c)}
	dQ := make([]float64, c)
	for _, p := range parts {
		val.positive += p.pos
		val.negative += p.neg
		for k := range dQ {
			dQ[k] += p.dq[k]
		}
	}
	// dJ/dL = Γ R, dJ/dR = Γᵀ L.
	gemm(false, false, n, half, n, m.g, n, r, half, val.gl, half)
	gemm(true, false, n, half, n, m.g, n, l, half, val.gr, half)
	// dJ/dq through the softmax: dq_j = Q_j (dQ_j − Σ_k Q_k dQ_k).
	var mean float64
	for k := range dQ {
		mean += Q[k] * dQ[k]
	}
	for j := range val.gq {
		val.gq[j] = Q[j] * (dQ[j] - mean)
	}
	// Regularisers.
	beta := m.obj.Beta
	if paper {
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
		return nil, fmt.Errorf("reference: objective is %v", val.loss)
	}
	if !withLoss {
		val.loss, val.negative = math.NaN(), math.NaN()
	}
	return val, nil
}
