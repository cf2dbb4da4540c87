package eval

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wys-project/wys/pipeline"
	"gonum.org/v1/gonum/mat"
)

// randomClassifyCase returns random embeddings and labels: n nodes, k
// classes, and disjoint train, validation and test sets.
func randomClassifyCase(seed uint64, n, half, k int) (*pipeline.Result, *pipeline.Labels) {
	rng := rand.New(rand.NewPCG(seed, 7))
	res := &pipeline.Result{N: n, Half: half, L: make([]float32, n*half), R: make([]float32, n*half)}
	for i := range res.L {
		res.L[i] = float32(rng.NormFloat64())
		res.R[i] = float32(rng.NormFloat64())
	}
	lab := &pipeline.Labels{Class: make([]int, n), Classes: k}
	perm := rng.Perm(n)
	for i, v := range perm {
		lab.Class[v] = rng.IntN(k)
		switch {
		case i < n/4:
			lab.Train = append(lab.Train, v)
		case i < n/2:
			lab.Val = append(lab.Val, v)
		case i < n-3:
			lab.Test = append(lab.Test, v)
		default:
			lab.Class[v] = -1 // unlabelled, in no set
		}
	}
	return res, lab
}

// denseScores is the oracle's g(Y): the N x N matrix of pair scores,
// computed in float64 from the formula, not from pairScore.
func denseScores(res *pipeline.Result, score string) *mat.Dense {
	h := res.Half
	y := func(p []float32) *mat.Dense {
		m := mat.NewDense(res.N, h, nil)
		for i := 0; i < res.N; i++ {
			for j := 0; j < h; j++ {
				m.Set(i, j, float64(p[i*h+j]))
			}
		}
		return m
	}
	l, r := y(res.L), y(res.R)
	var g mat.Dense
	switch score {
	case ScoreLR:
		g.Mul(l, r.T())
	case ScoreSym:
		var gt mat.Dense
		g.Mul(l, r.T())
		gt.CloneFrom(g.T())
		g.Add(&g, &gt)
		g.Scale(0.5, &g)
	case ScoreDot:
		var rr mat.Dense
		g.Mul(l, l.T())
		rr.Mul(r, r.T())
		g.Add(&g, &rr)
	}
	return &g
}

// oracleAccuracy applies the paper's rule literally: L̃ = exp(α·G)·L_train
// with L_train the one-hot labels of the train rows, argmax per row.
func oracleAccuracy(g *mat.Dense, lab *pipeline.Labels, nodes []int, alpha float64) float64 {
	n, _ := g.Dims()
	var e mat.Dense
	e.Apply(func(_, _ int, x float64) float64 { return math.Exp(alpha * x) }, g)
	lt := mat.NewDense(n, lab.Classes, nil)
	for _, u := range lab.Train {
		lt.Set(u, lab.Class[u], 1)
	}
	var pred mat.Dense
	pred.Mul(&e, lt)
	correct := 0
	for _, v := range nodes {
		best := 0
		for c := 1; c < lab.Classes; c++ {
			if pred.At(v, c) > pred.At(v, best) {
				best = c
			}
		}
		if best == lab.Class[v] {
			correct++
		}
	}
	return float64(correct) / float64(len(nodes))
}

// TestClassifyAgainstDenseRule checks every (score, α) of the grid
// against the dense rule, and that Classify picks the best validated one.
// α stays at most 3 so that exp(α·G) does not overflow in the oracle
// (scores are below 30 here); the blocked implementation is exact at any
// α because it subtracts the largest exponent.
func TestClassifyAgainstDenseRule(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{60, 700} { // 700 nodes span several blocks
		res, lab := randomClassifyCase(uint64(n), n, 4, 3)
		alphas := []float64{0.01, 0.3, 1, 3}
		correct, err := classifyCorrect(ctx, res, lab, lab.Val, ClassifyScores, alphas)
		if err != nil {
			t.Fatal(err)
		}
		for si, score := range ClassifyScores {
			g := denseScores(res, score)
			for ai, a := range alphas {
				got := float64(correct[si][ai]) / float64(len(lab.Val))
				if want := oracleAccuracy(g, lab, lab.Val, a); got != want {
					t.Errorf("n=%d score=%s α=%g: accuracy %v, dense rule %v", n, score, a, got, want)
				}
			}
		}
	}

	res, lab := randomClassifyCase(3, 120, 4, 3)
	cr, err := Classify(ctx, res, lab)
	if err != nil {
		t.Fatal(err)
	}
	if len(cr.Grid) != len(ClassifyScores)*len(ClassifyAlphas) {
		t.Fatalf("grid of %d points", len(cr.Grid))
	}
	for _, p := range cr.Grid {
		if p.ValAccuracy > cr.ValAccuracy {
			t.Errorf("chose %s α=%g (%v) over %s α=%g (%v)", cr.Score, cr.Alpha, cr.ValAccuracy, p.Score, p.Alpha, p.ValAccuracy)
		}
	}
	if cr.Alpha <= 3 {
		if want := oracleAccuracy(denseScores(res, cr.Score), lab, lab.Test, cr.Alpha); cr.TestAccuracy != want {
			t.Errorf("test accuracy %v, dense rule %v", cr.TestAccuracy, want)
		}
	}
}

// TestClassifySeparable: embeddings that encode the class exactly
// classify every node correctly, for every score.
func TestClassifySeparable(t *testing.T) {
	n, k := 90, 3
	res := &pipeline.Result{N: n, Half: k, L: make([]float32, n*k), R: make([]float32, n*k)}
	lab := &pipeline.Labels{Class: make([]int, n), Classes: k}
	for v := 0; v < n; v++ {
		c := v % k
		lab.Class[v] = c
		res.L[v*k+c], res.R[v*k+c] = 1, 1
		switch {
		case v < 9:
			lab.Train = append(lab.Train, v)
		case v < 30:
			lab.Val = append(lab.Val, v)
		default:
			lab.Test = append(lab.Test, v)
		}
	}
	cr, err := Classify(context.Background(), res, lab)
	if err != nil {
		t.Fatal(err)
	}
	if cr.TestAccuracy != 1 || cr.ValAccuracy != 1 || cr.Score != ScoreLR || cr.Alpha != ClassifyAlphas[0] {
		t.Errorf("got %+v, want perfect accuracy at the first setting", cr)
	}
}

// TestClassifyWithoutValidation: a split without validation nodes tunes
// on the train nodes and says so (TunedOn), and its reported accuracy is
// the dense rule's on the train nodes; with them, TunedOn is validation.
func TestClassifyWithoutValidation(t *testing.T) {
	res, lab := randomClassifyCase(5, 80, 4, 3)
	cr, err := Classify(context.Background(), res, lab)
	if err != nil || cr.TunedOn != "validation" {
		t.Fatalf("with validation nodes: %+v, %v", cr, err)
	}
	lab.Val = nil
	cr, err = Classify(context.Background(), res, lab)
	if err != nil {
		t.Fatal(err)
	}
	if cr.TunedOn != "train" {
		t.Errorf("TunedOn %q, want train", cr.TunedOn)
	}
	if cr.Alpha <= 3 {
		if want := oracleAccuracy(denseScores(res, cr.Score), lab, lab.Train, cr.Alpha); cr.ValAccuracy != want {
			t.Errorf("accuracy on the tuning nodes %v, dense rule on the train nodes %v", cr.ValAccuracy, want)
		}
	}
}

func TestClassifyErrors(t *testing.T) {
	ctx := context.Background()
	res, lab := randomClassifyCase(1, 20, 2, 2)
	if _, err := Classify(ctx, &pipeline.Result{N: 5, Half: 2, L: make([]float32, 10), R: make([]float32, 10)}, lab); err == nil {
		t.Error("accepted labels for another number of nodes")
	}
	bad := *lab
	bad.Test = nil
	if _, err := Classify(ctx, res, &bad); err == nil {
		t.Error("accepted an empty test set")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Classify(cctx, res, lab); err != context.Canceled {
		t.Errorf("cancelled: got %v", err)
	}
}

// TestClassifyCancelInBlock: a cancel that arrives while a block of nodes
// is scored (at the context's third check; the validation and the test
// nodes are one block each) stops Classify with the context's error. It checked ctx once per block of 256 nodes, each
// scored against every train node under three scores and nine α: 18 s
// after a cancel with 43,690 train nodes.
func TestClassifyCancelInBlock(t *testing.T) {
	res, lab := randomClassifyCase(3, 200, 4, 3)
	ctx := &countdownCtx{Context: context.Background()}
	ctx.n.Store(3)
	if _, err := Classify(ctx, res, lab); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}
