package knn_test

import (
	"context"
	"fmt"

	"github.com/wys-project/wys/pipeline/knn"
)

// Search returns the rows of a table with the largest inner product with
// each query, best first. The query is row 0's own vector, and row 0 is
// excluded; of the others, row 2 scores 2·1 = 2, row 1 0.5·1 = 0.5 and
// row 3 −1, so the two best are rows 2 and 1.
func ExampleSearch() {
	table := []float32{
		1, 0, // row 0
		0.5, 0.5, // row 1
		2, 0, // row 2
		-1, 0, // row 3
	}
	query := table[0:2] // row 0's vector
	nb, err := knn.Search(context.Background(), table, 2, query, []int{0}, 2, 1)
	if err != nil {
		panic(err)
	}
	for _, n := range nb[0] {
		fmt.Printf("row %d score %g\n", n.Row, n.Score)
	}
	// Output:
	// row 2 score 2
	// row 1 score 0.5
}
