package graphio_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/wys-project/wys/pipeline/graphio"
)

// A SNAP-style edge list with a comment, CRLF line ends, a duplicate in
// the other direction and a self-loop, read as an undirected graph.
func ExampleReadEdgeList() {
	text := "# FromNodeId\tToNodeId\r\n30\t7\r\n7\t30\r\n7\t1000000000000\r\n5\t5\r\n"
	g, rep, err := graphio.ReadEdgeList(context.Background(), strings.NewReader(text), "tiny.txt", graphio.LoadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d nodes, %d arcs; %d edge lines, %d duplicate, %d self-loop dropped\n",
		g.N(), g.Adj.NNZ(), rep.EdgesRead, rep.Duplicates, rep.SelfLoops)
	for i := 0; i < g.N(); i++ {
		fmt.Printf("row %d is node %s\n", i, g.IDs.Name(i))
	}

	// Errors name the file and line.
	_, _, err = graphio.ReadEdgeList(context.Background(), strings.NewReader("1 2\n3\n"), "bad.txt", graphio.LoadOptions{})
	fmt.Println(err)
	// Output:
	// 4 nodes, 4 arcs; 4 edge lines, 1 duplicate, 1 self-loop dropped
	// row 0 is node 5
	// row 1 is node 7
	// row 2 is node 30
	// row 3 is node 1000000000000
	// bad.txt:2: malformed input: missing column: want "u v" or "u v weight" (split at the line's tabs if it has one, else its commas, else spaces), got "3" (an adjacency list, as networkx's write_adjlist writes, is not an edge list)
}
