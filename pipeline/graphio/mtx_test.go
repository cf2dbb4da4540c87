package graphio

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/wys-project/wys/pipeline"
)

// TestMatrixMarket reads Matrix Market files as the edge lists of their
// entries: the banner and size line are not edges (the size line was
// read as a self-loop and a node of its own), comments between them are
// allowed, -header does not skip the first entry, and weights come from
// the value column with -weighted.
func TestMatrixMarket(t *testing.T) {
	entries := "2 1 0.5\n3 2 1.5\n% a comment\n5 3 2\n1 5 4\n"
	plain, _, err := load(t, entries, LoadOptions{Weighted: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		text string
		opt  LoadOptions
	}{
		{"%%MatrixMarket matrix coordinate real symmetric\n% made by hand\n6 6 4\n" + entries, LoadOptions{Weighted: true}},
		{"%%MatrixMarket matrix coordinate real general\n6 6 4\n" + entries, LoadOptions{Weighted: true, Header: true}},
		{"\xef\xbb\xbf%%matrixmarket MATRIX Coordinate integer General\n  6 6 4  \n" + entries, LoadOptions{Weighted: true}},
	} {
		g, rep, err := load(t, c.text, c.opt)
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if rep.Format != "mtx" || rep.EdgesRead != 4 || rep.SelfLoops != 0 || g.N() != plain.N() ||
			!slices.Equal(g.Adj.Indptr, plain.Adj.Indptr) || !slices.Equal(g.Adj.Indices, plain.Adj.Indices) || !slices.Equal(g.Adj.Data, plain.Adj.Data) {
			t.Errorf("%q: format %q, %d entries, %d self-loops, %d nodes; want the edge list's %d nodes", c.text, rep.Format, rep.EdgesRead, rep.SelfLoops, g.N(), plain.N())
		}
	}
	// A plain edge list whose first line is a comment starting with %% is
	// not Matrix Market.
	if _, rep, err := load(t, "%% a comment\n1 2\n", LoadOptions{}); err != nil || rep.Format != "" || rep.EdgesRead != 1 {
		t.Errorf("%%%% comment: %v, %+v", err, rep)
	}
}

// TestMatrixMarketErrors: matrices that are not adjacency matrices, a
// symmetric one read as directed, and a size line that is malformed or
// disagrees with the entries are refused with the reason.
func TestMatrixMarketErrors(t *testing.T) {
	const entries = "2 1\n3 2\n"
	for text, want := range map[string]string{
		"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n":             "test.txt:1: malformed input: Matrix Market \"%%MatrixMarket matrix array real general\": a dense array is not an edge list",
		"%%MatrixMarket matrix coordinate complex general\n3 3 2\n" + entries:     "want pattern, real or integer entries",
		"%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n" + entries: "want a general or symmetric matrix",
		"%%MatrixMarket vector coordinate real general\n3 3 2\n" + entries:        "want \"%%MatrixMarket matrix coordinate FIELD SYMMETRY\"",
		"%%MatrixMarket matrix coordinate pattern general\n3 4 2\n" + entries:     "test.txt:2: malformed input: Matrix Market size line \"3 4 2\": a 3 x 4 matrix is not an adjacency matrix",
		"%%MatrixMarket matrix coordinate pattern general\n3 3\n" + entries:       "test.txt:2: malformed input: Matrix Market size line \"3 3\": want \"rows columns entries\"",
		"%%MatrixMarket matrix coordinate pattern general\n3 3 5\n" + entries:     "test.txt:2: malformed input: Matrix Market size line says 5 entries, the file holds 2: it is truncated",
		"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n" + entries:     "size line says 1 entry, the file holds 2",
		"%%MatrixMarket matrix coordinate pattern general\n3 3 2\n0 1\n1 2\n":     "test.txt:3: malformed input: Matrix Market entry index 0: indices run from 1 to 3, the size of the matrix (line 2)",
		"%%MatrixMarket matrix coordinate pattern general\n3 3 2\n2 1\n2 99\n":    "test.txt:4: malformed input: Matrix Market entry index 99: indices run from 1 to 3",
		"%%MatrixMarket matrix coordinate real general\n3 3 2\n2 1 1\n1.0 2 1\n":  "test.txt:4: malformed input: Matrix Market entry index 1.0",
	} {
		_, _, err := load(t, text, LoadOptions{})
		if err == nil || !errors.Is(err, pipeline.ErrFormat) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
	_, _, err := load(t, "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n"+entries, LoadOptions{Directed: true})
	if err == nil || !strings.Contains(err.Error(), "read it undirected (drop -directed)") {
		t.Errorf("symmetric, directed: %v", err)
	}
	_, _, err = load(t, "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n"+entries, LoadOptions{Weighted: true})
	if err == nil || !strings.Contains(err.Error(), "a pattern matrix has no values to weight its edges with: drop -weighted") {
		t.Errorf("pattern, weighted: %v", err)
	}
	// A .mtx name without the banner on line 1 (its size line would be
	// read as an edge).
	_, _, err = ReadEdgeList(context.Background(), strings.NewReader("% made by hand\n%%MatrixMarket matrix coordinate pattern general\n100 100 2\n"+entries), "g.mtx", LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "g.mtx:1: malformed input: a .mtx file starts with the Matrix Market banner") {
		t.Errorf(".mtx without the banner first: %v", err)
	}
}
