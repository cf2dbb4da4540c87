package tsne

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomData returns n x d standard normal data from seed.
func randomData(n, d int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for k := range d {
			x.Set(i, k, rng.NormFloat64())
		}
	}
	return x
}

// clusters returns k Gaussian clusters of m points each in d dimensions,
// with unit spread and centres sep apart on the coordinate axes, and
// their labels.
func clusters(k, m, d int, sep float64, seed uint64) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 2))
	x := mat.NewDense(k*m, d, nil)
	labels := make([]int, k*m)
	for c := range k {
		for i := range m {
			r := c*m + i
			labels[r] = c
			for j := range d {
				v := rng.NormFloat64()
				if j == c {
					v += sep
				}
				x.Set(r, j, v)
			}
		}
	}
	return x, labels
}

func TestPerplexityCalibrated(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		x    *mat.Dense
	}{
		{"normal", randomData(200, 5, 1)},
		{"clusters", func() *mat.Dense { x, _ := clusters(3, 60, 10, 20, 3); return x }()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, d := tc.x.Dims()
			data, err := normalised(tc.x)
			if err != nil {
				t.Fatal(err)
			}
			for _, perp := range []float64{2, 5, 30, 100} {
				p, err := conditionalP(context.Background(), data, n, d, perp, 2)
				if err != nil {
					t.Fatal(err)
				}
				for i := range n {
					row := p[i*n : (i+1)*n]
					if row[i] != 0 {
						t.Fatalf("perplexity %v: p_{%d|%d} = %v, want 0", perp, i, i, row[i])
					}
					var h, sum float64
					for _, v := range row {
						sum += v
						if v > 0 {
							h -= v * math.Log(v)
						}
					}
					// Tolerances: the search stops within 1e-12 nats of
					// the target; sums carry rounding only.
					if got := math.Exp(h); math.Abs(got-perp) > 1e-4 {
						t.Errorf("perplexity %v: row %d has perplexity %.8f", perp, i, got)
					}
					if math.Abs(sum-1) > 1e-12 {
						t.Errorf("perplexity %v: row %d sums to %v", perp, i, sum)
					}
				}
			}
		})
	}
}

// kl is an independent KL(P‖Q) for the finite-difference test, computed
// straight from the definition of the Student-t Q.
func kl(p []float64, y []float64, n int) float64 {
	w := make([]float64, n*n)
	var z float64
	for i := range n {
		for j := range n {
			if i == j {
				continue
			}
			d2 := math.Pow(y[2*i]-y[2*j], 2) + math.Pow(y[2*i+1]-y[2*j+1], 2)
			w[i*n+j] = 1 / (1 + d2)
			z += w[i*n+j]
		}
	}
	var c float64
	for i := range n {
		for j := range n {
			if i != j {
				c += p[i*n+j] * math.Log(p[i*n+j]/(w[i*n+j]/z))
			}
		}
	}
	return c
}

func TestGradientMatchesFiniteDifferences(t *testing.T) {
	t.Parallel()
	const n = 12
	x := randomData(n, 4, 5)
	data, err := normalised(x)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := conditionalP(ctx, data, n, 4, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := symmetrise(ctx, p, n); err != nil {
		t.Fatal(err)
	}
	var psum float64
	for _, v := range p {
		psum += v
	}
	if math.Abs(psum-1) > 1e-9 { // the 1e-12 floor may add a little mass
		t.Fatalf("joint P sums to %v", psum)
	}
	rng := rand.New(rand.NewPCG(6, 7))
	y := make([]float64, 2*n)
	for k := range y {
		y[k] = rng.NormFloat64()
	}
	grad := make([]float64, 2*n)
	z, err := gradientTo(ctx, grad, p, y, n, 1, 2, newGradient(n))
	if err != nil {
		t.Fatal(err)
	}
	got, err := klDivergence(ctx, p, y, n, z, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := kl(p, y, n); math.Abs(got-want) > 1e-12*math.Max(1, want) {
		t.Errorf("klDivergence = %v, direct KL = %v", got, want)
	}
	const h = 1e-5
	for k := range y {
		yp := append([]float64(nil), y...)
		ym := append([]float64(nil), y...)
		yp[k] += h
		ym[k] -= h
		fd := (kl(p, yp, n) - kl(p, ym, n)) / (2 * h)
		// Central differences have O(h²) ≈ 1e-10 truncation error and
		// about 1e-16/h ≈ 1e-11 rounding error.
		if math.Abs(fd-grad[k]) > 1e-7*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂KL/∂y[%d]: analytic %.10g, finite difference %.10g", k, grad[k], fd)
		}
	}
}

// neighbourAgreement returns the fraction of points whose nearest other
// point in the n x 2 embedding has the same label.
func neighbourAgreement(y *mat.Dense, labels []int) float64 {
	n, _ := y.Dims()
	agree := 0
	for i := range n {
		best, bj := math.Inf(1), -1
		for j := range n {
			if j == i {
				continue
			}
			d := math.Hypot(y.At(i, 0)-y.At(j, 0), y.At(i, 1)-y.At(j, 1))
			if d < best {
				best, bj = d, j
			}
		}
		if labels[bj] == labels[i] {
			agree++
		}
	}
	return float64(agree) / float64(n)
}

func TestClustersStaySeparated(t *testing.T) {
	t.Parallel()
	x, labels := clusters(3, 60, 10, 10, 11)
	var kls []float64
	y, err := Embed(context.Background(), x, Config{Perplexity: 20, Seed: 1, Iterations: 600,
		Progress: func(_ int, kl float64) { kls = append(kls, kl) }})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := y.Dims(); r != 180 || c != 2 {
		t.Fatalf("embedding is %d x %d, want 180 x 2", r, c)
	}
	if a := neighbourAgreement(y, labels); a <= 0.95 {
		t.Errorf("nearest-neighbour label agreement %.3f, want > 0.95", a)
	}
	// The centroids of the clusters should be further apart than the
	// clusters are wide.
	var cent [3][2]float64
	var spread float64
	for i, l := range labels {
		cent[l][0] += y.At(i, 0) / 60
		cent[l][1] += y.At(i, 1) / 60
	}
	for i, l := range labels {
		spread = math.Max(spread, math.Hypot(y.At(i, 0)-cent[l][0], y.At(i, 1)-cent[l][1]))
	}
	for a := range 3 {
		for b := a + 1; b < 3; b++ {
			if d := math.Hypot(cent[a][0]-cent[b][0], cent[a][1]-cent[b][1]); d < spread {
				t.Errorf("centroids %d and %d are %.3g apart, less than the largest radius %.3g", a, b, d, spread)
			}
		}
	}
	if len(kls) != 12 {
		t.Fatalf("%d progress calls, want 12", len(kls))
	}
	if !(kls[len(kls)-1] < kls[5]) {
		t.Errorf("KL did not decrease after early exaggeration: %v", kls)
	}
}

func TestWorkersDeterministic(t *testing.T) {
	t.Parallel()
	x := randomData(150, 6, 21)
	var ys []*mat.Dense
	for _, w := range []int{1, 2, 3} {
		y, err := Embed(context.Background(), x, Config{Perplexity: 15, Seed: 4, Iterations: 300, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		ys = append(ys, y)
	}
	for i := 1; i < len(ys); i++ {
		if !mat.Equal(ys[0], ys[i]) {
			t.Errorf("Workers=%d differs from Workers=1", i+1)
		}
	}
	other, err := Embed(context.Background(), x, Config{Perplexity: 15, Seed: 5, Iterations: 300})
	if err != nil {
		t.Fatal(err)
	}
	if mat.Equal(ys[0], other) {
		t.Error("seeds 4 and 5 give the same embedding")
	}
}

func TestInputUnchanged(t *testing.T) {
	t.Parallel()
	x := randomData(30, 3, 8)
	orig := mat.DenseCopyOf(x)
	if _, err := Embed(context.Background(), x, Config{Perplexity: 5, Iterations: 20}); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(x, orig) {
		t.Error("Embed modified its input")
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	nan := randomData(10, 2, 1)
	nan.Set(3, 1, math.NaN())
	inf := randomData(10, 2, 1)
	inf.Set(0, 0, math.Inf(-1))
	for _, tc := range []struct {
		name  string
		x     mat.Matrix
		cfg   Config
		input bool // wraps ErrInput
	}{
		{"nil", nil, Config{}, true},
		{"one point", randomData(1, 3, 1), Config{Perplexity: 1}, true},
		{"NaN", nan, Config{Perplexity: 3}, true},
		{"Inf", inf, Config{Perplexity: 3}, true},
		{"perplexity N", randomData(10, 2, 1), Config{Perplexity: 10}, true},
		{"default perplexity too large", randomData(10, 2, 1), Config{}, true},
		{"perplexity below 1", randomData(10, 2, 1), Config{Perplexity: 0.5}, true},
		{"negative perplexity", randomData(10, 2, 1), Config{Perplexity: -1}, false},
		{"NaN perplexity", randomData(10, 2, 1), Config{Perplexity: math.NaN()}, false},
		{"negative iterations", randomData(10, 2, 1), Config{Perplexity: 3, Iterations: -1}, false},
		{"negative workers", randomData(10, 2, 1), Config{Perplexity: 3, Workers: -2}, false},
		{"negative learning rate", randomData(10, 2, 1), Config{Perplexity: 3, LearningRate: -1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y, err := Embed(context.Background(), tc.x, tc.cfg)
			if err == nil {
				t.Fatalf("no error (result %v)", y)
			}
			if got := errors.Is(err, ErrInput); got != tc.input {
				t.Errorf("errors.Is(%q, ErrInput) = %v, want %v", err, got, tc.input)
			}
			if !tc.input && tc.cfg.Validate() == nil {
				t.Errorf("Validate accepts the configuration that Embed rejects with %q", err)
			}
		})
	}
}

func TestTwoPoints(t *testing.T) {
	t.Parallel()
	y, err := Embed(context.Background(), mat.NewDense(2, 1, []float64{0, 1}), Config{Perplexity: 1, Iterations: 50})
	if err != nil {
		t.Fatal(err)
	}
	if math.Hypot(y.At(0, 0)-y.At(1, 0), y.At(0, 1)-y.At(1, 1)) == 0 {
		t.Error("two distinct points embed at the same place")
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Embed(ctx, randomData(50, 3, 1), Config{Perplexity: 5}); err != context.Canceled {
		t.Errorf("cancelled before the start: error %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	_, err := Embed(ctx, randomData(100, 3, 1), Config{Perplexity: 5, Workers: 2, Progress: func(int, float64) {
		calls++
		cancel()
	}})
	if err != context.Canceled {
		t.Errorf("cancelled during the run: error %v, want context.Canceled", err)
	}
	if calls != 1 {
		t.Errorf("%d progress calls after cancelling, want 1", calls)
	}
}

func BenchmarkEmbed(b *testing.B) {
	for _, w := range []int{1, 2} {
		b.Run("n=1000/workers="+string(rune('0'+w)), func(b *testing.B) {
			x := randomData(1000, 32, 1)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Embed(context.Background(), x, Config{Iterations: 100, Workers: w}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
