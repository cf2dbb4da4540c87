package reference

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Optimizer names.
const (
	PercentDelta = "percentdelta"
	Adam         = "adam"
)

// Default learning rates: the authors' PercentDelta rate, and a common
// Adam rate for full-batch training.
const (
	DefaultPercentDeltaLR = 0.2
	DefaultAdamLR         = 0.01
)

// percentDeltaEps is the sign-keeping epsilon of the authors' PlusEpsilon
// (graph_attention_learning.py): x ± 1e-5 away from zero.
const percentDeltaEps = 1e-5

// plusEpsilon returns x moved 1e-5 away from zero, keeping its sign
// (x = 0 counts as positive).
func plusEpsilon(x float64) float64 {
	if x < 0 {
		return x - percentDeltaEps
	}
	return x + percentDeltaEps
}

// percentDelta applies one PercentDelta step to the tensor v, as the
// authors' released code does (CreateGradMultipliers followed by plain
// gradient descent): with the mean relative gradient
// μ = mean_i |g_i / (v_i ± 1e-5)|, it sets v ← v − lr·g·decay/(μ + 1e-5),
// so that the mean relative change of the tensor is about lr·decay.
// decay = PD(t) = 1 − 0.99·t/T falls linearly from 1 to 0.01 over the run.
func percentDelta[T Float](v []T, g []T, lr, decay float64) {
	if len(v) != len(g) {
		panic(mat.ErrShape)
	}
	var mean float64
	for i, x := range v {
		mean += math.Abs(float64(g[i]) / plusEpsilon(float64(x)))
	}
	mean /= float64(len(v))
	scale := lr * decay / plusEpsilon(mean)
	for i := range v {
		v[i] -= T(scale * float64(g[i]))
	}
}

// adamState holds the moment estimates of one tensor.
type adamState struct {
	m, v []float64
	t    int
}

// adam applies one Adam step (β1 = 0.9, β2 = 0.999, ε = 1e-8).
func (s *adamState) step(x []float64, g []float64, lr float64) {
	if s.m == nil {
		s.m = make([]float64, len(x))
		s.v = make([]float64, len(x))
	}
	s.t++
	const b1, b2, eps = 0.9, 0.999, 1e-8
	c1 := 1 - math.Pow(b1, float64(s.t))
	c2 := 1 - math.Pow(b2, float64(s.t))
	for i := range x {
		s.m[i] = b1*s.m[i] + (1-b1)*g[i]
		s.v[i] = b2*s.v[i] + (1-b2)*g[i]*g[i]
		x[i] -= lr * (s.m[i] / c1) / (math.Sqrt(s.v[i]/c2) + eps)
	}
}

// adamT applies Adam to a float32 or float64 tensor through float64 state.
func adamT[T Float](s *adamState, x []T, g []T, lr float64) {
	xf := make([]float64, len(x))
	gf := make([]float64, len(x))
	for i := range x {
		xf[i], gf[i] = float64(x[i]), float64(g[i])
	}
	s.step(xf, gf, lr)
	for i := range x {
		x[i] = T(xf[i])
	}
}
