package lowrank_test

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/lowrank"
	"github.com/wys-project/wys/sparse"
)

// round rounds to three decimals and turns −0 into 0, so that printed
// factors do not depend on rounding in the last bits.
func round(x float64) float64 { return math.Round(x*1000)/1000 + 0 }

// A randomized SVD of a 4 x 2 matrix with singular values 4 and 2
// (AᵀA = [[10, 6], [6, 10]] has eigenvalues 16 and 4). The best rank-1
// approximation keeps the first triplet: 4·u₁v₁ᵀ with u₁ = (1, 0, 1, 0)/√2
// and v₁ = (1, 1)/√2, whatever the signs the factorization picks.
func ExampleRandomizedSVD() {
	a := mat.NewDense(4, 2, []float64{
		2, 2,
		1, -1,
		2, 2,
		1, -1,
	})
	svd, err := lowrank.RandomizedSVD(context.Background(), &lowrank.DenseOperator{M: a}, lowrank.Options{Rank: 2, Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println("singular values:", round(svd.S[0]), round(svd.S[1]))

	one, err := lowrank.RandomizedSVD(context.Background(), &lowrank.DenseOperator{M: a}, lowrank.Options{Rank: 1, Seed: 1})
	if err != nil {
		panic(err)
	}
	var a1 mat.Dense
	a1.Mul(one.U, one.V.T())
	a1.Scale(one.S[0], &a1)
	for i := 0; i < 4; i++ {
		fmt.Println(round(a1.At(i, 0)), round(a1.At(i, 1)))
	}
	// Output:
	// singular values: 4 2
	// 2 2
	// 0 0
	// 2 2
	// 0 0
}

// At full rank the factored powers of T = D⁻¹A are exact. On the 4-cycle
// 0–1–2–3–0 a walk from node 0 is at a neighbour (1 or 3) after an odd
// number of steps and at 0 or 2 after an even number, each with
// probability ½: (T^k)₀₁ = ½, 0, ½, 0 and (T^k)₀₂ = 0, ½, 0, ½.
func ExampleSeries_PowersTo() {
	src := []int32{0, 1, 1, 2, 2, 3, 3, 0}
	dst := []int32{1, 0, 2, 1, 3, 2, 0, 3}
	adj, err := sparse.NewFromCOO(context.Background(), 4, 4, src, dst, nil, sparse.DupFirst)
	if err != nil {
		panic(err)
	}
	s, err := lowrank.NewSeries(context.Background(), adj, lowrank.SeriesOptions{Options: lowrank.Options{Rank: 4, Seed: 1}, C: 4})
	if err != nil {
		panic(err)
	}
	p := make([]float64, 4)
	scratch := make([]float64, 2*s.Rank()) // reused: no allocation per pair
	for _, u := range []int32{1, 2} {
		s.PowersTo(p, scratch, 0, u)
		fmt.Printf("(T^k)_0%d for k = 1..4: %v %v %v %v\n", u, round(p[0]), round(p[1]), round(p[2]), round(p[3]))
	}
	// Output:
	// (T^k)_01 for k = 1..4: 0.5 0 0.5 0
	// (T^k)_02 for k = 1..4: 0 0.5 0 0.5
}
