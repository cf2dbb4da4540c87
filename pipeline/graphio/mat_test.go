package graphio

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/wys-project/wys/internal/datasets"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// matExpected is testdata/mat/expected.json: what scipy.io.loadmat read
// from each fixture (written by testdata/mat/make.py).
type matExpected struct {
	Files map[string]map[string]struct {
		Kind    string       `json:"kind"`
		Shape   []int        `json:"shape"`
		Triples [][3]float64 `json:"triples"`
	} `json:"files"`
}

func readMATExpected(t *testing.T) matExpected {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "mat", "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e matExpected
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

func readMATFixture(t *testing.T, name string) *MATFile {
	t.Helper()
	path := filepath.Join("testdata", "mat", name)
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	f, err := ReadMAT(context.Background(), fh, path)
	if err != nil {
		t.Fatalf("ReadMAT: %v", err)
	}
	return f
}

// csrTriples lists the entries of m as (row, column, value), column-major.
func csrTriples(m *sparse.CSR) [][3]float64 {
	var out [][3]float64
	rows, _ := m.Dims()
	for i := 0; i < rows; i++ {
		cols, vals := m.Row(i)
		for k, j := range cols {
			out = append(out, [3]float64{float64(i), float64(j), vals[k]})
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a][1] != out[b][1] {
			return out[a][1] < out[b][1]
		}
		return out[a][0] < out[b][0]
	})
	return out
}

// TestReadMATScipy reads every fixture and compares each variable with
// what scipy.io.loadmat read: the same names, and for matrices the same
// shape and nonzeros; the other kinds are refused by Sparse with an error
// naming the variable and what it is.
func TestReadMATScipy(t *testing.T) {
	want := readMATExpected(t)
	refusal := map[string]string{"cell": "cell array", "struct": "struct", "char": "char array", "complex": "complex", "nd": "dimensions 2x2x2"}
	for file, vars := range want.Files {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			f := readMATFixture(t, file)
			names := f.Names()
			slices.Sort(names)
			var wantNames []string
			for name := range vars {
				wantNames = append(wantNames, name)
			}
			slices.Sort(wantNames)
			if !slices.Equal(names, wantNames) {
				t.Fatalf("variables %q, scipy read %q", names, wantNames)
			}
			for name, v := range vars {
				m, err := f.Sparse(t.Context(), name)
				if v.Kind != "" {
					if !errors.Is(err, pipeline.ErrFormat) || !strings.Contains(err.Error(), refusal[v.Kind]) || !strings.Contains(err.Error(), `"`+name+`"`) {
						t.Errorf("%s (%s): got error %v", name, v.Kind, err)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if r, c := m.Dims(); r != v.Shape[0] || c != v.Shape[1] {
					t.Errorf("%s: %d x %d, scipy %v", name, r, c, v.Shape)
				}
				if got := csrTriples(m); !slices.Equal(got, v.Triples) && len(got)+len(v.Triples) > 0 {
					t.Errorf("%s: entries %v, scipy %v", name, got, v.Triples)
				}
			}
		})
	}
}

// bruteGraph is the oracle of MATFile.Graph: the graph a user means by
// the matrix's nonzero triples (column-major), built with maps.
func bruteGraph(n int, triples [][3]float64, opt LoadOptions) (adj map[[2]int]float64, asym int) {
	at := map[[2]int]float64{}
	for _, t := range triples {
		at[[2]int{int(t[0]), int(t[1])}] = t[2]
	}
	adj = map[[2]int]float64{}
	for _, t := range triples {
		i, j, w := int(t[0]), int(t[1]), t[2]
		if !opt.Weighted {
			w = 1
		}
		if i == j && !opt.KeepSelfLoops {
			continue
		}
		if _, seen := adj[[2]int{i, j}]; !seen {
			adj[[2]int{i, j}] = w
		}
		if !opt.Directed {
			if _, seen := adj[[2]int{j, i}]; !seen {
				adj[[2]int{j, i}] = w
			}
			if mirror, ok := at[[2]int{j, i}]; i != j && (!ok || (opt.Weighted && mirror != t[2])) {
				asym++
			}
		}
	}
	return adj, asym
}

// TestMATGraph checks Graph on the fixtures against the oracle for every
// combination of the options, and the labels against scipy's `group`.
func TestMATGraph(t *testing.T) {
	want := readMATExpected(t)
	for _, file := range []string{"sparse.mat", "sparse_z.mat", "sparse_be.mat", "dense.mat", "dense_z.mat"} {
		f := readMATFixture(t, file)
		net := want.Files[file]["network"]
		for _, opt := range []LoadOptions{{}, {Weighted: true}, {KeepSelfLoops: true}, {Directed: true, Weighted: true}, {Directed: true, KeepSelfLoops: true, Weighted: true}} {
			g, lab, rep, err := f.Graph(context.Background(), opt)
			if err != nil {
				t.Fatalf("%s %+v: %v", file, opt, err)
			}
			wantAdj, asym := bruteGraph(net.Shape[0], net.Triples, opt)
			got := map[[2]int]float64{}
			for _, e := range csrTriples(g.Adj) {
				got[[2]int{int(e[0]), int(e[1])}] = e[2]
			}
			if g.N() != net.Shape[0] || !mapsEqual(got, wantAdj) {
				t.Errorf("%s %+v: %d nodes, arcs %v; want %d, %v", file, opt, g.N(), got, net.Shape[0], wantAdj)
			}
			if rep.Asymmetric != asym || rep.EdgesRead != len(net.Triples) || rep.Arcs != len(wantAdj) || rep.Format != "mat" {
				t.Errorf("%s %+v: report %+v; want %d asymmetric, %d entries, %d arcs", file, opt, rep, asym, len(net.Triples), len(wantAdj))
			}
			unread := 0 // the entries whose value an unweighted read drops
			for _, e := range net.Triples {
				if !opt.Weighted && e[2] != 1 {
					unread++
				}
			}
			if rep.UnreadWeights != unread {
				t.Errorf("%s %+v: %d unread weights, scipy's entries have %d", file, opt, rep.UnreadWeights, unread)
			}
			if g.IDs.Len() != g.N() || g.IDs.Name(g.N()-1) != strconv.Itoa(g.N()-1) {
				t.Errorf("%s: ids are not the row numbers", file)
			}
			group, ok := want.Files[file]["group"]
			if ok != (lab != nil) {
				t.Fatalf("%s: labels %v, scipy has group: %v", file, lab, ok)
			}
			if ok {
				wantOf := make([][]int32, group.Shape[0])
				for _, e := range group.Triples {
					wantOf[int(e[0])] = append(wantOf[int(e[0])], int32(e[1]))
				}
				for i := range wantOf {
					if !slices.Equal(lab.Of[i], wantOf[i]) {
						t.Errorf("%s: row %d has labels %v, want %v", file, i, lab.Of[i], wantOf[i])
					}
				}
				if lab.Count != group.Shape[1] {
					t.Errorf("%s: %d labels, want %d", file, lab.Count, group.Shape[1])
				}
			}
		}
	}
}

func mapsEqual(a, b map[[2]int]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// matFixtureBytes returns the bytes of a fixture.
func matFixtureBytes(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "mat", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMATErrors checks the one-line errors for what the reader does not
// read: each a ParseError naming the file, wrapping ErrFormat (or
// ErrEmptyGraph), and saying what is wrong.
func TestMATErrors(t *testing.T) {
	sparseMat := matFixtureBytes(t, "sparse.mat")
	hugeSize := slices.Clone(sparseMat)
	binary.LittleEndian.PutUint32(hugeSize[132:], 0xfffffff0) // the first variable's size
	badZlib := slices.Clone(matFixtureBytes(t, "sparse_z.mat"))
	badZlib[136] ^= 0xff // the first compressed variable's zlib header
	noMark := slices.Clone(sparseMat)
	copy(noMark[126:], "XX")
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"v73", matFixtureBytes(t, "v73.mat"), "v7.3 (HDF5)"},
		{"hdf5", []byte(hdf5Magic + strings.Repeat("\x00", 200)), "HDF5 file (MATLAB v7.3 format)"},
		{"v4", matFixtureBytes(t, "v4.mat"), "Level 4"},
		{"short", sparseMat[:100], "shorter than the 128-byte"},
		{"no mark", noMark, "no byte-order mark"},
		{"truncated", sparseMat[:300], "truncated"},
		{"huge size", hugeSize, "byte 128: an element of 4294967280 bytes, but only"},
		{"bad zlib", badZlib, "compressed variable"},
		{"gzip truncated", gzipped(t, string(sparseMat))[:200], "gzip"},
	}
	for _, c := range cases {
		_, err := ReadMAT(context.Background(), bytes.NewReader(c.data), "x.mat")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "x.mat: ") || !errors.Is(err, pipeline.ErrFormat) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	for file, want := range map[string]string{
		"bad_nonsquare.mat": "is 2 x 3; an adjacency matrix must be square",
		"bad_negative.mat":  "has the weight -1 at row 2, column 1",
		"bad_nonetwork.mat": `no variable "network"`,
		"bad_groupsize.mat": `"group" has 3 rows but "network" has 2 nodes`,
		"bad_char.mat":      `variable "network" (byte 128) is a char array (text)`,
		"bad_group_pm1.mat": `has the value -1 at row 2, column 1 (1-based); a label entry is 0 (no label) or positive`,
	} {
		_, _, _, err := LoadMAT(context.Background(), filepath.Join("testdata", "mat", file), LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, pipeline.ErrFormat) {
			t.Errorf("%s: got %v, want an error containing %q", file, err, want)
		}
	}
	// A graph-only load does not read the labels it leaves out.
	for _, file := range []string{"bad_group_pm1.mat", "bad_groupsize.mat"} {
		g, _, err := LoadGraph(context.Background(), filepath.Join("testdata", "mat", file), LoadOptions{})
		if err != nil || g.N() != 2 || g.Adj.NNZ() == 0 {
			t.Errorf("LoadGraph(%s): %v, %v", file, g, err)
		}
	}
	if _, err := readMATFixture(t, "sparse.mat").Sparse(t.Context(), "nope"); err == nil || !strings.Contains(err.Error(), `no variable "nope"`) {
		t.Errorf("missing variable: %v", err)
	}
}

// TestReadMATTruncated reads every prefix of the fixtures: each must give
// a ParseError wrapping ErrFormat, or (cut at a variable's end) the
// variables before the cut.
func TestReadMATTruncated(t *testing.T) {
	for _, file := range []string{"sparse.mat", "sparse_z.mat", "dense_z.mat", "sparse_be.mat"} {
		data := matFixtureBytes(t, file)
		all := readMATFixture(t, file).Names()
		for n := 0; n < len(data); n++ {
			f, err := ReadMAT(context.Background(), bytes.NewReader(data[:n]), "cut.mat")
			if err != nil {
				checkParseError(t, err, []string{"cut.mat"}, pipeline.ErrFormat)
				continue
			}
			if names := f.Names(); !slices.Equal(names, all[:len(names)]) {
				t.Fatalf("%s cut at %d: variables %q, a prefix of %q expected", file, n, names, all)
			}
		}
	}
}

// TestLoadMATGzip loads a fixture gzipped (as .mat.gz) like the plain one.
func TestLoadMATGzip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sparse.mat.gz")
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(matFixtureBytes(t, "sparse.mat"))
	zw.Close()
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	g, lab, _, err := LoadMAT(context.Background(), path, LoadOptions{Weighted: true})
	if err != nil {
		t.Fatal(err)
	}
	g2, lab2, _, err := LoadMAT(context.Background(), filepath.Join("testdata", "mat", "sparse.mat"), LoadOptions{Weighted: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(csrTriples(g.Adj), csrTriples(g2.Adj)) || lab.Count != lab2.Count {
		t.Fatal("the gzipped file reads differently")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, _, err := LoadMAT(ctx, path, LoadOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

// TestLoadMATReal loads PPI and POS and checks them against what
// scipy.io.loadmat reads (testdata/mat/real_stats.py prints the numbers).
func TestLoadMATReal(t *testing.T) {
	if testing.Short() {
		t.Skip("reads PPI and POS (about 2 s under -race); skipped under -short")
	}
	for _, c := range []struct {
		rel                                    string
		n, nnz, loops, edges, labels, labelNNZ int
		weight                                 float64
	}{
		{"PPI/Homo_sapiens.mat.gz", 3890, 76584, 894, 38739, 50, 6640, 76584},
		{"POS/POS.mat.gz", 4777, 184812, 222, 92517, 40, 6770, 328685},
	} {
		path := datasets.Path(t, c.rel)
		g, lab, rep, err := LoadMAT(context.Background(), path, LoadOptions{Weighted: true, KeepSelfLoops: true})
		if err != nil {
			t.Fatal(err)
		}
		weight := 0.0
		for _, w := range g.Adj.Data {
			weight += w
		}
		labelNNZ := 0
		for _, ls := range lab.Of {
			labelNNZ += len(ls)
		}
		if g.N() != c.n || g.Adj.NNZ() != c.nnz || weight != c.weight || rep.SelfLoops != c.loops || rep.UniqueEdges != c.edges ||
			rep.Asymmetric != 0 || lab.Count != c.labels || labelNNZ != c.labelNNZ || len(lab.Labelled()) != c.n {
			t.Errorf("%s: N %d, nnz %d, weight %v, %d self-loops, %d edges, %d asymmetric, %d labels, %d label entries, %d labelled; want %+v",
				c.rel, g.N(), g.Adj.NNZ(), weight, rep.SelfLoops, rep.UniqueEdges, rep.Asymmetric, lab.Count, labelNNZ, len(lab.Labelled()), c)
		}
		// The defaults: self-loops dropped, unweighted.
		g, _, rep, err = LoadMAT(context.Background(), path, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if g.Adj.NNZ() != c.nnz-c.loops || rep.SelfLoops != c.loops || g.Weighted || slices.ContainsFunc(g.Adj.Data, func(w float64) bool { return w != 1 }) {
			t.Errorf("%s with the default options: %d arcs, %+v", c.rel, g.Adj.NNZ(), rep)
		}
	}
}

// FuzzReadMAT feeds arbitrary bytes to ReadMAT: bad input must give a
// ParseError wrapping ErrFormat; every variable of an accepted file that
// Sparse or Labels accepts must have its recorded dimensions and valid
// CSR invariants, and an accepted graph must be square with the network's
// dimensions and symmetric unless read as directed.
func FuzzReadMAT(f *testing.F) {
	for _, name := range []string{"sparse.mat", "sparse_z.mat", "sparse_be.mat", "dense.mat", "dense_z.mat", "v4.mat", "v73.mat", "bad_nonsquare.mat", "bad_char.mat"} {
		f.Add(matFixtureBytes(f, name), false)
	}
	f.Add(gzipped(f, string(matFixtureBytes(f, "sparse.mat"))), true)
	f.Fuzz(func(t *testing.T, data []byte, directed bool) {
		mf, err := ReadMAT(context.Background(), bytes.NewReader(data), "fuzz.mat")
		if err != nil {
			checkParseError(t, err, []string{"fuzz.mat"}, pipeline.ErrFormat)
			return
		}
		for _, v := range mf.vars {
			m, err := mf.Sparse(context.Background(), v.name)
			if err != nil {
				checkParseError(t, err, []string{"fuzz.mat"}, pipeline.ErrFormat)
				continue
			}
			if r, c := m.Dims(); len(v.dims) != 2 || r != v.dims[0] || c != v.dims[1] || m.Validate() != nil {
				t.Fatalf("%s: %d x %d (valid: %v), recorded %v", v.name, r, c, m.Validate(), v.dims)
			}
			lab, err := mf.Labels(v.name)
			if err != nil && !strings.Contains(err.Error(), "a negative one reads as neither") {
				t.Fatalf("%s: Sparse accepted it but Labels did not: %v", v.name, err)
			}
			if err != nil {
				checkParseError(t, err, []string{"fuzz.mat"}, pipeline.ErrFormat)
				continue
			}
			if len(lab.Of) != v.dims[0] || lab.Count != v.dims[1] {
				t.Fatalf("%s: labels of %d rows, %d labels; recorded %v", v.name, len(lab.Of), lab.Count, v.dims)
			}
		}
		g, _, _, err := mf.Graph(context.Background(), LoadOptions{Directed: directed, Weighted: true})
		if err != nil {
			checkParseError(t, err, []string{"fuzz.mat"}, pipeline.ErrFormat, pipeline.ErrEmptyGraph)
			return
		}
		if r, c := g.Adj.Dims(); r != c || g.Adj.Validate() != nil || (!directed && !g.Adj.IsSymmetric()) {
			t.Fatalf("graph %d x %d, directed %v, symmetric %v", r, c, directed, g.Adj.IsSymmetric())
		}
	})
}

// TestSniffMAT tells .mat content from edge lists, plain or gzip, and
// hands back the whole decompressed content.
func TestSniffMAT(t *testing.T) {
	mat, err := os.ReadFile(filepath.Join("testdata", "mat", "sparse.mat"))
	if err != nil {
		t.Fatal(err)
	}
	edges := []byte("1 2\n2 3\n")
	gz := func(b []byte) []byte {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(b)
		zw.Close()
		return z.Bytes()
	}
	for _, c := range []struct {
		name      string
		in, plain []byte
		isMAT     bool
	}{
		{"mat", mat, mat, true},
		{"mat.gz", gz(mat), mat, true},
		{"edges", edges, edges, false},
		{"edges.gz", gz(edges), edges, false},
		{"empty", nil, nil, false},
	} {
		r, got, err := SniffMAT(bytes.NewReader(c.in), c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.isMAT || !bytes.Equal(b, c.plain) {
			t.Errorf("%s: MAT %v (want %v), %d bytes back (want %d)", c.name, got, c.isMAT, len(b), len(c.plain))
		}
	}
	if _, _, err := SniffMAT(bytes.NewReader([]byte{0x1f, 0x8b, 0, 0}), "bad.gz"); err == nil || !strings.Contains(err.Error(), "bad.gz") {
		t.Errorf("corrupt gzip header: %v", err)
	}
}

// TestLoadGraph: a .mat name is read as LoadMAT reads it, any other as
// LoadEdgeList does; IsMATPath goes by the extension in any case.
func TestLoadGraph(t *testing.T) {
	for path, want := range map[string]bool{"a.mat": true, "A.MAT.GZ": true, "x/b.mat.gz": true, "a.txt": false, "mat": false, "a.mat.txt": false} {
		if IsMATPath(path) != want {
			t.Errorf("IsMATPath(%q) = %v", path, !want)
		}
	}
	ctx := context.Background()
	mat := filepath.Join("testdata", "mat", "sparse.mat")
	g, _, err := LoadGraph(ctx, mat, LoadOptions{Weighted: true})
	if err != nil {
		t.Fatal(err)
	}
	g2, _, _, err := LoadMAT(ctx, mat, LoadOptions{Weighted: true})
	if err != nil || !slices.Equal(csrTriples(g.Adj), csrTriples(g2.Adj)) {
		t.Fatalf("LoadGraph of %s differs from LoadMAT (%v)", mat, err)
	}
	edges := filepath.Join(t.TempDir(), "e.txt")
	if err := os.WriteFile(edges, []byte("a b\nb c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, _, err = LoadGraph(ctx, edges, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g2, _, err = LoadEdgeList(ctx, edges, LoadOptions{})
	if err != nil || !slices.Equal(csrTriples(g.Adj), csrTriples(g2.Adj)) || g.N() != 3 {
		t.Fatalf("LoadGraph of an edge list differs from LoadEdgeList (%v)", err)
	}
}

// TestReadMATCancelled: a context cancelled at any point of reading a
// compressed fixture, fed one byte per read, ends ReadMAT with
// context.Canceled, never a format error; left alone, the read succeeds.
func TestReadMATCancelled(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "mat", "dense_z.mat"))
	if err != nil {
		t.Fatal(err)
	}
	var cancelled int
	for after := 0; ; after++ {
		ctx := &laterCtx{context.Background(), after}
		_, err := ReadMAT(ctx, iotest.OneByteReader(bytes.NewReader(data)), "dense_z.mat")
		if err == nil {
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled after %d checks: %v, want context.Canceled", after, err)
		}
		cancelled++
	}
	if cancelled < len(data) {
		t.Errorf("only %d cancel points for a file of %d bytes read one at a time", cancelled, len(data))
	}
}

// TestMATCancelled: a context cancelled at any of its checks while Sparse
// or Graph builds a matrix (Graph also while counting asymmetric entries)
// ends the call with context.Canceled itself, never a ParseError; left
// alone, the call succeeds.
func TestMATCancelled(t *testing.T) {
	f := readMATFixture(t, "sparse.mat")
	calls := map[string]func(context.Context) error{
		"Sparse": func(ctx context.Context) error { _, err := f.Sparse(ctx, "network"); return err },
		"Graph":  func(ctx context.Context) error { _, _, _, err := f.Graph(ctx, LoadOptions{}); return err },
	}
	for name, call := range calls {
		cancelled := 0
		for after := 0; ; after++ {
			err := call(&laterCtx{context.Background(), after})
			if err == nil {
				break
			}
			if err != context.Canceled {
				t.Fatalf("%s cancelled after %d checks: %v, want context.Canceled", name, after, err)
			}
			cancelled++
		}
		if cancelled < 3 {
			t.Errorf("%s: only %d cancel points, want one at least in each of NewFromCOO's passes", name, cancelled)
		}
	}
}
