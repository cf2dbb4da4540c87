package graphio_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
)

// WriteEmbeddings writes Y = [L | R] under the graph's own node ids, and
// ReadEmbeddings reads it back bit for bit: here two nodes named "a" and
// "b" with d = 4 (L and R two columns each), as a .npy file with its ids
// beside it. The marker file written beside it says the rows are [L | R].
func ExampleWriteEmbeddings() {
	dir, err := os.MkdirTemp("", "wys-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	ids, err := pipeline.NewIndexedIDs([]string{"a", "b"})
	if err != nil {
		panic(err)
	}
	res := &pipeline.Result{N: 2, Half: 2,
		L: []float32{1, 2, 3, 4}, // rows of L: a (1, 2), b (3, 4)
		R: []float32{5, 6, 7, 8}} // rows of R: a (5, 6), b (7, 8)
	path := filepath.Join(dir, "emb.npy")
	if err := graphio.WriteEmbeddings(context.Background(), path, "", res, ids); err != nil {
		panic(err)
	}
	e, err := graphio.ReadEmbeddings(context.Background(), path, graphio.ReadOptions{})
	if err != nil {
		panic(err)
	}
	l, r := e.Sides()
	fmt.Println("rows:", e.N(), "dim:", e.Dim, "halves:", e.Halves)
	fmt.Println("ids:", e.IDs.Name(0), e.IDs.Name(1))
	fmt.Println("same L and R:", slices.Equal(l, res.L) && slices.Equal(r, res.R))
	// Output:
	// rows: 2 dim: 4 halves: true
	// ids: a b
	// same L and R: true
}
