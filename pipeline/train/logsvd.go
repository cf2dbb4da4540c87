package train

import (
	"context"
	"fmt"
	"math"

	"github.com/wys-project/wys/lowrank"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/internal/kernels"
	"github.com/wys-project/wys/sparse"
)

// DefaultLogSVDNodes is the largest graph, in nodes, that the log-SVD
// start accepts: its target is a dense N x N float32 matrix (4 GiB at
// 32,768 nodes) built in C·nnz·N multiply-adds.
const DefaultLogSVDNodes = 1 << 15

// logRatios returns ρ_v, the weight of a positive entry of row v over the
// weight of a negative entry (pipeline.ObjectiveConfig.EntryWeights), such
// that the entrywise minimiser of the objective at a non-arc (v, u) is the
// score log(ρ_v·Σ_k Q_k (T^k)_vu).
func logRatios(g *pipeline.Graph, obj pipeline.ObjectiveConfig) []float64 {
	rho, neg := obj.EntryWeights(g.Adj.RowSums())
	for v := range rho {
		rho[v] /= neg
	}
	return rho
}

// logTarget returns the N x N row-major matrix
// M_vu = log max(ρ_v·Σ_k w_k (T^k)_vu, 1) over the C powers of the
// transition matrix of g, with w the normalised weights: column block by
// column block of the identity, C sparse products each, so that its only
// N x N memory is M itself. The clamp at 1 (a score of 0) is NetMF's
// (Qiu et al., WSDM 2018): it keeps the pairs the walks almost never
// join from dominating the factorization with large negative scores.
func logTarget(ctx context.Context, g *pipeline.Graph, obj pipeline.ObjectiveConfig, w []float64, workers int) ([]float32, error) {
	n := g.N()
	tm, _ := g.Adj.RowNormalize()
	rho := logRatios(g, obj)
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
			row := m[v*n+lo : v*n+lo+b]
			for j, x := range e[v*b : v*b+b] {
				row[j] = float32(math.Log(math.Max(rho[v]*x, 1)))
			}
		}
	}
	return m, ctx.Err()
}

// dense32 is a dense N x N float32 matrix as a lowrank.Operator whose
// products are bitwise the same for any number of workers: every output
// entry is one sum in a fixed order.
type dense32 struct {
	m       []float32
	n       int
	workers int
}

func (o *dense32) Dims() (r, c int) { return o.n, o.n }

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
func (o *dense32) MulBlockTo(ctx context.Context, dst, b []float64, k int) error {
	n := o.n
	bt := transposed(b, n, k)
	const rows = 32
	return sparse.ParallelFor(ctx, (n+rows-1)/rows, o.workers, func(blk int) {
		out := make([]float32, k)
		for i := blk * rows; i < min(n, (blk+1)*rows); i++ {
			kernels.Dots(out, o.m[i*n:i*n+n], bt)
			for c, x := range out {
				dst[i*k+c] = float64(x)
			}
		}
	})
}

// MulTransBlockTo sets dst = Mᵀ·b, a chunk of columns of M at a time:
// column j of the result sums the rows of M in order.
func (o *dense32) MulTransBlockTo(ctx context.Context, dst, b []float64, k int) error {
	n := o.n
	const cols = 512
	return sparse.ParallelFor(ctx, (n+cols-1)/cols, o.workers, func(blk int) {
		lo, hi := blk*cols, min(n, (blk+1)*cols)
		acc := make([][]float32, k)
		for c := range acc {
			acc[c] = make([]float32, hi-lo)
		}
		for i := 0; i < n; i++ {
			row := o.m[i*n+lo : i*n+hi]
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

// logSVDFits reports why a graph of n nodes cannot start from the log
// SVD at rank half, before anything of size n² is allocated.
func logSVDFits(n, half int) error {
	if n > DefaultLogSVDNodes {
		return fmt.Errorf("train: the log-SVD start builds a dense %d x %d matrix; it takes graphs of at most %d nodes (use -start spectral)", n, n, DefaultLogSVDNodes)
	}
	if half > n {
		return fmt.Errorf("train: the log-SVD start needs d/2 = %d at most the %d nodes of the graph; lower the dimension", half, n)
	}
	return nil
}

// logSVDStart sets L = U√S and R = V√S from the rank-d/2 truncated SVD
// of logTarget at the starting Q (softmax of q = 1: uniform over the C
// powers; extra context types are left out), drawn with the run's seed.
// It returns an error on a graph above DefaultLogSVDNodes nodes.
func (t *trainer) logSVDStart(ctx context.Context, g *pipeline.Graph) error {
	if err := logSVDFits(t.n, t.half); err != nil {
		return err
	}
	m, err := logTarget(ctx, g, t.cfg.Objective, t.Q()[:t.c], t.cfg.Workers)
	if err != nil {
		return err
	}
	svd, err := lowrank.RandomizedSVD(ctx, &dense32{m: m, n: t.n, workers: t.cfg.Workers}, lowrank.Options{Rank: t.half, Seed: t.cfg.Seed})
	if err != nil {
		return err
	}
	h := t.half
	for j, s := range svd.S {
		s = math.Sqrt(s)
		for v := 0; v < t.n; v++ {
			t.l[v*h+j] = float32(svd.U.At(v, j) * s)
			t.r[v*h+j] = float32(svd.V.At(v, j) * s)
		}
	}
	return nil
}
