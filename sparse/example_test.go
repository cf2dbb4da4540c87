package sparse_test

import (
	"context"
	"fmt"

	"github.com/wys-project/wys/sparse"
)

// A directed graph of four nodes as a CSR, its transition matrix
// T = D⁻¹A, and the product T·x: each row of T·x is the mean of x over
// the node's out-neighbours.
func Example() {
	// Arcs 0→1, 0→2, 1→2, 2→0, 2→3, given out of order and with 0→1
	// twice; node 3 has no out-arcs.
	src := []int32{2, 0, 1, 0, 2, 0}
	dst := []int32{3, 1, 2, 2, 0, 1}
	a, err := sparse.NewFromCOO(context.Background(), 4, 4, src, dst, nil, sparse.DupFirst)
	if err != nil {
		panic(err)
	}
	fmt.Println("arcs:", a.NNZ())
	for i := 0; i < 4; i++ {
		idx, val := a.Row(i)
		fmt.Println("row", i, "columns", idx, "values", val)
	}

	t, dangling := a.RowNormalize()
	fmt.Println("dangling:", dangling)
	for i := 0; i < 4; i++ {
		_, val := t.Row(i)
		fmt.Println("T row", i, val)
	}

	x := []float64{1, 2, 3, 4}
	y := make([]float64, 4)
	t.MulVecTo(y, x)
	fmt.Println("T·x =", y)
	// Output:
	// arcs: 5
	// row 0 columns [1 2] values [1 1]
	// row 1 columns [2] values [1]
	// row 2 columns [0 3] values [1 1]
	// row 3 columns [] values []
	// dangling: [3]
	// T row 0 [0.5 0.5]
	// T row 1 [1]
	// T row 2 [0.5 0.5]
	// T row 3 []
	// T·x = [2.5 3 2.5 0]
}

// MulBlockTo multiplies by a row-major block of k columns; here T² as T
// times each column of T, for the 4-cycle 0–1–2–3–0 (two steps from a
// node return to it or reach the opposite node, each with probability ½).
func ExampleMulBlockTo() {
	src := []int32{0, 1, 1, 2, 2, 3, 3, 0}
	dst := []int32{1, 0, 2, 1, 3, 2, 0, 3}
	a, err := sparse.NewFromCOO(context.Background(), 4, 4, src, dst, nil, sparse.DupFirst)
	if err != nil {
		panic(err)
	}
	t, _ := a.RowNormalize()
	// b = T as a dense 4 x 4 block, row-major.
	b := make([]float64, 16)
	for i := 0; i < 4; i++ {
		idx, val := t.Row(i)
		for p, j := range idx {
			b[4*i+int(j)] = val[p]
		}
	}
	t2 := make([]float64, 16)
	if err := sparse.MulBlockTo(context.Background(), t2, t, b, 4, 2); err != nil {
		panic(err)
	}
	for i := 0; i < 4; i++ {
		fmt.Println(t2[4*i : 4*i+4])
	}
	// Output:
	// [0.5 0 0.5 0]
	// [0 0.5 0 0.5]
	// [0.5 0 0.5 0]
	// [0 0.5 0 0.5]
}
