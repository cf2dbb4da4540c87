package reference_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/reference"
	"github.com/wys-project/wys/sparse"
)

// Evaluate gives the exact objective and its gradients: here on a
// triangle with a pendant node, with L = R = 0 (every score σ = 1/2).
func ExampleEvaluate() {
	// Undirected edges 0-1, 1-2, 2-0, 2-3, both arcs.
	src := []int32{0, 1, 1, 2, 2, 0, 2, 3}
	dst := []int32{1, 0, 2, 1, 0, 2, 3, 2}
	adj, err := sparse.NewFromCOO(context.Background(), 4, 4, src, dst, nil, sparse.DupFirst)
	if err != nil {
		panic(err)
	}
	l := mat.NewDense(4, 2, nil)
	r := mat.NewDense(4, 2, nil)
	q := []float64{0, 0, 0} // Q uniform over k = 1, 2, 3
	for _, f := range []pipeline.Formulation{pipeline.FormulationPaper, pipeline.FormulationCode} {
		obj := pipeline.ObjectiveConfig{Formulation: f, C: 3}
		v, err := reference.Evaluate(context.Background(), adj, obj, l, r, q)
		if err != nil {
			panic(err)
		}
		// paper: every row of E[D] sums to 80, so Positive = 4·80·ln 2,
		// and the 8 zero entries of A give Negative = 8·ln 2. code: row v
		// sums to 80·4·deg(v), degrees sum to 8, and both terms are means
		// over 16 entries: Positive = 80·4·8/16·ln 2, Negative = 8/16·ln 2
		// (ln 2 slightly reduced by the 1e-5 epsilon).
		fmt.Printf("%s: loss %.4f = positive %.4f + negative %.4f + regulariser %.0f\n",
			f, v.Loss, v.Positive, v.Negative, v.Regularizer)
	}
	// Output:
	// paper: loss 227.3523 = positive 221.8071 + negative 5.5452 + regulariser 0
	// code: loss 111.2469 = positive 110.9003 + negative 0.3466 + regulariser 0
}
