package train_test

import (
	"context"
	"testing"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/train"
)

// TestSelectionWithinNoise replays the model-selection rule on a run's
// curve: the kept step must be the last evaluation whose train AUC is at
// most the larger of train.SelectionStdErrs standard errors
// (Hanley–McNeil, on the train pairs) and min(1 − best,
// train.SelectionSaturation) below the best train AUC up to it, and the returned
// embeddings must be that step's (its test AUC, on every test pair,
// equals the one the curve recorded). On this run the train AUC
// saturates and the rule keeps a later step than the best, so the old
// rule (keep the best train AUC) fails the test.
func TestSelectionWithinNoise(t *testing.T) {
	t.Parallel()
	split, tg := communitySplit(t, 3)
	res, err := train.Run(context.Background(), tg, split, train.Config{Start: train.StartRandom, Dim: 16, Epochs: 800, EvalEvery: 20, Seed: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	best, argmax, want := -1.0, -1, -1
	var wantTest float64
	for _, p := range res.Curve {
		if p.TrainAUC > best {
			best, argmax = p.TrainAUC, p.Step
		}
		// The brute-force form of the floor: within k standard errors of
		// the best (the standard error at the best) or, if wider, within
		// the best's distance from 1 up to the saturation cap; or
		// saturated itself.
		se := pipeline.AUCStdErr(best, len(split.Train), len(split.TrainNeg))
		if best-p.TrainAUC <= max(train.SelectionStdErrs*se, min(1-best, train.SelectionSaturation)) ||
			p.TrainAUC >= 1-train.SelectionSaturation {
			want, wantTest = p.Step, p.TestAUC
		}
	}
	if res.BestStep != want {
		t.Fatalf("kept step %d, the rule replayed on the curve gives %d", res.BestStep, want)
	}
	if res.BestStep == argmax {
		t.Errorf("kept step %d is the one of the best train AUC: the run does not exercise the rule (%d evaluations)", argmax, len(res.Curve))
	}
	if got := pipeline.PairAUC(res.L, res.R, res.Half, split.Test, split.TestNeg); got != wantTest || res.TestAUC != wantTest {
		t.Errorf("test AUC of the returned embeddings %v (reported %v), of the kept step %v", got, res.TestAUC, wantTest)
	}
}

// TestSelectionMargin checks the margin against values worked out by
// hand from the Hanley–McNeil standard error (SE): where two SEs are
// wider it is two SEs, where the model misorders fewer than one train
// pair in a thousand it reaches down to 1 − SelectionSaturation (or
// further, to twice the best's error, when that is lower), and never
// more than SelectionSaturation from the best's distance from 1.
func TestSelectionMargin(t *testing.T) {
	for _, c := range []struct {
		best     float64
		pairs    int
		want     float64
		tolRatio float64
	}{
		{0.999896, 200000, 8.96e-4, 1e-9},  // down to 0.999; 2 SE = 3.22e-5
		{0.99935, 200000, 6.5e-4, 1e-9},    // twice the best's error: 0.9987 < 0.999
		{0.9999937, 73939, 9.937e-4, 1e-9}, // p2p-Gnutella31's peak
		{0.95, 200000, 1e-3, 1e-9},         // 2 SE = 7.13e-4, 1 - best = 0.05
		{0.95, 100, 0.0320149, 1e-5},       // 2 SE
		{0.9999, 50, 0.00201995, 1e-5},     // 2 SE, wider than 1 - best
		{1, 1000, 1e-3, 1e-9},              // a perfect best: down to 0.999
	} {
		got := train.SelectionMargin(c.best, c.pairs, c.pairs)
		if d := got - c.want; d > c.tolRatio*c.want || -d > c.tolRatio*c.want {
			t.Errorf("SelectionMargin(%v, %d, %d) = %v, want %v", c.best, c.pairs, c.pairs, got, c.want)
		}
	}
}

// TestFitPairs: a whole-graph run selects on its fit to a sample of the
// graph's own arcs; FitPairs gives that sample, so the returned
// embeddings score on it the train AUC the curve recorded at the kept
// step (what wys-beam reports as the fit of a bucketed run).
func TestFitPairs(t *testing.T) {
	t.Parallel()
	_, tg := communitySplit(t, 3)
	cfg := train.Config{Start: train.StartRandom, Dim: 16, Epochs: 100, EvalEvery: 20, Seed: 7, EvalPairs: 500}
	res, err := train.Run(context.Background(), tg, nil, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	pos, neg := train.FitPairs(tg, cfg.EvalPairs, cfg.Seed)
	if len(pos) != cfg.EvalPairs || len(neg) != cfg.EvalPairs {
		t.Fatalf("%d and %d pairs, want %d each", len(pos), len(neg), cfg.EvalPairs)
	}
	for _, p := range neg {
		if tg.Adj.Has(int(p.U), int(p.V)) {
			t.Fatalf("non-edge %v is an arc", p)
		}
	}
	got := pipeline.PairAUC(res.L, res.R, res.Half, pos, neg)
	for _, p := range res.Curve {
		if p.Step == res.BestStep {
			if got != p.TrainAUC {
				t.Fatalf("fit AUC on FitPairs %v, the run recorded %v at the kept step %d", got, p.TrainAUC, p.Step)
			}
			return
		}
	}
	t.Fatalf("kept step %d is not on the curve", res.BestStep)
}
