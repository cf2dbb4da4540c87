package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wys-project/wys/pipeline/internal/kernels"
)

// TestSigmoidExp checks that the negative blocks' sigmoids, from
// exponentials taken at once by kernels.Exp, are sigmoid's bit for bit,
// so that blocks train the same bytes as when each pair called sigmoid.
func TestSigmoidExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x := []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 36, -36, 700, -700, 745, -745, math.Inf(1), math.Inf(-1)}
	for range 100000 {
		x = append(x, 20*rng.NormFloat64())
	}
	e := make([]float64, len(x))
	for i, v := range x {
		e[i] = -math.Abs(v)
	}
	kernels.Exp(e, e)
	for i, v := range x {
		if got, want := sigmoidExp(v, e[i]), sigmoid(v); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("sigmoidExp(%v) = %v, sigmoid %v", v, got, want)
		}
	}
}
