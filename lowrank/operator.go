package lowrank

import (
	"context"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/sparse"
)

// Operator is a linear map that can be applied to blocks of vectors, the
// only access the randomized factorizations need. Blocks are dense and
// row-major: b has Dims().c rows and k columns for MulBlockTo (dst has
// Dims().r rows), and the reverse for MulTransBlockTo. Both assign dst.
type Operator interface {
	Dims() (r, c int)
	MulBlockTo(ctx context.Context, dst, b []float64, k int) error
	MulTransBlockTo(ctx context.Context, dst, b []float64, k int) error
}

// CSROperator applies a CSR matrix and its transpose with the parallel,
// deterministic sparse.MulBlockTo kernel.
type CSROperator struct {
	A, AT   *sparse.CSR
	Workers int // 0 means GOMAXPROCS
}

var (
	_ Operator = (*CSROperator)(nil)
	_ Operator = (*DenseOperator)(nil)
)

// NewCSROperator returns the operator of a, computing its transpose once.
func NewCSROperator(a *sparse.CSR, workers int) *CSROperator {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &CSROperator{A: a, AT: a.Transpose(), Workers: workers}
}

// Dims returns the dimensions of A.
func (o *CSROperator) Dims() (r, c int) { return o.A.Dims() }

// MulBlockTo computes dst = A·b.
func (o *CSROperator) MulBlockTo(ctx context.Context, dst, b []float64, k int) error {
	return sparse.MulBlockTo(ctx, dst, o.A, b, k, o.Workers)
}

// MulTransBlockTo computes dst = Aᵀ·b.
func (o *CSROperator) MulTransBlockTo(ctx context.Context, dst, b []float64, k int) error {
	return sparse.MulBlockTo(ctx, dst, o.AT, b, k, o.Workers)
}

// DenseOperator adapts a gonum matrix, for tests and small problems.
type DenseOperator struct{ M mat.Matrix }

// Dims returns the dimensions of M.
func (o *DenseOperator) Dims() (r, c int) { return o.M.Dims() }

// MulBlockTo computes dst = M·b.
func (o *DenseOperator) MulBlockTo(ctx context.Context, dst, b []float64, k int) error {
	r, c := o.M.Dims()
	if len(b) != c*k || len(dst) != r*k {
		panic(mat.ErrShape)
	}
	mat.NewDense(r, k, dst).Mul(o.M, mat.NewDense(c, k, b))
	return ctx.Err()
}

// MulTransBlockTo computes dst = Mᵀ·b.
func (o *DenseOperator) MulTransBlockTo(ctx context.Context, dst, b []float64, k int) error {
	r, c := o.M.Dims()
	if len(b) != r*k || len(dst) != c*k {
		panic(mat.ErrShape)
	}
	mat.NewDense(c, k, dst).Mul(o.M.T(), mat.NewDense(r, k, b))
	return ctx.Err()
}
