package graphio

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sbinet/npyio"
	"github.com/wys-project/wys/internal/datasets"
	"github.com/wys-project/wys/pipeline"
)

// TestLoadSharedSplits checks the released split arrays against the counts
// in MANIFEST.md and against the raw graph they were cut from.
func TestLoadSharedSplits(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every released split of the data mirror (over 1 s in a full run); skipped under -short")
	}
	cases := []struct {
		dir                             string
		directed                        bool
		n, train, test, trainNeg, testN int
	}{
		{"ca-HepTh/asymproj", false, 8638, 13330, 11496, 11496, 11496},
		{"ego-Facebook/asymproj", false, 4039, 44113, 44121, 44113, 44121},
		{"PPI/asymproj", false, 3852, 19349, 19356, 19349, 19356},
		{"soc-Epinions1/asymproj", true, 75877, 254416, 254420, 254416, 254420},
	}
	for _, c := range cases {
		t.Run(filepath.Dir(c.dir), func(t *testing.T) {
			dir := datasets.Path(t, c.dir)
			s, err := LoadSplitDir(context.Background(), dir, c.directed)
			if err != nil {
				t.Fatal(err)
			}
			if s.N != c.n || len(s.Train) != c.train || len(s.Test) != c.test || len(s.TrainNeg) != c.trainNeg || len(s.TestNeg) != c.testN {
				t.Errorf("got N %d, %d/%d/%d/%d pairs; want %d, %d/%d/%d/%d", s.N, len(s.Train), len(s.Test), len(s.TrainNeg), len(s.TestNeg),
					c.n, c.train, c.test, c.trainNeg, c.testN)
			}
			g, err := s.TrainGraph(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if g.N() != c.n {
				t.Errorf("train graph has %d nodes", g.N())
			}
		})
	}
	// ca-HepTh: mapped back through the index, every positive is an edge
	// of the raw SNAP graph (MANIFEST: the positives are the raw LCC edges).
	t.Run("ca-HepTh-raw", func(t *testing.T) {
		s, err := LoadSplitDir(context.Background(), datasets.Path(t, "ca-HepTh/asymproj"), false)
		if err != nil {
			t.Fatal(err)
		}
		raw, _, err := LoadEdgeList(context.Background(), datasets.Path(t, "ca-HepTh/CA-HepTh.txt.gz"), LoadOptions{KeepSelfLoops: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, set := range [][]pipeline.Pair{s.Train, s.Test} {
			for _, p := range set {
				u, ok1 := raw.IDs.Row(s.IDs.Name(int(p.U)))
				v, ok2 := raw.IDs.Row(s.IDs.Name(int(p.V)))
				if !ok1 || !ok2 || !raw.Adj.Has(u, v) {
					t.Fatalf("split edge (%s, %s) is not in CA-HepTh.txt", s.IDs.Name(int(p.U)), s.IDs.Name(int(p.V)))
				}
			}
		}
		for _, p := range s.TestNeg {
			u, _ := raw.IDs.Row(s.IDs.Name(int(p.U)))
			v, _ := raw.IDs.Row(s.IDs.Name(int(p.V)))
			if raw.Adj.Has(u, v) {
				t.Fatalf("test negative (%s, %s) is an edge", s.IDs.Name(int(p.U)), s.IDs.Name(int(p.V)))
			}
		}
	})
}

func writeNPY(t *testing.T, path string, v any) {
	t.Helper()
	var buf bytes.Buffer
	if err := npyio.Write(&buf, v); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadSplitDirErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mk := func(t *testing.T) string {
		dir := t.TempDir()
		for _, name := range []string{splitTrain, splitTest, splitTrainNeg, splitTestNeg} {
			writeNPY(t, filepath.Join(dir, name), [6]int32{0, 1, 1, 2, 2, 0})
		}
		return dir
	}
	// A 1-D array is not a list of pairs: npyio writes arrays as (k,).
	t.Run("ok-flat-rejected", func(t *testing.T) {
		dir := mk(t)
		_, err := LoadSplitDir(ctx, dir, false)
		if !errors.Is(err, pipeline.ErrFormat) || !strings.Contains(err.Error(), "shape") {
			t.Errorf("got %v, want a shape error", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		_, err := LoadSplitDir(ctx, t.TempDir(), false)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "holds no split") || !strings.Contains(err.Error(), "train.txt.npy") {
			t.Errorf("got %v", err)
		}
	})
	// One file there, the next missing: the error names the missing one.
	t.Run("missing-one", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, splitTrain), mkNPY("<i4", "(3, 2)", le32(0, 1, 1, 2, 2, 0)), 0o644)
		_, err := LoadSplitDir(ctx, dir, false)
		if !errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "holds no split") || !strings.Contains(err.Error(), splitTest+" (or") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("not-npy", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, splitTrain), []byte("1 2\n"), 0o644)
		_, err := LoadSplitDir(ctx, dir, false)
		if !errors.Is(err, pipeline.ErrFormat) || !strings.Contains(err.Error(), splitTrain) {
			t.Errorf("got %v", err)
		}
	})
}

// mkNPY builds a .npy file by hand: magic, version 1.0, header length,
// the header dictionary padded to 64 bytes, then the payload.
func mkNPY(descr, shape string, payload []byte) []byte {
	header := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }"
	for (10+len(header)+1)%64 != 0 {
		header += " "
	}
	header += "\n"
	out := append([]byte("\x93NUMPY\x01\x00"), byte(len(header)), byte(len(header)>>8))
	return append(append(out, header...), payload...)
}

func le32(vals ...int32) []byte {
	var b []byte
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return b
}

func TestReadPairsNPY(t *testing.T) {
	t.Parallel()
	be32 := func(vals ...int32) []byte {
		var b []byte
		for _, v := range vals {
			b = binary.BigEndian.AppendUint32(b, uint32(v))
		}
		return b
	}
	le64 := func(vals ...int64) []byte {
		var b []byte
		for _, v := range vals {
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
		return b
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(mkNPY("<i4", "(1, 2)", le32(7, 8)))
	zw.Close()
	ok := []struct {
		name string
		data []byte
		want []pipeline.Pair
	}{
		{"int32", mkNPY("<i4", "(2, 2)", le32(3, 4, 5, 6)), []pipeline.Pair{{U: 3, V: 4}, {U: 5, V: 6}}},
		{"int32 big-endian", mkNPY(">i4", "(2, 2)", be32(3, 4, 5, 70000)), []pipeline.Pair{{U: 3, V: 4}, {U: 5, V: 70000}}},
		{"int64", mkNPY("<i8", "(1, 2)", le64(1, 1<<31-1)), []pipeline.Pair{{U: 1, V: 1<<31 - 1}}},
		{"empty (0, 2)", mkNPY("<i4", "(0, 2)", nil), []pipeline.Pair{}},
		{"empty (0,)", mkNPY("<i4", "(0,)", nil), []pipeline.Pair{}},
		{"gzip", gz.Bytes(), []pipeline.Pair{{U: 7, V: 8}}},
	}
	for _, c := range ok {
		got, err := ReadPairsNPY(bytes.NewReader(c.data), "x.npy")
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	bad := []struct {
		name     string
		data     []byte
		sentinel error
		mention  string
	}{
		{"float dtype", mkNPY("<f8", "(1, 2)", make([]byte, 16)), pipeline.ErrFormat, "dtype"},
		{"uint dtype", mkNPY("<u4", "(1, 2)", make([]byte, 8)), pipeline.ErrFormat, "dtype"},
		{"three columns", mkNPY("<i4", "(2, 3)", le32(1, 2, 3, 4, 5, 6)), pipeline.ErrFormat, "shape"},
		{"flat", mkNPY("<i4", "(4,)", le32(1, 2, 3, 4)), pipeline.ErrFormat, "shape"},
		{"3-d", mkNPY("<i4", "(1, 1, 2)", le32(1, 2)), pipeline.ErrFormat, "shape"},
		{"truncated payload", mkNPY("<i4", "(2, 2)", le32(1, 2)), pipeline.ErrFormat, "truncated"},
		{"extra payload", mkNPY("<i4", "(1, 2)", le32(1, 2, 3)), pipeline.ErrFormat, "payload"},
		{"huge shape", mkNPY("<i4", "(4611686018427387903, 2)", le32(1, 2)), pipeline.ErrFormat, "payload"},
		{"negative shape", mkNPY("<i4", "(-1, 2)", le32(1, 2)), pipeline.ErrFormat, "shape"},
		{"negative id", mkNPY("<i4", "(1, 2)", le32(1, -2)), pipeline.ErrUnknownNode, "-2"},
		{"int64 id too large", mkNPY("<i8", "(1, 2)", le64(1, 1<<31)), pipeline.ErrUnknownNode, "2147483648"},
		{"not npy", []byte("1 2\n"), pipeline.ErrFormat, "magic"},
		{"empty file", nil, pipeline.ErrFormat, "magic"},
		{"header without newline", []byte("\x93NUMPY\x01\x00\x04\x00abcd"), pipeline.ErrFormat, "header"},
		{"header longer than file", []byte("\x93NUMPY\x01\x00\xff\xff{}\n"), pipeline.ErrFormat, "header"},
		{"keys out of order", append([]byte("\x93NUMPY\x01\x00\x40\x00"), []byte(fmt.Sprintf("%-63s\n", "{'shape': (1, 2), 'fortran_order': False, 'descr': '<i4', }"))...), pipeline.ErrFormat, "header"},
		{"version 9", []byte("\x93NUMPY\x09\x00\x04\x00abc\n"), pipeline.ErrFormat, "version"},
	}
	for _, c := range bad {
		_, err := ReadPairsNPY(bytes.NewReader(c.data), "x.npy")
		if !errors.Is(err, c.sentinel) || !strings.Contains(err.Error(), c.mention) || !strings.HasPrefix(err.Error(), "x.npy: ") {
			t.Errorf("%s: got %v; want x.npy: ... wrapping %v and mentioning %q", c.name, err, c.sentinel, c.mention)
		}
	}
}

func FuzzReadPairsNPY(f *testing.F) {
	f.Add(mkNPY("<i4", "(2, 2)", le32(3, 4, 5, 6)))
	f.Add(mkNPY("<i8", "(1, 2)", make([]byte, 16)))
	f.Add(mkNPY("<i4", "(0,)", nil))
	f.Add([]byte("\x93NUMPY\x01\x00\x04\x00abcd"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pairs, err := ReadPairsNPY(bytes.NewReader(data), "fuzz.npy")
		if err != nil {
			var pe *pipeline.ParseError
			if !errors.As(err, &pe) || (!errors.Is(err, pipeline.ErrFormat) && !errors.Is(err, pipeline.ErrUnknownNode)) {
				t.Fatalf("error %v is not a ParseError wrapping a sentinel", err)
			}
			return
		}
		for _, p := range pairs {
			if p.U < 0 || p.V < 0 {
				t.Fatalf("negative id in %v", p)
			}
		}
	})
}

func TestReadIndexTSV(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ids, err := ReadIndexTSV(ctx, strings.NewReader("# original_id\tnode\r\n30\t1\r\nx\t0\r\n7 2"), "index.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if ids.Len() != 3 || ids.Name(0) != "x" || ids.Name(1) != "30" || ids.Name(2) != "7" {
		t.Errorf("got %d ids %q %q %q", ids.Len(), ids.Name(0), ids.Name(1), ids.Name(2))
	}
	if r, ok := ids.Row("7"); !ok || r != 2 {
		t.Errorf("Row(7) = %d, %v", r, ok)
	}
	bad := []struct{ name, text, mention string }{
		{"duplicate row", "a\t0\nb\t0\n", "index.tsv:2: malformed input: row 0 already assigned on line 1"},
		{"gap", "a\t0\nb\t2\n", "index.tsv:2: malformed input: row 2 is out of range"},
		{"huge row", "a\t2147483647\n", "index.tsv:1: malformed input: row 2147483647 is out of range"},
		{"negative row", "a\t-1\n", "index.tsv:1: malformed input: row \"-1\""},
		{"duplicate id", "a\t0\na\t1\n", `index.tsv:2: malformed input: node id "a" already has row 0 (line 1)`},
		{"three columns", "a\t0\tx\n", "index.tsv:1: malformed input: want"},
		{"empty", "# header only\n", "index.tsv: graph has no edges: the index lists no nodes"},
	}
	for _, c := range bad {
		_, err := ReadIndexTSV(ctx, strings.NewReader(c.text), "index.tsv")
		if err == nil || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.mention)
		}
	}
}

// tinySplit writes the four .npy arrays of a split on nodes 0..3 and
// last (train 0-1, 1-2; test 0-last) into dir, and returns a function
// that writes another file there.
func tinySplit(t *testing.T, dir string, last int32) func(name string, data []byte) {
	t.Helper()
	put := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put(splitTrain, mkNPY("<i4", "(2, 2)", le32(0, 1, 1, 2)))
	put(splitTest, mkNPY("<i4", "(1, 2)", le32(0, last)))
	put(splitTrainNeg, mkNPY("<i4", "(1, 2)", le32(0, 2)))
	put(splitTestNeg, mkNPY("<i4", "(1, 2)", le32(1, 3)))
	return put
}

func TestLoadSplitDirRange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	put := tinySplit(t, dir, 4)
	// Without an index, N is 1 + the largest id.
	s, err := LoadSplitDir(ctx, dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 5 || !s.Directed || s.IDs.Name(4) != "4" || s.TestDirectedNeg != nil {
		t.Errorf("N %d, directed %v", s.N, s.Directed)
	}
	// AsymProj's pickled index alone is refused, with the conversion.
	put("index.pkl.gz", []byte("not read"))
	_, err = LoadSplitDir(ctx, dir, false)
	if !errors.Is(err, pipeline.ErrFormat) || !strings.Contains(err.Error(), "index.pkl") || !strings.Contains(err.Error(), "python3 -c") {
		t.Errorf("got %v, want an ErrFormat naming index.pkl and its conversion", err)
	}
	// With a 4-row index, node 4 is out of range (the pickle is not read).
	put(splitIndex+".gz", gzipped(t, "# original_id\tnode\na\t0\nb\t1\nc\t2\nd\t3\n"))
	_, err = LoadSplitDir(ctx, dir, false)
	if !errors.Is(err, pipeline.ErrUnknownNode) || !strings.Contains(err.Error(), splitTest) {
		t.Errorf("got %v, want an ErrUnknownNode naming %s", err, splitTest)
	}
}

func TestLoadPlanetoidCora(t *testing.T) {
	t.Parallel()
	dir := datasets.Path(t, "Cora")
	g, lab, rep, err := LoadPlanetoid(context.Background(), filepath.Join(dir, "cora"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g.N() != 2708 || rep.UniqueEdges != 5278 || len(lab.Class) != 2708 {
		t.Errorf("got %d nodes, %d edges, %d classes entries; want 2708, 5278, 2708", g.N(), rep.UniqueEdges, len(lab.Class))
	}
	if lab.Classes != 7 || len(lab.Train) != 140 || len(lab.Val) != 500 || len(lab.Test) != 1000 {
		t.Errorf("got %d classes, %d/%d/%d nodes; want 7, 140/500/1000", lab.Classes, len(lab.Train), len(lab.Val), len(lab.Test))
	}
	// Planetoid's training set has 20 nodes of each class.
	per := make([]int, lab.Classes)
	for _, r := range lab.Train {
		per[lab.Class[r]]++
	}
	for c, k := range per {
		if k != 20 {
			t.Errorf("class %d has %d training nodes, want 20", c, k)
		}
	}
	if _, _, _, err := LoadPlanetoid(context.Background(), filepath.Join(dir, "nosuch"), LoadOptions{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing files: %v", err)
	}
}

func TestReadLabelsErrors(t *testing.T) {
	t.Parallel()
	g, _, err := load(t, "10 20\n20 30\nx 10\n", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lab, err := ReadLabels(ctx, strings.NewReader("# node\tclass\n10\t1\n30\t0\nx\t-1\n"), "l.tsv",
		strings.NewReader("10\ttrain\n30\ttest\n"), "s.tsv", g.IDs)
	if err != nil {
		t.Fatal(err)
	}
	r10, _ := g.IDs.Row("10")
	r20, _ := g.IDs.Row("20")
	if lab.Class[r10] != 1 || lab.Class[r20] != -1 || lab.Classes != 2 || !slices.Equal(lab.Train, []int{r10}) {
		t.Errorf("labels %+v", lab)
	}
	cases := []struct{ name, labels, split, want string }{
		{"unknown node", "10\t1\n99\t2\n", "", "l.tsv:2: unknown node id: node \"99\""},
		{"bad class", "10\tcat\n", "", "l.tsv:1: malformed input: class \"cat\""},
		{"class below -1", "10\t-2\n", "", "l.tsv:1: malformed input: class \"-2\""},
		{"listed twice", "10\t1\n10\t2\n", "", "l.tsv:2: malformed input: node 10 is listed twice (first on line 1)"},
		{"one column", "10\n", "", "l.tsv:1: malformed input: want two columns separated by a tab (or a comma), got 1"},
		{"several classes", "10\t1\t2\n", "", "l.tsv:1: malformed input: want two columns separated by a tab (or a comma), got 3 (one class per node here; several per node are read by wys-sparse eval -labels)"},
		{"three columns in the split", "10\t1\n", "10\ttrain\tx\n", "s.tsv:1: malformed input: want two columns separated by a tab (or a comma), got 3"},
		{"no class", "10\t-1\n", "", "l.tsv: malformed input: no labelled node"},
		{"bad set", "10\t1\n", "10\tdev\n", "s.tsv:1: malformed input: set \"dev\""},
		{"unlabelled in set", "10\t1\n", "10\ttrain\n20\ttest\n", "s.tsv:2: malformed input: node 20 is in the test set but has no class in l.tsv"},
		{"in two sets", "10\t1\n30\t1\n", "10\ttrain\n10\ttest\n", "s.tsv:2: malformed input: node 10 is listed twice"},
		{"no test", "10\t1\n", "10\ttrain\n", "s.tsv: malformed input: the split needs train and test nodes"},
		{"split unknown node", "10\t1\n", "7\ttrain\n", "s.tsv:1: unknown node id"},
		{"column names", "node,class\n10,1\n", "", "l.tsv:1: unknown node id: node \"node\" is not in the graph (labels must use the graph's node ids); if the line holds column names, remove it"},
		{"pandas index", ",node,class\n0,10,1\n", "", "l.tsv:1: malformed input: column 1 is empty: a line that starts with its delimiter"},
		{"CSV", "10,1\n10,2\n", "", "l.tsv:2: malformed input: node 10 is listed twice"},
	}
	for _, c := range cases {
		var split io.Reader
		if c.split != "" {
			split = strings.NewReader(c.split)
		}
		_, err := ReadLabels(ctx, strings.NewReader(c.labels), "l.tsv", split, "s.tsv", g.IDs)
		var pe *pipeline.ParseError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &pe) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

// TestOpenDirectory checks that the loaders refuse a directory given as a
// file with ErrIsDir, before reading it.
func TestOpenDirectory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	_, _, err1 := LoadEdgeList(ctx, dir, LoadOptions{})
	_, _, _, err2 := LoadMAT(ctx, dir, LoadOptions{})
	_, err3 := LoadLabels(ctx, dir, "", nil)
	_, err4 := LoadMultiLabels(ctx, dir, false)
	_, err5 := ReadEmbeddings(ctx, dir, ReadOptions{Format: FormatTSV})
	_, err6 := ReadEmbeddings(ctx, dir, ReadOptions{Format: FormatNPY})
	for i, err := range []error{err1, err2, err3, err4, err5, err6} {
		if !errors.Is(err, ErrIsDir) || !strings.Contains(err.Error(), dir) {
			t.Errorf("loader %d: got %v, want %s %v", i+1, err, dir, ErrIsDir)
		}
	}
}

// TestPickledIndexCommand runs, in a shell, the Python line that
// LoadSplitDir's error gives for a split whose index is only AsymProj's
// pickle (plain and gzipped, as the released splits ship it), in a
// directory whose name holds a quote, a backslash and a dollar: the
// index.tsv it writes is read, and names the nodes as the pickle does.
func TestPickledIndexCommand(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	ctx := context.Background()
	for _, name := range []string{"index.pkl", "index.pkl.gz"} {
		// A quote, a backslash and a dollar in the path must reach Python
		// as written.
		dir := filepath.Join(t.TempDir(), `it's a \new $dir`)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		tinySplit(t, dir, 3)
		// The pickle AsymProj writes: {"index": {original id: row}}.
		write := "open(p, 'wb')"
		if strings.HasSuffix(name, ".gz") {
			write = "gzip.open(p, 'wb')"
		}
		pkl := filepath.Join(dir, name)
		mk := fmt.Sprintf("import gzip, pickle, sys; p = sys.argv[1]; pickle.dump({'index': {'n7': 2, 'n10': 0, 'x': 3, 'n2': 1}}, %s, protocol=2)", write)
		if out, err := exec.Command(python, "-c", mk, pkl).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		_, err := LoadSplitDir(ctx, dir, false)
		msg := fmt.Sprint(err)
		i := strings.Index(msg, "python3 -c ")
		if !errors.Is(err, pipeline.ErrFormat) || !strings.HasPrefix(msg, pkl+": ") || i < 0 {
			t.Fatalf("%s: got %v, want an ErrFormat naming %s with a python3 -c line", name, err, pkl)
		}
		// The line, run by a shell as a user would paste it.
		if out, err := exec.Command("sh", "-c", msg[i:]).CombinedOutput(); err != nil {
			t.Fatalf("%s: the error's command failed: %v\n%s", name, err, out)
		}
		s, err := LoadSplitDir(ctx, dir, false)
		if err != nil {
			t.Fatalf("%s: after the command: %v", name, err)
		}
		if got := []string{s.IDs.Name(0), s.IDs.Name(1), s.IDs.Name(2), s.IDs.Name(3)}; s.N != 4 || !slices.Equal(got, []string{"n10", "n2", "n7", "x"}) {
			t.Errorf("%s: after the command, %d nodes named %v; want the pickle's n10 n2 n7 x", name, s.N, got)
		}
	}
}

// TestPlanetoidMissingHint: a -planetoid prefix that names Planetoid's
// own pickles (ind.cora.graph) is told they are not read, and a prefix
// whose TSV files are missing is shown the prefixes of those beside it.
func TestPlanetoidMissingHint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"ind.cora.graph", "ind.cora.x", "cora.edges.tsv.gz", "cora.labels.tsv.gz", "cora.split.tsv.gz"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	beside := "; beside it: -planetoid " + filepath.Join(dir, "cora")
	for prefix, want := range map[string]string{
		"ind.cora": filepath.Join(dir, "ind.cora") + ".edges.tsv (or .gz): file does not exist; " + filepath.Join(dir, "ind.cora") + " names Planetoid's pickled files, which are not read" + ": give the prefix of the TSV files PREFIX.edges.tsv, PREFIX.labels.tsv and PREFIX.split.tsv" + beside,
		"citeseer": filepath.Join(dir, "citeseer") + ".edges.tsv (or .gz): file does not exist" + beside,
	} {
		_, _, _, err := LoadPlanetoid(context.Background(), filepath.Join(dir, prefix), LoadOptions{})
		if err == nil || err.Error() != want || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: error %v, want %q", prefix, err, want)
		}
	}
	// A prefix with its edges but not its labels, written with "./", is
	// not shown itself as the prefix beside it.
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "x.edges.tsv"), []byte("1\t2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prefix := other + "/./x"
	_, _, _, err := LoadPlanetoid(context.Background(), prefix, LoadOptions{})
	if want := prefix + ".labels.tsv (or .gz): file does not exist"; err == nil || err.Error() != want {
		t.Errorf("./x: error %v, want %q", err, want)
	}
}
