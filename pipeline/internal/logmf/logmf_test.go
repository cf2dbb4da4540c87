package logmf

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestDense32Products checks both products of the float32 operator
// against gonum's in float64, across row and column chunks, and that they
// are bitwise the same for 1 and 3 workers.
func TestDense32Products(t *testing.T) {
	const n, k = 700, 9
	m := make([]float32, n*n)
	md := mat.NewDense(n, n, nil)
	for i := range m {
		x := float32(math.Sin(float64(i)*0.37) * 3)
		m[i] = x
		md.RawMatrix().Data[i] = float64(x)
	}
	b := make([]float64, n*k)
	for i := range b {
		b[i] = math.Cos(float64(i) * 1.3)
	}
	bd := mat.NewDense(n, k, b)
	ctx := context.Background()
	for _, trans := range []bool{false, true} {
		var want mat.Dense
		var got [2][]float64
		for w, workers := range []int{1, 3} {
			op := &Dense32{M: m, N: n, Workers: workers}
			got[w] = make([]float64, n*k)
			if trans {
				want.Mul(md.T(), bd)
				err := op.MulTransBlockTo(ctx, got[w], b, k)
				if err != nil {
					t.Fatal(err)
				}
			} else {
				want.Mul(md, bd)
				if err := op.MulBlockTo(ctx, got[w], b, k); err != nil {
					t.Fatal(err)
				}
			}
		}
		scale := mat.Norm(&want, math.Inf(1))
		for i, x := range got[0] {
			if d := math.Abs(x - want.RawMatrix().Data[i]); d > 1e-5*scale {
				t.Fatalf("transposed %v: entry %d = %v, want %v", trans, i, x, want.RawMatrix().Data[i])
			}
			if math.Float64bits(x) != math.Float64bits(got[1][i]) {
				t.Fatalf("transposed %v: entry %d differs between 1 and 3 workers", trans, i)
			}
		}
	}
}
