// Package logmf builds and factors the dense truncated-log matrices
// log max(M, 1) of random-walk co-occurrences that the log-SVD start of
// the sparse trainer and the NetMF baseline factor: M_vu = row_v · col_u ·
// Σ_k w_k (T^k)_vu / Σ_k w_k, with T the transition matrix. The clamp at 1
// (a score of 0) is NetMF's (Qiu et al., WSDM 2018): it keeps the pairs
// the walks almost never join from dominating the factorization with
// large negative scores. Everything is O(N²) memory.
package logmf

import (
	"context"
	"math"

	"github.com/wys-project/wys/lowrank"
	"github.com/wys-project/wys/pipeline/internal/kernels"
	"github.com/wys-project/wys/sparse"
)

// MaxNodes is the largest graph, in nodes, that the callers accept: the
// target is a dense N x N float32 matrix (4 GiB at 32,768 nodes) built in
// C·nnz·N multiply-adds.
const MaxNodes = 1 << 15

// Target returns the N x N row-major matrix
// M_vu = log max(row_v·col_u·Σ_k w_k (T^k)_vu / Σ_k w_k, 1) over the
// len(w) powers of the transition matrix tm (col nil means all ones):
// column block by column block of the identity, len(w) sparse products
// each, so that its only N x N memory is M itself.
func Target(ctx context.Context, tm *sparse.CSR, w, row, col []float64, workers int) ([]float32, error) {
	n, _ := tm.Dims()
	var ws float64
	for _, x := range w {
		ws += x
	}
	m := make([]float32, n*n)
	const blk = 256
	z := make([]float64, n*min(blk, n))
	z2 := make([]float64, len(z))
	e := make([]float64, len(z))
	for lo := 0; lo < n; lo += blk {
		b := min(blk, n-lo)
		z, z2, e := z[:n*b], z2[:n*b], e[:n*b]
		clear(z)
		clear(e)
		for j := 0; j < b; j++ {
			z[(lo+j)*b+j] = 1
		}
		for _, wk := range w {
			if err := sparse.MulBlockTo(ctx, z2, tm, z, b, workers); err != nil {
				return nil, err
			}
			z, z2 = z2, z
			a := wk / ws
			for i, x := range z {
				e[i] += a * x
			}
		}
		for v := 0; v < n; v++ {
			out := m[v*n+lo : v*n+lo+b]
			for j, x := range e[v*b : v*b+b] {
				r := row[v]
				if col != nil {
					r *= col[lo+j]
				}
				out[j] = float32(math.Log(math.Max(r*x, 1)))
			}
		}
	}
	return m, ctx.Err()
}

// FactorTo writes L = U√S into l and R = V√S into r (n x half,
// row-major) from the rank half randomized SVD of the n x n matrix m with
// powerIters power iterations (0: lowrank's default of 2, enough for a
// start; NetMF on PPI's split needs 16 to score as an exact SVD does),
// with the sketch drawn from seed; the result is the same for any number
// of workers.
func FactorTo(ctx context.Context, l, r, m []float32, n, half int, seed uint64, powerIters, workers int) error {
	svd, err := lowrank.RandomizedSVD(ctx, &Dense32{M: m, N: n, Workers: workers}, lowrank.Options{Rank: half, Seed: seed, PowerIters: powerIters})
	if err != nil {
		return err
	}
	svd.SqrtFactorsTo(l, r)
	return nil
}

// Dense32 is a dense N x N float32 matrix as a lowrank.Operator whose
// products are bitwise the same for any number of workers: every output
// entry is one sum in a fixed order.
type Dense32 struct {
	M       []float32
	N       int
	Workers int
}

// Dims returns N, N.
func (o *Dense32) Dims() (r, c int) { return o.N, o.N }

// transposed returns the n x k row-major block b as k float32 rows of
// length n.
func transposed(b []float64, n, k int) [][]float32 {
	rows := make([][]float32, k)
	for c := range rows {
		rows[c] = make([]float32, n)
	}
	for i := 0; i < n; i++ {
		for c, x := range b[i*k : i*k+k] {
			rows[c][i] = float32(x)
		}
	}
	return rows
}

// MulBlockTo sets dst = M·b: each row of M dotted with the k columns of b.
func (o *Dense32) MulBlockTo(ctx context.Context, dst, b []float64, k int) error {
	n := o.N
	bt := transposed(b, n, k)
	const rows = 32
	return sparse.ParallelFor(ctx, (n+rows-1)/rows, o.Workers, func(blk int) {
		out := make([]float32, k)
		for i := blk * rows; i < min(n, (blk+1)*rows); i++ {
			kernels.Dots(out, o.M[i*n:i*n+n], bt)
			for c, x := range out {
				dst[i*k+c] = float64(x)
			}
		}
	})
}

// MulTransBlockTo sets dst = Mᵀ·b, a chunk of columns of M at a time:
// column j of the result sums the rows of M in order.
func (o *Dense32) MulTransBlockTo(ctx context.Context, dst, b []float64, k int) error {
	n := o.N
	const cols = 512
	return sparse.ParallelFor(ctx, (n+cols-1)/cols, o.Workers, func(blk int) {
		lo, hi := blk*cols, min(n, (blk+1)*cols)
		acc := make([][]float32, k)
		for c := range acc {
			acc[c] = make([]float32, hi-lo)
		}
		for i := 0; i < n; i++ {
			row := o.M[i*n+lo : i*n+hi]
			for c, x := range b[i*k : i*k+k] {
				if x != 0 {
					kernels.Axpy(acc[c], float32(x), row)
				}
			}
		}
		for c, a := range acc {
			for j, x := range a {
				dst[(lo+j)*k+c] = float64(x)
			}
		}
	})
}
