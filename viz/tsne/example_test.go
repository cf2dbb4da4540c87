package tsne_test

import (
	"context"
	"fmt"
	"math"

	"github.com/wys-project/wys/viz/tsne"
	"gonum.org/v1/gonum/mat"
)

// Two far-apart groups of points stay apart in the plane.
func ExampleEmbed() {
	x := mat.NewDense(8, 3, []float64{
		0, 0, 0, 0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1,
		5, 5, 5, 5.1, 5, 5, 5, 5.1, 5, 5, 5, 5.1,
	})
	y, err := tsne.Embed(context.Background(), x, tsne.Config{Perplexity: 3, Seed: 1, Iterations: 500})
	if err != nil {
		fmt.Println(err)
		return
	}
	dist := func(i, j int) float64 { return math.Hypot(y.At(i, 0)-y.At(j, 0), y.At(i, 1)-y.At(j, 1)) }
	fmt.Println("rows:", y.RawMatrix().Rows)
	fmt.Println("within a group closer than across:", dist(0, 1) < dist(0, 4) && dist(4, 5) < dist(1, 5))
	// Output:
	// rows: 8
	// within a group closer than across: true
}
