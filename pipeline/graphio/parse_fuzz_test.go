package graphio

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wys-project/wys/internal/datasets"
	"github.com/wys-project/wys/pipeline"
)

// sample returns the comment lines of text and the data lines whose
// first field is an integer multiple of keep (node ids for Cora's files),
// so that a seed drawn from a real file stays small: the fuzzer mutates
// and minimises small inputs much faster than whole files.
func sample(text string, keep int) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0][0] == '#' {
			b.WriteString(line)
		} else if id, err := strconv.Atoi(f[0]); err == nil && id%keep == 0 {
			b.WriteString(line)
		}
	}
	return b.String()
}

// realFile returns the decompressed content of rel under the data mirror,
// or "" when the mirror or the file is absent (the fuzz targets then run
// with their literal seeds only).
func realFile(tb testing.TB, rel string) string {
	tb.Helper()
	d := datasets.Dir()
	if d == "" {
		return ""
	}
	f, err := os.Open(filepath.Join(d, rel))
	if err != nil {
		return ""
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatalf("%s: %v", rel, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatalf("%s: %v", rel, err)
	}
	return string(b)
}

// Literal heads of the real files (Cora's Planetoid labels and split,
// ca-HepTh's released index.tsv), so that the seeds exist without the
// data mirror.
const (
	coraLabelsHead = "# node\tclass (-1: unlabeled)\n0\t3\n1\t4\n139\t1\n140\t4\n141\t3\n1708\t3\n1709\t2\n"
	coraSplitHead  = "# node\tset (Planetoid split: 20 per class train, 500 val, 1000 test)\n0\ttrain\n1\ttrain\n139\ttrain\n140\tval\n141\tval\n1708\ttest\n1709\ttest\n"
	hepthIndexHead = "# original_id\tnode\n1\t0\n10011\t1\n10017\t2\n10024\t3\n"
)

// coraNodes is the number of nodes of Cora, whose ids are 0..2707.
const coraNodes = 2708

// fuzzIDs returns the graph ids the labels fuzz target resolves against:
// Cora's numeric ids 0..2707, or a few tokens (sorted as strings, so that
// "10" comes before "9").
func fuzzIDs(tokens bool) *pipeline.NodeIDs {
	if tokens {
		return pipeline.NewStringIDs([]string{"a", "b", "c", "10", "9", "x-1", "\u00e9"})
	}
	return pipeline.IdentityIDs(coraNodes)
}

// checkParseError fails unless err is a *pipeline.ParseError naming one of
// files and wrapping one of the sentinels.
func checkParseError(t *testing.T, err error, files []string, sentinels ...error) {
	t.Helper()
	var pe *pipeline.ParseError
	if !errors.As(err, &pe) || !slices.Contains(files, pe.File) {
		t.Fatalf("error %v is not a ParseError naming one of %q", err, files)
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("error %v wraps none of %v", err, sentinels)
}

// plainFields returns the data lines of a plain-text two-column file as
// the fuzz oracle reads them: split on white space, blank lines and lines
// whose first field starts with '#' or '%' skipped. ok is false for text
// the oracle does not judge (gzip, CR line ends inside lines).
func plainFields(text string) (rows [][]string, ok bool) {
	if strings.HasPrefix(text, "\x1f\x8b") {
		return nil, false
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.Contains(line, "\r") {
			return nil, false
		}
		f := strings.Fields(line)
		if len(f) == 0 || f[0][0] == '#' || f[0][0] == '%' {
			continue
		}
		rows = append(rows, f)
	}
	return rows, true
}

// writeLabels writes lab back in the text form ReadLabels reads: one
// "id<TAB>class" line per labelled row, and the split's sets in order.
func writeLabels(lab *pipeline.Labels, ids *pipeline.NodeIDs) (labels, split string) {
	var lb, sb strings.Builder
	lb.WriteString("# node\tclass\n")
	for r, c := range lab.Class {
		if c >= 0 {
			fmt.Fprintf(&lb, "%s\t%d\n", ids.Name(r), c)
		}
	}
	for _, set := range []struct {
		name string
		rows []int
	}{{"train", lab.Train}, {"val", lab.Val}, {"test", lab.Test}} {
		for _, r := range set.rows {
			fmt.Fprintf(&sb, "%s\t%s\n", ids.Name(r), set.name)
		}
	}
	return lb.String(), sb.String()
}

// FuzzReadLabels feeds arbitrary labels and split files to ReadLabels:
// bad input must give a ParseError naming the file and wrapping ErrFormat
// or ErrUnknownNode; a result must be consistent (classes in range, split
// rows distinct and labelled), agree with a plain reading of the text, and
// survive being written back and read again.
func FuzzReadLabels(f *testing.F) {
	f.Add(coraLabelsHead, coraSplitHead, true, false)
	f.Add(coraLabelsHead, "", false, false)
	f.Add("a\t0\nb\t1\n10\t-1\n9\t2\n", "a\ttrain\n9\ttest\nb\tvalid\n", true, true)
	f.Add("0 0\r\n1 1\r\n", "0 train\r\n1 test\r\n", true, false)
	f.Add("0\t-1\n", "", false, false)
	f.Add("0\t1\n0\t2\n", "", false, false)
	f.Add("0\t1\n1\t1\n", "0\ttrain\n1\tvalidation\n", true, false)
	f.Add("0\t1048577\n", "", false, false)
	f.Add("0\t1 2\n", "", false, false)
	f.Add(string(gzipped(f, coraLabelsHead)), string(gzipped(f, coraSplitHead)), true, false)
	// Every 25th node of Cora (108 labels; 6 train, 20 val, 40 test).
	if labels, split := realFile(f, "Cora/cora.labels.tsv.gz"), realFile(f, "Cora/cora.split.tsv.gz"); labels != "" && split != "" {
		f.Add(sample(labels, 25), sample(split, 25), true, false)
	}
	f.Fuzz(func(t *testing.T, labels, split string, withSplit, tokens bool) {
		ids := fuzzIDs(tokens)
		var sr io.Reader
		if withSplit {
			sr = strings.NewReader(split)
		}
		lab, err := ReadLabels(context.Background(), strings.NewReader(labels), "labels.tsv", sr, "split.tsv", ids)
		if err != nil {
			checkParseError(t, err, []string{"labels.tsv", "split.tsv"}, pipeline.ErrFormat, pipeline.ErrUnknownNode)
			return
		}
		checkLabels(t, lab, ids, withSplit)
		// The oracle: every data line's class is the class of its row.
		if rows, ok := plainFields(labels); ok {
			want := make([]int, ids.Len())
			for i := range want {
				want[i] = -1
			}
			for _, f := range rows {
				if len(f) != 2 {
					t.Fatalf("accepted the line %q", f)
				}
				r, found := ids.Row(f[0])
				c, err := strconv.Atoi(f[1])
				if !found || err != nil {
					t.Fatalf("accepted the line %q", f)
				}
				want[r] = c
			}
			if !reflect.DeepEqual(want, lab.Class) {
				t.Fatalf("classes differ from a plain reading of the file")
			}
		}
		// Round trip.
		lt, st := writeLabels(lab, ids)
		var sr2 io.Reader
		if withSplit {
			sr2 = strings.NewReader(st)
		}
		again, err := ReadLabels(context.Background(), strings.NewReader(lt), "labels.tsv", sr2, "split.tsv", ids)
		if err != nil {
			t.Fatalf("written labels do not read back: %v\n%s\n%s", err, lt, st)
		}
		if !reflect.DeepEqual(lab, again) {
			t.Fatalf("round trip changed the labels:\n%+v\n%+v", lab, again)
		}
	})
}

// checkLabels checks the invariants of a Labels value read for ids.
func checkLabels(t *testing.T, lab *pipeline.Labels, ids *pipeline.NodeIDs, withSplit bool) {
	t.Helper()
	if len(lab.Class) != ids.Len() || lab.Classes < 1 {
		t.Fatalf("%d classes for %d rows, %d classes", len(lab.Class), ids.Len(), lab.Classes)
	}
	top := -1
	for _, c := range lab.Class {
		if c < -1 || c >= lab.Classes {
			t.Fatalf("class %d outside [-1, %d)", c, lab.Classes)
		}
		top = max(top, c)
	}
	if top != lab.Classes-1 {
		t.Fatalf("Classes = %d but the largest class is %d", lab.Classes, top)
	}
	seen := make(map[int]bool)
	for _, set := range [][]int{lab.Train, lab.Val, lab.Test} {
		for _, r := range set {
			if r < 0 || r >= ids.Len() || seen[r] || lab.Class[r] < 0 {
				t.Fatalf("split row %d: out of range, repeated or unlabelled", r)
			}
			seen[r] = true
		}
	}
	if withSplit != (len(lab.Train) > 0 && len(lab.Test) > 0) || (!withSplit && len(seen) > 0) {
		t.Fatalf("split sets of sizes %d, %d, %d (split given: %v)", len(lab.Train), len(lab.Val), len(lab.Test), withSplit)
	}
}

// FuzzReadIndexTSV feeds arbitrary index files to ReadIndexTSV: bad input
// must give a ParseError naming the file and wrapping ErrFormat or
// ErrEmptyGraph; a result must map every data line's id to its row and
// back, and read back identically when written as WriteSplitDir does.
func FuzzReadIndexTSV(f *testing.F) {
	for _, s := range []string{
		hepthIndexHead,
		"# original_id\tnode\r\n30\t1\r\nx\t0\r\n7 2",
		"a\t0\nb\t0\n", "a\t0\nb\t2\n", "a\t2147483647\n", "a\t-1\n", "a\t0\na\t1\n",
		"a\t0\tx\n", "# header only\n", "a\t+0\n", "a\t00\n", "%x\t0\n#\n\n a \t 0 \n",
		"a\t9223372036854775807\n", "a\t1\n", "a\t0\r\rb\t1\n",
		string(gzipped(f, hepthIndexHead)),
	} {
		f.Add(s)
	}
	// The first 200 lines of ca-HepTh's index (a sample of its lines would
	// not number the rows 0..N−1).
	if index := realFile(f, "ca-HepTh/asymproj/index.tsv.gz"); index != "" {
		f.Add(strings.Join(strings.SplitAfter(index, "\n")[:200], ""))
	}
	f.Fuzz(func(t *testing.T, text string) {
		ids, err := ReadIndexTSV(context.Background(), strings.NewReader(text), "index.tsv")
		if err != nil {
			checkParseError(t, err, []string{"index.tsv"}, pipeline.ErrFormat, pipeline.ErrEmptyGraph)
			return
		}
		if ids.Len() == 0 {
			t.Fatal("an index of no nodes was accepted")
		}
		for i := 0; i < ids.Len(); i++ {
			name := ids.Name(i)
			if name == "" || name[0] == '#' || name[0] == '%' {
				t.Fatalf("row %d has the id %q, which cannot be written back", i, name)
			}
			if r, ok := ids.Row(name); !ok || r != i {
				t.Fatalf("Row(Name(%d) = %q) = %d, %v", i, name, r, ok)
			}
		}
		// The oracle: each data line names its row, and there are as many
		// lines as rows.
		if rows, ok := plainFields(text); ok {
			if len(rows) != ids.Len() {
				t.Fatalf("%d data lines, %d rows", len(rows), ids.Len())
			}
			for _, f := range rows {
				if len(f) != 2 {
					t.Fatalf("accepted the line %q", f)
				}
				row, err := strconv.Atoi(f[1])
				if err != nil || row < 0 || row >= ids.Len() || ids.Name(row) != f[0] {
					t.Fatalf("the line %q does not match row %d", f, row)
				}
			}
		}
		// Round trip in WriteSplitDir's format.
		var b bytes.Buffer
		b.WriteString("# original_id\tnode\n")
		for i := 0; i < ids.Len(); i++ {
			fmt.Fprintf(&b, "%s\t%d\n", ids.Name(i), i)
		}
		again, err := ReadIndexTSV(context.Background(), &b, "index.tsv")
		if err != nil {
			t.Fatalf("the index does not read back: %v", err)
		}
		if again.Len() != ids.Len() {
			t.Fatalf("read back %d rows, want %d", again.Len(), ids.Len())
		}
		for i := 0; i < ids.Len(); i++ {
			if again.Name(i) != ids.Name(i) {
				t.Fatalf("row %d read back as %q, want %q", i, again.Name(i), ids.Name(i))
			}
		}
	})
}
