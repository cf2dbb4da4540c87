package baseline_test

import (
	"context"
	"fmt"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/baseline"
)

// Run embeds the training graph of a split with a spectral baseline and
// scores the held-out edges, as the trainers do. On 20 planted
// communities of 20 nodes, the truncated SVD of A ranks held-out edges
// well above random pairs (0.5 is chance).
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
	res, err := baseline.Run(ctx, trainGraph, split, baseline.Config{Method: baseline.MethodSVD, Dim: 40, Seed: 1}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("method:", res.Method, "nodes:", res.N, "width of L and R:", res.Half)
	fmt.Println("test AUC above 0.8:", res.TestAUC > 0.8)
	// Output:
	// method: svd nodes: 400 width of L and R: 20
	// test AUC above 0.8: true
}
