package tsne

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"
)

// Defaults and constants of the method (see the package documentation).
const (
	// DefaultPerplexity is the perplexity used when Config.Perplexity is 0.
	DefaultPerplexity = 30
	// DefaultIterations is the number of iterations when Config.Iterations is 0.
	DefaultIterations = 1000
	// Exaggeration multiplies P during the first ExaggerationIterations.
	Exaggeration = 12
	// ExaggerationIterations is the length of early exaggeration and of
	// the low-momentum phase.
	ExaggerationIterations = 250
	// MaxPoints bounds N: the affinities take N² float64s (1.8 GB here).
	MaxPoints = 15000
)

const (
	initialMomentum = 0.5
	finalMomentum   = 0.8
	minGain         = 0.01
	pFloor          = 1e-12 // the reference implementation's floor on p_ij
	initScale       = 1e-4  // standard deviation of the initial points
	blockRows       = 32    // rows per unit of parallel work
	progressEvery   = 50
	// calibration stops when |H − log perplexity| is below entropyTol
	// nats or after maxSearch steps.
	entropyTol = 1e-12
	maxSearch  = 200
	// initStream names the PCG stream of the initial points.
	initStream = 0x7453_4e45_696e_6974 // "tSNEinit"
)

// ErrInput reports data that t-SNE cannot embed.
var ErrInput = errors.New("tsne: bad input")

// ErrNotFinite reports an optimisation whose points stopped being finite.
var ErrNotFinite = errors.New("tsne: optimisation diverged")

// Config controls Embed. The zero value is the usual setting of exact
// t-SNE; each field says what 0 means.
type Config struct {
	// Perplexity is the effective number of neighbours of each point; 0
	// means 30. It must lie in [1, N−1] (a distribution over the N−1
	// other points has at most that perplexity).
	Perplexity float64
	// Iterations of gradient descent; 0 means 1000. The first 250 use
	// early exaggeration, so fewer than about 500 rarely converge.
	Iterations int
	// Seed drives the initial points, the only randomness.
	Seed uint64
	// Workers bounds the goroutines; 0 means GOMAXPROCS. The result does
	// not depend on it.
	Workers int
	// LearningRate is the step of gradient descent; 0 means
	// max(N / (4·12), 50), the "auto" rate of Belkina et al. (2019) that
	// scikit-learn uses with the same gradient (which includes the factor
	// 4 that the reference C++ code leaves out).
	LearningRate float64
	// Progress, when not nil, is called every 50 iterations and after
	// the last with the number of iterations done and KL(P‖Q) without
	// exaggeration. Each call costs one more O(N²) pass.
	Progress func(iteration int, kl float64)
}

// Validate reports a configuration that cannot be used, before any work.
// Limits that depend on the data (the perplexity's upper bound) are
// checked by Embed.
func (c Config) Validate() error {
	switch {
	case c.Perplexity < 0 || math.IsNaN(c.Perplexity) || math.IsInf(c.Perplexity, 0):
		return fmt.Errorf("tsne: perplexity %v, want a positive number (0 means %d)", c.Perplexity, DefaultPerplexity)
	case c.Iterations < 0:
		return fmt.Errorf("tsne: %d iterations, want a positive number (0 means %d)", c.Iterations, DefaultIterations)
	case c.Workers < 0:
		return fmt.Errorf("tsne: %d workers, want a positive number (0 means GOMAXPROCS)", c.Workers)
	case c.LearningRate < 0 || math.IsNaN(c.LearningRate) || math.IsInf(c.LearningRate, 0):
		return fmt.Errorf("tsne: learning rate %v, want a positive number (0 means automatic)", c.LearningRate)
	}
	return nil
}

// withDefaults returns c with every zero field replaced by its default for
// n points.
func (c Config) withDefaults(n int) Config {
	if c.Perplexity == 0 {
		c.Perplexity = DefaultPerplexity
	}
	if c.Iterations == 0 {
		c.Iterations = DefaultIterations
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.LearningRate == 0 {
		c.LearningRate = math.Max(float64(n)/(4*Exaggeration), 50)
	}
	return c
}

// Embed returns the N x 2 t-SNE embedding of the rows of x, which is not
// modified. See the package documentation for the method, the errors and
// determinism.
func Embed(ctx context.Context, x mat.Matrix, cfg Config) (*mat.Dense, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if x == nil {
		return nil, fmt.Errorf("%w: no data", ErrInput)
	}
	n, d := x.Dims()
	switch {
	case n < 2:
		return nil, fmt.Errorf("%w: %d points, want at least 2", ErrInput, n)
	case n > MaxPoints:
		return nil, fmt.Errorf("%w: %d points, more than exact t-SNE's limit of %d (its affinities take N² float64s)", ErrInput, n, MaxPoints)
	case d < 1:
		return nil, fmt.Errorf("%w: points have no coordinates", ErrInput)
	}
	cfg = cfg.withDefaults(n)
	if cfg.Perplexity < 1 || cfg.Perplexity > float64(n-1) {
		return nil, fmt.Errorf("%w: perplexity %v with %d points, want 1 ≤ perplexity ≤ N−1 = %d", ErrInput, cfg.Perplexity, n, n-1)
	}
	data, err := normalised(x)
	if err != nil {
		return nil, err
	}
	p, err := conditionalP(ctx, data, n, d, cfg.Perplexity, cfg.Workers)
	if err != nil {
		return nil, err
	}
	if err := symmetrise(ctx, p, n); err != nil {
		return nil, err
	}
	y, err := optimise(ctx, p, n, cfg)
	if err != nil {
		return nil, err
	}
	return mat.NewDense(n, 2, y), nil
}

// normalised copies x row-major, centred on its column means and divided
// by its largest absolute value, which changes neither the calibrated
// affinities nor the result but keeps squared distances far from
// overflow. A NaN or infinite entry is an error.
func normalised(x mat.Matrix) ([]float64, error) {
	n, d := x.Dims()
	data := make([]float64, n*d)
	for i := range n {
		for k := range d {
			v := x.At(i, k)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: entry (%d, %d) is %v", ErrInput, i, k, v)
			}
			data[i*d+k] = v
		}
	}
	for k := range d {
		var mean float64
		for i := range n {
			mean += data[i*d+k]
		}
		mean /= float64(n)
		for i := range n {
			data[i*d+k] -= mean
		}
	}
	var scale float64
	for _, v := range data {
		scale = math.Max(scale, math.Abs(v))
	}
	if scale > 0 && !math.IsInf(scale, 0) {
		for i := range data {
			data[i] /= scale
		}
	} else if math.IsInf(scale, 0) {
		return nil, fmt.Errorf("%w: values too large to centre", ErrInput)
	}
	return data, nil
}

// forBlocks calls fn(w, lo, hi) for consecutive blocks [lo, hi) of n rows,
// block rows each,
// on up to workers goroutines; w < workers identifies the goroutine (for
// scratch space). It returns when every call has returned: ctx.Err() if
// ctx was cancelled (some blocks are then skipped), else nil.
func forBlocks(ctx context.Context, n, block, workers int, fn func(w, lo, hi int)) error {
	nb := (n + block - 1) / block
	workers = min(workers, nb)
	if workers <= 1 {
		for b := range nb {
			if err := ctx.Err(); err != nil {
				return err
			}
			fn(0, b*block, min(n, (b+1)*block))
		}
		return nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				b := int(next.Add(1)) - 1
				if b >= nb || ctx.Err() != nil {
					return
				}
				fn(w, b*block, min(n, (b+1)*block))
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// conditionalP returns the n x n row-major conditional affinities
// p_{j|i} (row i, zero diagonal) of the n x d row-major data, each row
// calibrated to the given perplexity.
func conditionalP(ctx context.Context, data []float64, n, d int, perplexity float64, workers int) ([]float64, error) {
	p := make([]float64, n*n)
	target := math.Log(perplexity)
	scratch := make([][]float64, min(workers, (n+blockRows-1)/blockRows))
	for w := range scratch {
		scratch[w] = make([]float64, n)
	}
	err := forBlocks(ctx, n, blockRows, workers, func(w, lo, hi int) {
		dist := scratch[w]
		for i := lo; i < hi; i++ {
			xi := data[i*d : (i+1)*d]
			for j := range n {
				xj := data[j*d : (j+1)*d]
				var s float64
				for k, v := range xi {
					t := v - xj[k]
					s += t * t
				}
				dist[j] = s
			}
			calibrateRow(p[i*n:(i+1)*n], dist, i, target)
		}
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// calibrateRow writes to row the distribution p_j ∝ exp(−β dist_j) over
// j ≠ i (row[i] = 0) whose entropy is target nats, finding β by Newton's
// method on the entropy, safeguarded by a bracket that doubling and
// bisection maintain. dist is overwritten. A row with more than
// exp(target) others at its smallest distance (duplicate points) cannot
// reach the target: β grows until the search stops, spreading the row
// evenly over those others, as scikit-learn's calibration does.
func calibrateRow(row, dist []float64, i int, target float64) {
	// Shifting the distances by their minimum changes no p_j and keeps
	// the largest weight at 1, so the normaliser never underflows.
	dmin := math.Inf(1)
	for j, v := range dist {
		if j != i {
			dmin = math.Min(dmin, v)
		}
	}
	for j := range dist {
		dist[j] -= dmin
	}
	beta, lo, hi := 1.0, 0.0, math.Inf(1)
	for range maxSearch {
		h, dh := entropy(row, dist, i, beta)
		diff := h - target
		if math.Abs(diff) < entropyTol {
			break
		}
		if diff > 0 { // too flat: narrow the kernel
			lo = beta
		} else {
			hi = beta
		}
		// H decreases in β with dH/dβ = −β Var(dist).
		next := beta - diff/dh
		if !(next > lo && next < hi) {
			if math.IsInf(hi, 1) {
				next = 2 * beta
			} else {
				next = (lo + hi) / 2
			}
		}
		if !math.IsInf(hi, 1) && hi-lo <= 1e-15*hi {
			break
		}
		beta = next
	}
	entropy(row, dist, i, beta)
}

// entropy sets row to the normalised weights exp(−β dist_j), j ≠ i, and
// returns their entropy H in nats and dH/dβ.
func entropy(row, dist []float64, i int, beta float64) (h, dh float64) {
	var sum, m1, m2 float64
	for j, v := range dist {
		if j == i {
			row[j] = 0
			continue
		}
		w := math.Exp(-beta * v)
		row[j] = w
		sum += w
		m1 += v * w
		m2 += v * v * w
	}
	for j := range row {
		row[j] /= sum
	}
	m1 /= sum
	m2 /= sum
	return math.Log(sum) + beta*m1, -beta * (m2 - m1*m1)
}

// symmetrise turns the conditional affinities into the joint
// p_ij = max((p_{j|i} + p_{i|j}) / 2n, 1e-12), in place.
func symmetrise(ctx context.Context, p []float64, n int) error {
	for i := range n {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		for j := i + 1; j < n; j++ {
			v := math.Max((p[i*n+j]+p[j*n+i])/float64(2*n), pFloor)
			p[i*n+j], p[j*n+i] = v, v
		}
	}
	return nil
}

// gradient holds the per-row sums from which the KL gradient is formed,
// and the scratch space that computes them once per pair.
type gradient struct {
	a, b  []float64 // 2 per row: Σ_j p_ij w_ij (y_i − y_j) and Σ_j w_ij² (y_i − y_j)
	s     []float64 // Σ_j w_ij, w_ij = 1 / (1 + ‖y_i − y_j‖²)
	block int       // rows per block
	// acc[(blk*n+j)*5 : +5] holds the sums above for row j over the
	// pairs (i, j) with i in block blk and i < j, as in a, b and s.
	acc []float64
}

// maxBlocks bounds the blocks of the pair loop (and so acc's size).
const maxBlocks = 64

func newGradient(n int) *gradient {
	block := max(blockRows, (n+maxBlocks-1)/maxBlocks)
	nb := (n + block - 1) / block
	return &gradient{a: make([]float64, 2*n), b: make([]float64, 2*n), s: make([]float64, n),
		block: block, acc: make([]float64, nb*n*5)}
}

// compute fills the row sums for the joint affinities p (n x n, symmetric)
// and the points y (n x 2), and returns Z = Σ_{i≠j} w_ij, summed in row
// order. Each pair i < j is visited once, by the block of row i, which adds
// its share to row i directly and row j's share to the block's own
// accumulator; a second pass adds, for each row, the accumulators of the
// blocks in block order. Blocks depend on n only, so the sums do not
// depend on the number of workers.
func (g *gradient) compute(ctx context.Context, p, y []float64, n, workers int) (float64, error) {
	err := forBlocks(ctx, n, g.block, workers, func(_, lo, hi int) {
		acc := g.acc[(lo/g.block)*n*5 : (lo/g.block+1)*n*5]
		clear(acc[lo*5:])
		for i := lo; i < hi; i++ {
			prow := p[i*n : (i+1)*n]
			yi0, yi1 := y[2*i], y[2*i+1]
			var a0, a1, b0, b1, s float64
			for j := i + 1; j < n; j++ {
				dx, dy := yi0-y[2*j], yi1-y[2*j+1]
				w := 1 / (1 + dx*dx + dy*dy)
				pw := prow[j] * w
				ww := w * w
				s += w
				a0 += pw * dx
				a1 += pw * dy
				b0 += ww * dx
				b1 += ww * dy
				aj := acc[j*5 : j*5+5 : j*5+5]
				aj[0] -= pw * dx
				aj[1] -= pw * dy
				aj[2] -= ww * dx
				aj[3] -= ww * dy
				aj[4] += w
			}
			// The block's pairs (i', i) with lo ≤ i' < i are already in
			// acc[i]; pairs from earlier blocks are added below.
			ai := acc[i*5 : i*5+5 : i*5+5]
			ai[0] += a0
			ai[1] += a1
			ai[2] += b0
			ai[3] += b1
			ai[4] += s
		}
	})
	if err != nil {
		return 0, err
	}
	err = forBlocks(ctx, n, g.block, workers, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			var t [5]float64
			for blk := 0; blk*g.block <= i; blk++ {
				src := g.acc[(blk*n+i)*5 : (blk*n+i)*5+5]
				for k := range t {
					t[k] += src[k]
				}
			}
			g.a[2*i], g.a[2*i+1] = t[0], t[1]
			g.b[2*i], g.b[2*i+1] = t[2], t[3]
			g.s[i] = t[4]
		}
	})
	if err != nil {
		return 0, err
	}
	var z float64
	for _, s := range g.s {
		z += s
	}
	return z, nil
}

// gradientTo writes to dst (length 2n) the gradient with respect to y of
// KL(P‖Q) when alpha = 1 and P sums to 1, that is
// 4 Σ_j (alpha p_ij − q_ij) w_ij (y_i − y_j), and returns Z.
func gradientTo(ctx context.Context, dst, p, y []float64, n int, alpha float64, workers int, g *gradient) (float64, error) {
	z, err := g.compute(ctx, p, y, n, workers)
	if err != nil {
		return 0, err
	}
	for k := range dst {
		dst[k] = 4 * (alpha*g.a[k] - g.b[k]/z)
	}
	return z, nil
}

// klDivergence returns KL(P‖Q) = Σ_{i≠j} p_ij log(p_ij / q_ij) with
// q_ij = w_ij / Z, given Z, for a symmetric P.
func klDivergence(ctx context.Context, p, y []float64, n int, z float64, workers int) (float64, error) {
	rows := make([]float64, 2*n)
	err := forBlocks(ctx, n, blockRows, workers, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			var s, mass float64
			for j := i + 1; j < n; j++ {
				pij := p[i*n+j]
				dx, dy := y[2*i]-y[2*j], y[2*i+1]-y[2*j+1]
				// log(p/q) = log p + log(1 + d²) + log Z
				s += pij * (math.Log(pij) + math.Log1p(dx*dx+dy*dy))
				mass += pij
			}
			rows[2*i], rows[2*i+1] = s, mass
		}
	})
	if err != nil {
		return 0, err
	}
	var kl, mass float64
	for i := range n {
		kl += rows[2*i]
		mass += rows[2*i+1]
	}
	return 2 * (kl + mass*math.Log(z)), nil
}

// optimise runs gradient descent from seeded random points and returns
// them, n x 2 row-major.
func optimise(ctx context.Context, p []float64, n int, cfg Config) ([]float64, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, initStream))
	y := make([]float64, 2*n)
	for k := range y {
		y[k] = initScale * rng.NormFloat64()
	}
	grad := make([]float64, 2*n)
	update := make([]float64, 2*n)
	gains := make([]float64, 2*n)
	for k := range gains {
		gains[k] = 1
	}
	g := newGradient(n)
	for it := range cfg.Iterations {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		alpha, momentum := 1.0, finalMomentum
		if it < ExaggerationIterations {
			alpha, momentum = Exaggeration, initialMomentum
		}
		z, err := gradientTo(ctx, grad, p, y, n, alpha, cfg.Workers, g)
		if err != nil {
			return nil, err
		}
		if !(z > 0) || math.IsInf(z, 0) {
			return nil, fmt.Errorf("%w at iteration %d (normaliser Z = %v)", ErrNotFinite, it, z)
		}
		for k, gk := range grad {
			if (gk > 0) != (update[k] > 0) {
				gains[k] += 0.2
			} else {
				gains[k] *= 0.8
			}
			gains[k] = math.Max(gains[k], minGain)
			update[k] = momentum*update[k] - cfg.LearningRate*gains[k]*gk
			y[k] += update[k]
		}
		var m0, m1 float64
		for i := range n {
			m0 += y[2*i]
			m1 += y[2*i+1]
		}
		m0 /= float64(n)
		m1 /= float64(n)
		if math.IsNaN(m0+m1) || math.IsInf(m0+m1, 0) {
			return nil, fmt.Errorf("%w at iteration %d (a coordinate is %v)", ErrNotFinite, it, m0+m1)
		}
		for i := range n {
			y[2*i] -= m0
			y[2*i+1] -= m1
		}
		if cfg.Progress != nil && ((it+1)%progressEvery == 0 || it+1 == cfg.Iterations) {
			z, err := g.compute(ctx, p, y, n, cfg.Workers)
			if err != nil {
				return nil, err
			}
			kl, err := klDivergence(ctx, p, y, n, z, cfg.Workers)
			if err != nil {
				return nil, err
			}
			cfg.Progress(it+1, kl)
		}
	}
	return y, nil
}
