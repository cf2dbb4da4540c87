package train_test

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/train"
)

// Run trains embeddings on the training graph of a link-prediction split
// and measures the test AUC on the held-out edges. The graph has 20
// planted communities of 20 nodes (edge probability 0.5 inside, 0.002
// across), so held-out edges are mostly inside a community and a short
// run ranks them well above random pairs (test AUC 0.91–0.94 for seeds
// 1–3; 0.5 is chance).
func ExampleRun() {
	ctx := context.Background()
	g, err := pipeline.PlantedPartition(400, 20, 0.5, 0.002, 1)
	if err != nil {
		panic(err)
	}
	split, err := pipeline.SplitEdges(ctx, g, 0.3, 1)
	if err != nil {
		panic(err)
	}
	trainGraph, err := split.TrainGraph(context.Background())
	if err != nil {
		panic(err)
	}
	res, err := train.Run(ctx, trainGraph, split, train.Config{Dim: 16, Epochs: 100, Seed: 1}, nil)
	if err != nil {
		panic(err)
	}
	var sum float64
	for _, q := range res.Q {
		sum += q
	}
	fmt.Println("nodes:", res.N, "width of L and R:", res.Half)
	fmt.Println("learned Q over k = 1 ..", len(res.Q), "sums to 1:", math.Abs(sum-1) < 1e-9)
	fmt.Println("test AUC above 0.8:", res.TestAUC > 0.8)
	// Output:
	// nodes: 400 width of L and R: 8
	// learned Q over k = 1 .. 10 sums to 1: true
	// test AUC above 0.8: true
}

// A run is stopped through its context: Run checks it between batches and
// returns the context's error, which errors.Is recognises. Here the
// Recorder, which sees every progress event, cancels the run at its first
// evaluation (after 5 of its 100 epochs).
func ExampleRun_cancel() {
	g, err := pipeline.PlantedPartition(400, 20, 0.5, 0.002, 1)
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var evals int
	rec := pipeline.RecordFunc(func(e pipeline.Event) {
		if e.Kind == pipeline.Eval {
			evals++
			cancel()
		}
	})
	_, err = train.Run(ctx, g, nil, train.Config{Dim: 16, Epochs: 100, Seed: 1}, rec)
	fmt.Println("evaluations:", evals)
	fmt.Println("cancelled:", errors.Is(err, context.Canceled))
	// Output:
	// evaluations: 1
	// cancelled: true
}
