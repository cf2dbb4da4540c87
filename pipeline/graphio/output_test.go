package graphio

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sbinet/npyio/npy"
	"github.com/wys-project/wys/pipeline"
)

// testResult is a 3-node result with d = 4 whose values print exactly.
func testResult() *pipeline.Result {
	return &pipeline.Result{N: 3, Half: 2,
		L: []float32{0.5, -1, 2, 0.25, -3.5, 1e-3},
		R: []float32{1, 2, 3, 4, 5, 6},
	}
}

func TestFormatFromPath(t *testing.T) {
	for path, want := range map[string]string{
		"emb.npy": FormatNPY, "a/b/EMB.NPY": FormatNPY, "emb.tsv": FormatTSV,
		"emb.txt": FormatWord2Vec, "emb": FormatWord2Vec, "emb.vec": FormatWord2Vec,
		"emb.csv": FormatCSV, "emb.CSV.gz": FormatCSV, "emb.tsv.gz": FormatTSV,
	} {
		if got, err := FormatFromPath(path); got != want || err != nil {
			t.Errorf("FormatFromPath(%q) = %q, %v, want %q", path, got, err, want)
		}
	}
	// Names that promise a format wys does not handle are refused, not
	// taken for word2vec text.
	for path, promise := range map[string]string{
		"emb.bin": "binary word2vec", "emb.parquet": "Parquet", "emb.h5": "HDF5", "emb.PKL": "pickle",
		"emb.npz": "NumPy archive", "emb.json.gz": "JSON",
	} {
		got, err := FormatFromPath(path)
		var fe *FormatNameError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), promise) || !strings.Contains(err.Error(), ".csv") {
			t.Errorf("FormatFromPath(%q) = %q, %v: want a FormatNameError naming %s and the formats", path, got, err, promise)
		}
	}
}

func TestWriteEmbeddingsText(t *testing.T) {
	dir := t.TempDir()
	ids := pipeline.NewStringIDs([]string{"alice", "bob", "carol"})
	res := testResult()
	w2v := filepath.Join(dir, "emb.txt")
	tsv := filepath.Join(dir, "emb.tsv")
	if err := WriteEmbeddings(context.Background(), w2v, FormatWord2Vec, res, ids); err != nil {
		t.Fatal(err)
	}
	if err := WriteEmbeddings(context.Background(), tsv, FormatTSV, res, ids); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(w2v)
	want := "3 4\nalice 0.5 -1 1 2\nbob 2 0.25 3 4\ncarol -3.5 0.001 5 6\n"
	if string(got) != want {
		t.Errorf("word2vec:\n%s\nwant:\n%s", got, want)
	}
	got, _ = os.ReadFile(tsv)
	want = "alice\t0.5\t-1\t1\t2\nbob\t2\t0.25\t3\t4\ncarol\t-3.5\t0.001\t5\t6\n"
	if string(got) != want {
		t.Errorf("tsv:\n%s\nwant:\n%s", got, want)
	}
}

// TestWriteEmbeddingsRoundTrip writes random float32 values as text and
// parses them back: the shortest representation must be exact.
func TestWriteEmbeddingsRoundTrip(t *testing.T) {
	n, half := 50, 5
	res := &pipeline.Result{N: n, Half: half, L: make([]float32, n*half), R: make([]float32, n*half)}
	for i := range res.L {
		res.L[i] = float32(math.Sin(float64(i)*1.7) * math.Pow(10, float64(i%9-4)))
		res.R[i] = float32(math.Cos(float64(i)*0.3)) / 3
	}
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(1000 + 7*i)
	}
	path := filepath.Join(t.TempDir(), "emb.txt")
	if err := WriteEmbeddings(context.Background(), path, FormatWord2Vec, res, pipeline.NewNumericIDs(ids)); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if lines[0] != "50 10" || len(lines) != n+1 {
		t.Fatalf("header %q, %d lines", lines[0], len(lines))
	}
	for i, line := range lines[1:] {
		f := strings.Fields(line)
		if f[0] != strconv.FormatUint(ids[i], 10) {
			t.Fatalf("row %d has id %s, want %d", i, f[0], ids[i])
		}
		for j, s := range f[1:] {
			x, err := strconv.ParseFloat(s, 32)
			if err != nil {
				t.Fatal(err)
			}
			want := res.L[i*half+j%half]
			if j >= half {
				want = res.R[i*half+j-half]
			}
			if float32(x) != want {
				t.Fatalf("row %d column %d: %s reads back as %v, want %v", i, j, s, float32(x), want)
			}
		}
	}
}

// TestWriteEmbeddingsNPY reads the .npy file back with npyio (an
// independent reader) and checks shape, dtype, values and the ids file.
func TestWriteEmbeddingsNPY(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "emb.npy")
	res := testResult()
	if err := WriteEmbeddings(context.Background(), path, FormatNPY, res, pipeline.NewStringIDs([]string{"x", "y", "z"})); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := npy.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Header.Descr.Shape; len(got) != 2 || got[0] != 3 || got[1] != 4 || r.Header.Descr.Type != "<f4" || r.Header.Descr.Fortran {
		t.Fatalf("header %+v", r.Header.Descr)
	}
	var data []float32
	if err := r.Read(&data); err != nil {
		t.Fatal(err)
	}
	want := []float32{0.5, -1, 1, 2, 2, 0.25, 3, 4, -3.5, 1e-3, 5, 6}
	if len(data) != len(want) {
		t.Fatalf("%d values, want %d", len(data), len(want))
	}
	for i := range want {
		if data[i] != want[i] {
			t.Fatalf("value %d = %v, want %v", i, data[i], want[i])
		}
	}
	ids, _ := os.ReadFile(IDsPath(path))
	if string(ids) != "x\ny\nz\n" || IDsPath(path) != filepath.Join(dir, "emb.ids.txt") {
		t.Errorf("ids file %s: %q", IDsPath(path), ids)
	}
}

// TestWriteEmbeddingsFormatFromPath checks that an empty format is the
// one FormatFromPath names: the same bytes as the explicit format.
func TestWriteEmbeddingsFormatFromPath(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"emb.npy", "emb.tsv", "emb.txt.gz", "emb.csv"} {
		explicit, implied := filepath.Join(dir, "a-"+name), filepath.Join(dir, "b-"+name)
		format, err := FormatFromPath(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteEmbeddings(context.Background(), explicit, format, testResult(), nil); err != nil {
			t.Fatal(err)
		}
		if err := WriteEmbeddings(context.Background(), implied, "", testResult(), nil); err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadFile(explicit)
		b, _ := os.ReadFile(implied)
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: format \"\" wrote %d bytes unlike the %s format's %d", name, len(b), format, len(a))
		}
	}
}

func TestWriteEmbeddingsErrors(t *testing.T) {
	dir := t.TempDir()
	res := testResult()
	if err := WriteEmbeddings(context.Background(), filepath.Join(dir, "e"), "parquet", res, nil); err == nil || !strings.Contains(err.Error(), "unknown embedding format") {
		t.Errorf("unknown format: %v", err)
	}
	if err := WriteEmbeddings(context.Background(), filepath.Join(dir, "e"), FormatTSV, res, pipeline.IdentityIDs(4)); err == nil {
		t.Error("accepted 4 ids for 3 rows")
	}
	err := WriteEmbeddings(context.Background(), filepath.Join(dir, "missing", "e.txt"), FormatWord2Vec, res, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot write") {
		t.Errorf("missing directory: %v", err)
	}
}

func TestWriteJSONQReport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.json")
	if err := WriteJSON(path, QReport{Q: []float64{0.75, 0.25}, Logits: []float64{1, 0}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	var got map[string][]float64
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got["Q"]) != 2 || got["Q"][0] != 0.75 || len(got["logits"]) != 2 {
		t.Errorf("got %s", b)
	}
	if !bytes.HasSuffix(b, []byte("\n")) {
		t.Error("no final newline")
	}
}

// TestWriteEmbeddingsGzip writes word2vec text and TSV to .gz names: the
// files decompress to exactly the plain text, the same embeddings give
// the same bytes, and a gzip-compressed .npy is refused.
func TestWriteEmbeddingsGzip(t *testing.T) {
	dir := t.TempDir()
	ids := pipeline.NewStringIDs([]string{"alice", "bob", "carol"})
	res := testResult()
	for _, c := range []struct{ name, want string }{
		{"emb.txt.gz", "3 4\nalice 0.5 -1 1 2\nbob 2 0.25 3 4\ncarol -3.5 0.001 5 6\n"},
		{"emb.tsv.GZ", "alice\t0.5\t-1\t1\t2\nbob\t2\t0.25\t3\t4\ncarol\t-3.5\t0.001\t5\t6\n"},
	} {
		path := filepath.Join(dir, c.name)
		if err := WriteEmbeddings(context.Background(), path, "", res, ids); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s is not gzip: %v", c.name, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || string(got) != c.want {
			t.Errorf("%s decompresses to %q (%v), want %q", c.name, got, err, c.want)
		}
		if err := WriteEmbeddings(context.Background(), path, "", res, ids); err != nil {
			t.Fatal(err)
		}
		if again, _ := os.ReadFile(path); !bytes.Equal(again, raw) {
			t.Errorf("%s: a second write gave other bytes", c.name)
		}
	}
	if err := WriteEmbeddings(context.Background(), filepath.Join(dir, "emb.npy.gz"), FormatNPY, res, ids); err == nil || !strings.Contains(err.Error(), "numpy.load") {
		t.Errorf("gzip-compressed .npy: got %v, want a refusal naming numpy.load", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "emb.npy.gz")); !os.IsNotExist(err) {
		t.Errorf("refused .npy.gz left a file (%v)", err)
	}
}

// TestEmbeddingsCSV writes CSV with ids that need quoting, parses it with
// encoding/csv (RFC 4180, as pandas reads it) against the values written,
// and reads it back with ReadEmbeddings, plain and gzip.
func TestEmbeddingsCSV(t *testing.T) {
	dir := t.TempDir()
	names := []string{"alice", `bob, "the builder"`, "carol"}
	ids := pipeline.NewStringIDs(names)
	res := testResult()
	for _, name := range []string{"emb.csv", "emb.csv.gz"} {
		path := filepath.Join(dir, name)
		if err := WriteEmbeddings(context.Background(), path, "", res, ids); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		if strings.HasSuffix(name, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatalf("%s: encoding/csv: %v\n%s", name, err, b)
		}
		if len(rows) != res.N {
			t.Fatalf("%s: %d rows, want %d (no header)", name, len(rows), res.N)
		}
		for i, row := range rows {
			if row[0] != names[i] || len(row) != 1+2*res.Half {
				t.Fatalf("%s: row %d is %q, want id %q and %d numbers", name, i, row, names[i], 2*res.Half)
			}
			for j, s := range row[1:] {
				want := res.L[i*res.Half+j%res.Half]
				if j >= res.Half {
					want = res.R[i*res.Half+j%res.Half]
				}
				if x, err := strconv.ParseFloat(s, 32); err != nil || float32(x) != want {
					t.Errorf("%s: row %d column %d is %q, want %v", name, i, j+1, s, want)
				}
			}
		}
		e, err := ReadEmbeddings(context.Background(), path, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		l, r := e.Sides()
		if !e.Halves || e.N() != res.N || !slices.Equal(l, res.L) || !slices.Equal(r, res.R) {
			t.Errorf("%s read back: halves %v, %d rows, L %v R %v", name, e.Halves, e.N(), l, r)
		}
		for i, n := range names {
			if got := e.IDs.Name(i); got != n {
				t.Errorf("%s read back: id %d is %q, want %q", name, i, got, n)
			}
		}
	}
}

// TestCSVFieldsErrors: a CSV line that cannot be split is an error naming
// the file and line.
func TestCSVFieldsErrors(t *testing.T) {
	for text, want := range map[string]string{
		"a,1,2\n\"b,1,2\n":    "emb.csv:2: malformed input: the quoted id \"b,1,2 has no closing quote",
		"a,1,2\n\"b\"x,1,2\n": "emb.csv:2: malformed input: text after the quoted id \"b\": want a comma",
		"a,1,2\nb,1,x\n":      "emb.csv:2: malformed input: column 3 of id \"b\" is \"x\", not a number",
	} {
		_, err := readEmbeddingsText(context.Background(), strings.NewReader(text), "emb.csv", true)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}

// TestEmbeddingsCSVHeader: the first line of a CSV file is skipped when
// it names columns (pandas' to_csv writes one by default), and is a row
// otherwise; an empty id anywhere else is an error.
func TestEmbeddingsCSVHeader(t *testing.T) {
	for text, want := range map[string][]string{
		",0,1,2\na,1,2,3\nb,4,5,6\n":     {"a", "b"}, // DataFrame.to_csv, unnamed index
		"node,0,1,2\na,1,2,3\nb,4,5,6\n": {"a", "b"}, // named index
		"id,x,y,z\na,1,2,3\n":            {"a"},      // named columns
		",x1,x2,x3\na,1,2,3\n":           {"a"},      // named columns, unnamed index
		"a,0.5,2,3\nb,4,5,6\n":           {"a", "b"}, // no header
		"a,1,2,3\n":                      {"a"},
	} {
		e, err := readEmbeddingsText(context.Background(), strings.NewReader(text), "emb.csv", true)
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		var got []string
		for i := range e.N() {
			got = append(got, e.IDs.Name(i))
		}
		if !slices.Equal(got, want) || e.Dim != 3 {
			t.Errorf("%q: ids %q, dim %d, want %q, 3", text, got, e.Dim, want)
		}
	}
	// Rows that look like pandas' column names: one value column ("a,0"
	// for a vector (0)), a numeric first id ("7,0,1" for node 7's (0, 1)).
	// Every skipped line is in Header.
	for _, c := range []struct {
		text   string
		csv    bool
		ids    []string
		header string
	}{
		{"a,0\nb,1\nc,2\n", true, []string{"a", "b", "c"}, ""},
		{"7,0,1\n8,2,3\n", true, []string{"7", "8"}, ""},
		{"node,0,1\n7,0,1\n", true, []string{"7"}, "node,0,1"},
		{"node\t0\t1\n7\t0\t1\n", false, []string{"7"}, "node\t0\t1"},
		// A UTF-8 byte-order mark is not part of the first id.
		{"\ufeff1\t0.5\t1\n2\t3\t4\n", false, []string{"1", "2"}, ""},
		{"\ufeff2 2\n1 0.5 1\n2 3 4\n", false, []string{"1", "2"}, ""},
		{"\ufeffid,x,y\n1,0.5,1\n", true, []string{"1"}, "id,x,y"},
	} {
		e, err := readEmbeddingsText(context.Background(), strings.NewReader(c.text), "emb", c.csv)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		var got []string
		for i := range e.N() {
			got = append(got, e.IDs.Name(i))
		}
		if !slices.Equal(got, c.ids) || e.Header != c.header {
			t.Errorf("%q: ids %q, header %q; want %q, %q", c.text, got, e.Header, c.ids, c.header)
		}
	}
	_, err := readEmbeddingsText(context.Background(), strings.NewReader("a,1,2\n,3,4\n"), "emb.csv", true)
	if err == nil || !strings.Contains(err.Error(), "emb.csv:2: malformed input: an empty node id") {
		t.Errorf("empty id on line 2: %v", err)
	}
	// pandas' header above its row numbers and a column of ids, as
	// df.reset_index().to_csv() writes it (sep="," and "\t"), is refused:
	// read as a header, the ids would be read as a vector's first number.
	for text, col := range map[string]string{
		",index,0,1\n0,10,0.0,0.25\n":       "index",
		",node,0,1\n0,10,0.0,0.25\n":        "node",
		",who,0,1\n0,10,0.0,0.25\n":         "who",
		"\tindex\t0\t1\n0\t10\t0.0\t0.25\n": "index",
	} {
		_, err := readEmbeddingsText(context.Background(), strings.NewReader(text), "emb.csv", !strings.Contains(text, "\t"))
		if want := fmt.Sprintf("emb.csv:1: malformed input: the first column has no name (pandas' index, the row numbers) and the second, %q, is no vector column", col); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
	// word2vec text has no such header: its first line is a row (or "N D").
	e, err := readEmbeddingsText(context.Background(), strings.NewReader("node 0 1 2\na 1 2 3\n"), "emb.txt", false)
	if err != nil {
		t.Fatalf("word2vec text: %v", err)
	}
	if e.N() != 2 {
		t.Errorf("word2vec text: %d rows, want 2 (its first line is a row)", e.N())
	}
	// A tab-separated file takes pandas' header too (to_csv(sep="\t")).
	for text, want := range map[string]int{
		"\t0\t1\t2\na\t1\t2\t3\n":     1,
		"node\t0\t1\t2\na\t1\t2\t3\n": 1,
		"id\tx\ty\tz\na\t1\t2\t3\n":   1,
		"b\t0\t1.5\t2\na\t1\t2\t3\n":  2,
	} {
		e, err := readEmbeddingsText(context.Background(), strings.NewReader(text), "emb.tsv", false)
		if err != nil || e.N() != want || e.Dim != 3 || e.IDs.Name(e.N()-1) != "a" {
			t.Errorf("%q: %v, want %d rows of 3", text, err, want)
		}
	}
}

// TestWriteEmbeddingsIDsRoundTrip writes ids that hold separators in
// every format: each file is either refused before anything is written,
// naming the id, or read back with the same ids; word2vec text accepted
// also splits at single spaces into the id and d numbers on every line,
// as gensim reads it.
func TestWriteEmbeddingsIDsRoundTrip(t *testing.T) {
	res := &pipeline.Result{N: 2, Half: 1, L: []float32{1, 2}, R: []float32{3, 4}}
	idSets := [][]string{{"plain", "ok"}, {"Smith, J.", "Lee"}, {"a\tb", "c"}, {"a\u00a0b", "c"}, {`say,"hi"`, "c"}}
	refused := map[string]int{}
	for _, format := range []string{FormatWord2Vec, FormatTSV, FormatCSV, FormatNPY} {
		for _, names := range idSets {
			path := filepath.Join(t.TempDir(), "emb."+format)
			ids := pipeline.NewStringIDs(slices.Clone(names))
			err := WriteEmbeddings(context.Background(), path, format, res, ids)
			if err != nil {
				if !strings.Contains(err.Error(), "node id") {
					t.Errorf("%s %q: %v; want a refusal naming the id", format, names, err)
				}
				if _, serr := os.Stat(path); serr == nil {
					t.Errorf("%s %q: refused, but %s was written", format, names, path)
				}
				refused[format]++
				continue
			}
			e, err := ReadEmbeddings(context.Background(), path, ReadOptions{Format: format})
			if err != nil {
				t.Errorf("%s %q: written, but reading it back: %v", format, names, err)
				continue
			}
			for i := range names {
				if got, want := e.IDs.Name(i), ids.Name(i); got != want {
					t.Errorf("%s %q: row %d reads back as id %q", format, names, i, got)
				}
			}
			if format == FormatWord2Vec {
				b, _ := os.ReadFile(path)
				for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
					if f := strings.Split(line, " "); len(f) != 3 {
						t.Errorf("%q: line %q splits at spaces into %d fields, want 3", names, line, len(f))
					}
				}
			}
		}
	}
	// Three id sets hold what word2vec text cannot carry (a space, a tab,
	// a no-break space); TSV cannot carry the tab.
	if refused[FormatWord2Vec] != 3 || refused[FormatCSV] != 0 || refused[FormatNPY] != 0 || refused[FormatTSV] != 1 {
		t.Errorf("refusals per format %v, want w2v 3, tsv 1, csv 0, npy 0", refused)
	}
}
