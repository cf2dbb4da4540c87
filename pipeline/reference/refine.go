package reference

import (
	"context"
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/internal/kernels"
	"github.com/wys-project/wys/sparse"
)

// Refiner takes exact full-batch Adam steps on the embeddings L and R of
// a model whose context distribution Q is held fixed: the finishing phase
// that train.Refine adds to either trainer. With Q fixed, E[D] is one
// dense N x N matrix, Σ_k Q_k T^k (and the extra context types), built
// once; a step evaluates the same objective and gradients as Run's model
// (the formulation of obj, its logs and regularisers; Evaluate is its
// float64 twin) through that one
// matrix, so it costs three N x N x d/2 GEMMs and O(N²) element work
// against Run's O(C·N²), and holds two N x N float32 matrices
// (RefineBytes) against Run's C+1.
//
// Results do not depend on the number of workers (see the package's
// Determinism section).
type Refiner struct {
	m     *model[float32]
	adamL adamState
	adamR adamState
	zero  []float64 // the fixed model's one logit (Q = [1])
}

// RefineBytes returns the peak memory of a Refiner on n nodes under obj:
// E[D] and the score matrix, n x n float32 each, plus, while E[D] is
// built with the extra context types, each type's matrix and its working
// space (PPR's power series two more matrices, Adamic–Adar's product
// one).
func RefineBytes(n int, obj pipeline.ObjectiveConfig) int64 {
	obj = obj.Resolve()
	matrices := int64(2)
	if obj.PPR > 0 {
		matrices += 3
	}
	if obj.AdamicAdar {
		matrices += 2
	}
	return matrices * int64(n) * int64(n) * 4
}

// CheckRefineMemory returns an error wrapping pipeline.ErrMemory, naming
// the estimate and the limit, when a Refiner on n nodes under obj
// (RefineBytes) would not fit limit (0: 90% of the available memory).
func CheckRefineMemory(n int, obj pipeline.ObjectiveConfig, limit int64) error {
	_, err := pipeline.CheckMemory(RefineBytes(n, obj), limit, fmt.Sprintf("the exact refinement's dense E[D] and scores (%d x %d)", n, n),
		"refine a smaller graph, or drop the refinement steps")
	return err
}

// NewRefiner builds E[D] = Σ_k Q_k T^k of adj (Q, a distribution over
// the obj.Contexts() context types: the C powers, then the extra types'
// matrices) by Horner's rule, C − 1 sparse x dense products:
// (C − 1)·nnz·N multiply-adds. It
// checks RefineBytes against limit first (0: 90% of the available
// memory) and returns an error wrapping pipeline.ErrMemory above it.
// workers <= 0 means GOMAXPROCS. It stops between products when ctx is
// cancelled and returns ctx.Err().
func NewRefiner(ctx context.Context, adj *sparse.CSR, obj pipeline.ObjectiveConfig, Q []float64, workers int, limit int64) (*Refiner, error) {
	if err := obj.Validate(); err != nil {
		return nil, err
	}
	obj = obj.Resolve()
	n, cols := adj.Dims()
	if n != cols {
		return nil, fmt.Errorf("reference: NewRefiner: adj %d x %d, want square: %w", n, cols, pipeline.ErrBadGraph)
	}
	if len(Q) != obj.Contexts() {
		return nil, fmt.Errorf("reference: NewRefiner: Q of %d entries, want %d (C and the extra context types)", len(Q), obj.Contexts())
	}
	for k, x := range Q {
		if !(x >= 0 && x <= 1) {
			return nil, fmt.Errorf("reference: NewRefiner: Q_%d = %v, want a probability", k+1, x)
		}
	}
	if err := CheckRefineMemory(n, obj, limit); err != nil {
		return nil, err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	e, spare, err := expectedContexts(ctx, adj, obj, Q, workers)
	if err != nil {
		return nil, err
	}
	m := &model[float32]{n: n, c: 1, obj: obj, adj: adj, workers: workers, pow: e, g: spare, fast: true, fixedQ: true}
	m.prepare()
	return &Refiner{m: m, zero: []float64{0}}, nil
}

// expectedContexts returns Σ_k Q_k T^k of adj (with the extra context
// types' matrices, weighted by the entries of Q after the first C) as a
// dense n x n float32 matrix, and a second n x n matrix of scratch for
// the caller: X ← Q_C·T, then X ← T·(X + Q_k·I) for k = C−1, …, 1.
func expectedContexts(ctx context.Context, adj *sparse.CSR, obj pipeline.ObjectiveConfig, Q []float64, workers int) (e, spare []float32, err error) {
	n, _ := adj.Dims()
	nn := n * n
	tm, _ := adj.RowNormalize()
	x, y := make([]float32, nn), make([]float32, nn)
	for v := 0; v < n; v++ {
		idx, val := tm.Row(v)
		for j, u := range idx {
			x[v*n+int(u)] = float32(Q[obj.C-1] * val[j])
		}
	}
	for k := obj.C - 1; k >= 1; k-- {
		for v := 0; v < n; v++ {
			x[v*n+v] += float32(Q[k-1])
		}
		if err := sparse.MulBlockTo(ctx, y, tm, x, n, workers); err != nil {
			return nil, nil, err
		}
		x, y = y, x
	}
	if extra := obj.Contexts() - obj.C; extra > 0 {
		clear(y)
		for v := 0; v < n; v++ {
			y[v*n+v] = 1 // the identity, to which the extra types are applied
		}
		ext := make([]float32, extra*nn)
		if err := pipeline.ApplyContexts(ctx, ext, adj, obj, y, n, workers); err != nil {
			return nil, nil, err
		}
		for j := range extra {
			axpy(float32(Q[obj.C+j]), ext[j*nn:(j+1)*nn], x)
		}
	}
	return x, y, nil
}

// Step takes one Adam step (β1 = 0.9, β2 = 0.999, ε = 1e-8, the moments
// kept from the Refiner's earlier steps) at rate lr on l and r (n x half
// each, row-major, updated in place) along the exact gradient of the
// objective at the fixed Q. With withLoss it returns the objective before
// the step, without the regulariser of q (a constant here); otherwise
// NaN, and every logarithm is saved. A non-finite objective or gradient
// is an error wrapping pipeline.ErrNotFinite, with l and r unchanged.
func (f *Refiner) Step(ctx context.Context, l, r []float32, half int, lr float64, withLoss bool) (float64, error) {
	if n := f.m.n; half < 1 || len(l) != n*half || len(r) != n*half {
		return 0, fmt.Errorf("reference: Refiner.Step: L of %d and R of %d values, want N x d/2 = %d x %d each: %w", len(l), len(r), n, half, mat.ErrShape)
	}
	val, err := f.m.evaluateLoss(ctx, l, r, half, f.zero, withLoss)
	if err != nil {
		return 0, err
	}
	for _, g := range [][]float32{val.gl, val.gr} {
		for _, x := range g {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return 0, fmt.Errorf("reference: Refiner.Step: gradient %w", pipeline.ErrNotFinite)
			}
		}
	}
	adamT(&f.adamL, l, val.gl, lr)
	adamT(&f.adamR, r, val.gr, lr)
	return val.loss, nil
}

// gradientRows is the element work of a Refiner's step without the
// loss: it replaces the scores of rows lo..hi−1 in G by dJ/dG, the same
// derivatives as rowBlock's, with the exponentials of a row taken four
// at a time (kernels.Exp) and no logarithm.
func (m *model[T]) gradientRows(buf *rowScratch[T], lo, hi int) {
	n, eps, negW := m.n, m.logEps, m.negW
	ex := buf.lprow // scratch: −|G_vu|, then its exponential
	for v := lo; v < hi; v++ {
		grow := m.g[v*n : v*n+n]
		for u, g := range grow {
			ex[u] = -math.Abs(float64(g))
		}
		kernels.Exp(ex, ex)
		erow := m.pow[v*n : v*n+n]
		rw := m.rowW[v]
		idx, _ := m.adj.Row(v)
		next := 0 // pointer into the sorted edge columns of row v
		for u, gv := range grow {
			isEdge := next < len(idx) && int(idx[next]) == u
			if isEdge {
				next++
			}
			x := ex[u]
			s := 1 / (1 + x)
			if gv < 0 {
				s = x * s
			}
			e := rw * float64(erow[u])
			var dg float64
			if eps == 0 {
				dg = -e * (1 - s)
				if !isEdge {
					dg += negW * s
				}
			} else {
				ds := s * (1 - s)
				dg = -e * ds / (s + eps)
				if !isEdge {
					dg += negW * ds / (1 - s + eps)
				}
			}
			grow[u] = T(dg)
		}
	}
}
