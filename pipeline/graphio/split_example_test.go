package graphio_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
)

// Hold out a third of the edges of two triangles joined by an edge: the
// training graph keeps a spanning tree, so it stays connected.
func Example_splitEdges() {
	text := "a b\nb c\nc a\nc d\nd e\ne f\nf d\n"
	g, _, err := graphio.ReadEdgeList(context.Background(), strings.NewReader(text), "g", graphio.LoadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := pipeline.SplitEdges(context.Background(), g, 0.3, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d train, %d test, %d train negatives, %d test negatives\n", len(s.Train), len(s.Test), len(s.TrainNeg), len(s.TestNeg))

	// Asking for more than the edges outside a spanning tree fails.
	_, err = pipeline.SplitEdges(context.Background(), g, 0.5, 1)
	fmt.Println(err)
	// Output:
	// 5 train, 2 test, 5 train negatives, 2 test negatives
	// pipeline: cannot split the graph: 4 test edges asked (0.5 of 7), but only 2 edges lie outside a spanning forest, so holding out more would disconnect the training graph; lower the test fraction below 0.286
}
