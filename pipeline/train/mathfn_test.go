package train

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSigmoids checks that the negative samplers' sigmoids, from
// exponentials taken at once by kernels.Exp (shardOut.sigmoids), are
// sigmoid's bit for bit, so that they train the same bytes as when each
// pair called sigmoid.
func TestSigmoids(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	out := &shardOut{g: []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 36, -36, 700, -700, 745, -745, math.Inf(1), math.Inf(-1)}}
	for range 100000 {
		out.g = append(out.g, 20*rng.NormFloat64())
	}
	out.sigmoids()
	for i, v := range out.g {
		if got, want := out.sig[i], sigmoid(v); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("sigmoid of %v: %v, sigmoid %v", v, got, want)
		}
	}
}
