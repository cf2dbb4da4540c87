package train

import (
	"context"
	"fmt"
	"testing"

	"github.com/wys-project/wys/internal/datasets"
	"github.com/wys-project/wys/pipeline/graphio"
)

// BenchmarkTrain measures the sparse trainer's throughput in positive pairs
// per second (with 1 or 5 negative pairs each, d = 128, C = 10) on the
// released ca-HepTh split, with 1 and 2 workers.
func BenchmarkTrain(b *testing.B) {
	s, err := graphio.LoadSplitDir(context.Background(), datasets.Path(b, "ca-HepTh/asymproj"), false)
	if err != nil {
		b.Fatal(err)
	}
	g, err := s.TrainGraph(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	for _, opt := range []string{OptAdam, OptSGD} {
		for _, neg := range []int{1, 5} {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("graph=ca-HepTh/opt=%s/neg=%d/workers=%d", opt, neg, workers), func(b *testing.B) {
					cfg := Config{Epochs: 5, Workers: workers, Optimizer: opt, Negatives: neg, EvalEvery: 1000}
					var pairs int64
					b.ReportAllocs()
					for b.Loop() {
						res, err := Run(context.Background(), g, nil, cfg, nil)
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
}
