package outcheck

import (
	"fmt"
	"strings"
)

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

// LeadingZeroNote is the note, shared by wys-sparse and wys-beam, on
// ids read as tokens from the edge line at ("line 12", or "line 12 of
// FILE"), whose id has a leading zero.
func LeadingZeroNote(at, id string) string {
	plain := strings.TrimLeft(id, "0")
	if plain == "" {
		plain = "0"
	}
	return fmt.Sprintf("the ids are read as tokens from %s, whose id %s has a leading zero, so %s and %s are two nodes; add -ids int to read every id as a number", at, id, id, plain)
}

// TokenIDNote is the note on ids read as tokens from the edge line at,
// whose id is not written as an integer while every id before it was.
func TokenIDNote(at, id string) string {
	return fmt.Sprintf("the ids are read as tokens from %s, whose id %q is not written as an integer while every id before it was: if that line is a typo or a stray header, fix it (ids such as +1 or 1.0 are nodes of their own, apart from 1)", at, id)
}
