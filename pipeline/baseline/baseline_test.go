package baseline

import (
	"context"
	"math"
	"sort"
	"testing"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/internal/kernels"
	"gonum.org/v1/gonum/mat"
)

func TestBaselines(t *testing.T) {
	t.Parallel()
	// An easy graph (4 communities, a wide gap after the 4th eigenvalue)
	// and a crowded one (40 communities of 10: the top 40 eigenvalues of
	// the normalised adjacency crowd below 1, where a few power
	// iterations fail: with RandomizedEigSym's 12 on S + I, the Rayleigh
	// quotients were 1e-3 off).
	for _, tc := range []struct {
		blocks, size, dim int
		pOut, tol         float64
	}{{4, 80, 8, 0.02, 1e-4}, {40, 10, 24, 0.01, 1e-6}} {
		g, err := pipeline.PlantedPartition(tc.blocks*tc.size, tc.blocks, 0.3, tc.pOut, 2)
		if err != nil {
			t.Fatal(err)
		}
		checkSVD(t, g, tc.dim)
		checkEigenmaps(t, g, tc.dim, tc.tol)
	}
}

// checkSVD checks that L Rᵀ is the best rank-dim/2 approximation of A
// (Eckart–Young).
func checkSVD(t *testing.T, g *pipeline.Graph, dim int) {
	t.Helper()
	a, _ := g.Adj.ToDense()
	n, h := g.N(), dim/2
	res, err := Run(context.Background(), g, nil, Config{Method: MethodSVD, Dim: dim, Seed: 1, Workers: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var exact mat.SVD
	exact.Factorize(a, mat.SVDFull)
	sv := exact.Values(nil)
	var tail float64
	for _, s := range sv[h:] {
		tail += s * s
	}
	approx := mat.NewDense(n, n, nil)
	for u := 0; u < n; u++ {
		for v := 0; v < n; v++ {
			approx.Set(u, v, float64(kernels.Dot(res.L[u*res.Half:(u+1)*res.Half], res.R[v*res.Half:(v+1)*res.Half])))
		}
	}
	var diff mat.Dense
	diff.Sub(a, approx)
	got := mat.Norm(&diff, 2)
	// float32 storage: within 0.1% of optimal.
	if got > 1.001*math.Sqrt(tail)+1e-4 {
		t.Errorf("%d nodes: ‖A − LRᵀ‖_F = %v, optimal %v", n, got, math.Sqrt(tail))
	}
}

// checkEigenmaps checks that the columns of the eigenmaps baseline solve
// (D − A) y = λ D y for the smallest non-trivial λ of the normalised
// Laplacian, within tol.
func checkEigenmaps(t *testing.T, g *pipeline.Graph, dim int, tol float64) {
	t.Helper()
	n, h := g.N(), dim/2
	res, err := Run(context.Background(), g, nil, Config{Method: MethodEigenmaps, Dim: dim, Seed: 1, Workers: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := g.Adj.SymNormalize()
	sd, _ := s.ToDense()
	lap := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := -sd.At(i, j)
			if i == j {
				v++
			}
			lap.SetSym(i, j, v)
		}
	}
	var eig mat.EigenSym
	eig.Factorize(lap, false)
	vals := eig.Values(nil)
	sort.Float64s(vals)
	deg := g.Adj.RowSums()
	for j := 0; j < h; j++ {
		y := make([]float64, n)
		for i := range y {
			y[i] = float64(res.L[i*h+j])
		}
		// Rayleigh quotient yᵀ(D − A)y / yᵀDy.
		var num, den float64
		for i := 0; i < n; i++ {
			idx, _ := g.Adj.Row(i)
			for _, k := range idx {
				num += (y[i] - y[k]) * (y[i] - y[k]) / 2
			}
			den += deg[i] * y[i] * y[i]
		}
		if lam := num / den; math.Abs(lam-vals[j+1]) > tol {
			t.Errorf("%d nodes: eigenmap %d: Rayleigh quotient %v, eigenvalue %v", n, j, lam, vals[j+1])
		}
	}
}
