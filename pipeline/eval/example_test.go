package eval_test

import (
	"context"
	"fmt"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/eval"
)

// Classify labels each test node by the paper's smooth nearest-neighbour
// rule over the train nodes, tuning the score and α on the validation
// nodes. Here every node's L and R rows are the one-hot vector of its
// class (nodes 0, 1, 2 in class 0; 3, 4, 5 in class 1), so a node scores
// 1 with the train nodes of its own class and 0 with the others, and
// every test node is labelled correctly.
func ExampleClassify() {
	class := []int{0, 0, 0, 1, 1, 1}
	res := &pipeline.Result{N: 6, Half: 2, L: make([]float32, 12), R: make([]float32, 12)}
	for v, c := range class {
		res.L[2*v+c], res.R[2*v+c] = 1, 1
	}
	lab := &pipeline.Labels{Class: class, Classes: 2,
		Train: []int{0, 3}, Val: []int{1, 4}, Test: []int{2, 5}}
	out, err := eval.Classify(context.Background(), res, lab)
	if err != nil {
		panic(err)
	}
	fmt.Println("test accuracy:", out.TestAccuracy)
	// Output:
	// test accuracy: 1
}
