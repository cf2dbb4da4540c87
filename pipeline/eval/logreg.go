package eval

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// LogRegConfig sets up the L2-regularised logistic regression of the
// multi-label classifier. The zero value means the defaults.
type LogRegConfig struct {
	// C is the inverse regularisation strength, as scikit-learn's
	// LogisticRegression(C=...): the fit minimises
	// C·Σ_i log(1 + exp(−y_i(w·x_i + b))) + ½‖w‖², the intercept b not
	// penalised (scikit-learn's lbfgs solver). 0 means 1, scikit-learn's
	// default, which the DeepWalk, node2vec and NetMF scoring scripts use.
	C float64
	// Tol stops L-BFGS once the largest gradient entry of the objective
	// divided by C·n (n training rows; scikit-learn's scaling) is below
	// it. 0 means 1e-6 (scikit-learn's default tol is 1e-4; the tighter
	// value brings both fits to the same optimum).
	Tol float64
	// MaxIter caps the L-BFGS iterations per label. 0 means 1000.
	MaxIter int
}

// resolve returns c with its defaults filled in.
func (c LogRegConfig) resolve() LogRegConfig {
	if c.C == 0 {
		c.C = 1
	}
	if c.Tol == 0 {
		c.Tol = 1e-6
	}
	if c.MaxIter == 0 {
		c.MaxIter = 1000
	}
	return c
}

// validate reports a configuration that cannot be used.
func (c LogRegConfig) validate() error {
	if !(c.C > 0) || math.IsInf(c.C, 1) {
		return fmt.Errorf("eval: logistic regression C = %v; want a positive finite number", c.C)
	}
	if !(c.Tol > 0) {
		return fmt.Errorf("eval: logistic regression tol = %v; want a positive number", c.Tol)
	}
	if c.MaxIter < 0 {
		return fmt.Errorf("eval: logistic regression max iterations = %d; want 0 (default) or more", c.MaxIter)
	}
	return nil
}

// logReg is the scaled objective of one binary problem on a dense
// row-major n × f matrix: (1/n)·Σ_i log(1 + exp(−y_i z_i)) + ‖w‖²/(2Cn)
// with z = Xw + b, which has scikit-learn's minimiser. The parameters are
// p = [w | b].
type logReg struct {
	x    blas64.General
	y    []float64 // ±1
	l2   float64   // 1/(C·n)
	z, r []float64 // work: margins, residuals
}

func newLogReg(x []float64, n, f int, y []float64, c float64) *logReg {
	return &logReg{x: blas64.General{Rows: n, Cols: f, Stride: f, Data: x}, y: y, l2: 1 / (c * float64(n)),
		z: make([]float64, n), r: make([]float64, n)}
}

// logistic returns log(1 + exp(−m)) and σ(−m) = 1/(1 + exp(m)), stably.
func logistic(m float64) (loss, s float64) {
	if m > 0 {
		e := math.Exp(-m)
		return math.Log1p(e), e / (1 + e)
	}
	e := math.Exp(m)
	return -m + math.Log1p(e), 1 / (1 + e)
}

// funcGrad returns the objective at p and, when grad is not nil, assigns
// its gradient there.
func (o *logReg) funcGrad(grad, p []float64) float64 {
	f := o.x.Cols
	w, b := p[:f], p[f]
	for i := range o.z {
		o.z[i] = b
	}
	blas64.Gemv(blas.NoTrans, 1, o.x, blas64.Vector{N: f, Inc: 1, Data: w}, 1, blas64.Vector{N: len(o.z), Inc: 1, Data: o.z})
	n := float64(len(o.z))
	var loss, rsum float64
	for i, z := range o.z {
		l, s := logistic(o.y[i] * z)
		loss += l
		o.r[i] = -o.y[i] * s / n
		rsum += o.r[i]
	}
	var ww float64
	for _, v := range w {
		ww += v * v
	}
	if grad != nil {
		g := grad[:f]
		for j, v := range w {
			g[j] = o.l2 * v
		}
		blas64.Gemv(blas.Trans, 1, o.x, blas64.Vector{N: len(o.r), Inc: 1, Data: o.r}, 1, blas64.Vector{N: f, Inc: 1, Data: g})
		grad[f] = rsum
	}
	return loss/n + 0.5*o.l2*ww
}

// errNotConverged marks a fit that ran out of iterations; its parameters
// are still returned, as scikit-learn does with a ConvergenceWarning.
// acceptGradient is the largest gradient entry at which a stalled line
// search is taken as convergence (the objective is scaled to O(1)).
const acceptGradient = 1e-4

var errNotConverged = errors.New("eval: logistic regression did not converge")

// ctxRecorder stops an optimisation once its context is done: gonum calls
// Record after every evaluation of the objective and every iteration,
// and ends the run with the error Record returns.
type ctxRecorder struct{ ctx context.Context }

func (r ctxRecorder) Init() error { return r.ctx.Err() }

func (r ctxRecorder) Record(*optimize.Location, optimize.Operation, *optimize.Stats) error {
	return r.ctx.Err()
}

// fitLogReg minimises the objective of o by L-BFGS from zero and returns
// p = [w | b]. The error is errNotConverged (with the parameters reached)
// when MaxIter was hit, ctx's error once ctx is done (checked after every
// evaluation of the objective), another error for a numerical failure.
func fitLogReg(ctx context.Context, o *logReg, cfg LogRegConfig) ([]float64, error) {
	f := o.x.Cols
	var cache struct {
		p, g []float64
		v    float64
	}
	eval := func(p []float64) {
		if cache.p != nil && equalFloats(cache.p, p) {
			return
		}
		if cache.p == nil {
			cache.p, cache.g = make([]float64, f+1), make([]float64, f+1)
		}
		copy(cache.p, p)
		cache.v = o.funcGrad(cache.g, p)
	}
	prob := optimize.Problem{
		Func: func(p []float64) float64 { eval(p); return cache.v },
		Grad: func(g, p []float64) { eval(p); copy(g, cache.g) },
	}
	settings := &optimize.Settings{GradientThreshold: cfg.Tol, MajorIterations: cfg.MaxIter,
		Converger: &optimize.FunctionConverge{Absolute: 1e-14, Relative: 1e-14, Iterations: 20},
		Recorder:  ctxRecorder{ctx}}
	res, err := optimize.Minimize(prob, make([]float64, f+1), settings, &optimize.LBFGS{})
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	if res == nil {
		return nil, fmt.Errorf("eval: logistic regression: %w", err)
	}
	if res.Status == optimize.IterationLimit {
		return res.X, errNotConverged
	}
	if err != nil && !(res.Gradient != nil && floats.Norm(res.Gradient, math.Inf(1)) < acceptGradient) {
		// A line search that can make no progress at a point this flat is
		// at the optimum to float precision; anywhere else it is a failure.
		return nil, fmt.Errorf("eval: logistic regression: %v (%w)", res.Status, err)
	}
	return res.X, nil
}

func equalFloats(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
