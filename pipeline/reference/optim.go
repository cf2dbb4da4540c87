package reference

import "math"

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

// percentDelta applies one PercentDelta step to a tensor, as in the
// authors' released optimiser: the gradient is rescaled so that the mean
// absolute relative change |g_i/v_i| equals decay·lr, then v ← v − lr·g·decay/mean.
// decay = 1 − 0.99·t/T decays linearly over the run. Tiny sign-keeping
// epsilons guard both divisions.
func percentDelta[T Float](v []T, g []T, lr, decay float64) {
	const eps = 1e-8
	var mean float64
	for i, x := range v {
		den := float64(x)
		if den >= 0 {
			den += eps
		} else {
			den -= eps
		}
		mean += math.Abs(float64(g[i]) / den)
	}
	mean /= float64(len(v))
	scale := lr * decay / (mean + eps)
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

// adam32 applies Adam to a float32 tensor through float64 state.
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
