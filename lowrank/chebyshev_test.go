package lowrank

import (
	"context"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/sparse"
)

// communities returns the normalised adjacency D^{-1/2}AD^{-1/2} of a
// graph of blocks dense communities of size each, with rare edges
// between them: its top eigenvalues crowd just below 1, the case where
// plain power iterations stall.
func communities(blocks, size int, seed uint64) *sparse.CSR {
	rng := rand.New(rand.NewPCG(seed, 1))
	n := blocks * size
	var src, dst []int32
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			p := 0.002
			if u/size == v/size {
				p = 0.3
			}
			if rng.Float64() < p {
				src, dst = append(src, int32(u)), append(dst, int32(v))
			}
		}
	}
	s, _ := build(n, src, dst, true).SymNormalize()
	return s
}

func TestTopEigSymMatchesDense(t *testing.T) {
	t.Parallel()
	s := communities(24, 25, 7)
	n, _ := s.Dims()
	const rank = 16
	a, _ := s.ToDense()
	var ref mat.EigenSym
	if !ref.Factorize(mat.NewSymDense(n, a.RawMatrix().Data), true) {
		t.Fatal("dense eigendecomposition failed")
	}
	want := ref.Values(nil)
	sort.Sort(sort.Reverse(sort.Float64Slice(want)))
	var first []float64
	for _, workers := range []int{1, 3} {
		eig, err := TopEigSym(context.Background(), NewCSROperator(s, workers), TopOptions{Options: Options{Rank: rank, Seed: 5}, Lo: -1})
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < rank; j++ {
			if d := math.Abs(eig.Values[j] - want[j]); d > 1e-9 {
				t.Errorf("workers %d: eigenvalue %d is %.12f, dense %.12f", workers, j, eig.Values[j], want[j])
			}
			u := eig.U.ColView(j)
			var au mat.VecDense
			au.MulVec(a, u)
			au.AddScaledVec(&au, -eig.Values[j], u)
			if r := au.Norm(2); r > 1e-5 {
				t.Errorf("workers %d: residual of pair %d is %.3g", workers, j, r)
			}
		}
		var g mat.Dense
		g.Mul(eig.U.T(), eig.U)
		for i := 0; i < rank; i++ {
			for j := 0; j < rank; j++ {
				w := 0.0
				if i == j {
					w = 1
				}
				if math.Abs(g.At(i, j)-w) > 1e-10 {
					t.Fatalf("workers %d: UᵀU[%d,%d] = %g", workers, i, j, g.At(i, j))
				}
			}
		}
		if first == nil {
			first = eig.U.RawMatrix().Data
		} else {
			for i, x := range eig.U.RawMatrix().Data {
				if x != first[i] {
					t.Fatalf("U differs between 1 and 3 workers at %d", i)
				}
			}
		}
	}
}

func TestTopEigSymBounds(t *testing.T) {
	t.Parallel()
	s := communities(2, 10, 1)
	if _, err := TopEigSym(context.Background(), NewCSROperator(s, 1), TopOptions{Options: Options{Rank: 2}, Lo: math.NaN()}); err == nil {
		t.Error("NaN spectrum bound accepted")
	}
	if _, err := TopEigSym(context.Background(), NewCSROperator(s, 1), TopOptions{Options: Options{Rank: 21}, Lo: -1}); err == nil {
		t.Error("rank above n accepted")
	}
}

func TestTopSVDMatchesDense(t *testing.T) {
	t.Parallel()
	for _, g := range append(testGraphs(), graph{"communities", communities(20, 30, 3), false}) {
		_, n := g.adj.Dims()
		a, _ := g.adj.ToDense()
		var ref mat.SVD
		if !ref.Factorize(a, mat.SVDThin) {
			t.Fatal("dense SVD failed")
		}
		want := ref.Values(nil)
		rank := min(n/3, 16)
		svd, err := TopSVD(context.Background(), NewCSROperator(g.adj, 2), TopOptions{Options: Options{Rank: rank, Seed: 9}})
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < rank; j++ {
			// Through AᵀA the squares are accurate to the eigenvalues'
			// tolerance; a zero σ comes out near √ε·σ₁.
			if d := math.Abs(svd.S[j]*svd.S[j] - want[j]*want[j]); d > 1e-9*want[0]*want[0] {
				t.Errorf("%s: σ_%d = %.12f, dense %.12f", g.name, j, svd.S[j], want[j])
			}
			if want[j] < 1e-6*want[0] {
				continue // a zero singular value's vectors are not unique
			}
			// A v = σ u and Aᵀu = σ v.
			var av, atu mat.VecDense
			av.MulVec(a, svd.V.ColView(j))
			av.AddScaledVec(&av, -svd.S[j], svd.U.ColView(j))
			atu.MulVec(a.T(), svd.U.ColView(j))
			atu.AddScaledVec(&atu, -svd.S[j], svd.V.ColView(j))
			if r := math.Max(av.Norm(2), atu.Norm(2)); r > 1e-5*want[0] {
				t.Errorf("%s: residual of triplet %d is %.3g", g.name, j, r)
			}
		}
	}
}
