package eval

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wys-project/wys/pipeline"
)

// syntheticMultiLabel returns n rows of f standard normal features and
// labels drawn from a noisy logistic model: row v carries label l with
// probability σ(a_l·x_v + b_l), and its most likely label when it drew
// none. The last label is rare, so that small training sets miss it.
func syntheticMultiLabel(seed uint64, n, f, labels int) ([]float64, *pipeline.MultiLabels) {
	rng := rand.New(rand.NewPCG(seed, 11))
	x, a := normals(rng, n*f), normals(rng, labels*f)
	lab := &pipeline.MultiLabels{Of: make([][]int32, n), Count: labels}
	for v := range n {
		best, bestZ := 0, math.Inf(-1)
		for l := range labels {
			z := -1.5
			if l == labels-1 {
				z = -4
			}
			for j := range f {
				z += a[l*f+j] * x[v*f+j]
			}
			if rng.Float64() < 1/(1+math.Exp(-z)) {
				lab.Of[v] = append(lab.Of[v], int32(l))
			}
			if z > bestZ {
				best, bestZ = l, z
			}
		}
		if len(lab.Of[v]) == 0 {
			lab.Of[v] = []int32{int32(best)}
		}
	}
	return x, lab
}

// normals returns k standard normal draws of rng.
func normals(rng *rand.Rand, k int) []float64 {
	x := make([]float64, k)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// TestLogRegGradient checks the gradient of the scaled objective against
// central finite differences at a random point.
func TestLogRegGradient(t *testing.T) {
	x, lab := syntheticMultiLabel(1, 40, 5, 2)
	y := make([]float64, 40)
	for v := range y {
		y[v] = -1
		if lab.Of[v][0] == 0 {
			y[v] = 1
		}
	}
	o := newLogReg(x, 40, 5, y, 0.7)
	rng := rand.New(rand.NewPCG(3, 3))
	p := make([]float64, 6)
	for i := range p {
		p[i] = rng.NormFloat64()
	}
	grad := make([]float64, 6)
	o.funcGrad(grad, p)
	const h = 1e-6
	for i := range p {
		q := append([]float64(nil), p...)
		q[i] = p[i] + h
		fp := o.funcGrad(nil, q)
		q[i] = p[i] - h
		fm := o.funcGrad(nil, q)
		// Central differences of a smooth O(1) function: error O(h²) plus
		// rounding O(1e-16/h).
		if fd := (fp - fm) / (2 * h); math.Abs(fd-grad[i]) > 1e-7 {
			t.Errorf("∂/∂p%d: gradient %.10g, finite difference %.10g", i, grad[i], fd)
		}
	}
}

// TestLogRegObjective checks the objective against its definition,
// C·Σ log(1 + exp(−y·z)) + ½‖w‖² divided by C·n, written out directly.
func TestLogRegObjective(t *testing.T) {
	x := []float64{1, 2, -1, 0.5, 3, -2}
	y := []float64{1, -1, 1}
	p := []float64{0.3, -0.2, 0.1}
	const c = 2.0
	var want float64
	for i := range y {
		z := p[0]*x[2*i] + p[1]*x[2*i+1] + p[2]
		want += c * math.Log(1+math.Exp(-y[i]*z))
	}
	want = (want + 0.5*(p[0]*p[0]+p[1]*p[1])) / (c * 3)
	if got := newLogReg(x, 3, 2, y, c).funcGrad(nil, p); math.Abs(got-want) > 1e-15 {
		t.Errorf("objective %.17g, want %.17g", got, want)
	}
}

// TestLogRegSeparable fits two well-separated clouds: every training
// point must be classified correctly, and the intercept must place the
// boundary between the clouds (they are symmetric about x = 1).
func TestLogRegSeparable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var x, y []float64
	for i := range 100 {
		s := float64(2*(i%2) - 1)
		x = append(x, 1+3*s+0.5*rng.NormFloat64(), rng.NormFloat64())
		y = append(y, s)
	}
	p, err := fitLogReg(context.Background(), newLogReg(x, 100, 2, y, 1), LogRegConfig{}.resolve())
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		if z := p[0]*x[2*i] + p[1]*x[2*i+1] + p[2]; z*y[i] <= 0 {
			t.Errorf("point %d (%v, %v) of class %v scored %v", i, x[2*i], x[2*i+1], y[i], z)
		}
	}
	if cut := -p[2] / p[0]; math.Abs(cut-1) > 0.5 {
		t.Errorf("boundary at x = %v, want near 1", cut)
	}
}

// countdownCtx is a context that reports itself cancelled from its n-th
// check of Err on, whatever the clock: a cancel that arrives in the
// middle of a computation, at a point the test chooses.
type countdownCtx struct {
	context.Context
	n atomic.Int64
}

func (c *countdownCtx) Err() error {
	if c.n.Add(-1) <= 0 {
		return context.Canceled
	}
	return nil
}

// TestLogRegCancel: a fit whose context is cancelled, before it starts or
// after a few evaluations of the objective, returns the context's error
// instead of parameters. fitLogReg ran L-BFGS to its end whatever the
// context said (4 s after a cancel in EdgeClassifier on 200,000 pairs).
func TestLogRegCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var x, y []float64
	for i := range 100 {
		s := float64(2*(i%2) - 1)
		x = append(x, 0.3*s+rng.NormFloat64(), rng.NormFloat64())
		y = append(y, s)
	}
	for _, checks := range []int64{1, 5} {
		ctx := &countdownCtx{Context: context.Background()}
		ctx.n.Store(checks)
		p, err := fitLogReg(ctx, newLogReg(x, 100, 2, y, 1), LogRegConfig{}.resolve())
		if !errors.Is(err, context.Canceled) || p != nil {
			t.Errorf("cancelled at check %d: got %v, %v; want no parameters and context.Canceled", checks, p, err)
		}
	}
}

// TestTopKAndF1 checks the top-k rule and both F1 definitions on a case
// computed by hand (and by scikit-learn 1.2.1: f1_score gives micro 0.5,
// macro 0.29166666666666663 for these indicator matrices).
func TestTopKAndF1(t *testing.T) {
	order := make([]int32, 4)
	if got := topK(order, []float64{0.1, 0.9, 0.9, -1}, 2); !reflect.DeepEqual(got, []int32{1, 2}) {
		t.Errorf("top 2 = %v, want [1 2]", got)
	}
	if got := topK(order, []float64{0.5, 0.5, 0.5, math.Inf(-1)}, 1); !reflect.DeepEqual(got, []int32{0}) {
		t.Errorf("top 1 of a tie = %v, want [0] (the smaller label)", got)
	}
	// Rows A {0, 1}, B {0}, C {1}; predicted A {0, 2}, B {1}, C {1}; label
	// 3 is never true nor predicted. Label 0: tp 1, fn 1 → 2/3; label 1:
	// tp 1, fp 1, fn 1 → 1/2; label 2: fp 1 → 0; label 3 → 0.
	lab := &pipeline.MultiLabels{Of: [][]int32{{0, 1}, {0}, {1}}, Count: 4}
	micro, macro := f1Scores(lab, []int{0, 1, 2}, [][]int32{{0, 2}, {1}, {1}}, false)
	if math.Abs(micro-0.5) > 1e-15 || math.Abs(macro-(2.0/3+0.5)/4) > 1e-15 {
		t.Errorf("micro %v macro %v, want 0.5 and %v", micro, macro, (2.0/3+0.5)/4)
	}
}

// TestMultiLabelDeterministic checks that the result does not depend on
// the number of workers, that the splits are disjoint and cover the
// labelled rows, and that a cancelled context stops the evaluation.
func TestMultiLabelDeterministic(t *testing.T) {
	x, lab := syntheticMultiLabel(2, 150, 6, 5)
	splits, err := MultiLabelSplits(lab.Labelled(), []float64{0.3, 0.7}, 2, 9)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range splits {
		if len(sp.Train) != int(sp.Ratio*150) || len(sp.Train)+len(sp.Test) != 150 {
			t.Errorf("ratio %v: %d train, %d test", sp.Ratio, len(sp.Train), len(sp.Test))
		}
	}
	var results []*MultiLabelResult
	for _, w := range []int{1, 2, 3} {
		res, err := MultiLabel(context.Background(), x, 150, 6, lab, splits, MultiLabelConfig{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res)
	}
	if !reflect.DeepEqual(results[0], results[1]) || !reflect.DeepEqual(results[0], results[2]) {
		t.Errorf("results differ with the worker count:\n%+v\n%+v", results[0], results[1])
	}
	if r := results[0].At(0.7); r == nil || !(r.MicroMean > 0.3) {
		t.Errorf("Micro-F1 at 70%% = %+v; the labels follow the features, want well above chance", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MultiLabel(ctx, x, 150, 6, lab, splits, MultiLabelConfig{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

// TestMultiLabelSplitsByRatio checks that a ratio's splits depend on the
// seed and the ratio only: 50% asked for alone with 3 repeats gives the
// first 3 splits of 50% in the whole protocol with 10, so that `eval
// -ratios 0.5` scores the splits of the full table's 50% column; another
// seed or ratio gives other splits.
func TestMultiLabelSplitsByRatio(t *testing.T) {
	_, lab := syntheticMultiLabel(3, 200, 4, 3)
	rows := lab.Labelled()
	all, err := MultiLabelSplits(rows, MultiLabelRatios, 10, 5)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := MultiLabelSplits(rows, []float64{0.5}, 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	var half []LabelSplit
	for _, sp := range all {
		if sp.Ratio == 0.5 {
			half = append(half, sp)
		}
	}
	if len(half) != 10 || !reflect.DeepEqual(alone, half[:3]) {
		t.Errorf("50%% alone differs from the first splits of 50%% in the whole protocol:\n%v\n%v", alone, half[:min(3, len(half))])
	}
	other, err := MultiLabelSplits(rows, []float64{0.5}, 1, 6)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(other[0].Train, alone[0].Train) {
		t.Error("seeds 5 and 6 gave the same split")
	}
	if reflect.DeepEqual(all[0].Train, half[0].Train[:len(all[0].Train)]) {
		t.Error("10% and 50% share the order of their shuffles")
	}
	if _, err := MultiLabelSplits(rows, []float64{0.5}, maxRepeats+1, 5); err == nil {
		t.Errorf("%d repeats: no error", maxRepeats+1)
	}
}

// TestMultiLabelErrors checks the refusals of bad inputs.
func TestMultiLabelErrors(t *testing.T) {
	x, lab := syntheticMultiLabel(2, 20, 3, 2)
	good := []LabelSplit{{Ratio: 0.5, Train: []int{0, 1, 2}, Test: []int{3, 4}}}
	for name, tc := range map[string]struct {
		splits []LabelSplit
		cfg    MultiLabelConfig
	}{
		"repeated row": {[]LabelSplit{{Ratio: 0.5, Train: []int{0, 1}, Test: []int{1}}}, MultiLabelConfig{}},
		"out of range": {[]LabelSplit{{Ratio: 0.5, Train: []int{0, 20}, Test: []int{1}}}, MultiLabelConfig{}},
		"empty test":   {[]LabelSplit{{Ratio: 0.5, Train: []int{0}}}, MultiLabelConfig{}},
		"negative C":   {good, MultiLabelConfig{LogReg: LogRegConfig{C: -1}}},
	} {
		if _, err := MultiLabel(context.Background(), x, 20, 3, lab, tc.splits, tc.cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := MultiLabelSplits(lab.Labelled(), []float64{0.01}, 1, 1); err == nil {
		t.Error("a ratio leaving no training row: no error")
	}
}

// TestFeatures checks each variant against its definition on a 2-node,
// d = 4 embedding.
func TestFeatures(t *testing.T) {
	res := &pipeline.Result{N: 2, Half: 2, L: []float32{1, 2, 0, 0}, R: []float32{3, 4, 0, 0}}
	for variant, want := range map[string][]float64{
		"LR":       {1, 2, 3, 4, 0, 0, 0, 0},
		"L":        {1, 2, 0, 0},
		"R":        {3, 4, 0, 0},
		"L+R":      {4, 6, 0, 0},
		"R+norm":   {0.6, 0.8, 0, 0},
		"L+R+norm": {4 / math.Sqrt(52), 6 / math.Sqrt(52), 0, 0},
	} {
		got, _, err := Features(res, variant)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Errorf("%s: %v, want %v", variant, got, want)
				break
			}
		}
	}
	if _, _, err := Features(res, "Y"); err == nil {
		t.Error("unknown variant: no error")
	}
}

// BenchmarkMultiLabel fits one split at 50% of a PPI-sized problem: 3890
// rows, 128 features, 50 labels.
func BenchmarkMultiLabel(b *testing.B) {
	x, lab := syntheticMultiLabel(1, 3890, 128, 50)
	splits, err := MultiLabelSplits(lab.Labelled(), []float64{0.5}, 1, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MultiLabel(context.Background(), x, 3890, 128, lab, splits, MultiLabelConfig{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMultiLabelTable: mean ± sample standard deviation per ratio, and
// the value alone for a ratio scored on a single split.
func TestMultiLabelTable(t *testing.T) {
	r := &MultiLabelResult{Ratios: []RatioF1{
		{Ratio: 0.1, Micro: []float64{0.5, 0.7}, Macro: []float64{0.4, 0.6}, MicroMean: 0.6, MicroStd: 0.1414, MacroMean: 0.5, MacroStd: 0.1414},
		{Ratio: 0.5, Micro: []float64{0.8}, Macro: []float64{0.75}, MicroMean: 0.8, MacroMean: 0.75},
	}}
	want := "| labelled nodes for training | Micro-F1 | Macro-F1 |\n|---|---|---|\n" +
		"| 10% | 0.6000 ± 0.1414 | 0.5000 ± 0.1414 |\n| 50% | 0.8000 | 0.7500 |\n"
	if got := r.Table(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestPercent: a share is written with the digits it needs, so that 99.99%
// is not rounded to 100%.
func TestPercent(t *testing.T) {
	for share, want := range map[float64]string{0.1: "10%", 0.5: "50%", 0.07: "7%", 0.9999: "99.99%", 0.125: "12.5%"} {
		if got := Percent(share); got != want {
			t.Errorf("Percent(%v) = %q, want %q", share, got, want)
		}
	}
}

// TestMultiLabelSplitsRatioTwice: a ratio listed twice would score the
// same splits twice and understate their spread; it is refused.
func TestMultiLabelSplitsRatioTwice(t *testing.T) {
	rows := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	if _, err := MultiLabelSplits(rows, []float64{0.5, 0.2, 0.5}, 2, 1); err == nil || !strings.Contains(err.Error(), "0.5 listed twice") {
		t.Errorf("0.5, 0.2, 0.5: %v", err)
	}
	if s, err := MultiLabelSplits(rows, []float64{0.2, 0.5}, 2, 1); err != nil || len(s) != 4 {
		t.Errorf("0.2, 0.5: %d splits, %v", len(s), err)
	}
}
