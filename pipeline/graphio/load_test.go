package graphio

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wys-project/wys/internal/ctxtest"
	"github.com/wys-project/wys/internal/datasets"
	"github.com/wys-project/wys/pipeline"
)

// TestLoadSharedEdgeLists checks every edge list of the data mirror against
// the counts in shared/datasets/MANIFEST.md, measured there by an
// independent parser.
func TestLoadSharedEdgeLists(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every SNAP graph of the data mirror (over 1 s); skipped under -short")
	}
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
			path := datasets.Path(t, c.file)
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

func gzipped(t testing.TB, text string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func load(t *testing.T, text string, opt LoadOptions) (*pipeline.Graph, *LoadReport, error) {
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
	// CSV: commas separate fields, and Header skips column names.
	for _, text := range []string{"1,2\n2,3\n3,1\n", "src,dst\r\n1, 2\r\n2 ,3\r\n3,1", "\xef\xbb\xbf source , dst \n1,2\n2,3\n3,1\n"} {
		opt := LoadOptions{Header: !strings.HasPrefix(text, "1")}
		g, rep, err := load(t, text, opt)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if g.N() != 3 || g.Adj.NNZ() != 6 || !g.IDs.Numeric() || rep.EdgesRead != 3 {
			t.Errorf("%q: %d nodes, %d arcs, numeric ids %v, %d edge lines; want 3, 6, true, 3", text, g.N(), g.Adj.NNZ(), g.IDs.Numeric(), rep.EdgesRead)
		}
		if want := map[bool]string{true: strings.TrimSpace(strings.TrimPrefix(strings.Split(text, "\n")[0], "\xef\xbb\xbf")), false: ""}[opt.Header]; rep.Header != want {
			t.Errorf("%q: header %q, want %q", text, rep.Header, want)
		}
	}
	if _, _, err := load(t, "\xef\xbb\xbf source , dst \n1,2\n", LoadOptions{}); err == nil || !strings.Contains(err.Error(), `"source , dst" looks like a header`) {
		t.Errorf("header without Header: %v", err)
	}
	// A first line of words is an edge when other lines have words too.
	if g, _, err := load(t, "src dst\n1 2\nx 2\n", LoadOptions{}); err != nil || g.N() != 5 {
		t.Errorf("tokens: %v", err)
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
	// Weighted, undirected: both arcs take the first line's weight; the
	// report counts the repeats of another weight (2 1 7, 1 2 3 and the
	// kept self-loop's 3 3 5), not those of the same (3 2 1, 3 3 4).
	g, rep, err := load(t, "1 2 2.5\n2 1 7\n2 3 1\n3 2 1\n1 2 3\n3 3 4\n3 3 5\n3 3 4\n", LoadOptions{Weighted: true, KeepSelfLoops: true})
	if err != nil {
		t.Fatal(err)
	}
	if g.Adj.At(0, 1) != 2.5 || g.Adj.At(1, 0) != 2.5 || g.Adj.At(2, 2) != 4 || !g.Adj.IsSymmetric() {
		t.Errorf("weights: %v %v %v", g.Adj.At(0, 1), g.Adj.At(1, 0), g.Adj.At(2, 2))
	}
	if rep.Duplicates != 5 || rep.OtherWeights != 3 {
		t.Errorf("%d repeats, %d of another weight; want 5 and 3", rep.Duplicates, rep.OtherWeights)
	}
	// Directed: an arc's repeat alone (2 1 is another arc).
	if _, rep, err = load(t, "1 2 2.5\n2 1 7\n1 2 3\n1 2 2.5\n", LoadOptions{Weighted: true, Directed: true}); err != nil || rep.Duplicates != 2 || rep.OtherWeights != 1 {
		t.Errorf("directed: %v, %d repeats, %d of another weight; want 2 and 1", err, rep.Duplicates, rep.OtherWeights)
	}
	// A weight at float32's smallest normal number, 2^-126, is accepted
	// (TestReadEdgeListErrors: one below it is refused).
	g, _, err = load(t, "1 2 1\n2 3 1.1754943508222875e-38\n", LoadOptions{Weighted: true})
	if err != nil || g.Adj.At(1, 2) != 1.1754943508222875e-38 {
		t.Errorf("weight 2^-126: %v", err)
	}
}

func TestReadEdgeListErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text string
		opt        LoadOptions
		sentinel   error
		line       int // -1: any line
		mention    string
	}{
		{"missing column", "1 2\n3\n", LoadOptions{}, pipeline.ErrFormat, 2, "missing column"},
		{"quoted id", "1 2\n\"a b\",c\n", LoadOptions{}, pipeline.ErrFormat, 2, "node id `\"a b\"` starts or ends with a quote mark; quotes are not read"},
		{"semicolons", "1;2\n2;3\n", LoadOptions{}, pipeline.ErrFormat, 1, `got "1;2" (the columns seem to be separated by ';', which is not read: separate them by tabs, commas or spaces, e.g. tr ';' '\t')`},
		{"half-quoted id", "\"a,b\n", LoadOptions{}, pipeline.ErrFormat, 1, "node id `\"a` starts or ends with a quote mark"},
		{"quoted ids", "\"1\",\"2\"\n", LoadOptions{}, pipeline.ErrFormat, 1, "node id `\"1\"` starts or ends with a quote mark"},
		// networkx's write_multiline_adjlist: "node degree", then a
		// neighbour and its data dictionary per line.
		{"multiline adjacency list", "0 2\n1 {}\n2 {}\n", LoadOptions{}, pipeline.ErrFormat, 2, "node id `{}` is a networkx data dictionary, as write_multiline_adjlist writes"},
		{"multiline adjacency list with weights", "0 1\n1 {'weight': 2}\n", LoadOptions{}, pipeline.ErrFormat, 2, "node id `{'weight':` is a networkx data dictionary"},
		{"id of 2^64", "99999999999999999999 1\n1 2\n2 3\n", LoadOptions{}, pipeline.ErrFormat, 1, "node id 99999999999999999999 is 2^64 or more, which is read as a token, while every other line's ids are integers: read all ids as tokens (-ids token)"},
		{"negative id", "1 2\n-1 -2\n", LoadOptions{IDs: IDInteger}, pipeline.ErrFormat, 2, "node id -1 is negative: ids read as integers (-ids int) must be non-negative and below 2^64"},
		{"weights overflow", "1 2 1e308\n2 3 1e308\n", LoadOptions{Weighted: true}, pipeline.ErrFormat, 0, "the arcs' weights (an undirected edge is two arcs) sum to +Inf, beyond the float32 range (3.4e38) the factorizations compute in (the largest weight is 1e+308): divide them by a constant"},
		{"weights beyond float32", "1 2 1e38\n2 3 1e38\n", LoadOptions{Weighted: true}, pipeline.ErrFormat, 0, "the arcs' weights (an undirected edge is two arcs) sum to 4e+38, beyond the float32 range (3.4e38) the factorizations compute in (the largest weight is 1e+38): divide them by a constant"},
		{"weight below float32", "1 2 1\n2 3 1e-80\n", LoadOptions{Weighted: true}, pipeline.ErrFormat, 0, "the smallest weight, 1e-80, is below the float32 range (1.2e-38) the factorizations compute in, so that a degree or its inverse may round to 0 or overflow: multiply the weights by a constant"},
		{"weight just below float32", "1 2 1\n2 3 1.1e-38\n", LoadOptions{Weighted: true}, pipeline.ErrFormat, 0, "the smallest weight, 1.1e-38,"},
		{"npy", "\x93NUMPY\x01\x00v\x00{}\n", LoadOptions{}, pipeline.ErrFormat, 1, "a NUL byte: this is a NumPy .npy array, not text"},
		// Compressed, archived, pickled or UTF-16 files, by their first
		// bytes (the formats' magic numbers), with the line that helps.
		{"bzip2", "BZh91AY&SY\x12\x34\n1 2\n", LoadOptions{}, pipeline.ErrFormat, 1, "this is bzip2-compressed: only plain or gzip text is read; bunzip2 -k it"},
		{"xz", "\xfd7zXZ\x00\x00\x04\n", LoadOptions{}, pipeline.ErrFormat, 1, "a NUL byte: this is xz-compressed"},
		{"zstd", "\x28\xb5\x2f\xfd\x24\n", LoadOptions{}, pipeline.ErrFormat, 1, "this is zstd-compressed"},
		{"zip", "PK\x03\x04\x14\n1 2\n", LoadOptions{}, pipeline.ErrFormat, 1, "this is a zip archive: only plain or gzip text is read; unzip it"},
		{"pickle", "\x80\x04\x95\x10\n", LoadOptions{}, pipeline.ErrFormat, 1, "this is a Python pickle, not text"},
		{"utf-16", "\xff\xfe1\x00 \x002\x00\n\x00", LoadOptions{}, pipeline.ErrFormat, 1, "a NUL byte: this is UTF-16 text"},
		{"mat", "MATLAB 5.0 MAT-file\x00\x01", LoadOptions{}, pipeline.ErrFormat, 1, "a MATLAB .mat file, not text: give it where .mat files are read"},
		{"binary", "1 2\n\x01\x00\x02\n", LoadOptions{}, pipeline.ErrFormat, 2, "a NUL byte: this is a binary file, not text"},
		{"integer mode", "a b\n", LoadOptions{IDs: IDInteger}, pipeline.ErrFormat, 1, `"a"`},
		{"integer mode later", "1 2\n2 x\n", LoadOptions{IDs: IDInteger}, pipeline.ErrFormat, 2, `"x"`},
		{"negative id in integer mode", "1 2\n-3 4\n", LoadOptions{IDs: IDInteger}, pipeline.ErrFormat, 2, "node id -3 is negative"},
		{"CR inside a line", "1 2\r3 4\r", LoadOptions{}, pipeline.ErrFormat, 1, "carriage return"},
		{"zero weight", "1 2 0\n", LoadOptions{Weighted: true}, pipeline.ErrFormat, 1, "not positive"},
		{"infinite weight", "1 2 1e400\n", LoadOptions{Weighted: true}, pipeline.ErrFormat, 1, "not a finite number"},
		{"truncated gzip", string(gzipped(t, "1 2\n2 3\n")[:20]), LoadOptions{}, pipeline.ErrFormat, -1, "gzip"},
		{"long line", "1 2\n" + strings.Repeat("9", maxLine+10) + "\n", LoadOptions{}, pipeline.ErrFormat, 2, "longer than"},
		{"missing weight", "1 2 1\n2 3\n", LoadOptions{Weighted: true}, pipeline.ErrFormat, 2, "missing weight"},
		{"negative weight", "1 2 -1\n", LoadOptions{Weighted: true}, pipeline.ErrFormat, 1, "not positive"},
		{"bad weight", "1 2 abc\n", LoadOptions{Weighted: true}, pipeline.ErrFormat, 1, "not a finite number"},
		{"networkx data", "0 1 {'weight': 4, 'color': 'red'}\n", LoadOptions{}, pipeline.ErrFormat, 1, "a dictionary with commas, as networkx's write_edgelist writes"},
		{"networkx data, weighted", "0 1 {'weight': 4, 'color': 'red'}\n", LoadOptions{Weighted: true}, pipeline.ErrFormat, 1, "write_edgelist(G, path, data=False)"},
		{"nan weight", "1 2 NaN\n", LoadOptions{Weighted: true}, pipeline.ErrFormat, 1, "not a finite number"},
		{"empty", "# only a comment\n\n", LoadOptions{}, pipeline.ErrEmptyGraph, 0, "no edge lines"},
		{"only self-loops", "1 1\n2 2\n", LoadOptions{}, pipeline.ErrEmptyGraph, 0, "self-loop"},
		{"bad gzip", "\x1f\x8bnot really gzip", LoadOptions{}, pipeline.ErrFormat, 0, "gzip"},
		{"float ids on line 1", "1.0 2.0\n2 3\n3 1\n", LoadOptions{}, pipeline.ErrFormat, 1, "node id 1.0 is an integer written as a float, read as a token apart from node 1, while every other line's ids are integers"},
		{"header read as an edge", "# from a spreadsheet\nsource,target\n1,2\n2,007\n", LoadOptions{}, pipeline.ErrFormat, 2, `"source,target" looks like a header`},
		{"header read as weights", "u v w\n1 2 1\n", LoadOptions{Weighted: true}, pipeline.ErrFormat, 1, "skip it (-header)"},
		{"header read as integers", "u v\n1 2\n", LoadOptions{IDs: IDInteger}, pipeline.ErrFormat, 1, "skip it (-header)"},
	}
	for _, c := range cases {
		_, _, err := load(t, c.text, c.opt)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		var pe *pipeline.ParseError
		if !errors.As(err, &pe) || pe.File != "test.txt" || (c.line >= 0 && pe.Line != c.line) {
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

// edgeListOracle is a slow, direct reading of the edge-list rules in
// ReadEdgeList's documentation (maps keyed by id text, no sorting tricks),
// used to check the streaming parser.
type edgeListOracle struct {
	ok                            bool
	ids                           []string // in row order
	arcs                          map[[2]string]float64
	lines, comments, blank, edges int
	unique, loops, extra, wide    int // extra: unweighted lines with a third column; wide: lines with a fourth
	otherWeights                  int // weighted lines of an arc read before with another weight
	spaced, spacedLine            int // lines with an id holding a space, and the first
	floatID                       string
	floatIDLine                   int
	numeric                       bool
	header                        string
	leadingZero                   string // the id with a leading zero that made the ids tokens
	leadingZeroLine               int
	tokenID                       string // after integer lines, the first id not written as one
	headerLike                    string // a token graph's first edge line, when its ids appear on no other
	headerLikeLine                int
	lateComments, lateCommentLine int  // comment lines after the first edge line, and the first
	indexNot                      bool // some edge line is not "i u v …" with i its count among the edge lines
	tokenIDLine                   int
}

// oracleFields splits a line as the loader documents: at tabs if it has
// one, else at commas if it has one (each field trimmed of spaces, the
// empty fields at the end dropped), else at runs of spaces.
func oracleFields(line string) []string {
	sep := ""
	switch {
	case strings.Contains(line, "\t"):
		sep = "\t"
	case strings.Contains(line, ","):
		sep = ","
	default:
		return strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\v' || r == '\f' })
	}
	f := strings.Split(line, sep)
	for i := range f {
		f[i] = strings.Trim(f[i], " \t\v\f")
	}
	for len(f) > 0 && f[len(f)-1] == "" {
		f = f[:len(f)-1]
	}
	return f
}

func oracleEdgeList(text string, opt LoadOptions) edgeListOracle {
	o := edgeListOracle{arcs: map[[2]string]float64{}}
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	type edge struct {
		a, b string
		w    float64
	}
	var edges []edge
	numeric := opt.IDs != IDToken
	canon := func(s string) string {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return s
		}
		return strconv.FormatUint(v, 10)
	}
	// With automatic ids only the canonical spelling is a number, so
	// that "007" and "7" stay two nodes.
	isNum := func(s string) bool {
		v, err := strconv.ParseUint(s, 10, 64)
		return err == nil && (opt.IDs != IDAuto || strconv.FormatUint(v, 10) == s)
	}
	tokenLines, firstToken := 0, -1 // IDAuto: edge lines whose ids are not both integers
	off, headerSeen := 0, false
	for i, line := range lines {
		o.lines++
		// A NUL byte in a line that starts in the first 64 KiB marks a
		// binary file.
		if off < 1<<16 && strings.Contains(line, "\x00") {
			return o
		}
		off += len(line) + 1
		line = strings.TrimSuffix(line, "\r")
		if strings.Contains(line, "\r") {
			return o
		}
		if i == 0 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		f := oracleFields(line)
		if opt.Header && !headerSeen && len(f) > 0 && !strings.HasPrefix(f[0], "#") && !strings.HasPrefix(f[0], "%") {
			if f[0] == "" {
				return o // an unnamed first column: pandas' index
			}
			headerSeen = true // the first line that is not blank or a comment
			o.header = strings.TrimSpace(line)
			continue
		}
		if len(f) == 0 {
			o.blank++
			continue
		}
		if strings.HasPrefix(f[0], "#") || strings.HasPrefix(f[0], "%") {
			o.comments++
			if len(edges) > 0 {
				if o.lateComments == 0 {
					o.lateCommentLine = i + 1
				}
				o.lateComments++
			}
			continue
		}
		if len(f) < 2 || f[0] == "" || f[1] == "" {
			return o
		}
		for _, id := range f[:2] {
			if strings.HasPrefix(id, `"`) || strings.HasSuffix(id, `"`) {
				return o
			}
		}
		if len(f) > 2 && !opt.Weighted {
			o.extra++
		}
		if len(f) > 3 {
			o.wide++
		}
		for _, id := range f[:2] {
			if whole, frac, ok := strings.Cut(id, "."); ok && o.floatID == "" && whole != "" && frac != "" &&
				strings.Trim(whole, "0123456789") == "" && strings.Trim(frac, "0") == "" {
				o.floatID, o.floatIDLine = id, i+1
			}
		}
		if strings.ContainsAny(f[0]+f[1], " \t\v\f") {
			if o.spaced == 0 {
				o.spacedLine = i + 1
			}
			o.spaced++
		}
		w := 1.0
		if opt.Weighted {
			if len(f) < 3 {
				return o
			}
			v, err := strconv.ParseFloat(f[2], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
				return o
			}
			w = v
		}
		isInt := func(s string) bool { _, err := strconv.ParseUint(s, 10, 64); return err == nil }
		if opt.IDs == IDAuto && !(isInt(f[0]) && isInt(f[1])) {
			if tokenLines == 0 {
				firstToken = len(edges)
			}
			tokenLines++
		}
		if numeric && !(isNum(f[0]) && isNum(f[1])) {
			if opt.IDs == IDInteger {
				return o
			}
			numeric = false // ids read so far become their decimal text
			for _, id := range f[:2] {
				if _, err := strconv.ParseUint(id, 10, 64); err == nil && opt.IDs == IDAuto && len(id) > 1 && id[0] == '0' {
					o.leadingZero, o.leadingZeroLine = id, i+1
					break
				}
			}
			for _, id := range f[:2] {
				if !isInt(id) && opt.IDs == IDAuto && o.leadingZero == "" && len(edges) > 0 {
					o.tokenID, o.tokenIDLine = id, i+1
					break
				}
			}
			for i := range edges {
				edges[i].a, edges[i].b = canon(edges[i].a), canon(edges[i].b)
			}
		}
		if len(edges) == 0 {
			o.headerLike, o.headerLikeLine = strings.TrimSpace(line), i+1
		}
		o.indexNot = o.indexNot || len(f) < 3 || f[0] != strconv.Itoa(len(edges))
		edges = append(edges, edge{f[0], f[1], w})
	}
	if len(edges) == 0 {
		return o
	}
	if tokenLines == 1 && firstToken == 0 && len(edges) > 1 {
		return o // the first edge line looks like column names
	}
	o.edges = len(edges)
	o.numeric = numeric
	if first := edges[0]; numeric || opt.Header || len(edges) < 2 || first.a == first.b ||
		slices.ContainsFunc(edges[1:], func(e edge) bool { return e.a == first.a || e.a == first.b || e.b == first.a || e.b == first.b }) {
		o.headerLike, o.headerLikeLine = "", 0
	}
	seen := map[string]bool{}
	loops := map[string]bool{}
	uniq := map[[2]string]bool{}
	for _, e := range edges {
		if numeric {
			e.a, e.b = canon(e.a), canon(e.b)
		}
		if !seen[e.a] {
			seen[e.a] = true
			o.ids = append(o.ids, e.a)
		}
		if !seen[e.b] {
			seen[e.b] = true
			o.ids = append(o.ids, e.b)
		}
		key := [2]string{e.a, e.b}
		if !opt.Directed && e.b < e.a {
			key = [2]string{e.b, e.a}
		}
		uniq[key] = true
		if e.a == e.b {
			loops[e.a] = true
			if !opt.KeepSelfLoops {
				continue
			}
		}
		if _, ok := o.arcs[[2]string{e.a, e.b}]; !ok {
			o.arcs[[2]string{e.a, e.b}] = e.w
		}
		if !opt.Directed {
			if _, ok := o.arcs[[2]string{e.b, e.a}]; !ok {
				o.arcs[[2]string{e.b, e.a}] = e.w
			}
		}
	}
	o.unique, o.loops = len(uniq), len(loops)
	for _, e := range edges {
		if numeric {
			e.a, e.b = canon(e.a), canon(e.b)
		}
		if w, ok := o.arcs[[2]string{e.a, e.b}]; opt.Weighted && ok && w != e.w {
			o.otherWeights++ // a repeat whose weight was dropped
		}
	}
	if numeric {
		slices.SortFunc(o.ids, func(a, b string) int {
			x, _ := strconv.ParseUint(a, 10, 64)
			y, _ := strconv.ParseUint(b, 10, 64)
			return cmp.Compare(x, y)
		})
	} else {
		slices.Sort(o.ids)
	}
	total, smallest := 0.0, math.Inf(1)
	for _, w := range o.arcs {
		total, smallest = total+w, min(smallest, w)
	}
	// Weights summing beyond float32, or one below its smallest normal
	// number (2^-126 ≈ 1.1754944e-38), are refused.
	o.ok = len(o.arcs) > 0 && total <= math.MaxFloat32 && smallest >= 1.1754943508222875e-38
	return o
}

// checkAgainstOracle compares a ReadEdgeList result with the oracle.
func checkAgainstOracle(t *testing.T, text string, opt LoadOptions, g *pipeline.Graph, rep *LoadReport, err error) {
	t.Helper()
	o := oracleEdgeList(text, opt)
	if !o.ok {
		if err == nil {
			t.Fatalf("%q %+v: loaded, but the input is invalid", text, opt)
		}
		return
	}
	if err != nil {
		t.Fatalf("%q %+v: %v", text, opt, err)
	}
	if g.N() != len(o.ids) || g.IDs.Len() != len(o.ids) || g.Adj.NNZ() != len(o.arcs) {
		t.Fatalf("%q %+v: %d rows, %d ids, %d arcs; want %d, %d", text, opt, g.N(), g.IDs.Len(), g.Adj.NNZ(), len(o.ids), len(o.arcs))
	}
	for i, id := range o.ids {
		if g.IDs.Name(i) != id {
			t.Fatalf("%q: row %d is %q, want %q", text, i, g.IDs.Name(i), id)
		}
	}
	for i := 0; i < g.N(); i++ {
		idx, val := g.Adj.Row(i)
		for k, j := range idx {
			w, ok := o.arcs[[2]string{o.ids[i], o.ids[j]}]
			if !ok || w != val[k] {
				t.Fatalf("%q %+v: arc %s→%s weight %v; oracle has %v (present %v)", text, opt, o.ids[i], o.ids[j], val[k], w, ok)
			}
		}
	}
	want := LoadReport{File: rep.File, Lines: o.lines, Comments: o.comments, Blank: o.blank, EdgesRead: o.edges,
		SelfLoops: o.loops, KeptSelfLoops: opt.KeepSelfLoops, Duplicates: o.edges - o.unique, UniqueEdges: o.unique,
		Nodes: len(o.ids), Arcs: len(o.arcs), Directed: opt.Directed, Weighted: opt.Weighted, NumericIDs: o.numeric, Header: o.header,
		ExtraColumns: o.extra, WideLines: o.wide, SpacedIDLines: o.spaced, SpacedIDLine: o.spacedLine, FloatID: o.floatID, FloatIDLine: o.floatIDLine, LeadingZero: o.leadingZero, LeadingZeroLine: o.leadingZeroLine, TokenID: o.tokenID, TokenIDLine: o.tokenIDLine,
		HeaderLike: o.headerLike, HeaderLikeLine: o.headerLikeLine, LateComments: o.lateComments, LateCommentLine: o.lateCommentLine,
		IndexColumn: !o.indexNot && o.edges >= 3, OtherWeights: o.otherWeights}
	if *rep != want {
		t.Fatalf("%q %+v: report\n%+v\nwant\n%+v", text, opt, *rep, want)
	}
}

// TestReadEdgeListOracle checks random small edge lists, in every option
// combination, against the oracle.
func TestReadEdgeListOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of random files against the oracle (3 s); over 1 s, skipped under -short")
	}
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 9))
	vocab := [][]string{
		{"0", "1", "2", "3", "17", "100", "18446744073709551615", "007"},
		{"a", "b", "B", "ab", "z9", "10", "2"},
	}
	loaded := 0
	for trial := 0; trial < 400; trial++ {
		words := vocab[trial%2]
		mixed := trial%7 == 0 // a token after integers: IDAuto falls back
		var sb strings.Builder
		nl := "\n"
		if trial%3 == 0 {
			nl = "\r\n"
		}
		lines := 1 + rng.IntN(12)
		// Some files start with column names, read with Header in some
		// trials and without in others (an error or a token edge).
		header := trial%5 < 2
		if header {
			sb.WriteString("src,dst,weight" + nl)
		}
		for l := 0; l < lines; l++ {
			switch rng.IntN(10) {
			case 0:
				sb.WriteString("# comment 1 2" + nl)
			case 1:
				sb.WriteString("  " + nl)
			default:
				a, b := words[rng.IntN(len(words))], words[rng.IntN(len(words))]
				if mixed && l == lines-1 {
					b = "tok"
				}
				sep := []string{" ", "\t", "  \t", ",", ", "}[rng.IntN(5)]
				fmt.Fprintf(&sb, "%s%s%s%s%d.5", a, sep, b, sep, rng.IntN(4))
				if l < lines-1 || rng.IntN(2) == 0 {
					sb.WriteString(nl)
				}
			}
		}
		text := sb.String()
		for mask := 0; mask < 8; mask++ {
			for _, mode := range []IDMode{IDAuto, IDInteger, IDToken} {
				opt := LoadOptions{Directed: mask&1 != 0, Weighted: mask&2 != 0, KeepSelfLoops: mask&4 != 0, IDs: mode, Header: header && trial%5 == 0}
				g, rep, err := load(t, text, opt)
				checkAgainstOracle(t, text, opt, g, rep, err)
				if err == nil {
					loaded++
				}
			}
		}
	}
	if loaded < 2000 {
		t.Errorf("only %d of 9600 random lists loaded; the generator tests mostly errors", loaded)
	}
}

// TestReadEdgeListLarge checks an input spanning several storage chunks
// (and, with the id-set test, several merges) against the oracle.
func TestReadEdgeListLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("a large generated edge list (over 1 s in a full run); skipped under -short")
	}
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 8))
	var sb strings.Builder
	for e := 0; e < chunkLen/2*3+17; e++ {
		fmt.Fprintf(&sb, "%d %d %d\n", rng.IntN(20000)*3, rng.IntN(20000)*3, 1+rng.IntN(9))
	}
	text := sb.String()
	for _, opt := range []LoadOptions{
		{Weighted: true},
		{Directed: true, Weighted: true, KeepSelfLoops: true, IDs: IDToken},
	} {
		g, rep, err := load(t, text, opt)
		checkAgainstOracle(t, text, opt, g, rep, err)
	}
}

// TestIDSet checks idSet and idIndex against sorting and searching: ids
// small and large, in increasing order (the bit set grows past ids that
// went to the sorted part) and at random, dense and spread.
func TestIDSet(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 2))
	cases := map[string]func(i int) uint64{
		"small and random": func(i int) uint64 {
			if i%5 == 0 {
				return rng.Uint64()
			}
			return uint64(rng.IntN(30000))
		},
		"increasing":      func(i int) uint64 { return uint64(i) * 37 },
		"dense, shuffled": func(i int) uint64 { return uint64(rng.IntN(2_000_000)) },
		"spread":          func(i int) uint64 { return uint64(rng.IntN(1000)) * 1_000_003 },
		"one":             func(i int) uint64 { return 5 },
	}
	for name, next := range cases {
		s := idSet{minPend: 1000}
		var all []uint64
		for i := 0; i < 300_000; i++ {
			v := next(i)
			s.add(v)
			all = append(all, v)
		}
		got := s.sorted()
		slices.Sort(all)
		want := slices.Compact(all)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d distinct ids, want %d", name, len(got), len(want))
			continue
		}
		x := newIDIndex(got)
		for i, v := range want {
			if r := x.row(v); r != int32(i) {
				t.Errorf("%s: id %d in row %d, want %d", name, v, r, i)
				break
			}
		}
	}
}

func TestReadEdgeListAutoFallback(t *testing.T) {
	t.Parallel()
	// Integers at first, then an id with leading zeros: every id becomes
	// text, sorted as strings, and "007" stays "007" (not the node 7).
	g, rep, err := load(t, "1 2\n10 007\n2 x\n", LoadOptions{Directed: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := 0; i < g.N(); i++ {
		got = append(got, g.IDs.Name(i))
	}
	if want := []string{"007", "1", "10", "2", "x"}; !slices.Equal(got, want) || rep.NumericIDs {
		t.Errorf("ids %v (numeric %v), want %v as tokens", got, rep.NumericIDs, want)
	}
	if r, _ := g.IDs.Row("x"); !g.Adj.Has(3, r) {
		t.Error("arc 2→x lost")
	}
}

func TestLoadOptionsValidate(t *testing.T) {
	t.Parallel()
	if _, _, err := load(t, "1 2\n", LoadOptions{IDs: 7}); err == nil || !strings.Contains(err.Error(), "LoadOptions.IDs") {
		t.Errorf("IDs 7: got %v", err)
	}
}

func TestReadEdgeListCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := ReadEdgeList(ctx, strings.NewReader("1 2\n"), "x", LoadOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func FuzzReadEdgeList(f *testing.F) {
	for _, s := range []string{
		"1 2\n2 3\n", "# c\r\n1\t2\r\n", "a b 1.5\nb c 2\n", "1 2 3 4 5\n", "\x1f\x8b\x08",
		"18446744073709551615 0\n", "1\n", "1 1\n", "% x\n\n\n", "1 2 -0\n", "1 2 1e308\n",
		"1 2\n2 x\n", "01 1\n1 a\n", "1 2\r3 4\n", "a #b\n", "u,v,w\n1,2,1\n2, 3 ,2\n", "u v\n1 2\n",
		"\"a b\",c\n", "\"1\",\"2\"\n", "1 2\"\n", "a\"b c\n", "1 2\n3\x004\n", "\x93NUMPY\x01\x00",
	} {
		f.Add(s, false, false, false, uint8(0))
		f.Add(s, true, true, true, uint8(1))
		f.Add(s, false, true, false, uint8(2))
		f.Add(s, false, false, false, uint8(3)) // mode 3: IDAuto with Header
	}
	f.Add(string(gzipped(f, "1 2\n2 3\n")), false, false, false, uint8(0))
	f.Fuzz(func(t *testing.T, text string, directed, weighted, keepLoops bool, mode uint8) {
		opt := LoadOptions{Directed: directed, Weighted: weighted, KeepSelfLoops: keepLoops, IDs: IDMode(mode % 3), Header: mode%6 >= 3}
		g, rep, err := ReadEdgeList(context.Background(), strings.NewReader(text), "fuzz", opt)
		if err != nil {
			var pe *pipeline.ParseError
			if !errors.As(err, &pe) || pe.File != "fuzz" {
				t.Fatalf("error %v is not a ParseError naming the file", err)
			}
			if !errors.Is(err, pipeline.ErrFormat) && !errors.Is(err, pipeline.ErrEmptyGraph) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
		} else {
			if err := g.Adj.Validate(); err != nil {
				t.Fatal(err)
			}
			if !directed && !g.Adj.IsSymmetric() {
				t.Fatal("undirected graph not symmetric")
			}
			for i := 0; i < g.N(); i++ {
				if r, ok := g.IDs.Row(g.IDs.Name(i)); !ok || r != i {
					t.Fatalf("id round trip failed for row %d (%q)", i, g.IDs.Name(i))
				}
			}
		}
		if !strings.HasPrefix(text, "\x1f\x8b") && !strings.Contains(text, strings.Repeat("x", maxLine)) {
			checkAgainstOracle(t, text, opt, g, rep, err)
		}
	})
}

// TestReadEdgeListDistinctSpellings: with automatic ids, "001" and "1" are
// two nodes (read as tokens, kept as written), -ids int reads both as 1,
// and a UTF-8 byte-order mark does not become part of the first id.
func TestReadEdgeListDistinctSpellings(t *testing.T) {
	names := func(g *pipeline.Graph) []string {
		var out []string
		for i := 0; i < g.N(); i++ {
			out = append(out, g.IDs.Name(i))
		}
		return out
	}
	for _, c := range []struct {
		name, text string
		ids        IDMode
		want       []string
	}{
		{"leading zeros, auto", "001 2\n1 2\n", IDAuto, []string{"001", "1", "2"}},
		{"leading zeros after integers, auto", "1 2\n2 3\n007 3\n", IDAuto, []string{"007", "1", "2", "3"}},
		{"zero itself is an integer", "0 1\n1 2\n", IDAuto, []string{"0", "1", "2"}},
		{"leading zeros, int", "001 2\n1 2\n", IDInteger, []string{"1", "2"}},
		{"byte-order mark", "\ufeff1 2\n1 3\n", IDAuto, []string{"1", "2", "3"}},
		{"byte-order mark, tokens", "\ufeffa b\na c\n", IDToken, []string{"a", "b", "c"}},
	} {
		g, _, err := ReadEdgeList(context.Background(), strings.NewReader(c.text), "g.txt", LoadOptions{IDs: c.ids})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := names(g); !slices.Equal(got, c.want) {
			t.Errorf("%s: nodes %q, want %q", c.name, got, c.want)
		}
	}
}

// TestReadEdgeListIndexColumn: a first column that counts the edge lines
// 0, 1, 2, … before two more (pandas' index) is reported; two columns, or
// a first column out of order, are not.
func TestReadEdgeListIndexColumn(t *testing.T) {
	for text, want := range map[string]bool{
		"0,10,20\n1,20,30\n2,30,10\n":                       true,
		"# c\n0\t10\t20\t1.5\n1\t20\t30\t2\n2\t30\t10\t1\n": true,
		"0,10,20\n1,20,30\n":                                false, // too few lines to tell
		"0 10\n1 20\n2 30\n":                                false,
		"0,10,20\n2,20,30\n1,30,10\n":                       false,
	} {
		g, rep, err := ReadEdgeList(context.Background(), strings.NewReader(text), "g", LoadOptions{})
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		checkAgainstOracle(t, text, LoadOptions{}, g, rep, err)
		if rep.IndexColumn != want {
			t.Errorf("%q: IndexColumn %v, want %v", text, rep.IndexColumn, want)
		}
	}
}

// TestAssembleCancelled cancels assemble at each of its first checks of
// the context: it stops within 1,048,576 lines of the check (the loop over
// the lines of R-MAT scale 22 takes seconds) and returns context.Canceled.
func TestAssembleCancelled(t *testing.T) {
	t.Parallel()
	const n, lines = 1000, 5 << 19
	calls := 0
	edge := func(e int) (int32, int32, float64) {
		calls++
		return int32(e % n), int32((7*e + 1) % n), 1
	}
	for k := 1; k <= 3; k++ {
		calls = 0
		ctx := &ctxtest.CancelAfter{Context: t.Context(), N: k}
		adj, err := assemble(ctx, "x", n, lines, edge, LoadOptions{}, &LoadReport{EdgesRead: lines})
		if !errors.Is(err, context.Canceled) || adj != nil {
			t.Fatalf("cancelled at check %d: matrix %v, error %v; want context.Canceled", k, adj != nil, err)
		}
		if calls > (k-1)<<20 {
			t.Errorf("cancelled at check %d after %d lines, want at most %d", k, calls, (k-1)<<20)
		}
	}
}

// TestLoadOptionsJSON: the options round-trip through JSON with the id
// mode as its flag word, and an unknown word is refused.
func TestLoadOptionsJSON(t *testing.T) {
	for _, o := range []LoadOptions{{}, {Directed: true, Weighted: true, KeepSelfLoops: true, IDs: IDInteger, Header: true}, {IDs: IDToken}} {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		word, _ := o.IDs.MarshalText()
		if !strings.Contains(string(b), `"ids":"`+string(word)+`"`) {
			t.Errorf("%+v as JSON: %s, want the id mode as %q", o, b, word)
		}
		var back LoadOptions
		if err := json.Unmarshal(b, &back); err != nil || back != o {
			t.Errorf("%s read back as %+v, %v; want %+v", b, back, err, o)
		}
	}
	var o LoadOptions
	if err := json.Unmarshal([]byte(`{"ids":"ints"}`), &o); err == nil {
		t.Error(`"ids":"ints" read without an error`)
	}
}
