package eval

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wys-project/wys/pipeline"
)

// syntheticClasses returns n rows of f standard normal features and one
// class per row, the argmax of a random linear score plus noise, so that
// a linear classifier gets many but not all rows right. Every fifth row
// is unlabelled (class −1).
func syntheticClasses(seed uint64, n, f, classes int) ([]float64, *pipeline.Labels) {
	rng := rand.New(rand.NewPCG(seed, 5))
	x, a := normals(rng, n*f), normals(rng, classes*f)
	lab := &pipeline.Labels{Class: make([]int, n), Classes: classes}
	for v := range n {
		best, bestZ := 0, math.Inf(-1)
		for c := range classes {
			z := 1.5 * rng.NormFloat64()
			for j := range f {
				z += a[c*f+j] * x[v*f+j]
			}
			if z > bestZ {
				best, bestZ = c, z
			}
		}
		lab.Class[v] = best
		switch {
		case v%5 == 4:
			lab.Class[v] = -1
		case v%5 == 3:
			lab.Val = append(lab.Val, v)
		case v%5 == 0 && v < n/2:
			lab.Train = append(lab.Train, v)
		default:
			lab.Test = append(lab.Test, v)
		}
	}
	return x, lab
}

// TestClassifyLogRegBruteForce compares ClassifyLogReg with a direct
// one-vs-rest rule written out here: one binary fit per class on the
// train rows, the class of highest margin for each test row, and the
// accuracy and per-class F1 counted from the predictions.
func TestClassifyLogRegBruteForce(t *testing.T) {
	for seed := range uint64(4) {
		const n, f, classes = 300, 6, 4
		x, lab := syntheticClasses(seed, n, f, classes)
		got, err := ClassifyLogReg(context.Background(), x, n, f, lab, MultiLabelConfig{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		cfg := LogRegConfig{}.resolve()
		xt := gatherRows(x, f, lab.Train)
		params := make([][]float64, classes)
		for c := range classes {
			y := make([]float64, len(lab.Train))
			for i, v := range lab.Train {
				y[i] = -1
				if lab.Class[v] == c {
					y[i] = 1
				}
			}
			if params[c], err = fitLogReg(context.Background(), newLogReg(xt, len(y), f, y, cfg.C), cfg); err != nil {
				t.Fatal(err)
			}
		}
		var tp, fp, fn [classes]int
		right := 0
		for _, v := range lab.Test {
			pred, best := -1, math.Inf(-1)
			for c, p := range params {
				s := p[f]
				for j := range f {
					s += p[j] * x[v*f+j]
				}
				if s > best {
					pred, best = c, s
				}
			}
			if pred == lab.Class[v] {
				right++
				tp[pred]++
			} else {
				fp[pred]++
				fn[lab.Class[v]]++
			}
		}
		macro, present := 0.0, 0 // over the classes true or predicted
		for c := range classes {
			if d := 2*tp[c] + fp[c] + fn[c]; d > 0 {
				macro += 2 * float64(tp[c]) / float64(d)
				present++
			}
		}
		macro /= float64(present)
		acc := float64(right) / float64(len(lab.Test))
		if math.Abs(got.TestAccuracy-acc) > 1e-12 || math.Abs(got.TestMacroF1-macro) > 1e-12 {
			t.Errorf("seed %d: accuracy %v Macro-F1 %v, brute force %v %v", seed, got.TestAccuracy, got.TestMacroF1, acc, macro)
		}
		if acc < 0.5 || acc > 0.95 {
			t.Errorf("seed %d: accuracy %v: the synthetic problem should be learnable but noisy", seed, acc)
		}
		if got.Train != len(lab.Train) || got.Test != len(lab.Test) || got.Classes != classes || got.Features != f || got.C != 1 {
			t.Errorf("seed %d: result %+v", seed, got)
		}
	}
}

// TestClassifyLogRegClassNumbers checks that the scores do not depend on
// how the classes are numbered: classes 3c+1 (1-based, with gaps) and a
// class carried by a validation row only score as classes 0..K−1, whose
// Macro-F1 averages over the K classes of the test rows, not over the
// largest number + 1.
func TestClassifyLogRegClassNumbers(t *testing.T) {
	const n, f, classes = 300, 6, 4
	x, lab := syntheticClasses(7, n, f, classes)
	want, err := ClassifyLogReg(context.Background(), x, n, f, lab, MultiLabelConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range lab.Class {
		if c >= 0 {
			lab.Class[i] = 3*c + 1
		}
	}
	lab.Class[lab.Val[0]] = 1000
	lab.Classes = 1001
	got, err := ClassifyLogReg(context.Background(), x, n, f, lab, MultiLabelConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if got.TestAccuracy != want.TestAccuracy || got.TestMacroF1 != want.TestMacroF1 {
		t.Errorf("classes 3c+1: accuracy %v Macro-F1 %v; classes 0..%d: %v %v", got.TestAccuracy, got.TestMacroF1, classes-1, want.TestAccuracy, want.TestMacroF1)
	}
	if got.Classes != classes+1 || want.Classes != classes {
		t.Errorf("classes fitted: %d and %d, want %d and %d", got.Classes, want.Classes, classes+1, classes)
	}
}

// TestClassifyLogRegErrors checks that bad inputs are refused.
func TestClassifyLogRegErrors(t *testing.T) {
	x, lab := syntheticClasses(1, 50, 3, 3)
	ctx := context.Background()
	if _, err := ClassifyLogReg(ctx, x[:30], 10, 3, lab, MultiLabelConfig{}); err == nil {
		t.Error("labels for 50 nodes and features for 10 accepted")
	}
	noTest := *lab
	noTest.Test = nil
	if _, err := ClassifyLogReg(ctx, x, 50, 3, &noTest, MultiLabelConfig{}); err == nil {
		t.Error("empty test set accepted")
	}
	unlabelled := *lab
	unlabelled.Test = append([]int{4}, lab.Test...) // row 4 has class −1
	if _, err := ClassifyLogReg(ctx, x, 50, 3, &unlabelled, MultiLabelConfig{}); err == nil {
		t.Error("an unlabelled test row accepted")
	}
}
