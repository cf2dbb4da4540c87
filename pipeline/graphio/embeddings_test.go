package graphio

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wys-project/wys/pipeline"
)

// randomResult returns n x (2·half) embeddings with values of every
// magnitude, including subnormals and negative zero, so that a text
// round trip that lost a bit would show.
func randomResult(n, half int, seed uint64) *pipeline.Result {
	rng := rand.New(rand.NewPCG(seed, 7))
	res := &pipeline.Result{N: n, Half: half, L: make([]float32, n*half), R: make([]float32, n*half)}
	for _, side := range [][]float32{res.L, res.R} {
		for i := range side {
			side[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(60)-30)))
		}
	}
	res.L[0], res.R[0] = math.Float32frombits(1), float32(math.Copysign(0, -1))
	return res
}

// TestEmbeddingsRoundTrip writes every format with WriteEmbeddings and
// reads it back: the same ids in the same order, bit-equal float32, and
// the [L | R] layout recognised from the marker.
func TestEmbeddingsRoundTrip(t *testing.T) {
	t.Parallel()
	res := randomResult(37, 3, 1)
	ids, err := pipeline.NewIndexedIDs(func() []string {
		s := make([]string, 37)
		for i := range s {
			s[i] = "node-" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		}
		return s
	}())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"e.txt", "e.txt.gz", "e.tsv", "e.tsv.gz", "e.npy", "e.emb"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := WriteEmbeddings(context.Background(), path, "", res, ids); err != nil {
				t.Fatal(err)
			}
			e, err := ReadEmbeddings(context.Background(), path, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if e.N() != res.N || e.Dim != 6 || !e.Halves {
				t.Fatalf("read %d x %d, halves %v", e.N(), e.Dim, e.Halves)
			}
			l, r := e.Sides()
			for i := range l {
				if math.Float32bits(l[i]) != math.Float32bits(res.L[i]) || math.Float32bits(r[i]) != math.Float32bits(res.R[i]) {
					t.Fatalf("entry %d: read %v %v, wrote %v %v", i, l[i], r[i], res.L[i], res.R[i])
				}
			}
			for i := 0; i < res.N; i++ {
				if e.IDs.Name(i) != ids.Name(i) {
					t.Fatalf("row %d: id %q, wrote %q", i, e.IDs.Name(i), ids.Name(i))
				}
			}
			// Without the marker the table is a single one.
			os.Remove(MarkerPath(path))
			e, err = ReadEmbeddings(context.Background(), path, ReadOptions{})
			if err != nil || e.Halves {
				t.Fatalf("without marker: %v, halves %v", err, e != nil && e.Halves)
			}
		})
	}
}

// TestBareNPY reads a .npy without an ids file as rows 0..N−1, and a
// float64 .npy (as numpy.save writes by default) rounded to float32.
func TestBareNPY(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := writeNPYHeader(&b, "<f8", 2, 3); err != nil {
		t.Fatal(err)
	}
	for _, x := range []float64{1, 2.5, -3, 0.1, 5, 6} {
		var w [8]byte
		for i := range 8 {
			w[i] = byte(math.Float64bits(x) >> (8 * i))
		}
		b.Write(w[:])
	}
	path := filepath.Join(t.TempDir(), "bare.npy")
	os.WriteFile(path, b.Bytes(), 0o644)
	e, err := ReadEmbeddings(context.Background(), path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{1, 2.5, -3, 0.1, 5, 6}
	if e.N() != 2 || e.Dim != 3 || e.Halves || e.IDs.Name(1) != "1" || !slicesEqual(e.Y, want) {
		t.Errorf("read %d x %d %v ids %q", e.N(), e.Dim, e.Y, e.IDs.Name(1))
	}
}

func slicesEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestEmbeddingsTextErrors checks the one-line error of each kind of bad
// text file: it names the file and line and says what to fix.
func TestEmbeddingsTextErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, text, want string }{
		{"ragged", "3 2\na 1 2\nb 1\nc 1 2\n", "f:3: malformed input: 1 numbers after id \"b\", but the header says 2"},
		{"ragged-no-header", "a 1 2 3\nb 1 2\n", "f:2: malformed input: 2 numbers after id \"b\", but the first row says 3"},
		{"bad-number", "a 1 2\nb 1 x2\n", "f:2: malformed input: column 3 of id \"b\" is \"x2\", not a number"},
		{"nan", "2 2\na 1 2\nb NaN 2\n", "f:3: malformed input: column 2 of id \"b\" is NaN: embeddings must be finite"},
		{"inf", "a 1 1e99\n", "f:1: malformed input: column 3 of id \"a\" is 1e99: embeddings must be finite"},
		{"header-more", "3 2\na 1 2\nb 1 2\n", "f:3: malformed input: the header announces 3 rows but the file holds 2"},
		// A header is read, not trusted: nothing is sized by it.
		{"header-huge", "1000000000000 2\na 1 2\n", "f:2: malformed input: the header announces 1000000000000 rows but the file holds 1"},
		{"header-fewer", "1 2\na 1 2\nb 1 2\n", "f:3: malformed input: more rows than the 1 the header announces"},
		{"csv-as-text", "a,1,2\nb,3,4\n", "f:1: malformed input: a node id with no vector: each line is \"id x1 … xD\" (the line splits as CSV: read it as CSV, by a .csv name or by giving its format)"},
		{"header-zero-width", "2 0\na 1 2\nb 1 2\n", "f:1: malformed input: \"2 0\" reads as a header \"N D\" (line 2 holds 2 numbers after its id), but N rows and D columns must be N ≥ 0 and D > 0"},
		{"header-negative", "-1 2\n\na 1 2\n", "f:1: malformed input: \"-1 2\" reads as a header \"N D\" (line 3 holds 2 numbers after its id)"},
		{"duplicate", "a 1 2\nb 1 2\na 3 4\n", "f:3: malformed input: node id \"a\" already has a vector on line 1"},
		{"duplicate whole float", "1.0 1 2\n2.0 1 2\n1.0 3 4\n", "f:3: malformed input: node id \"1.0\" already has a vector on line 1: each id once"},
		{"duplicate coordinate", "0.5 1 2\n0.25 1 2\n0.5 3 4\n", "f:3: malformed input: node id \"0.5\" already has a vector on line 1, and is a number with a fraction: the first column is likely a coordinate"},
		{"empty", "2 3\n", "f: malformed input: no embedding rows"},
		{"id-only", "a\n", "f:1: malformed input: a node id with no vector"},
		{"latin1-ids-are-text", "1 2\ncaf\xe9 1 x\n", "f:2: malformed input: column 3 of id \"caf\\xe9\" is \"x\", not a number"},
		{"binary", "2 2\na \x00\x01\x02\x03\xff\xfe\x01\x02\n", "f:2: malformed input: binary word2vec (raw float32 after each id) is not read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadEmbeddingsText(context.Background(), strings.NewReader(c.text), "f")
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, pipeline.ErrFormat) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestEmbeddingsFileErrors checks the errors that concern whole files:
// a truncated .npy, an ids file of the wrong length, a stale marker.
func TestEmbeddingsFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res := randomResult(4, 2, 2)
	npy := filepath.Join(dir, "e.npy")
	if err := WriteEmbeddings(context.Background(), npy, FormatNPY, res, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(npy)
	short := filepath.Join(dir, "short.npy")
	os.WriteFile(short, b[:len(b)-3], 0o644)
	os.WriteFile(filepath.Join(dir, "fewids.npy"), b, 0o644)
	os.WriteFile(filepath.Join(dir, "fewids.ids.txt"), []byte("1\n2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "dupids.npy"), b, 0o644)
	os.WriteFile(filepath.Join(dir, "dupids.ids.txt"), []byte("1\n2\nx\n2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "gap.npy"), b, 0o644)
	os.WriteFile(filepath.Join(dir, "gap.ids.txt"), []byte("1\n2\n\n3\n4\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "stale.npy"), b, 0o644)
	os.WriteFile(MarkerPath(filepath.Join(dir, "stale.npy")), []byte(`{"layout":"halves","rows":5,"dim":4}`), 0o644)
	os.WriteFile(filepath.Join(dir, "ints.npy"), append([]byte(nil), bytes.Replace(b, []byte("<f4"), []byte("<i4"), 1)...), 0o644)
	cases := []struct{ file, want string }{
		{"short.npy", "short.npy: malformed input: the payload ends in row 3 of 4: the file is truncated"},
		{"fewids.npy", "fewids.ids.txt: malformed input: 2 ids for the 4 rows of the .npy beside it"},
		{"dupids.npy", "dupids.ids.txt: malformed input: node id \"2\" is given rows 1 and 3 (rows are lines − 1): each id once"},
		{"gap.npy", "gap.ids.txt:3: malformed input: empty id"},
		{"stale.npy", "stale.npy.wys.json: malformed input: says 5 x 4 but"},
		{"ints.npy", "dtype \"<i4\", want float16, float32 or float64 embeddings"},
		{"tabs.csv", "tabs.csv:2: malformed input: a node id with no vector: each line is \"id x1 … xD\" (the line splits as TSV: read it as TSV, by a .tsv name or by giving its format)"},
		{"spaces.csv", "spaces.csv:2: malformed input: a node id with no vector: each line is \"id x1 … xD\" (the line splits as word2vec text: read it as word2vec text, by a .txt name or by giving its format)"},
		{"text.npy", "text.npy: malformed input: not a NumPy .npy file (it does not start with numpy's magic bytes \\x93NUMPY); it starts like text: read it as word2vec text, TSV or CSV (by a .txt, .tsv or .csv name, or by giving its format)"},
	}
	os.WriteFile(filepath.Join(dir, "tabs.csv"), []byte("a\t1\t2\nb\t3\t4\nc\t5\t6\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "spaces.csv"), []byte("a 1 2\nb 3 4\nc 5 6\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "text.npy"), []byte("a 1 2\nb 3 4\n"), 0o644)
	// A binary word2vec file as gensim writes it (save_word2vec_format
	// with binary=True, 60 vectors of 8).
	bin, _ := os.ReadFile(filepath.Join("testdata", "gensim-binary.bin"))
	// Under a text name it is told by its bytes; under its usual .bin
	// name, by the name, before it is opened.
	os.WriteFile(filepath.Join(dir, "binary.txt"), bin, 0o644)
	os.WriteFile(filepath.Join(dir, "binary.bin"), bin, 0o644)
	cases = append(cases, struct{ file, want string }{"binary.txt", "binary.txt:2: malformed input: binary word2vec (raw float32 after each id) is not read: re-save it as text"},
		struct{ file, want string }{"binary.bin", "binary.bin: the name promises binary word2vec (gensim re-saves binary word2vec as text: KeyedVectors.load_word2vec_format(path, binary=True).save_word2vec_format(out, binary=False))"})
	for _, c := range cases {
		_, err := ReadEmbeddings(context.Background(), filepath.Join(dir, c.file), ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.file, err, c.want)
		}
	}
	// Blank lines at the end of an ids file, as an editor leaves them,
	// are not ids.
	os.WriteFile(filepath.Join(dir, "trail.npy"), b, 0o644)
	os.WriteFile(filepath.Join(dir, "trail.ids.txt"), []byte("a\nb\nc\nd\n\n \n"), 0o644)
	e, err := ReadEmbeddings(context.Background(), filepath.Join(dir, "trail.npy"), ReadOptions{})
	if err != nil || e.N() != 4 || e.IDs.Name(3) != "d" {
		t.Errorf("ids file with trailing blank lines: %v", err)
	}
}

// FuzzReadEmbeddingsText checks that no input panics the text reader,
// as word2vec text and TSV or as CSV, and that what it accepts is
// consistent: N x Dim finite numbers, distinct non-empty ids.
func FuzzReadEmbeddingsText(f *testing.F) {
	for _, s := range []string{"2 3\na 1 2 3\nb 4 5 6\n", "a\t1\t2\nb\t3\t4\n", "1 1\n7 0.5\n", "x 1e-45 -0 3.4e38\n", "2 2\na 1 2\n"} {
		f.Add([]byte(s), false)
	}
	for _, s := range []string{",0,1\na,1,2\n", "\"a,\"\"b\"\"\",1,2\nc, 3 ,4\n", "node,x,y\n\"q\n"} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, csv bool) {
		e, err := readEmbeddingsText(context.Background(), bytes.NewReader(data), "fuzz", csv)
		if err != nil {
			var pe *pipeline.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a ParseError: %v", err)
			}
			return
		}
		if e.Dim <= 0 || len(e.Y) != e.N()*e.Dim {
			t.Fatalf("%d rows x %d, %d numbers", e.N(), e.Dim, len(e.Y))
		}
		seen := map[string]bool{}
		for i := 0; i < e.N(); i++ {
			if e.IDs.Name(i) == "" {
				t.Fatal("empty id accepted")
			}
			if seen[e.IDs.Name(i)] {
				t.Fatalf("duplicate id %q accepted", e.IDs.Name(i))
			}
			seen[e.IDs.Name(i)] = true
		}
		for _, x := range e.Y {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatal("non-finite value accepted")
			}
		}
	})
}

// TestAlign matches rows by name: a permuted, partial table against a
// numbering it misses one node of.
func TestAlign(t *testing.T) {
	ids, _ := pipeline.NewIndexedIDs([]string{"c", "a", "x"})
	e := &Embeddings{IDs: ids, Dim: 2, Y: []float32{1, 2, 3, 4, 5, 6}}
	y, missing := e.Align(pipeline.NewStringIDs([]string{"a", "b", "c"}), 3)
	if want := []float32{3, 4, 0, 0, 1, 2}; !slicesEqual(y, want) || len(missing) != 1 || missing[0] != 1 {
		t.Errorf("Align = %v, missing %v; want %v, [1]", y, missing, want)
	}
}

// TestAlignByRow: a bare table's row i is the node named "i", wherever
// that node's row is in the other numbering; nil ids match it by
// position.
func TestAlignByRow(t *testing.T) {
	e := &Embeddings{IDs: pipeline.IdentityIDs(3), Dim: 1, Y: []float32{5, 6, 7}, ByRow: true}
	ids, _ := pipeline.NewIndexedIDs([]string{"2", "1", "10"})
	y, missing := e.Align(ids, 3)
	if want := []float32{7, 6, 0}; !slicesEqual(y, want) || len(missing) != 1 || missing[0] != 2 {
		t.Errorf("Align = %v, missing %v; want %v, [2]", y, missing, want)
	}
	y, missing = e.Align(nil, 2)
	if want := []float32{5, 6}; !slicesEqual(y, want) || len(missing) != 0 {
		t.Errorf("Align(nil) = %v, missing %v; want %v", y, missing, want)
	}
}

// npyBytes returns a version 1.0 .npy file of float32 values with the
// given header dictionary.
func npyBytes(dict string, vals []float32) []byte {
	h := dict
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	b.WriteString(h)
	binary.Write(&b, binary.LittleEndian, vals)
	return b.Bytes()
}

// TestReadMatrixNPYFortran: a Fortran-ordered (column-major) array, as
// numpy.asfortranarray saves it, reads as the same matrix as its C-ordered
// twin; a NaN is named by its row and column in the matrix.
func TestReadMatrixNPYFortran(t *testing.T) {
	ctx := context.Background()
	// The 3 x 2 matrix [[1 2] [3 4] [5 6]].
	c := npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", []float32{1, 2, 3, 4, 5, 6})
	f := npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (3, 2), }", []float32{1, 3, 5, 2, 4, 6})
	yc, nc, dc, err := ReadMatrixNPY(ctx, bytes.NewReader(c), "c.npy")
	if err != nil {
		t.Fatal(err)
	}
	yf, nf, df, err := ReadMatrixNPY(ctx, bytes.NewReader(f), "f.npy")
	if err != nil {
		t.Fatal(err)
	}
	if nc != 3 || dc != 2 || nf != nc || df != dc || !slices.Equal(yc, yf) {
		t.Errorf("C order %v (%d x %d), Fortran order %v (%d x %d)", yc, nc, dc, yf, nf, df)
	}
	nan := npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (3, 2), }", []float32{1, 3, 5, 2, float32(math.NaN()), 6})
	if _, _, _, err := ReadMatrixNPY(ctx, bytes.NewReader(nan), "n.npy"); err == nil || !strings.Contains(err.Error(), "row 1 column 1 is NaN") {
		t.Errorf("NaN at (1, 1): %v", err)
	}
}

// FuzzReadMatrixNPY feeds arbitrary bytes to the bare .npy reader of
// embedding tables: bad input must give a ParseError naming the file and
// wrapping ErrFormat; a table it accepts must hold n x d finite numbers,
// and written back as a C-ordered little-endian float32 .npy it must read
// as the same bits.
func FuzzReadMatrixNPY(f *testing.F) {
	for _, s := range [][]byte{
		npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", []float32{1, 2, 3, 4, 5, 6}),
		npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (3, 2), }", []float32{1, 3, 5, 2, 4, 6}),
		npyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (1, 2), }", []float32{1, 2}),
		npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }", []float32{0, 1.875}),
		npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1), }", []float32{1, float32(math.NaN())}),
		npyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", []float32{1, 2}),
		npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000), }", []float32{1}),
		[]byte("\x93NUMPY\x02\x00\x00\x00\x00\x00"), []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00"), []byte("1 2\n"),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		y, n, d, err := ReadMatrixNPY(ctx, bytes.NewReader(data), "fuzz")
		if err != nil {
			var pe *pipeline.ParseError
			if !errors.As(err, &pe) || pe.File != "fuzz" || !errors.Is(err, pipeline.ErrFormat) {
				t.Fatalf("error %v is not a ParseError naming the file and wrapping ErrFormat", err)
			}
			return
		}
		if n < 1 || d < 1 || len(y) != n*d {
			t.Fatalf("%d numbers for %d x %d", len(y), n, d)
		}
		for i, v := range y {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("entry %d is %v", i, v)
			}
		}
		back := npyBytes(fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", n, d), y)
		y2, n2, d2, err := ReadMatrixNPY(ctx, bytes.NewReader(back), "back")
		if err != nil || n2 != n || d2 != d || len(y2) != len(y) {
			t.Fatalf("written back: %d x %d, %v", n2, d2, err)
		}
		for i := range y {
			if math.Float32bits(y[i]) != math.Float32bits(y2[i]) {
				t.Fatalf("entry %d: %v, written back %v", i, y[i], y2[i])
			}
		}
	})
}

// TestReadEmbeddingsTextCancelLongLines: a cancelled read of a text of few
// but long lines (2,000 rows of 1,000 numbers, 8 MB) returns the context's
// error. The line reader checked ctx every 2^16 lines only, so such a file,
// like any embedding file of fewer rows, was read to its end whatever the
// context said (and a d = 128 file of millions of rows read about 85 MB
// between two checks).
func TestReadEmbeddingsTextCancelLongLines(t *testing.T) {
	row := strings.Repeat(" 0.123", 1000) + "\n"
	var b strings.Builder
	for i := range 2000 {
		b.WriteString("n" + strconv.Itoa(i) + row)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadEmbeddingsText(ctx, strings.NewReader(b.String()), "long.txt"); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	// The same text reads whole under a live context.
	e, err := ReadEmbeddingsText(context.Background(), strings.NewReader(b.String()), "long.txt")
	if err != nil || e.N() != 2000 || e.Dim != 1000 {
		t.Fatalf("live read: %v", err)
	}
}

// TestAppendTextFields checks the splitter of text embeddings against
// strings.FieldsFunc on random lines of spaces, tabs, digits and UTF-8.
func TestAppendTextFields(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 4))
	alphabet := []string{" ", "\t", "\t", "1", "-", ".", "é", "\u00a0", "x"}
	for range 2000 {
		var sb strings.Builder
		for range rng.IntN(12) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := sb.String()
		want := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' })
		if got := appendTextFields([]string{"kept"}, s); !slices.Equal(got[1:], want) || got[0] != "kept" {
			t.Fatalf("%q: fields %q, want %q", s, got[1:], want)
		}
	}
}

// TestIDLinesBOM: a byte-order mark before an ids file's first id is not
// part of it.
func TestIDLinesBOM(t *testing.T) {
	ids, err := readIDLines(context.Background(), strings.NewReader("\ufeffa\nb\n"), "e.ids.txt", 2)
	if err != nil || ids.Name(0) != "a" || ids.Name(1) != "b" {
		t.Errorf("ids %v (%v), want a, b", ids, err)
	}
}

// TestHalfToFloat32 checks binary16 values from the IEEE 754 tables:
// ±1, −2, the largest (65504), the smallest subnormal (2⁻²⁴) and normal
// (2⁻¹⁴), 1/3 rounded (0x3555), signed zeros and infinity.
func TestHalfToFloat32(t *testing.T) {
	for h, want := range map[uint16]float32{
		0x3c00: 1, 0xbc00: -1, 0xc000: -2, 0x7bff: 65504, 0x0001: 5.9604645e-08,
		0x0400: 6.1035156e-05, 0x3555: 0.33325195, 0x0000: 0, 0x8000: 0, 0x7c00: float32(math.Inf(1)),
	} {
		if got := halfToFloat32(h); got != want {
			t.Errorf("%#04x: %v, want %v", h, got, want)
		}
	}
	if x := halfToFloat32(0x8000); !math.Signbit(float64(x)) {
		t.Error("0x8000 is not -0")
	}
	if x := halfToFloat32(0x7e00); x == x {
		t.Error("0x7e00 is not NaN")
	}
}

// TestMarkerChecksum: the marker WriteEmbeddings writes records the
// SHA-256 of the file's bytes (sha256sum's, for each format); a file
// replaced by another table of the same shape, its marker kept, is
// refused, while a marker without a sum (written before it had one) is
// still read; a marker beside a table of an odd width says so.
func TestMarkerChecksum(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res := randomResult(6, 4, 3)
	for _, name := range []string{"e.npy", "e.txt", "e.txt.gz", "e.csv"} {
		path := filepath.Join(dir, name)
		if err := WriteEmbeddings(context.Background(), path, "", res, nil); err != nil {
			t.Fatal(err)
		}
		var m marker
		if b, err := os.ReadFile(MarkerPath(path)); err != nil || json.Unmarshal(b, &m) != nil {
			t.Fatalf("%s: marker %v", name, err)
		}
		out, err := exec.Command("sha256sum", path).Output()
		if err != nil {
			t.Skip("no sha256sum:", err)
		}
		if want := strings.Fields(string(out))[0]; m.SHA256 != want {
			t.Errorf("%s: marker's sha256 %q, sha256sum's %q", name, m.SHA256, want)
		}
		if e, err := ReadEmbeddings(context.Background(), path, ReadOptions{}); err != nil || !e.Marked || e.SHA256 != m.SHA256 {
			t.Errorf("%s: read back %v, sum %q", name, err, e.SHA256)
		}
	}
	// Another table of the same shape in place of e.npy.
	npy := filepath.Join(dir, "e.npy")
	other := filepath.Join(dir, "other.npy")
	if err := WriteEmbeddings(context.Background(), other, "", randomResult(6, 4, 4), nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(other)
	if err := os.WriteFile(npy, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadEmbeddings(context.Background(), npy, ReadOptions{})
	if want := "e.npy.wys.json: malformed input: was written for other contents of " + npy; err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, pipeline.ErrFormat) {
		t.Errorf("replaced file: error %v, want %q", err, want)
	}
	// A marker without a sum, as written before markers had one.
	if err := os.WriteFile(MarkerPath(npy), []byte(`{"layout":"halves","rows":6,"dim":8}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if e, err := ReadEmbeddings(context.Background(), npy, ReadOptions{}); err != nil || !e.Halves {
		t.Errorf("marker without a sum: %v", err)
	}
	// A marker beside a table of 7 columns.
	odd := filepath.Join(dir, "odd.txt")
	text := "2 7\na 1 2 3 4 5 6 7\nb 7 6 5 4 3 2 1\n"
	if err := os.WriteFile(odd, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(MarkerPath(odd), []byte(`{"layout":"halves","rows":2,"dim":7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadEmbeddings(context.Background(), odd, ReadOptions{})
	if want := "says " + odd + " is [L | R], but its 7 columns cannot be split into halves"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("odd width: error %v, want %q", err, want)
	}
}

// TestWriteEmbeddingsRefusesBadResult: a result that would not read back
// (nil, empty, short L, a NaN) is an error and leaves no file, where it
// panicked or wrote a file ReadEmbeddings refuses.
func TestWriteEmbeddingsRefusesBadResult(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	nan := randomResult(3, 2, 1)
	nan.R[5] = float32(math.NaN())
	for name, c := range map[string]struct {
		res  *pipeline.Result
		want string
	}{
		"nil":   {nil, "no result (nil) to write"},
		"empty": {&pipeline.Result{}, "a result of 0 rows and 0 columns per side"},
		"short": {&pipeline.Result{N: 3, Half: 2, L: make([]float32, 4), R: make([]float32, 6)}, "L holds 4 and R 6 numbers, want N·Half = 6 each"},
		"nan":   {nan, "R[2][1] is NaN"},
	} {
		for _, ext := range []string{".npy", ".txt"} {
			path := filepath.Join(dir, name+ext)
			err := WriteEmbeddings(context.Background(), path, "", c.res, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) || name == "nan" && !errors.Is(err, pipeline.ErrNotFinite) {
				t.Errorf("%s%s: error %v, want %q", name, ext, err, c.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("%s%s: left %d files", name, ext, len(entries))
			}
		}
	}
}
