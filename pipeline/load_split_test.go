package pipeline

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbinet/npyio"
)

// TestLoadSharedSplits checks the released split arrays against the counts
// in MANIFEST.md and against the raw graph they were cut from.
func TestLoadSharedSplits(t *testing.T) {
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
			dir := sharedPath(t, c.dir)
			s, err := LoadSplitDir(context.Background(), dir, c.directed)
			if err != nil {
				t.Fatal(err)
			}
			if s.N != c.n || len(s.Train) != c.train || len(s.Test) != c.test || len(s.TrainNeg) != c.trainNeg || len(s.TestNeg) != c.testN {
				t.Errorf("got N %d, %d/%d/%d/%d pairs; want %d, %d/%d/%d/%d", s.N, len(s.Train), len(s.Test), len(s.TrainNeg), len(s.TestNeg),
					c.n, c.train, c.test, c.trainNeg, c.testN)
			}
			g, err := s.TrainGraph()
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
		s, err := LoadSplitDir(context.Background(), sharedPath(t, "ca-HepTh/asymproj"), false)
		if err != nil {
			t.Fatal(err)
		}
		raw, _, err := LoadEdgeList(context.Background(), sharedPath(t, "ca-HepTh/CA-HepTh.txt.gz"), LoadOptions{KeepSelfLoops: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, set := range [][]Pair{s.Train, s.Test} {
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
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "shape") {
			t.Errorf("got %v, want a shape error", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		_, err := LoadSplitDir(ctx, t.TempDir(), false)
		if err == nil || !strings.Contains(err.Error(), "train.txt.npy") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("not-npy", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, splitTrain), []byte("1 2\n"), 0o644)
		_, err := LoadSplitDir(ctx, dir, false)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), splitTrain) {
			t.Errorf("got %v", err)
		}
	})
}

func TestReadPairsNPY(t *testing.T) {
	t.Parallel()
	// A (3, 2) int32 array written through gonum's Dense is float64; build
	// the header by hand instead: magic, version 1.0, header length, dict.
	mkNPY := func(descr string, shape string, payload []byte) []byte {
		header := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }"
		for (10+len(header)+1)%64 != 0 {
			header += " "
		}
		header += "\n"
		out := append([]byte("\x93NUMPY\x01\x00"), byte(len(header)), byte(len(header)>>8))
		return append(append(out, header...), payload...)
	}
	le32 := func(vals ...int32) []byte {
		var b []byte
		for _, v := range vals {
			b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
		}
		return b
	}
	pairs, err := ReadPairsNPY(bytes.NewReader(mkNPY("<i4", "(2, 2)", le32(3, 4, 5, 6))), "x.npy")
	if err != nil || len(pairs) != 2 || pairs[1] != (Pair{5, 6}) {
		t.Fatalf("int32: %v %v", pairs, err)
	}
	_, err = ReadPairsNPY(bytes.NewReader(mkNPY("<f8", "(1, 2)", make([]byte, 16))), "x.npy")
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "dtype") {
		t.Errorf("float dtype: %v", err)
	}
	_, err = ReadPairsNPY(bytes.NewReader(mkNPY("<i4", "(2, 3)", le32(1, 2, 3, 4, 5, 6))), "x.npy")
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "shape") {
		t.Errorf("shape: %v", err)
	}
	_, err = ReadPairsNPY(bytes.NewReader(mkNPY("<i4", "(2, 2)", le32(1, 2))), "x.npy")
	if err == nil {
		t.Error("truncated payload accepted")
	}
}

func TestLoadCoraLabels(t *testing.T) {
	g, _, err := LoadEdgeList(context.Background(), sharedPath(t, "Cora/cora.edges.tsv.gz"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lab, err := LoadLabels(sharedPath(t, "Cora/cora.labels.tsv.gz"), sharedPath(t, "Cora/cora.split.tsv.gz"), g.IDs)
	if err != nil {
		t.Fatal(err)
	}
	if lab.Classes != 7 || len(lab.Train) != 140 || len(lab.Val) != 500 || len(lab.Test) != 1000 {
		t.Errorf("got %d classes, %d/%d/%d nodes; want 7, 140/500/1000", lab.Classes, len(lab.Train), len(lab.Val), len(lab.Test))
	}
	// Errors name the file and line.
	dir := t.TempDir()
	bad := filepath.Join(dir, "labels.tsv")
	os.WriteFile(bad, []byte("# node\tclass\n0\t1\n99999\t2\n"), 0o644)
	_, err = LoadLabels(bad, "", g.IDs)
	if !errors.Is(err, ErrUnknownNode) || !strings.Contains(err.Error(), "labels.tsv:3") {
		t.Errorf("unknown node: %v", err)
	}
}
