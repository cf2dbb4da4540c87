package outcheck

import "fmt"

// ThirdColumnNote is the note, shared by wys-sparse and wys-beam, for n
// edge lines read without weights that hold a third column; of names the
// lines counted ("of the 40 edge lines").
func ThirdColumnNote(n int, of string) string {
	return fmt.Sprintf("%d %s %s a third column, which is not read: add -weighted if it holds the edge weights", n, of, has(n))
}

// WideLinesNote is the note for n edge lines with more than three
// columns; of names the lines counted.
func WideLinesNote(n int, of string) string {
	return fmt.Sprintf("%d %s %s more than three columns, of which only \"u v [weight]\" are read: if each line is a node and its neighbours (an adjacency list, as networkx's write_adjlist writes), write an edge list instead (write_edgelist)", n, of, has(n))
}

// has is the verb of n things: "has" for one, else "have".
func has(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}
