package wysbeam

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/filter"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
)

// Prep is a preprocessing job: the edge lists to read, how to read them,
// where its outputs go and the link-prediction split to make. Its outputs
// under Dir (any Beam filesystem) are the node ids (ids.bin), the whole
// graph as CSR shards of row ranges (shards/csr-NNNNN.bin, read back by
// ReadShards), the training graph every worker reads (graph.csr, a file
// of WriteGraph) and, when TestFraction > 0, the split's pairs
// (split.bin; ReadPrep reads it with the ids).
type Prep struct {
	// Input is a file or a glob of SNAP edge-list files (plain or gzip).
	// Several files are read as their concatenation in sorted name order,
	// each as the loader reads a file (a leading byte-order mark and a
	// last line without its line end stay that file's).
	Input string `json:"input"`
	// Load says how to read them, as graphio.ReadEdgeList does (Header
	// skips each file's first line that is not blank or a comment, which
	// must start in the file's first range). One check is the loader's alone: a
	// first line that looks like column names, its ids not integers
	// while all others are, is an error there and an edge here.
	Load graphio.LoadOptions `json:"load"`
	// Dir is the output directory.
	Dir string `json:"dir"`
	// Shards is the number of CSR shards (row ranges of equal length); 0
	// means one per 2^20 nodes.
	Shards int `json:"shards"`
	// RangeBytes is the length of the byte ranges a plain file is read
	// in, in parallel; 0 means 64 MiB. A gzip file is read whole.
	RangeBytes int64 `json:"range_bytes"`
	// TestFraction holds out that fraction of the edges with
	// pipeline.SplitEdges and Seed; 0 trains on the whole graph.
	TestFraction float64 `json:"test_fraction"`
	Seed         uint64  `json:"seed"`
}

// Range is a byte range [Start, End) of the Index-th input file. It owns
// the lines that start inside it; a gzip file is one range, End being
// math.MaxInt64.
type Range struct {
	File       string
	Index      int
	Start, End int64
}

// edgeBatch holds up to batchLines edge lines of one file, column by
// column: their ids as node keys (the id as written, or under IDInteger
// its decimal value, so that "001" and "1" are one node), weights (1 when
// unweighted) and places (the file's index and each line's byte offset
// in its text), which order the lines as ReadEdgeList reads their
// concatenation. Batches keep the number of Beam elements, whose
// per-element cost dominates on any runner, far below the number of
// lines.
type edgeBatch struct {
	File int32
	U, V []string
	W    []float64
	Off  []int64
}

// batchLines is the number of edge lines per edgeBatch.
const batchLines = 1 << 14

// rangeIDs is what one range tells the ids step about its edge lines, for
// the loader's header rule (graphio.HeaderError): how many it holds, how
// many of them have an id not written as an integer (IDAuto), and, for a
// range that starts its file, that file's first edge line when it is one
// of those (its line number is known only there). For the Matrix Market
// checks it also gives, for a range that starts a Matrix Market file, the
// size line (MTX), and for every range its line with the largest integer
// id and its first line with an id that is not a positive integer (a
// range does not know whether its file is a Matrix Market file).
type rangeIDs struct {
	File       string
	Index      int32
	Start      int64
	Edges      int64
	TokenLines int64
	FirstLine  int // 0 unless the file's first edge line has token ids
	FirstText  string
	MTX        bool
	Size       graphio.MatrixMarketSize
	Max, Bad   idLine
	// FirstOff is the offset of the range's first edge line, and Switch
	// its first edge line whose ids are not both integers in their
	// canonical spelling (IDAuto), where the ids turn to tokens: ID is its
	// id with a leading zero (Zero), else its first id not written as an
	// integer, for the loader's notes on it (LoadReport.LeadingZero and
	// TokenID).
	FirstOff int64
	Switch   idLine
	Zero     bool
}

// idLine is an id of an edge line and the line's place: the byte offset,
// and the line number when the range starts its file (else 0). The zero
// idLine is no line.
type idLine struct {
	ID   string
	Num  uint64
	Off  int64
	Line int
}

// note records the ids of edge line e at offset off, line ln.
func (r *rangeIDs) note(off int64, ln int, e graphio.EdgeLine) {
	if r.Start > 0 {
		ln = 0
	}
	for k, id := range [][]byte{e.U, e.V} {
		x, ok := e.Num[k], e.Numeric // the loader's parse, when the line has one
		if !ok {
			x, ok = graphio.ParseNodeID(id, graphio.IDInteger) // as strconv.ParseUint, without allocating
		}
		if (!ok || x == 0) && r.Bad.ID == "" {
			r.Bad = idLine{ID: string(id), Off: off, Line: ln}
		}
		if ok && (r.Max.ID == "" || x > r.Max.Num) {
			r.Max = idLine{ID: string(id), Num: x, Off: off, Line: ln}
		}
	}
}

// switchLine is the idLine of edge line e, at offset off and line ln of
// a range starting at start, whose ids are not both canonical integers:
// its id with a leading zero (zero), as the loader names it first, else
// its first id not written as an integer.
func switchLine(off int64, ln int, start int64, e graphio.EdgeLine) (l idLine, zero bool) {
	if start > 0 {
		ln = 0 // not known in a range that does not start its file
	}
	for _, id := range [][]byte{e.U, e.V} {
		if _, ok := graphio.ParseNodeID(id, graphio.IDInteger); ok && len(id) > 1 && id[0] == '0' {
			return idLine{ID: string(id), Off: off, Line: ln}, true
		}
	}
	id := e.U
	if _, ok := graphio.ParseNodeID(e.U, graphio.IDInteger); ok {
		id = e.V
	}
	return idLine{ID: string(id), Off: off, Line: ln}, false
}

func init() { // Emitter1[int] and Iter1[int] are registered in pipeline.go
	beam.RegisterType(reflect.TypeOf((*Range)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*edgeBatch)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*rangeIDs)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*idLine)(nil)).Elem())
	register.DoFn4x1[context.Context, Range, func(edgeBatch), func(rangeIDs), error](&readFn{})
	register.DoFn2x0[edgeBatch, func(string)](&keysFn{})
	register.Emitter1[edgeBatch]()
	register.Emitter1[rangeIDs]()
	register.Iter1[rangeIDs]()
	register.Emitter1[string]()
	beam.RegisterType(reflect.TypeOf((*idsInfo)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*arcBatch)(nil)).Elem())
	register.DoFn5x1[context.Context, []byte, func(*string) bool, func(*rangeIDs) bool, func(idsInfo), error](&idsFn{})
	register.DoFn4x1[context.Context, edgeBatch, idsInfo, func(int, arcBatch), error](&arcsFn{})
	register.DoFn2x0[idsInfo, func(int, int)](&marksFn{})
	register.DoFn5x1[context.Context, int, func(*int) bool, func(*arcBatch) bool, func(int), error](&shardFn{})
	register.DoFn4x1[context.Context, []byte, idsInfo, func(*int) bool, error](&assembleFn{})
	register.Emitter1[idsInfo]()
	register.Emitter2[int, arcBatch]()
	register.Emitter2[int, int]()
	register.Iter1[string]()
	register.Iter1[arcBatch]()
}

// PlanRanges lists the files matching p.Input in sorted order and cuts
// each plain file into ranges of p.RangeBytes; gzip files (recognised by
// their magic bytes, as the loader does) are one range each.
func PlanRanges(ctx context.Context, p Prep) ([]Range, error) {
	fsys, err := filesystem.New(ctx, p.Input)
	if err != nil {
		return nil, fmt.Errorf("wysbeam: %s: %w", p.Input, err)
	}
	defer fsys.Close()
	files, err := fsys.List(ctx, p.Input)
	if err != nil {
		return nil, fmt.Errorf("wysbeam: listing %s: %w", p.Input, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("wysbeam: no file matches %s (check the path)", p.Input)
	}
	slices.Sort(files)
	step := p.RangeBytes
	if step <= 0 {
		step = 64 << 20
	}
	var out []Range
	for i, f := range files {
		// A local directory (a glob that matches one, or its plain name)
		// would fail later at its first read; other file systems have no
		// directories to match.
		if st, err := os.Stat(f); err == nil && st.IsDir() {
			return nil, fmt.Errorf("wysbeam: %s is a directory: the input is an edge-list file or a glob of them (such as %s)", f, filepath.Join(f, "*.txt"))
		}
		size, err := fsys.Size(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("wysbeam: %s: %w", f, err)
		}
		gz, err := isGzip(ctx, fsys, f)
		if err != nil {
			return nil, err
		}
		if gz {
			out = append(out, Range{File: f, Index: i, End: math.MaxInt64})
			continue
		}
		for start := int64(0); start == 0 || start < size; start += step {
			out = append(out, Range{File: f, Index: i, Start: start, End: min(start+step, size)})
		}
	}
	return out, nil
}

// headBytes is the length of text at the start of each input file that
// CheckHead reads.
const headBytes = 64 << 10

// CheckHead reads, in the driver, the lines that start in the first
// headBytes of text of each file of ranges (PlanRanges'), with the rules
// of the pipeline's read step, and returns the first error among them:
// a malformed line, a binary file (a .mat file's NUL byte), a Matrix
// Market banner or size line that the options refuse. When every file
// was read whole (plain edge lists of at most headBytes) and holds no
// edge line, it returns the pipeline's error for an empty graph. It is the
// pipeline's error, found in a moment rather than after a launch (on a
// cluster, minutes); the checks that need the whole input (the header
// rule, Matrix Market indices and entry count, a bad line further on)
// are the pipeline's alone. It never reads more than headBytes of a
// file's text, whatever its size.
func CheckHead(ctx context.Context, p Prep, ranges []Range) error {
	_, err := ReadHead(ctx, p, ranges)
	return err
}

// Head counts the edge lines that CheckHead reads: how many, how many
// hold a third column that the options do not read (no Weighted) and
// how many more than three columns, and whether they are all the input's
// (every file a plain one of at most the bytes read). Whole is the empty
// graph rule's: all the input read, and no Matrix Market file, whose
// entry count comes first.
type Head struct {
	Lines, Extra, Wide int
	All, Whole         bool
}

// ReadHead is CheckHead, returning also the counts of the lines it read,
// for the notes the driver gives before the pipeline's launch.
func ReadHead(ctx context.Context, p Prep, ranges []Range) (Head, error) {
	h := Head{All: true, Whole: true}
	count := func(_ int64, _ int, _ []byte, e graphio.EdgeLine) {
		h.Lines++
		if e.Extra && !p.Load.Weighted {
			h.Extra++
		}
		if e.Wide {
			h.Wide++
		}
	}
	for _, r := range ranges {
		h.All = h.All && r.Start == 0 && r.End <= headBytes
		h.Whole = h.Whole && h.All
		if r.Start > 0 {
			continue
		}
		head := r
		head.End = min(r.End, headBytes)
		size, err := readRange(ctx, head, p.Load, count)
		var late *lateLineError
		if err != nil && !(errors.As(err, &late) && head.End < r.End) {
			return h, err
		}
		h.Whole = h.Whole && size == nil // a Matrix Market file's entry count comes first
	}
	if h.Whole && h.Lines == 0 {
		return h, graphio.NoEdgesError(p.Input)
	}
	return h, nil
}

// lateLineError is readRange's error for a column names line (-header)
// or a Matrix Market size line that does not start in the range.
type lateLineError struct{ *pipeline.ParseError }

func (e *lateLineError) Unwrap() error { return e.ParseError }

// isGzip reports whether file starts with the gzip magic bytes.
func isGzip(ctx context.Context, fsys filesystem.Interface, file string) (bool, error) {
	r, err := fsys.OpenRead(ctx, file)
	if err != nil {
		return false, fmt.Errorf("wysbeam: %s: %w", file, err)
	}
	defer r.Close()
	var magic [2]byte
	n, err := io.ReadFull(r, magic[:])
	if err != nil && n < 2 && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false, fmt.Errorf("wysbeam: reading %s: %w", file, err)
	}
	return n == 2 && magic == [2]byte{0x1f, 0x8b}, nil
}

// readFn parses the edge lines of a range with the loader's rules, and
// emits one rangeIDs per range.
type readFn struct{ Load graphio.LoadOptions }

func (f *readFn) ProcessElement(ctx context.Context, r Range, emit func(edgeBatch), emitIDs func(rangeIDs)) error {
	key := func(id []byte, num uint64) string {
		if f.Load.IDs == graphio.IDInteger {
			return strconv.FormatUint(num, 10)
		}
		return string(id)
	}
	b := edgeBatch{File: int32(r.Index)}
	ids := rangeIDs{File: r.File, Index: int32(r.Index), Start: r.Start}
	size, err := readRange(ctx, r, f.Load, func(off int64, ln int, text []byte, e graphio.EdgeLine) {
		ids.note(off, ln, e)
		if ids.Edges == 0 {
			ids.FirstOff = off
		}
		if f.Load.IDs == graphio.IDAuto && !e.Numeric && ids.Switch.ID == "" {
			ids.Switch, ids.Zero = switchLine(off, ln, r.Start, e)
		}
		if f.Load.IDs == graphio.IDAuto && e.TokenIDs() {
			if ids.Edges == 0 && r.Start == 0 {
				ids.FirstLine, ids.FirstText = ln, string(text)
			}
			ids.TokenLines++
		}
		ids.Edges++
		w := e.W
		if !f.Load.Weighted {
			w = 1
		}
		b.U, b.V = append(b.U, key(e.U, e.Num[0])), append(b.V, key(e.V, e.Num[1]))
		b.W, b.Off = append(b.W, w), append(b.Off, off)
		if len(b.U) == batchLines {
			emit(b)
			b = edgeBatch{File: int32(r.Index)}
		}
	})
	if err == nil && len(b.U) > 0 {
		emit(b)
	}
	if err == nil {
		if size != nil {
			ids.MTX, ids.Size = true, *size
		}
		emitIDs(ids)
	}
	return err
}

// errRangeEnd stops the reading of a range at its first line past End.
var errRangeEnd = errors.New("end of range")

// readRange calls fn with the byte offset, line number (the file's when
// r starts it, else counted from the range), text and parse of every
// edge line that starts in r. A range after the file's start begins at the first
// line start at or after Start; its lines are read behind one empty line,
// so that the reader neither takes them for gzip nor for the file's first
// line (whose byte-order mark the loader drops), and a parse error's line
// number, counted from the range, is made the file's by counting the
// line ends before the range (read again, on that error path only). For
// a range that starts a Matrix Market file it returns the size line.
func readRange(ctx context.Context, r Range, opt graphio.LoadOptions, fn func(off int64, ln int, text []byte, e graphio.EdgeLine)) (*graphio.MatrixMarketSize, error) {
	fsys, err := filesystem.New(ctx, r.File)
	if err != nil {
		return nil, fmt.Errorf("wysbeam: %s: %w", r.File, err)
	}
	defer fsys.Close()
	rc, err := fsys.OpenRead(ctx, r.File)
	if err != nil {
		return nil, fmt.Errorf("wysbeam: %s: %w", r.File, err)
	}
	defer rc.Close()
	var in io.Reader = rc
	first := int64(0) // offset of the range's first line
	if r.Start > 0 {
		br, skipped, err := skipTo(rc, r.Start)
		if errors.Is(err, io.EOF) {
			return nil, nil // no line starts at or after Start
		} else if err != nil {
			return nil, fmt.Errorf("wysbeam: reading %s: %w", r.File, err)
		}
		first, in = r.Start-1+skipped, io.MultiReader(strings.NewReader("\n"), br)
	}
	header := r.Start == 0 && opt.Header
	var size *graphio.MatrixMarketSize // a Matrix Market file's size line, once read
	mtx := false                       // whether the size line is still to come
	err = graphio.ReadLines(ctx, in, r.File, func(ln int, off int64, text []byte) error {
		if r.Start > 0 {
			if ln == 1 {
				return nil
			}
			off += first - 1
		}
		if off >= r.End {
			return errRangeEnd
		}
		if r.Start == 0 && ln == 1 {
			mm, err := graphio.MatrixMarketBanner(r.File, text, opt)
			if err != nil {
				return err
			}
			mtx, header = mm, header && !mm // the size line takes the header's place
		}
		switch {
		case graphio.IsCommentLine(ln, text):
		case mtx:
			s, err := graphio.ReadMatrixMarketSize(r.File, ln, text)
			size, mtx = &s, false
			return err
		case header:
			header = false
			return graphio.CheckHeaderLine(r.File, ln, text) // column names: the first line that is not blank or a comment, in a file's first range
		}
		e, err := graphio.ParseEdgeLine(r.File, ln, text, opt)
		if err == nil && e.Edge {
			fn(off, ln, text, e)
		}
		return err
	})
	if errors.Is(err, errRangeEnd) {
		if header || mtx {
			what := "the line of column names (-header: the first line that is not blank or a comment)"
			if mtx {
				what = "the Matrix Market size line (the first line after the banner that is not a comment)"
			}
			return nil, &lateLineError{&pipeline.ParseError{File: r.File, Err: fmt.Errorf("%w: %s does not start in the file's first %d bytes, the first range; remove the comments before it or read larger ranges", pipeline.ErrFormat, what, r.End)}}
		}
		return size, nil
	}
	var pe *pipeline.ParseError
	if r.Start > 0 && errors.As(err, &pe) && pe.Line > 0 {
		before, cerr := countLines(ctx, fsys, r.File, first)
		if cerr != nil {
			return nil, fmt.Errorf("%w (line %d of the range starting at byte %d; counting the lines before it: %v)", err, pe.Line-1, first, cerr)
		}
		pe.Line = before + pe.Line - 1
	}
	return size, err
}

// skipTo positions a reader of rc at the first line start at or after
// start > 0: it skips start−1 bytes and then through the next '\n',
// returning the number of bytes of that second skip.
func skipTo(rc io.Reader, start int64) (*bufio.Reader, int64, error) {
	if s, ok := rc.(io.Seeker); ok {
		if _, err := s.Seek(start-1, io.SeekStart); err != nil {
			return nil, 0, err
		}
	} else if _, err := io.CopyN(io.Discard, rc, start-1); err != nil {
		return nil, 0, err
	}
	br := bufio.NewReaderSize(rc, 1<<16)
	var n int64
	for {
		b, err := br.ReadSlice('\n')
		n += int64(len(b))
		if err == nil {
			return br, n, nil
		}
		if err != bufio.ErrBufferFull {
			return nil, 0, err
		}
	}
}

// countLines counts the line ends in the first n bytes of file.
func countLines(ctx context.Context, fsys filesystem.Interface, file string, n int64) (int, error) {
	rc, err := fsys.OpenRead(ctx, file)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	buf := make([]byte, 1<<16)
	count := 0
	lr := io.LimitReader(rc, n)
	for {
		k, err := lr.Read(buf)
		count += strings.Count(string(buf[:k]), "\n")
		if err == io.EOF {
			return count, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// keysFn emits the distinct node keys of a batch.
type keysFn struct{}

func (keysFn) ProcessElement(b edgeBatch, emit func(string)) {
	seen := make(map[string]bool, len(b.U))
	for _, ids := range [][]string{b.U, b.V} {
		for _, k := range ids {
			if !seen[k] {
				seen[k] = true
				emit(k)
			}
		}
	}
}

// BuildPrep adds the preprocessing of p to the pipeline's root scope, for
// the ranges of PlanRanges: a parallel read and parse of the ranges, the
// distinct node keys, one step that sorts them into rows and writes the
// ids, a parallel mapping of the edges to arcs (symmetrised and with the
// self-loop policy applied), a GroupByKey per CSR shard that merges
// duplicate arcs keeping the first line's weight and writes the shard,
// and one step that assembles the shards, splits the graph and writes the
// training graph. After the pipeline has run, ReadPrep reads its outputs.
func BuildPrep(scope beam.Scope, p Prep, ranges []Range) {
	s := scope.Scope("prep")
	edges, perRange := beam.ParDo2(s, &readFn{Load: p.Load}, beam.Reshuffle(s, beam.CreateList(s, ranges)))
	keys := filter.Distinct(s, beam.ParDo(s, keysFn{}, edges))
	info := beam.ParDo(s.Scope("ids"), &idsFn{Prep: p}, beam.Impulse(s), beam.SideInput{Input: keys}, beam.SideInput{Input: perRange})
	arcs := beam.ParDo(s.Scope("arcs"), &arcsFn{Prep: p}, edges, beam.SideInput{Input: info})
	marks := beam.ParDo(s, &marksFn{Prep: p}, info)
	shards := beam.ParDo(s.Scope("shards"), &shardFn{Prep: p}, beam.CoGroupByKey(s, marks, arcs))
	beam.ParDo0(s.Scope("assemble"), &assembleFn{Prep: p}, beam.Impulse(s),
		beam.SideInput{Input: info}, beam.SideInput{Input: shards})
}
