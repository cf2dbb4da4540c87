package pipeline

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/wys-project/wys/lowrank"
	"github.com/wys-project/wys/sparse"
)

// Baseline methods of the paper's Table 1 that come from the lowrank
// package.
const (
	MethodSVD       = "svd"       // truncated SVD of A: L = UΣ^½, R = VΣ^½
	MethodEigenmaps = "eigenmaps" // Laplacian eigenmaps: L = R = D^{-1/2}U
)

// shiftedOperator applies S + shift·I for a symmetric S.
type shiftedOperator struct {
	*lowrank.CSROperator
	shift float64
}

func (o *shiftedOperator) MulBlockTo(ctx context.Context, dst, b []float64, k int) error {
	if err := o.CSROperator.MulBlockTo(ctx, dst, b, k); err != nil {
		return err
	}
	for i := range dst {
		dst[i] += o.shift * b[i]
	}
	return nil
}

func (o *shiftedOperator) MulTransBlockTo(ctx context.Context, dst, b []float64, k int) error {
	return o.MulBlockTo(ctx, dst, b, k)
}

// Baseline embeds g with a spectral baseline (MethodSVD or
// MethodEigenmaps) of width dim (dim/2 columns per side) and measures the
// AUCs of eval's pairs like the trainers do.
//
// SVD: A ≈ UΣVᵀ of rank dim/2; the score L_u·R_v is the rank-d/2
// approximation of A_uv. Eigenmaps (Belkin and Niyogi): the dim/2
// eigenvectors of the normalised Laplacian I − D^{-1/2}AD^{-1/2} with the
// smallest eigenvalues after the trivial one, mapped back by D^{-1/2};
// L = R = Y and the score is Y_u·Y_v.
func Baseline(ctx context.Context, method string, g *Graph, eval *Split, dim int, seed uint64, workers int) (*Result, error) {
	if dim < 2 || dim%2 != 0 {
		return nil, fmt.Errorf("pipeline: dimension %d must be even and at least 2", dim)
	}
	if eval == nil {
		eval = &Split{}
	}
	n := g.N()
	half := dim / 2
	res := &Result{Method: method, N: n, Half: half, TrainAUC: math.NaN(), TestAUC: math.NaN(), TestDirectedAUC: math.NaN()}
	start := time.Now()
	switch method {
	case MethodSVD:
		if half > n {
			return nil, fmt.Errorf("pipeline: rank %d (d/2) exceeds the %d nodes", half, n)
		}
		svd, err := lowrank.RandomizedSVD(ctx, lowrank.NewCSROperator(g.Adj, workers), lowrank.Options{Rank: half, Seed: seed})
		if err != nil {
			return nil, err
		}
		res.L = make([]float32, n*half)
		res.R = make([]float32, n*half)
		for j := 0; j < half; j++ {
			s := math.Sqrt(svd.S[j])
			for i := 0; i < n; i++ {
				res.L[i*half+j] = float32(svd.U.At(i, j) * s)
				res.R[i*half+j] = float32(svd.V.At(i, j) * s)
			}
		}
	case MethodEigenmaps:
		if half+1 > n {
			return nil, fmt.Errorf("pipeline: %d eigenvectors (d/2 + 1) exceed the %d nodes", half+1, n)
		}
		adj := g.Adj
		if g.Directed {
			// Eigenmaps need a symmetric graph: use A + Aᵀ.
			sym, err := symmetrise(adj)
			if err != nil {
				return nil, err
			}
			adj = sym
		}
		s, sqrtDeg := adj.SymNormalize()
		// The largest eigenvalues of S + I are the smallest of I − S.
		op := &shiftedOperator{CSROperator: lowrank.NewCSROperator(s, workers), shift: 1}
		// The shift compresses the spectrum (bulk near 1, top at 2), so the
		// range finder needs more power iterations than for S itself.
		eig, err := lowrank.RandomizedEigSym(ctx, op, lowrank.Options{Rank: half + 1, Seed: seed, Oversample: 20, PowerIters: 12})
		if err != nil {
			return nil, err
		}
		res.L = make([]float32, n*half)
		for j := 0; j < half; j++ {
			for i := 0; i < n; i++ {
				var x float64
				if sqrtDeg[i] > 0 {
					x = eig.U.At(i, j+1) / sqrtDeg[i]
				}
				res.L[i*half+j] = float32(x)
			}
		}
		res.R = res.L
	default:
		return nil, fmt.Errorf("pipeline: unknown baseline %q (want %s or %s)", method, MethodSVD, MethodEigenmaps)
	}
	res.Stats.Stages = append(res.Stats.Stages, StageTime{Name: "factorize", Duration: time.Since(start)})
	res.TrainAUC = PairAUC(res.L, res.R, half, eval.Train, eval.TrainNeg)
	res.TestAUC = PairAUC(res.L, res.R, half, eval.Test, eval.TestNeg)
	res.TestDirectedAUC = PairAUC(res.L, res.R, half, eval.Test, eval.TestDirectedNeg)
	res.Stats.PeakRSS = PeakRSS()
	return res, nil
}

// symmetrise returns the pattern of A + Aᵀ with unit weights.
func symmetrise(a *sparse.CSR) (*sparse.CSR, error) {
	n, _ := a.Dims()
	var src, dst []int32
	for v := 0; v < n; v++ {
		idx, _ := a.Row(v)
		for _, u := range idx {
			src, dst = append(src, int32(v), u), append(dst, u, int32(v))
		}
	}
	return sparse.NewFromCOO(n, n, src, dst, nil, sparse.DupFirst)
}
