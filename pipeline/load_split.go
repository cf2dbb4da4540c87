package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sbinet/npyio/npy"
)

// Split directory file names, as released with AsymProj and reused by
// Watch Your Step. Each may also be stored with a ".gz" suffix.
const (
	splitTrain           = "train.txt.npy"
	splitTest            = "test.txt.npy"
	splitTrainNeg        = "train.neg.txt.npy"
	splitTestNeg         = "test.neg.txt.npy"
	splitTestDirectedNeg = "test.directed.neg.txt.npy"
	splitIndex           = "index.tsv"
)

// openSplitFile opens dir/name or dir/name.gz, decompressing as needed.
// It returns fs.ErrNotExist (wrapped) when neither exists.
func openSplitFile(dir, name string) (io.Reader, string, func(), error) {
	for _, candidate := range []string{name, name + ".gz"} {
		path := filepath.Join(dir, candidate)
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, path, nil, fmt.Errorf("pipeline: %w", err)
		}
		r, done, err := openMaybeGzip(f, path)
		if err != nil {
			f.Close()
			return nil, path, nil, err
		}
		return r, path, func() { done(); f.Close() }, nil
	}
	return nil, filepath.Join(dir, name), nil, fs.ErrNotExist
}

// ReadPairsNPY reads a NumPy array of shape (k, 2) and integer dtype
// (int32 or int64, either byte order) as k pairs. name is used in errors.
func ReadPairsNPY(r io.Reader, name string) ([]Pair, error) {
	// Read the whole file so that a truncated payload, which the npy
	// reader would zero-fill, can be detected by size.
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &ParseError{File: name, Err: err}
	}
	br := bytes.NewReader(data)
	nr, err := npy.NewReader(br)
	if err != nil {
		return nil, &ParseError{File: name, Err: fmt.Errorf("%w: not a NumPy .npy file: %v", ErrFormat, err)}
	}
	h := nr.Header
	if len(h.Descr.Shape) != 2 || h.Descr.Shape[1] != 2 {
		return nil, &ParseError{File: name, Err: fmt.Errorf("%w: array shape %v, want (k, 2) pairs of node ids", ErrFormat, h.Descr.Shape)}
	}
	if h.Descr.Fortran {
		return nil, &ParseError{File: name, Err: fmt.Errorf("%w: Fortran-ordered array; save it in C order (numpy.ascontiguousarray)", ErrFormat)}
	}
	k := h.Descr.Shape[0]
	width := 4
	if strings.HasSuffix(h.Descr.Type, "8") {
		width = 8
	}
	if br.Len() != 2*k*width {
		return nil, &ParseError{File: name, Err: fmt.Errorf("%w: %d payload bytes for shape (%d, 2) of %s; the file is truncated or corrupt", ErrFormat, br.Len(), k, h.Descr.Type)}
	}
	pairs := make([]Pair, k)
	switch h.Descr.Type {
	case "<i4", ">i4", "|i4", "i4":
		var v []int32
		if err := nr.Read(&v); err != nil {
			return nil, &ParseError{File: name, Err: fmt.Errorf("%w: %v", ErrFormat, err)}
		}
		if len(v) != 2*k {
			return nil, &ParseError{File: name, Err: fmt.Errorf("%w: %d values for shape (%d, 2)", ErrFormat, len(v), k)}
		}
		for i := range pairs {
			pairs[i] = Pair{v[2*i], v[2*i+1]}
		}
	case "<i8", ">i8", "|i8", "i8":
		var v []int64
		if err := nr.Read(&v); err != nil {
			return nil, &ParseError{File: name, Err: fmt.Errorf("%w: %v", ErrFormat, err)}
		}
		if len(v) != 2*k {
			return nil, &ParseError{File: name, Err: fmt.Errorf("%w: %d values for shape (%d, 2)", ErrFormat, len(v), k)}
		}
		for i := range pairs {
			a, b := v[2*i], v[2*i+1]
			if a < 0 || b < 0 || a > 1<<31-1 || b > 1<<31-1 {
				return nil, &ParseError{File: name, Err: fmt.Errorf("%w: row %d holds (%d, %d), outside the int32 node range", ErrFormat, i, a, b)}
			}
			pairs[i] = Pair{int32(a), int32(b)}
		}
	default:
		return nil, &ParseError{File: name, Err: fmt.Errorf("%w: dtype %q, want int32 or int64 node ids", ErrFormat, h.Descr.Type)}
	}
	return pairs, nil
}

// ReadIndexTSV reads an index mapping original node ids to rows: lines
// "original_id<TAB>row", '#' comments allowed. Rows must be exactly
// 0..N−1, each once.
func ReadIndexTSV(r io.Reader, name string) (*NodeIDs, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var names []string
	seen := map[int]int{}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' || text[0] == '%' {
			continue
		}
		f := strings.Fields(text)
		if len(f) != 2 {
			return nil, formatErr(name, line, "want \"original_id<TAB>row\", got %d columns", len(f))
		}
		row, err := strconv.Atoi(f[1])
		if err != nil || row < 0 || row > 1<<31-1 {
			return nil, formatErr(name, line, "row %q is not a non-negative integer", f[1])
		}
		if prev, dup := seen[row]; dup {
			return nil, formatErr(name, line, "row %d already assigned on line %d", row, prev)
		}
		seen[row] = line
		for len(names) <= row {
			names = append(names, "")
		}
		names[row] = f[0]
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: name, Line: line + 1, Err: err}
	}
	if len(names) == 0 {
		return nil, &ParseError{File: name, Err: fmt.Errorf("%w: the index lists no nodes", ErrEmptyGraph)}
	}
	if len(seen) != len(names) {
		for r, n := range names {
			if _, ok := seen[r]; !ok && n == "" {
				return nil, &ParseError{File: name, Err: fmt.Errorf("%w: row %d is missing; rows must run 0..%d", ErrFormat, r, len(names)-1)}
			}
		}
	}
	ids, err := NewIndexedIDs(names)
	if err != nil {
		return nil, &ParseError{File: name, Err: fmt.Errorf("%w: %v", ErrFormat, err)}
	}
	return ids, nil
}

// LoadSplitDir reads a link-prediction split directory in the released
// AsymProj layout: train.txt.npy, test.txt.npy, train.neg.txt.npy and
// test.neg.txt.npy (required), test.directed.neg.txt.npy (optional), and
// index.tsv (optional) mapping original ids to rows; any of them may be
// gzipped with a ".gz" suffix. The files do not record directedness, so
// the caller says. N is the index size, or 1 + the largest id without an
// index; every id must lie in [0, N).
func LoadSplitDir(ctx context.Context, dir string, directed bool) (*Split, error) {
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("pipeline: split directory: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("pipeline: %s is not a directory (a split is a directory holding train.txt.npy, test.txt.npy, train.neg.txt.npy, test.neg.txt.npy)", dir)
	}
	s := &Split{Directed: directed}
	targets := []struct {
		name     string
		dst      *[]Pair
		optional bool
	}{
		{splitTrain, &s.Train, false},
		{splitTest, &s.Test, false},
		{splitTrainNeg, &s.TrainNeg, false},
		{splitTestNeg, &s.TestNeg, false},
		{splitTestDirectedNeg, &s.TestDirectedNeg, true},
	}
	paths := map[*[]Pair]string{}
	for _, t := range targets {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, path, done, err := openSplitFile(dir, t.name)
		if errors.Is(err, fs.ErrNotExist) {
			if t.optional {
				continue
			}
			return nil, fmt.Errorf("pipeline: split file %s (or %s.gz) is missing", path, path)
		}
		if err != nil {
			return nil, err
		}
		pairs, err := ReadPairsNPY(r, path)
		done()
		if err != nil {
			return nil, err
		}
		*t.dst = pairs
		paths[t.dst] = path
	}
	if len(s.Train) == 0 {
		return nil, &ParseError{File: paths[&s.Train], Err: fmt.Errorf("%w: no training edges", ErrEmptyGraph)}
	}
	r, path, done, err := openSplitFile(dir, splitIndex)
	switch {
	case err == nil:
		s.IDs, err = ReadIndexTSV(r, path)
		done()
		if err != nil {
			return nil, err
		}
		s.N = s.IDs.Len()
	case errors.Is(err, fs.ErrNotExist):
		for _, t := range targets {
			for _, p := range *t.dst {
				s.N = max(s.N, int(p.U)+1, int(p.V)+1)
			}
		}
		s.IDs = IdentityIDs(s.N)
	default:
		return nil, err
	}
	for _, t := range targets {
		for i, p := range *t.dst {
			if p.U < 0 || p.V < 0 || int(p.U) >= s.N || int(p.V) >= s.N {
				return nil, &ParseError{File: paths[t.dst], Err: fmt.Errorf("%w: row %d holds node (%d, %d), outside the %d nodes of the index", ErrUnknownNode, i, p.U, p.V, s.N)}
			}
		}
	}
	return s, nil
}
