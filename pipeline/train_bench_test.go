package pipeline

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkTrain measures the sparse trainer's throughput in positive pairs
// per second (each with one negative pair, d = 128, C = 10) on the
// released ca-HepTh split, with 1 and 2 workers.
func BenchmarkTrain(b *testing.B) {
	s, err := LoadSplitDir(context.Background(), sharedPath(b, "ca-HepTh/asymproj"), false)
	if err != nil {
		b.Fatal(err)
	}
	g, err := s.TrainGraph()
	if err != nil {
		b.Fatal(err)
	}
	for _, opt := range []string{OptAdam, OptSGD} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("graph=ca-HepTh/opt=%s/workers=%d", opt, workers), func(b *testing.B) {
				cfg := TrainConfig{Epochs: 5, Workers: workers, Optimizer: opt, EvalEvery: 1000}
				var pairs int64
				b.ReportAllocs()
				for b.Loop() {
					res, err := TrainGraph(context.Background(), g, nil, cfg, nil)
					if err != nil {
						b.Fatal(err)
					}
					pairs += res.Stats.Pairs
				}
				b.ReportMetric(float64(pairs)/b.Elapsed().Seconds(), "pairs/s")
			})
		}
	}
}
