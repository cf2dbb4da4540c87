package graphio

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sbinet/npyio/npy"
	"github.com/wys-project/wys/pipeline"
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

// SplitFileNames returns the names of the files a split directory may
// hold (LoadSplitDir reads them, WriteSplitDir writes them), each also
// with its ".gz" suffix: the files an output must not replace.
func SplitFileNames() []string {
	var names []string
	for _, n := range []string{splitTrain, splitTest, splitTrainNeg, splitTestNeg, splitTestDirectedNeg, splitIndex, "index.pkl"} {
		names = append(names, n, n+".gz")
	}
	return names
}

// SplitSummary is the line that names a split read from dir and counts
// its nodes, edges and non-edges, as the commands print it.
func SplitSummary(dir string, s *pipeline.Split) string {
	return fmt.Sprintf("split %s: %d nodes, %d train / %d test edges, %d / %d negatives", dir, s.N, len(s.Train), len(s.Test), len(s.TrainNeg), len(s.TestNeg))
}

// openSplitFile opens dir/name or else dir/name.gz. It returns an error
// wrapping fs.ErrNotExist when neither exists.
func openSplitFile(dir, name string) (*os.File, string, error) {
	for _, candidate := range []string{name, name + ".gz"} {
		path := filepath.Join(dir, candidate)
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, path, err
		}
		return f, path, nil
	}
	path := filepath.Join(dir, name)
	return nil, path, fmt.Errorf("%s (or %s.gz) is missing: %w", path, path, fs.ErrNotExist)
}

// pickledIndexError is the error of LoadSplitDir for a split whose index
// is only AsymProj's index.pkl (a Python pickle, not read here): without
// it the ids would be the rows of the .npy arrays, which an index that
// renumbers the nodes does not keep, and embeddings would name the wrong
// nodes elsewhere.
func pickledIndexError(dir, pkl string) error {
	// The paths go to Python as arguments, single-quoted for the shell,
	// so that no character of theirs is read as Python or shell syntax.
	quote := func(p string) string { return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'" }
	return &pipeline.ParseError{File: pkl, Err: fmt.Errorf("%w: the split's index is a Python pickle, which is not read; write it as %s beside it (in a copy of the directory if it is read-only): python3 -c '%s' %s %s",
		pipeline.ErrFormat, splitIndex, pickleToTSV, quote(pkl), quote(filepath.Join(dir, splitIndex)))}
}

// pickleToTSV is the Python program that pickledIndexError gives: it
// writes AsymProj's pickled index (argv[1], plain or gzip) as index.tsv
// (argv[2]). It holds no single quote, so that a shell reads it whole
// between two.
const pickleToTSV = `import gzip, pickle, sys; p = sys.argv[1]; f = gzip.open(p) if p.endswith(".gz") else open(p, "rb"); d = pickle.load(f, encoding="latin1")["index"]; open(sys.argv[2], "w").write("# original_id\tnode\n" + "".join("%s\t%d\n" % kv for kv in sorted(d.items(), key=lambda kv: kv[1])))`

// noSplitError is the error of LoadSplitDir for a directory with none of
// a split's files; it wraps fs.ErrNotExist.
type noSplitError string

func (dir noSplitError) Error() string {
	return fmt.Sprintf("%s holds no split: none of %s, %s, %s, %s (plain or .gz) is there; a split directory is one AsymProj released or one WriteSplitDir wrote (wys-sparse -save-split DIR)",
		string(dir), splitTrain, splitTest, splitTrainNeg, splitTestNeg)
}

func (noSplitError) Unwrap() error { return fs.ErrNotExist }

// noSplitFiles reports whether dir holds none of a split's four required
// files, plain or gzipped.
func noSplitFiles(dir string) bool {
	for _, name := range []string{splitTrain, splitTest, splitTrainNeg, splitTestNeg} {
		for _, candidate := range []string{name, name + ".gz"} {
			if _, err := os.Stat(filepath.Join(dir, candidate)); err == nil {
				return false
			}
		}
	}
	return true
}

// ReadPairsNPY reads a NumPy .npy array of shape (k, 2) and dtype int32 or
// int64 (either byte order), as written by numpy.save, as k pairs. A
// gzip-compressed file is decompressed. An empty array may also have
// shape (0,). Ids must be non-negative and below 2^31. name is used in
// errors, which wrap ErrFormat (wrong shape, dtype or size, not .npy) or
// ErrUnknownNode (a negative or too large id).
func ReadPairsNPY(r io.Reader, name string) ([]pipeline.Pair, error) {
	in, err := openText(r, name)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	// Read the whole file so that a truncated payload, which the npy
	// reader would zero-fill, can be detected by size.
	data, err := io.ReadAll(in)
	if err != nil {
		return nil, in.readErr(0, err)
	}
	return decodePairsNPY(data, name)
}

// npyPreamble checks the fixed part of a .npy file that the npy reader
// trusts (magic, version, header length and its final newline) and
// returns the offset of the payload.
func npyPreamble(data []byte) (int, error) {
	if len(data) < 10 || string(data[:6]) != "\x93NUMPY" {
		return 0, errors.New("not a NumPy .npy file (no \\x93NUMPY magic)")
	}
	var hlen, start int
	switch data[6] {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(data[8:10])), 10
	case 2, 3:
		if len(data) < 12 {
			return 0, errors.New("truncated .npy header")
		}
		hlen, start = int(binary.LittleEndian.Uint32(data[8:12])), 12
	default:
		return 0, fmt.Errorf("unsupported .npy format version %d.%d", data[6], data[7])
	}
	if hlen > len(data)-start || hlen < 1 || data[start+hlen-1] != '\n' {
		return 0, errors.New("truncated or corrupt .npy header")
	}
	h := string(data[start : start+hlen])
	d, o, s := strings.Index(h, "'descr': '"), strings.Index(h, "'fortran_order': "), strings.Index(h, "'shape': (")
	if d < 0 || o < 0 || s < 0 || !(d < o && o < s) || !strings.Contains(h[s:], "), }") {
		return 0, errors.New("unexpected .npy header dictionary (write the file with numpy.save)")
	}
	return start + hlen, nil
}

func decodePairsNPY(data []byte, name string) (pairs []pipeline.Pair, err error) {
	bad := func(format string, args ...any) error {
		return &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: "+format, append([]any{pipeline.ErrFormat}, args...)...)}
	}
	off, err := npyPreamble(data)
	if err != nil {
		return nil, bad("%v", err)
	}
	defer func() {
		// The npy reader indexes its header without bounds checks; a
		// header that passed npyPreamble but is still odd must not panic.
		if r := recover(); r != nil {
			pairs, err = nil, bad("corrupt .npy header (%v)", r)
		}
	}()
	nr, err := npy.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, bad("not a NumPy .npy file: %v", err)
	}
	h := nr.Header
	var width int
	switch h.Descr.Type {
	case "<i4", ">i4", "|i4", "i4":
		width = 4
	case "<i8", ">i8", "|i8", "i8":
		width = 8
	default:
		return nil, bad("dtype %q, want int32 or int64 node ids (numpy.asarray(pairs, dtype=numpy.int32))", h.Descr.Type)
	}
	shape := h.Descr.Shape
	payload := len(data) - off
	if len(shape) == 1 && shape[0] == 0 {
		shape = []int{0, 2}
	}
	if len(shape) != 2 || shape[1] != 2 || shape[0] < 0 {
		return nil, bad("array shape %v, want (k, 2): one (u, v) pair of node ids per row", h.Descr.Shape)
	}
	if h.Descr.Fortran {
		return nil, bad("Fortran-ordered array; save it in C order (numpy.ascontiguousarray)")
	}
	k := shape[0]
	if k > payload/(2*width) || payload != 2*k*width {
		return nil, bad("%d payload bytes for shape (%d, 2) of %s (want %d): the file is truncated or corrupt", payload, k, h.Descr.Type, 2*k*width)
	}
	pairs = make([]pipeline.Pair, k)
	outOfRange := func(i int, a, b int64) error {
		return &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: row %d holds (%d, %d); node ids must lie in [0, 2^31)", pipeline.ErrUnknownNode, i, a, b)}
	}
	if width == 4 {
		v := make([]int32, 2*k)
		if k > 0 {
			if err := nr.Read(&v); err != nil {
				return nil, bad("%v", err)
			}
		}
		for i := range pairs {
			if v[2*i] < 0 || v[2*i+1] < 0 {
				return nil, outOfRange(i, int64(v[2*i]), int64(v[2*i+1]))
			}
			pairs[i] = pipeline.Pair{U: v[2*i], V: v[2*i+1]}
		}
		return pairs, nil
	}
	v := make([]int64, 2*k)
	if k > 0 {
		if err := nr.Read(&v); err != nil {
			return nil, bad("%v", err)
		}
	}
	for i := range pairs {
		a, b := v[2*i], v[2*i+1]
		if a < 0 || b < 0 || a > math.MaxInt32 || b > math.MaxInt32 {
			return nil, outOfRange(i, a, b)
		}
		pairs[i] = pipeline.Pair{U: int32(a), V: int32(b)}
	}
	return pairs, nil
}

// ReadIndexTSV reads an index mapping original node ids to rows, plain or
// gzip: lines "original_id<TAB>row" (spaces also separate), blank lines
// and '#' or '%' comments (such as the "# original_id\tnode" header)
// allowed. The rows must be exactly 0..N−1, each once, and the ids
// distinct. Errors name the file and line and wrap ErrFormat or
// ErrEmptyGraph.
func ReadIndexTSV(ctx context.Context, r io.Reader, name string) (*pipeline.NodeIDs, error) {
	in, err := openText(r, name)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	type entry struct {
		row  int
		line int
		name string
	}
	var entries []entry
	err = in.lines(ctx, func(line int, text []byte) error {
		f := strings.Fields(string(text))
		if len(f) == 0 || f[0][0] == '#' || f[0][0] == '%' {
			return nil
		}
		if len(f) != 2 {
			return formatErr(name, line, "want \"original_id<TAB>row\", got %d columns", len(f))
		}
		row, err := strconv.Atoi(f[1])
		if err != nil || row < 0 || row > math.MaxInt32 {
			return formatErr(name, line, "row %q is not a non-negative integer", f[1])
		}
		entries = append(entries, entry{row, line, f[0]})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: the index lists no nodes", pipeline.ErrEmptyGraph)}
	}
	names := make([]string, len(entries))
	lineOf := make([]int, len(entries))
	rowOf := make(map[string]int, len(entries))
	for _, e := range entries {
		if e.row >= len(entries) {
			return nil, formatErr(name, e.line, "row %d is out of range: the index has %d entries, so rows must run 0..%d", e.row, len(entries), len(entries)-1)
		}
		if lineOf[e.row] != 0 {
			return nil, formatErr(name, e.line, "row %d already assigned on line %d", e.row, lineOf[e.row])
		}
		if r, ok := rowOf[e.name]; ok {
			return nil, formatErr(name, e.line, "node id %q already has row %d (line %d); each id must appear once", e.name, r, lineOf[r])
		}
		names[e.row], lineOf[e.row], rowOf[e.name] = e.name, e.line, e.row
	}
	ids, err := pipeline.NewIndexedIDs(names)
	if err != nil {
		return nil, &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: %s", pipeline.ErrFormat, strings.TrimPrefix(err.Error(), "pipeline: "))}
	}
	return ids, nil
}

// LoadSplitDir reads a link-prediction split directory in the layout that
// AsymProj released and Watch Your Step reuses: train.txt.npy,
// test.txt.npy, train.neg.txt.npy and test.neg.txt.npy (required),
// test.directed.neg.txt.npy (optional), and index.tsv (optional) mapping
// original ids to rows; each may instead be gzipped under the name plus
// ".gz". The files do not record directedness, so the caller says; a
// split with test.directed.neg.txt.npy is refused as undirected.
//
// N is the number of index rows, or 1 + the largest id without an index
// (then IDs are the rows themselves). Every id must lie in [0, N). A
// directory whose index is only AsymProj's index.pkl (a Python pickle) is
// refused with the command that writes its index.tsv.
// Errors name the file and wrap ErrFormat, ErrUnknownNode, ErrEmptyGraph
// or fs.ErrNotExist (a required file is missing).
func LoadSplitDir(ctx context.Context, dir string, directed bool) (*pipeline.Split, error) {
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("%w (check the split directory)", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory (a split is a directory holding train.txt.npy, test.txt.npy, train.neg.txt.npy, test.neg.txt.npy)", dir)
	}
	s := &pipeline.Split{Directed: directed}
	targets := []struct {
		name     string
		dst      *[]pipeline.Pair
		optional bool
	}{
		{splitTrain, &s.Train, false},
		{splitTest, &s.Test, false},
		{splitTrainNeg, &s.TrainNeg, false},
		{splitTestNeg, &s.TestNeg, false},
		{splitTestDirectedNeg, &s.TestDirectedNeg, true},
	}
	paths := make([]string, len(targets))
	for i, t := range targets {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, path, err := openSplitFile(dir, t.name)
		if errors.Is(err, fs.ErrNotExist) && t.optional {
			continue
		}
		if errors.Is(err, fs.ErrNotExist) && i == 0 && noSplitFiles(dir) {
			return nil, noSplitError(dir)
		}
		if err != nil {
			return nil, err
		}
		if t.dst == &s.TestDirectedNeg && !directed {
			f.Close()
			return nil, &pipeline.ParseError{File: path, Err: errors.New("the reversed-arc non-edges of a directed split, which an undirected reading would count as non-edges and as edges at once: read the split as directed (-directed), or delete this file to treat its arcs as undirected edges")}
		}
		pairs, err := ReadPairsNPY(f, path)
		f.Close()
		if err != nil {
			return nil, err
		}
		*t.dst, paths[i] = pairs, path
	}
	if len(s.Train) == 0 {
		return nil, &pipeline.ParseError{File: paths[0], Err: fmt.Errorf("%w: no training edges", pipeline.ErrEmptyGraph)}
	}
	f, path, err := openSplitFile(dir, splitIndex)
	switch {
	case err == nil:
		s.IDs, err = ReadIndexTSV(ctx, f, path)
		f.Close()
		if err != nil {
			return nil, err
		}
		s.N = s.IDs.Len()
	case errors.Is(err, fs.ErrNotExist):
		if pkl, pklPath, perr := openSplitFile(dir, "index.pkl"); perr == nil {
			pkl.Close()
			return nil, pickledIndexError(dir, pklPath)
		}
		for _, t := range targets {
			for _, p := range *t.dst {
				s.N = max(s.N, int(p.U)+1, int(p.V)+1)
			}
		}
		s.IDs = pipeline.IdentityIDs(s.N)
	default:
		return nil, err
	}
	for i, t := range targets {
		for k, p := range *t.dst {
			if int(p.U) >= s.N || int(p.V) >= s.N {
				return nil, &pipeline.ParseError{File: paths[i], Err: fmt.Errorf("%w: row %d holds the pair (%d, %d), outside the %d nodes of %s (ids must lie in [0, %d))", pipeline.ErrUnknownNode, k, p.U, p.V, s.N, path, s.N)}
			}
		}
	}
	return s, ctx.Err()
}
