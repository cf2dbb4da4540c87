package pipeline

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedPath returns the path of rel under shared/datasets beside the
// repository, or skips the test when the mirror is absent.
func sharedPath(tb testing.TB, rel string) string {
	tb.Helper()
	dir, _ := os.Getwd()
	for {
		p := filepath.Join(dir, "shared", "datasets", rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skipf("shared/datasets/%s not found beside the repository; CI provides it", rel)
		}
		dir = parent
	}
}

// TestLoadSharedEdgeLists checks every edge list of the data mirror against
// the counts in shared/datasets/MANIFEST.md, measured there by an
// independent parser.
func TestLoadSharedEdgeLists(t *testing.T) {
	cases := []struct {
		file      string
		directed  bool
		nodes     int
		lines     int // edge lines
		unique    int // distinct edges (undirected pairs or arcs), self-loops included
		selfLoops int
	}{
		{"ca-HepTh/CA-HepTh.txt.gz", false, 9877, 51971, 25998, 25},
		{"ego-Facebook/facebook_combined.txt.gz", false, 4039, 88234, 88234, 0},
		{"email-Enron/Email-Enron.txt.gz", false, 36692, 367662, 183831, 0},
		{"p2p-Gnutella31/p2p-Gnutella31.txt.gz", true, 62586, 147892, 147892, 0},
		{"soc-Slashdot0902/soc-Slashdot0902.txt.gz", true, 82168, 948464, 948464, 78303},
		{"Cora/cora.edges.tsv.gz", false, 2708, 5278, 5278, 0},
	}
	for _, c := range cases {
		t.Run(filepath.Dir(c.file), func(t *testing.T) {
			if testing.Short() && c.lines > 200000 {
				t.Skip("large file; skipped under -short")
			}
			path := sharedPath(t, c.file)
			g, rep, err := LoadEdgeList(context.Background(), path, LoadOptions{Directed: c.directed})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Nodes != c.nodes || rep.EdgesRead != c.lines || rep.UniqueEdges != c.unique || rep.SelfLoops != c.selfLoops {
				t.Errorf("got nodes %d, edge lines %d, unique %d, self-loops %d; MANIFEST says %d, %d, %d, %d",
					rep.Nodes, rep.EdgesRead, rep.UniqueEdges, rep.SelfLoops, c.nodes, c.lines, c.unique, c.selfLoops)
			}
			wantArcs := c.unique - c.selfLoops
			if !c.directed {
				wantArcs *= 2
			}
			if rep.Arcs != wantArcs || g.Adj.NNZ() != wantArcs {
				t.Errorf("stored %d arcs, want %d", g.Adj.NNZ(), wantArcs)
			}
			if g.N() != c.nodes || g.IDs.Len() != c.nodes {
				t.Errorf("graph has %d rows, %d ids; want %d", g.N(), g.IDs.Len(), c.nodes)
			}
			if !c.directed && !g.Adj.IsSymmetric() {
				t.Error("undirected graph is not symmetric")
			}
			if err := g.Adj.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func load(t *testing.T, text string, opt LoadOptions) (*Graph, *LoadReport, error) {
	t.Helper()
	return ReadEdgeList(context.Background(), strings.NewReader(text), "test.txt", opt)
}

func TestReadEdgeListFormats(t *testing.T) {
	t.Parallel()
	// The same graph written five ways.
	texts := map[string]string{
		"lf":        "# comment\n1 2\n2 3\n3 1\n",
		"crlf":      "# comment\r\n1\t2\r\n2\t3\r\n3\t1\r\n",
		"no-final":  "% comment\n1 2\n2 3\n3 1",
		"blank":     "\n1 2\n\n  2   3  \n3 1\n\n",
		"dup+loops": "1 2\n2 1\n2 3\n3 1\n3 3\n1 2\n",
	}
	for name, text := range texts {
		g, rep, err := load(t, text, LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if g.N() != 3 || g.Adj.NNZ() != 6 {
			t.Errorf("%s: %d nodes, %d arcs; want 3, 6", name, g.N(), g.Adj.NNZ())
		}
		if name == "dup+loops" && (rep.SelfLoops != 1 || rep.Duplicates != 2) {
			t.Errorf("dup+loops: report %+v", rep)
		}
	}
	// gzip is detected by content, not name.
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(texts["lf"]))
	zw.Close()
	g, _, err := ReadEdgeList(context.Background(), &buf, "plain-name.txt", LoadOptions{})
	if err != nil || g.N() != 3 {
		t.Fatalf("gzip: %v", err)
	}
}

func TestReadEdgeListIDs(t *testing.T) {
	t.Parallel()
	// Numeric ids sort numerically, and the largest uint64 is allowed.
	g, _, err := load(t, "10 9\n9 18446744073709551615\n", LoadOptions{Directed: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{g.IDs.Name(0), g.IDs.Name(1), g.IDs.Name(2)}; got[0] != "9" || got[1] != "10" || got[2] != "18446744073709551615" {
		t.Errorf("numeric order: %v", got)
	}
	if !g.Adj.Has(1, 0) || !g.Adj.Has(0, 2) || g.Adj.NNZ() != 2 {
		t.Error("arcs not mapped through the sorted ids")
	}
	// Tokens sort as strings.
	g, _, err = load(t, "bob alice\ncarol bob\n", LoadOptions{Directed: true})
	if err != nil {
		t.Fatal(err)
	}
	if g.IDs.Name(0) != "alice" || g.IDs.Name(2) != "carol" || !g.Adj.Has(1, 0) {
		t.Error("token ids")
	}
	if r, ok := g.IDs.Row("carol"); !ok || r != 2 {
		t.Error("Row lookup")
	}
	// Weighted, undirected: both arcs take the first line's weight.
	g, _, err = load(t, "1 2 2.5\n2 1 7\n2 3 1\n", LoadOptions{Weighted: true})
	if err != nil {
		t.Fatal(err)
	}
	if g.Adj.At(0, 1) != 2.5 || g.Adj.At(1, 0) != 2.5 || !g.Adj.IsSymmetric() {
		t.Errorf("weights: %v %v", g.Adj.At(0, 1), g.Adj.At(1, 0))
	}
}

func TestReadEdgeListErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text string
		opt        LoadOptions
		sentinel   error
		line       int
		mention    string
	}{
		{"missing column", "1 2\n3\n", LoadOptions{}, ErrFormat, 2, "missing column"},
		{"non-numeric id after numeric", "1 2\n2 x\n", LoadOptions{}, ErrFormat, 2, `"x"`},
		{"integer mode", "a b\n", LoadOptions{IDs: IDInteger}, ErrFormat, 1, `"a"`},
		{"negative id", "1 2\n-3 4\n", LoadOptions{}, ErrFormat, 2, `"-3"`},
		{"missing weight", "1 2 1\n2 3\n", LoadOptions{Weighted: true}, ErrFormat, 2, "missing weight"},
		{"negative weight", "1 2 -1\n", LoadOptions{Weighted: true}, ErrFormat, 1, "not positive"},
		{"bad weight", "1 2 abc\n", LoadOptions{Weighted: true}, ErrFormat, 1, "not a finite number"},
		{"nan weight", "1 2 NaN\n", LoadOptions{Weighted: true}, ErrFormat, 1, "not a finite number"},
		{"empty", "# only a comment\n\n", LoadOptions{}, ErrEmptyGraph, 0, "no edge lines"},
		{"only self-loops", "1 1\n2 2\n", LoadOptions{}, ErrEmptyGraph, 0, "self-loop"},
		{"bad gzip", "\x1f\x8bnot really gzip", LoadOptions{}, ErrFormat, 0, "gzip"},
	}
	for _, c := range cases {
		_, _, err := load(t, c.text, c.opt)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != "test.txt" || pe.Line != c.line {
			t.Errorf("%s: %v is not a ParseError at test.txt:%d", c.name, err, c.line)
		}
		if !errors.Is(err, c.sentinel) {
			t.Errorf("%s: %v does not wrap %v", c.name, err, c.sentinel)
		}
		if !strings.Contains(err.Error(), c.mention) {
			t.Errorf("%s: %q does not mention %q", c.name, err, c.mention)
		}
	}
	if _, _, err := LoadEdgeList(context.Background(), "/no/such/file.txt", LoadOptions{}); err == nil || !strings.Contains(err.Error(), "/no/such/file.txt") {
		t.Errorf("missing file: %v", err)
	}
	// Self-loops can be kept.
	g, rep, err := load(t, "1 1\n1 2\n", LoadOptions{KeepSelfLoops: true})
	if err != nil || !g.Adj.Has(0, 0) || rep.SelfLoops != 1 {
		t.Errorf("keep self-loops: %v %+v", err, rep)
	}
}

func FuzzReadEdgeList(f *testing.F) {
	for _, s := range []string{
		"1 2\n2 3\n", "# c\r\n1\t2\r\n", "a b 1.5\nb c 2\n", "1 2 3 4 5\n", "\x1f\x8b\x08",
		"18446744073709551615 0\n", "1\n", "1 1\n", "% x\n\n\n", "1 2 -0\n", "1 2 1e308\n",
	} {
		f.Add(s, false, false)
		f.Add(s, true, true)
	}
	f.Fuzz(func(t *testing.T, text string, directed, weighted bool) {
		g, rep, err := ReadEdgeList(context.Background(), strings.NewReader(text), "fuzz", LoadOptions{Directed: directed, Weighted: weighted})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a ParseError", err)
			}
			return
		}
		if err := g.Adj.Validate(); err != nil {
			t.Fatal(err)
		}
		if g.N() != g.IDs.Len() || g.N() != rep.Nodes || g.Adj.NNZ() == 0 {
			t.Fatalf("inconsistent graph: %d rows, %d ids, report %+v", g.N(), g.IDs.Len(), rep)
		}
		if !directed && !g.Adj.IsSymmetric() {
			t.Fatal("undirected graph not symmetric")
		}
		for i := 0; i < g.N(); i++ {
			if r, ok := g.IDs.Row(g.IDs.Name(i)); !ok || r != i {
				t.Fatalf("id round trip failed for row %d (%q)", i, g.IDs.Name(i))
			}
		}
	})
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }
