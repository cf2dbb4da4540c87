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
	g, err := pipeline.PlantedPartition(80, 4, 0.3, 0.02, 2)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := g.Adj.ToDense()
	n := g.N()
	// SVD: L Rᵀ is the best rank-h approximation of A (Eckart–Young).
	res, err := Run(context.Background(), g, nil, Config{Method: MethodSVD, Dim: 8, Seed: 1, Workers: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var exact mat.SVD
	exact.Factorize(a, mat.SVDFull)
	sv := exact.Values(nil)
	var tail float64
	for _, s := range sv[4:] {
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
	// float32 storage and the randomized range: within 1% of optimal.
	if got > 1.01*math.Sqrt(tail)+1e-4 {
		t.Errorf("‖A − LRᵀ‖_F = %v, optimal %v", got, math.Sqrt(tail))
	}
	// Eigenmaps: the columns solve (D − A) y = λ D y for the smallest
	// non-trivial λ of the normalised Laplacian.
	res, err = Run(context.Background(), g, nil, Config{Method: MethodEigenmaps, Dim: 6, Seed: 1, Workers: 1}, nil)
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
	for j := 0; j < 3; j++ {
		y := make([]float64, n)
		for i := range y {
			y[i] = float64(res.L[i*3+j])
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
		if lam := num / den; math.Abs(lam-vals[j+1]) > 1e-4 {
			t.Errorf("eigenmap %d: Rayleigh quotient %v, eigenvalue %v", j, lam, vals[j+1])
		}
	}
}
