package wysbeam

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/wys-project/wys/internal/datasets"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/train"
)

// handGraph has comments, a byte-order mark, CRLF line ends, blank lines,
// duplicates in both directions with different weights, self-loops (one
// repeated), string ids and a last line without its line end.
const handGraph = "\xef\xbb\xbf# a hand-written graph\r\n" +
	"alice bob 2.5\r\n" +
	"bob carol 1\n" +
	"% another comment\n" +
	"\n" +
	"carol alice 3\n" +
	"bob alice 7\n" +
	"dave dave 4\n" +
	"alice bob 9\n" +
	"carol dave 0.5 extra columns\n" +
	"  eve\tcarol\t  6\n" +
	"dave dave 8\n" +
	"10 alice 1\n" +
	"eve 2 5\n" +
	"carol bob 4"

// runPrep runs the preprocessing p on Prism.
func runPrep(t *testing.T, p Prep) error {
	t.Helper()
	ranges, err := PlanRanges(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	pl, scope := beam.NewPipelineWithRoot()
	BuildPrep(scope, p, ranges)
	return ptest.Run(pl)
}

// sameGraph fails unless got is want bit for bit: ids, Indptr, Indices,
// Data and the flags.
func sameGraph(t *testing.T, got, want *pipeline.Graph) {
	t.Helper()
	if got.N() != want.N() || got.IDs.Numeric() != want.IDs.Numeric() || got.Directed != want.Directed || got.Weighted != want.Weighted {
		t.Fatalf("graph of %d nodes (numeric ids %v, directed %v, weighted %v), loader %d (%v, %v, %v)", got.N(), got.IDs.Numeric(), got.Directed, got.Weighted,
			want.N(), want.IDs.Numeric(), want.Directed, want.Weighted)
	}
	for i := 0; i < want.N(); i++ {
		if got.IDs.Name(i) != want.IDs.Name(i) {
			t.Fatalf("row %d is id %q, loader %q", i, got.IDs.Name(i), want.IDs.Name(i))
		}
	}
	if !slices.Equal(got.Adj.Indptr, want.Adj.Indptr) || !slices.Equal(got.Adj.Indices, want.Adj.Indices) || !slices.Equal(got.Adj.Data, want.Adj.Data) {
		t.Fatalf("CSR differs from the loader's:\nIndptr %v\n       %v\nIndices %v\n        %v\nData %v\n     %v",
			got.Adj.Indptr, want.Adj.Indptr, got.Adj.Indices, want.Adj.Indices, got.Adj.Data, want.Adj.Data)
	}
}

// checkPrep runs p on Prism and compares the graph it writes with
// graphio.LoadEdgeList of file.
func checkPrep(t *testing.T, p Prep, file string) {
	t.Helper()
	if err := runPrep(t, p); err != nil {
		t.Fatal(err)
	}
	got, err := ReadShards(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := graphio.LoadEdgeList(context.Background(), file, p.Load)
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, got, want)
}

func writeText(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPrepEqualsLoader runs the preprocessing on Prism over the hand-
// written graph, cut into ranges of a few bytes and written as 3 shards,
// and compares it with the single-machine loader bit for bit: undirected
// and weighted (the first line naming an edge in either direction sets
// its weight), directed with self-loops kept, and split into two files
// read through a glob against the loader on their concatenation; and a
// CSV file with a header line.
func TestPrepEqualsLoader(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "hand.txt")
	writeText(t, file, handGraph)
	checkPrep(t, Prep{Input: file, Load: graphio.LoadOptions{Weighted: true}, Dir: filepath.Join(dir, "a"), Shards: 3, RangeBytes: 7}, file)
	checkPrep(t, Prep{Input: file, Load: graphio.LoadOptions{Directed: true, KeepSelfLoops: true, Weighted: true}, Dir: filepath.Join(dir, "b"), Shards: 2, RangeBytes: 23}, file)

	// Integer ids, "07" and "7" one node under IDInteger; two files.
	parts := []string{"# part one\n3 07\n10 3\n7 3\n", "2 10\n3 10\n10 10\n"}
	for i, s := range parts {
		writeText(t, filepath.Join(dir, "part", string(rune('a'+i))+".txt"), s)
	}
	writeText(t, filepath.Join(dir, "whole.txt"), strings.Join(parts, ""))
	checkPrep(t, Prep{Input: filepath.Join(dir, "part", "*.txt"), Load: graphio.LoadOptions{IDs: graphio.IDInteger}, Dir: filepath.Join(dir, "c"), Shards: 2, RangeBytes: 5},
		filepath.Join(dir, "whole.txt"))

	// A CSV file with column names, read with Header, ranges shorter
	// than its first line.
	csv := filepath.Join(dir, "edges.csv")
	writeText(t, csv, "source,target,weight\r\n1,2,0.5\r\n2, 3 ,1\r\n3,1,2\r\n4,1,1\r\n")
	checkPrep(t, Prep{Input: csv, Load: graphio.LoadOptions{Weighted: true, Header: true}, Dir: filepath.Join(dir, "d"), Shards: 2, RangeBytes: 6}, csv)

	// A Matrix Market file: its size line is not an edge (read as one, it
	// would add node 12).
	mtx := filepath.Join(dir, "g.mtx")
	writeText(t, mtx, "%%MatrixMarket matrix coordinate real symmetric\n% by hand\n12 12 8\n2 1 1.5\n3 2 2\n9 3 1\n4 1 3\n5 4 1\n6 5 2\n7 6 1\n8 7 4\n")
	checkPrep(t, Prep{Input: mtx, Load: graphio.LoadOptions{Weighted: true}, Dir: filepath.Join(dir, "m"), Shards: 2, RangeBytes: 70}, mtx)
	// Column names after a comment: Header skips the first line that is
	// not one, as the loader does.
	commented := filepath.Join(dir, "commented.csv")
	writeText(t, commented, "# by a tool\n\nsource,target\n1,2\n2,3\n3,1\n4,1\n")
	checkPrep(t, Prep{Input: commented, Load: graphio.LoadOptions{Header: true}, Dir: filepath.Join(dir, "e"), Shards: 2, RangeBytes: 16}, commented)
}

// TestPrepSameDirTwice: a second preprocessing into the same Dir, in the
// same process (as a long-lived worker runs jobs), reads its own ids, not
// the first run's cached ones (before, its edges "had an id missing from
// ids.bin"); the graphs have the same number of nodes.
func TestPrepSameDirTwice(t *testing.T) {
	dir := t.TempDir()
	for i, text := range []string{"1 2\n2 3\n3 4\n", "5 6\n6 7\n7 8\n5 8\n"} {
		file := filepath.Join(dir, fmt.Sprintf("g%d.txt", i))
		writeText(t, file, text)
		checkPrep(t, Prep{Input: file, Dir: filepath.Join(dir, "prep"), Shards: 2, RangeBytes: 5}, file)
	}
}

// TestPrepSharedFile reads ca-HepTh's SNAP edge list, decompressed and
// cut into 512 KiB ranges, and compares it with the loader's graph of the
// released .gz file bit for bit. Its two ranges hold more lines than a
// batch (batchLines), so batches of a range are checked too.
func TestPrepSharedFile(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a shared data set on Prism")
	}
	gz := datasets.Path(t, "ca-HepTh/CA-HepTh.txt.gz")
	dir := t.TempDir()
	plain := filepath.Join(dir, "hepth.txt")
	in, err := os.Open(gz)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(plain)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	checkPrep(t, Prep{Input: plain, Dir: filepath.Join(dir, "prep"), Shards: 5, RangeBytes: 1 << 19}, gz)
}

// TestPrepErrors checks that a bad line in the middle of a file, read in
// a range that does not start the file, fails the pipeline with the
// loader's own error line (file and absolute line number), and that the
// whole-graph errors are the loader's.
func TestPrepErrors(t *testing.T) {
	// Prism logs every failed bundle at level ERROR; these failures are
	// the point of the test.
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 40; i++ {
		b.WriteString("# comment\n1 2 1.5\n")
	}
	good := b.String()
	const mm = "%%MatrixMarket matrix coordinate pattern general\n"
	for _, c := range []struct {
		text string
		opt  graphio.LoadOptions
	}{
		{good + "3 4 1\n5\n6 7 1\n", graphio.LoadOptions{}},
		{good + "3 4 -1\n", graphio.LoadOptions{Weighted: true}},
		// Weights out of the float32 range, refused once the graph is
		// assembled, as the loader refuses them once it is read.
		{good + "3 4 1e-40\n", graphio.LoadOptions{Weighted: true}},
		{good + "3 4 3e38\n5 6 3e38\n", graphio.LoadOptions{Weighted: true}},
		{good + "3 x\n", graphio.LoadOptions{IDs: graphio.IDInteger}},
		{good + "3 4\r5 6\n", graphio.LoadOptions{}},
		{"# only comments\n\n", graphio.LoadOptions{}},
		{"1 1\n2 2\n", graphio.LoadOptions{}},
		// The loader's header rule: only the first edge line has ids
		// that are not integers (column names), or ids it cannot read
		// as integers.
		{"# comment\nsource target\n" + good, graphio.LoadOptions{}},
		{"-1 2\n" + good, graphio.LoadOptions{}},
		{",source,target\n" + good, graphio.LoadOptions{Header: true}},
		{"1,,2\n" + good, graphio.LoadOptions{}},
		// Matrix Market: the size line's shape, every index in 1..N (the
		// bad line in a range after the first), the entry count.
		{mm + "12 13 81\n" + good, graphio.LoadOptions{}},
		{mm + "12 12 82\n" + good + "3 13\n", graphio.LoadOptions{}},
		{mm + "12 12 83\n" + good + "3 12\n0 4\n12 1\n", graphio.LoadOptions{}},
		{mm + "12 12 82\n" + good + "x 3\n", graphio.LoadOptions{}},
		{mm + "12 12 80\n" + good + "3 4\n", graphio.LoadOptions{}},
		{mm + "12 12 82\n" + good, graphio.LoadOptions{}},
	} {
		file := filepath.Join(dir, "bad.txt")
		if strings.HasPrefix(c.text, mm) {
			file = filepath.Join(dir, "bad.mtx")
		}
		writeText(t, file, c.text)
		_, _, want := graphio.LoadEdgeList(context.Background(), file, c.opt)
		if want == nil {
			t.Fatalf("the loader reads %q", c.text)
		}
		p := Prep{Input: file, Load: c.opt, Dir: filepath.Join(dir, "out"), RangeBytes: 64}
		err := runPrep(t, p)
		if err == nil || !strings.Contains(err.Error(), want.Error()) {
			t.Errorf("pipeline error %v\nwant one containing the loader's %q", err, want)
		}
		// The driver's look at the head finds the loader's error or none.
		ranges, err := PlanRanges(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckHead(context.Background(), p, ranges); err != nil && err.Error() != want.Error() {
			t.Errorf("CheckHead: %v\nwant nil or the loader's %q", err, want)
		}
	}
}

// TestCheckHead: the driver's look at the first headBytes of each file
// finds the loader's error for a bad line, a binary file, a Matrix
// Market banner the options refuse or a short file without edges, and
// nothing for an error further on, a Matrix Market entry count or the
// header rule, which are the pipeline's to find; a -header line or size
// line after the head is no error there.
func TestCheckHead(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; b.Len() <= headBytes; i++ {
		b.WriteString(itoa(i) + " " + itoa(i+1) + "\n")
	}
	long := b.String()
	comments := strings.Repeat("# a comment line\n", headBytes/16)
	const sym = "%%MatrixMarket matrix coordinate pattern symmetric\n"
	directed := graphio.LoadOptions{Directed: true}
	for i, c := range []struct {
		text   string
		opt    graphio.LoadOptions
		caught bool
	}{
		{"1 2\n2 3\nfoo\n", graphio.LoadOptions{}, true},
		{"MATLAB 5.0 MAT-file\x00\x00\x01\x00IM\n", graphio.LoadOptions{}, true},
		{sym + "3 3 2\n2 1\n3 2\n", directed, true},
		{"", graphio.LoadOptions{}, true},
		{"# only comments\n", graphio.LoadOptions{}, true},
		{long + "foo\n", graphio.LoadOptions{}, false},
		{"from,to\n1,2\n2,3\n", graphio.LoadOptions{}, false},
		{sym + "3 3 5\n2 1\n3 2\n", graphio.LoadOptions{}, false},
		{comments + "u v\n1 2\n", graphio.LoadOptions{Header: true}, false},
		{comments + "1 2\n", graphio.LoadOptions{}, false},
	} {
		file := filepath.Join(dir, itoa(i)+".txt")
		if strings.HasPrefix(c.text, sym) {
			file = filepath.Join(dir, itoa(i)+".mtx")
		}
		writeText(t, file, c.text)
		p := Prep{Input: file, Load: c.opt}
		ranges, err := PlanRanges(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckHead(context.Background(), p, ranges)
		_, _, want := graphio.LoadEdgeList(context.Background(), file, c.opt)
		switch {
		case c.caught && (err == nil || want == nil || err.Error() != want.Error()):
			t.Errorf("%d: CheckHead %v, want the loader's %v", i, err, want)
		case !c.caught && err != nil:
			t.Errorf("%d: CheckHead %v, want nil (the pipeline's to find)", i, err)
		}
	}
	// A gzip file is read as text, up to headBytes of it.
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(long + "1 2\n2 3\nfoo\n"))
	zw.Close()
	file := filepath.Join(dir, "g.txt.gz")
	writeText(t, file, z.String())
	p := Prep{Input: file}
	ranges, err := PlanRanges(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckHead(context.Background(), p, ranges); err != nil {
		t.Errorf("gzip, bad line after the head: %v", err)
	}
	z.Reset()
	zw = gzip.NewWriter(&z)
	zw.Write([]byte("1 2\n2 3\nfoo\n"))
	zw.Close()
	writeText(t, file, z.String())
	_, _, want := graphio.LoadEdgeList(context.Background(), file, graphio.LoadOptions{})
	if err := CheckHead(context.Background(), p, ranges); err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("gzip: CheckHead %v, want the loader's %v", err, want)
	}
}

// TestPrepTokenLines: two edge lines with token ids, or one that is not
// the first, are read as tokens, as the loader reads them, not taken for
// column names.
func TestPrepTokenLines(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 40; i++ {
		b.WriteString(itoa(i) + " " + itoa(i+1) + "\n")
	}
	for i, text := range []string{"a b\n" + b.String() + "b c\n", "1 2\n" + b.String() + "x 3\n"} {
		file := filepath.Join(dir, itoa(i)+".txt")
		writeText(t, file, text)
		checkPrep(t, Prep{Input: file, Dir: filepath.Join(dir, "prep"+itoa(i)), Shards: 2, RangeBytes: 50}, file)
	}
}

// TestPrepTokenNote: the notes on the line where the ids turn to tokens
// are given exactly when the loader's report names such a line
// (LoadReport.LeadingZero, else TokenID), with its line and id, whether
// the line lies in the file's first byte range or a later one, or in a
// second file; a token graph from its first line gets none, and a Dir
// used before keeps no stale note.
func TestPrepTokenNote(t *testing.T) {
	dir := t.TempDir()
	var ints strings.Builder
	for i := 0; i < 40; i++ {
		ints.WriteString(itoa(i) + " " + itoa(i+1) + "\n")
	}
	cases := []string{
		ints.String() + "7 bad!\n" + ints.String(),          // in a later range (RangeBytes 50)
		"1 2\n+1 3\n" + ints.String(),                       // in the first range
		"a b\n" + ints.String() + "b c\n",                   // a token graph from its first line: none
		ints.String(),                                       // integers only: none
		"01 2\n" + ints.String() + "7 bad!\n",               // a leading zero first: its note, not bad!'s
		ints.String() + "3 007\n" + ints.String() + "x 1\n", // a leading zero in a later range
		ints.String() + "01 x\n",                            // both on one line: the leading zero
	}
	prepDir := filepath.Join(dir, "prep") // one Dir for all: no stale note
	for i, text := range cases {
		file := filepath.Join(dir, itoa(i)+".txt")
		writeText(t, file, text)
		p := Prep{Input: file, Dir: prepDir, Shards: 2, RangeBytes: 50}
		if err := runPrep(t, p); err != nil {
			t.Fatal(err)
		}
		notes, err := ReadNotes(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		_, rep, err := graphio.LoadEdgeList(context.Background(), file, p.Load)
		if err != nil {
			t.Fatal(err)
		}
		want := ""
		switch {
		case rep.LeadingZero != "":
			want = fmt.Sprintf("the ids are read as tokens from line %d of %s, whose id %s has a leading zero", rep.LeadingZeroLine, file, rep.LeadingZero)
		case rep.TokenID != "":
			want = fmt.Sprintf("the ids are read as tokens from line %d of %s, whose id %q is not written", rep.TokenIDLine, file, rep.TokenID)
		}
		if got := strings.Join(notes, "\n"); (want == "") != (got == "") || !strings.HasPrefix(got, want) {
			t.Errorf("case %d: notes %q, want %q (loader: id %q line %d)", i, got, want, rep.TokenID, rep.TokenIDLine)
		}
	}
	// Two files: the token line is the second file's first line, after
	// the first file's integers.
	writeText(t, filepath.Join(dir, "two-a.txt"), ints.String())
	writeText(t, filepath.Join(dir, "two-b.txt"), "x 3\n4 5\n")
	p := Prep{Input: filepath.Join(dir, "two-*.txt"), Dir: filepath.Join(dir, "prep-two"), RangeBytes: 50}
	if err := runPrep(t, p); err != nil {
		t.Fatal(err)
	}
	notes, err := ReadNotes(context.Background(), p)
	if want := `the ids are read as tokens from line 1 of ` + filepath.Join(dir, "two-b.txt") + `, whose id "x"`; err != nil || len(notes) != 1 || !strings.HasPrefix(notes[0], want) {
		t.Errorf("two files: %q, %v; want %q", notes, err, want)
	}
}

// TestPrepSplit checks the split and the training graph the
// preprocessing writes against pipeline.SplitEdges on the loader's graph
// for the same seed, and the partition the workers build from that
// training graph against train.NewPartition of the loader's. Weighted,
// every training arc keeps the weight the loader gives the input's arc.
func TestPrepSplit(t *testing.T) {
	for _, weighted := range []bool{false, true} {
		dir := t.TempDir()
		var b strings.Builder
		for i := 0; i < 300; i++ {
			u := (i * 7919) % 97
			b.WriteString(strings.Join([]string{itoa(u), itoa((u*u + i) % 89), itoa(1 + i%5)}, "\t") + "\n")
		}
		file := filepath.Join(dir, "g.txt")
		writeText(t, file, b.String())
		p := Prep{Input: file, Load: graphio.LoadOptions{Weighted: weighted}, Dir: filepath.Join(dir, "prep"), Shards: 4, RangeBytes: 200, TestFraction: 0.3, Seed: 11}
		if err := runPrep(t, p); err != nil {
			t.Fatal(err)
		}
		checkPrepSplit(t, p, file)
	}
}

// checkPrepSplit compares what the preprocessing p wrote with the
// loader's reading of file, split by pipeline.SplitEdges.
func checkPrepSplit(t *testing.T, p Prep, file string) {
	t.Helper()
	ctx := context.Background()
	got, err := ReadPrep(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := graphio.LoadEdgeList(ctx, file, p.Load)
	if err != nil {
		t.Fatal(err)
	}
	want, err := pipeline.SplitEdges(ctx, g, p.TestFraction, p.Seed)
	if err != nil {
		t.Fatal(err)
	}
	if got.N != want.N || !slices.Equal(got.Train, want.Train) || !slices.Equal(got.Test, want.Test) ||
		!slices.Equal(got.TrainNeg, want.TrainNeg) || !slices.Equal(got.TestNeg, want.TestNeg) || got.IDs.Name(got.N-1) != want.IDs.Name(want.N-1) {
		t.Fatalf("split differs from SplitEdges: %d nodes, %d/%d train/test pairs; want %d, %d/%d", got.N, len(got.Train), len(got.Test), want.N, len(want.Train), len(want.Test))
	}
	tg, err := ReadGraph(ctx, p.GraphPath())
	if err != nil {
		t.Fatal(err)
	}
	wg, err := want.TrainGraph(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tg.Adj.Indptr, wg.Adj.Indptr) || !slices.Equal(tg.Adj.Indices, wg.Adj.Indices) {
		t.Fatal("training graph's arcs differ from the split's")
	}
	varied := false
	for i := range tg.N() {
		idx, val := tg.Adj.Row(i)
		for k, j := range idx {
			w := 1.0
			if p.Load.Weighted {
				w = g.Adj.At(i, int(j))
			}
			if val[k] != w {
				t.Fatalf("training arc %d→%d has weight %g, the input's is %g (weighted %v)", i, j, val[k], w, p.Load.Weighted)
			}
			varied = varied || w != 1
		}
	}
	if p.Load.Weighted && !varied {
		t.Fatal("every input weight is 1: the test checks nothing")
	}
	gp, err := train.NewPartition(tg.Adj, 4)
	if err != nil {
		t.Fatal(err)
	}
	wp, err := train.NewPartition(wg.Adj, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gp.Of, wp.Of) || !slices.Equal(gp.Local, wp.Local) {
		t.Fatal("partition of the written training graph differs from the core's")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestPlanRangesDirectory checks that a directory as the input is refused
// by name before any read.
func TestPlanRangesDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := PlanRanges(context.Background(), Prep{Input: dir})
	if err == nil || !strings.Contains(err.Error(), dir+" is a directory") {
		t.Errorf("got %v, want %s named as a directory", err, dir)
	}
}
