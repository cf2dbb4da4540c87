package train_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/train"
)

// averageConfig is a run of 375 batches whose last 225 are averaged:
// AverageSnapshots = 100 snapshots at most, so one every 3 batches.
func averageConfig() train.Config {
	return train.Config{Dim: 8, Epochs: 200, BatchWalks: 32, EvalEvery: 20, Seed: 5, Workers: 2, Average: 0.6}
}

// TestAverageMatchesSnapshots checks tail averaging against the mean, in
// float64, of the parameters that a run without it saves after every
// batch: the same run up to its end, so the snapshots are the states
// after the batches the documentation names (the last batch, and every
// third one before it within the last 225).
func TestAverageMatchesSnapshots(t *testing.T) {
	t.Parallel()
	g := smallGraph(60, 240, false, 4)
	const batches, window, every = 375, 225, 3
	var sumL, sumR []float64
	snapshots := 0
	plain := averageConfig()
	plain.Average, plain.CheckpointEvery = 0, time.Nanosecond
	plain.Checkpoint = func(st *train.State) error {
		done := st.Batch
		if done <= batches-window || (batches-done)%every != 0 || st.AvgL != nil {
			return nil
		}
		if sumL == nil {
			sumL, sumR = make([]float64, len(st.L)), make([]float64, len(st.R))
		}
		for i := range st.L {
			sumL[i] += float64(st.L[i])
			sumR[i] += float64(st.R[i])
		}
		snapshots++
		return nil
	}
	if _, err := train.Run(context.Background(), g, nil, plain, nil); err != nil {
		t.Fatal(err)
	}
	if snapshots != 75 {
		t.Fatalf("the plain run saved %d states in the window, want 75", snapshots)
	}

	var last *train.State
	var notes []string
	avg := averageConfig()
	avg.CheckpointEvery = time.Hour
	avg.Checkpoint = func(st *train.State) error { last = st; return nil }
	rec := pipeline.RecordFunc(func(e pipeline.Event) {
		if e.Kind == pipeline.Note {
			notes = append(notes, e.Message)
		}
	})
	res, err := train.Run(context.Background(), g, nil, avg, rec)
	if err != nil {
		t.Fatal(err)
	}
	if last == nil || last.Batch != batches || last.AvgN != snapshots {
		t.Fatalf("final state: %+v; want batch %d with %d snapshots", last, batches, snapshots)
	}
	if want := "averaged over the last 225 batches (75 snapshots, one every 3 batches)"; !slices.ContainsFunc(notes, func(s string) bool { return strings.Contains(s, want) }) {
		t.Errorf("notes %q; want one saying %q", notes, want)
	}
	var worst float64
	for i := range sumL {
		for _, d := range []float64{float64(last.L[i]) - sumL[i]/float64(snapshots), float64(last.R[i]) - sumR[i]/float64(snapshots)} {
			worst = max(worst, math.Abs(d))
		}
	}
	if worst > 2e-6 {
		t.Errorf("averaged parameters differ from the mean of the snapshots by up to %g", worst)
	}
	// The run's model is the average (the last evaluation, kept).
	if res.BestStep != batches || !slices.Equal(res.L, last.L) || !slices.Equal(res.R, last.R) {
		t.Errorf("result from step %d, not the averaged parameters of step %d", res.BestStep, batches)
	}

	// The same bytes on one worker.
	avg.Workers, avg.Checkpoint = 1, nil
	one, err := train.Run(context.Background(), g, nil, avg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one.L, res.L) || !slices.Equal(one.R, res.R) {
		t.Error("averaged run on 1 worker differs from 2 workers")
	}
}

// TestResumeAverage interrupts an averaged run inside its window and
// resumes it, on another worker count, to the same bytes.
func TestResumeAverage(t *testing.T) {
	t.Parallel()
	resumeAt(t, smallGraph(60, 240, false, 4), averageConfig(), 300, func(st *train.State) {
		if st.AvgN != 50 {
			t.Errorf("checkpoint at batch 300 holds %d snapshots averaged, want 50", st.AvgN)
		}
	})
}

// TestAverageKept: the averaged model is the result even when its train
// AUC falls below the best of the run by more than SelectionMargin (here
// with a small dimension, a short run and a high learning rate, whose
// early models fit the few train pairs best).
func TestAverageKept(t *testing.T) {
	t.Parallel()
	s, tg := plantedSplit(t)
	for seed := uint64(1); seed <= 6; seed++ {
		cfg := train.Config{Dim: 4, Epochs: 30, EvalEvery: 1, LR: 0.2, Average: 0.3, Seed: seed}
		res, err := train.Run(context.Background(), tg, s, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if last := res.Curve[len(res.Curve)-1].Step; res.BestStep != last {
			t.Errorf("seed %d: model of step %d kept, not the average of the run's end (step %d)", seed, res.BestStep, last)
		}
	}
}
