package graphio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/sbinet/npyio"
	"github.com/wys-project/wys/internal/atomicfile"
	"github.com/wys-project/wys/pipeline"
)

// SplitDirFiles returns the paths of the files WriteSplitDir writes for s
// in dir, in the order it writes them.
func SplitDirFiles(dir string, s *pipeline.Split) []string {
	names := []string{splitTrain, splitTest, splitTrainNeg, splitTestNeg}
	if s.TestDirectedNeg != nil {
		names = append(names, splitTestDirectedNeg)
	}
	paths := make([]string, 0, len(names)+1)
	for _, n := range append(names, splitIndex) {
		paths = append(paths, filepath.Join(dir, n))
	}
	return paths
}

// WriteSplitDir writes s to dir in the layout LoadSplitDir reads:
// train.txt.npy, test.txt.npy, train.neg.txt.npy, test.neg.txt.npy,
// test.directed.neg.txt.npy when s has directed negatives, each an int32
// array of shape (k, 2), and index.tsv ("# original_id\tnode" header, then
// one "id<TAB>row" line per row; identity ids when s.IDs is nil). dir is
// created if needed. Each file is written to a temporary file in dir and
// renamed into place, so a reader never sees a half-written file; stale
// ".gz" twins of the written files, and a stale directed-negatives file,
// are removed so that LoadSplitDir reads back exactly s, but for its
// validation pairs: the layout has no files for Val and ValNeg, which are
// not written (with them, the test files hold the pairs the test AUC
// uses). Directedness is not stored: pass s.Directed to LoadSplitDir. Node ids starting with '#'
// or '%' cannot be written (they would read as comments).
func WriteSplitDir(ctx context.Context, dir string, s *pipeline.Split) error {
	if err := validateSplit(s); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := []struct {
		name  string
		pairs []pipeline.Pair
	}{
		{splitTrain, s.Train},
		{splitTest, s.Test},
		{splitTrainNeg, s.TrainNeg},
		{splitTestNeg, s.TestNeg},
	}
	if s.TestDirectedNeg != nil {
		files = append(files, struct {
			name  string
			pairs []pipeline.Pair
		}{splitTestDirectedNeg, s.TestDirectedNeg})
	} else if err := removeIfExists(filepath.Join(dir, splitTestDirectedNeg), filepath.Join(dir, splitTestDirectedNeg+".gz")); err != nil {
		return err
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		arr := make([][2]int32, len(f.pairs))
		for i, p := range f.pairs {
			arr[i] = [2]int32{p.U, p.V}
		}
		err := writeAtomic(dir, f.name, func(w io.Writer) error { return npyio.Write(w, arr) })
		if err != nil {
			return err
		}
	}
	ids := s.IDs
	if ids == nil {
		ids = pipeline.IdentityIDs(s.N)
	}
	for i := 0; i < ids.Len(); i++ {
		if name := ids.Name(i); name == "" || name[0] == '#' || name[0] == '%' {
			return fmt.Errorf("%s: node id %q of row %d cannot be written (it would read as a comment): %w", filepath.Join(dir, splitIndex), name, i, pipeline.ErrFormat)
		}
	}
	err := writeAtomic(dir, splitIndex, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		bw.WriteString("# original_id\tnode\n")
		var buf []byte
		for i := 0; i < ids.Len(); i++ {
			buf = append(buf[:0], ids.Name(i)...)
			buf = append(buf, '\t')
			buf = strconv.AppendInt(buf, int64(i), 10)
			buf = append(buf, '\n')
			bw.Write(buf)
		}
		return bw.Flush()
	})
	if err != nil {
		return err
	}
	return ctx.Err()
}

// validateSplit checks that s can be written and read back.
func validateSplit(s *pipeline.Split) error {
	if s.N <= 0 {
		return fmt.Errorf("graphio: split has %d nodes", s.N)
	}
	if s.IDs != nil && s.IDs.Len() != s.N {
		return fmt.Errorf("graphio: split has %d nodes but %d ids", s.N, s.IDs.Len())
	}
	for _, set := range [][]pipeline.Pair{s.Train, s.Test, s.TrainNeg, s.TestNeg, s.TestDirectedNeg} {
		for _, p := range set {
			if p.U < 0 || p.V < 0 || int(p.U) >= s.N || int(p.V) >= s.N {
				return fmt.Errorf("graphio: split pair (%d, %d) outside the %d nodes: %w", p.U, p.V, s.N, pipeline.ErrUnknownNode)
			}
		}
	}
	if len(s.Train) == 0 {
		return fmt.Errorf("graphio: split has no training edges: %w", pipeline.ErrEmptyGraph)
	}
	return nil
}

// writeAtomic writes dir/name atomically and removes a stale dir/name.gz.
func writeAtomic(dir, name string, write func(io.Writer) error) error {
	if err := atomicfile.Write(filepath.Join(dir, name), write); err != nil {
		return fmt.Errorf("graphio: %w", err)
	}
	return removeIfExists(filepath.Join(dir, name+".gz"))
}

func removeIfExists(paths ...string) error {
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w (a stale file that would shadow the one written)", err)
		}
	}
	return nil
}
