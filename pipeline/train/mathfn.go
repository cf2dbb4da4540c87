package train

import "math"

// sigmoid returns 1/(1+e^−x) without overflow.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// sigmoidExp returns sigmoid(x), bit for bit, given e = e^−|x|: the
// exponential sigmoid takes on either side of 0.
func sigmoidExp(x, e float64) float64 {
	if x >= 0 {
		return 1 / (1 + e)
	}
	return e / (1 + e)
}

// softplus returns log(1 + e^x) without overflow.
func softplus(x float64) float64 {
	if x > 30 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// logProduct accumulates Σ log x_i as one product, kept as a mantissa and
// a binary exponent, so that a run of terms costs one logarithm instead
// of one each. The factors of the code formulation's negatives lie in
// [ε, 1+ε] with ε = 1e-5, so the eight multiplied between two
// renormalisations stay far from underflow. It is exact up to rounding:
// the relative error of the product grows like the number of factors
// times 2^-53, an absolute error of that size in the sum of logarithms.
type logProduct struct {
	frac float64
	exp  int
	n    int
}

func newLogProduct() logProduct { return logProduct{frac: 1} }

// mul multiplies the product by x.
func (p *logProduct) mul(x float64) {
	p.frac *= x
	p.n++
	if p.n&7 == 0 {
		f, e := math.Frexp(p.frac)
		p.frac, p.exp = f, p.exp+e
	}
}

// log returns the sum of the logarithms of the factors so far.
func (p *logProduct) log() float64 {
	return math.Log(p.frac) + float64(p.exp)*math.Ln2
}
