package reference

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// relErr returns ‖got − want‖ / ‖want‖.
func relErr(got []float32, want *mat.Dense) float64 {
	w := want.RawMatrix().Data
	var d, norm float64
	for i, x := range got {
		d += (float64(x) - w[i]) * (float64(x) - w[i])
		norm += w[i] * w[i]
	}
	return math.Sqrt(d / norm)
}

// TestRefinerMatchesEvaluate checks the Refiner's objective and gradients,
// through its one precomputed E[D], against the float64 Evaluate, which
// keeps every power of T and the extra context types apart.
func TestRefinerMatchesEvaluate(t *testing.T) {
	t.Parallel()
	for _, f := range formulations {
		for _, directed := range []bool{false, true} {
			n := 37
			adj := randomGraph(n, 4*n, directed, 5)
			for i := range adj.Data {
				adj.Data[i] = 0.5 + float64(i%7) // weighted
			}
			for _, obj := range []pipeline.ObjectiveConfig{
				{Formulation: f, C: 4, Beta: 0.3},
				{Formulation: f, C: 1},
				{Formulation: f, C: 3, Beta: 0.3, PPR: 0.5, AdamicAdar: true},
				{Formulation: f, C: 4, ExactLogs: f == pipeline.FormulationCode}, // the code formulation's option
			} {
				// Scale 4: scores of about ±14, where σ saturates and the
				// code formulation's ε matters.
				for _, scale := range []float64{1, 4} {
					name := fmt.Sprintf("%s directed=%v %v scale %g", f, directed, obj.ContextNames(), scale)
					refinerMatches(t, name, adj, obj, scale)
				}
			}
		}
	}
}

// refinerMatches checks a Refiner's objective and gradients (both passes:
// with the loss, and the steps' gradient-only one) on adj under obj, at
// random parameters times scale, against Evaluate.
func refinerMatches(t *testing.T, name string, adj *sparse.CSR, obj pipeline.ObjectiveConfig, scale float64) {
	t.Helper()
	ctx := context.Background()
	n, _ := adj.Dims()
	const half = 3
	l, r, q := randomParams(n, half, obj.Contexts(), 2)
	l.Scale(scale, l)
	r.Scale(scale, r)
	want, err := Evaluate(ctx, adj, obj, l, r, q)
	if err != nil {
		t.Fatal(err)
	}
	// The Refiner's objective leaves out q's regulariser: β·mean(q²)
	// (code) or β·Σq² (paper).
	var qreg float64
	for _, x := range q {
		qreg += obj.Resolve().BetaWeight() * x * x
	}
	if obj.Formulation != pipeline.FormulationPaper {
		qreg /= float64(len(q))
	}
	rf, err := NewRefiner(ctx, adj, obj, pipeline.Softmax(q), 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	l32, r32 := float32s(l), float32s(r)
	// float32 E[D] and scores: relative 1e-4, as TestFloat32MatchesFloat64.
	check := func(pass string, got *value[float32]) {
		if e := relErr(got.gl, want.GradL); e > 1e-4 {
			t.Errorf("%s, %s: dJ/dL relative error %v", name, pass, e)
		}
		if e := relErr(got.gr, want.GradR); e > 1e-4 {
			t.Errorf("%s, %s: dJ/dR relative error %v", name, pass, e)
		}
	}
	got, err := rf.m.evaluateLoss(ctx, l32, r32, half, rf.zero, true)
	if err != nil {
		t.Fatal(err)
	}
	check("with the loss", got)
	if loss := got.loss + qreg; math.Abs(loss-want.Loss) > 1e-4*math.Abs(want.Loss) {
		t.Errorf("%s: loss %v, Evaluate %v", name, loss, want.Loss)
	}
	got, err = rf.m.evaluateLoss(ctx, l32, r32, half, rf.zero, false) // gradientRows
	if err != nil {
		t.Fatal(err)
	}
	check("gradient only", got)
	// Step reports the objective before its step.
	loss, err := rf.Step(ctx, l32, r32, half, 0.01, true)
	if err != nil {
		t.Fatal(err)
	}
	if loss += qreg; math.Abs(loss-want.Loss) > 1e-4*math.Abs(want.Loss) {
		t.Errorf("%s: Step's loss %v, Evaluate %v", name, loss, want.Loss)
	}
}

// TestRefinerDescends: exact Adam steps lower the objective as Evaluate
// measures it.
func TestRefinerDescends(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n, half := 60, 4
	adj := randomGraph(n, 200, false, 11)
	obj := pipeline.ObjectiveConfig{C: 5}
	l, r, q := randomParams(n, half, 5, 3)
	before, err := Evaluate(ctx, adj, obj, l, r, q)
	if err != nil {
		t.Fatal(err)
	}
	rf, err := NewRefiner(ctx, adj, obj, pipeline.Softmax(q), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	l32, r32 := float32s(l), float32s(r)
	for range 30 {
		if _, err := rf.Step(ctx, l32, r32, half, 0.01, false); err != nil {
			t.Fatal(err)
		}
	}
	dense := func(x []float32) *mat.Dense {
		d := make([]float64, len(x))
		for i, v := range x {
			d[i] = float64(v)
		}
		return mat.NewDense(n, half, d)
	}
	after, err := Evaluate(ctx, adj, obj, dense(l32), dense(r32), q)
	if err != nil {
		t.Fatal(err)
	}
	if !(after.Loss < 0.9*before.Loss) {
		t.Errorf("30 steps: objective %v, from %v; want at least 10%% lower", after.Loss, before.Loss)
	}
}

// TestRefinerWorkersBitwise: the steps do not depend on the number of
// goroutines.
func TestRefinerWorkersBitwise(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n, half := 150, 4
	adj := randomGraph(n, 600, false, 4)
	obj := pipeline.ObjectiveConfig{C: 10, PPR: 0.3}
	l, r, q := randomParams(n, half, obj.Contexts(), 6)
	var firstL, firstR []float32
	for _, w := range []int{1, 2, 5} {
		rf, err := NewRefiner(ctx, adj, obj, pipeline.Softmax(q), w, 0)
		if err != nil {
			t.Fatal(err)
		}
		l32, r32 := float32s(l), float32s(r)
		for i := range 4 { // with the loss and gradient only
			if _, err := rf.Step(ctx, l32, r32, half, 0.01, i%2 == 0); err != nil {
				t.Fatal(err)
			}
		}
		if firstL == nil {
			firstL, firstR = l32, r32
			continue
		}
		if !slices.Equal(l32, firstL) || !slices.Equal(r32, firstR) {
			t.Errorf("workers=%d: L or R differ from one worker's", w)
		}
	}
}

// TestRefinerErrors: the memory limit, a cancelled context, bad shapes.
func TestRefinerErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n, half := 30, 2
	adj := randomGraph(n, 90, false, 2)
	obj := pipeline.ObjectiveConfig{C: 3}
	q := []float64{0.5, 0.3, 0.2}
	if _, err := NewRefiner(ctx, adj, obj, q, 0, 1000); !errors.Is(err, pipeline.ErrMemory) {
		t.Errorf("limit 1000 bytes: error %v, want pipeline.ErrMemory", err)
	}
	if _, err := NewRefiner(ctx, adj, obj, q[:2], 0, 0); err == nil {
		t.Error("Q of 2 entries for C = 3: no error")
	}
	if _, err := NewRefiner(ctx, adj, obj, []float64{0.5, math.NaN(), 0.5}, 0, 0); err == nil {
		t.Error("Q with a NaN: no error")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := NewRefiner(cancelled, adj, obj, q, 0, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}
	rf, err := NewRefiner(ctx, adj, obj, pipeline.Softmax(q), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	l := make([]float32, n*half)
	if _, err := rf.Step(cancelled, l, slices.Clone(l), half, 0.01, false); !errors.Is(err, context.Canceled) {
		t.Errorf("Step, cancelled: error %v, want context.Canceled", err)
	}
	if _, err := rf.Step(ctx, l, l[:n], half, 0.01, false); !errors.Is(err, mat.ErrShape) {
		t.Errorf("Step, R of %d values: error %v, want mat.ErrShape", n, err)
	}
	for _, withLoss := range []bool{true, false} {
		bad := slices.Clone(l)
		bad[3] = float32(math.Inf(1))
		if _, err := rf.Step(ctx, bad, slices.Clone(l), half, 0.01, withLoss); !errors.Is(err, pipeline.ErrNotFinite) {
			t.Errorf("Step (loss %v), an infinite L: error %v, want pipeline.ErrNotFinite", withLoss, err)
		}
	}
}
