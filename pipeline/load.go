package pipeline

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"
	"strconv"

	"github.com/wys-project/wys/sparse"
)

// Sentinel errors; every loading error wraps one of them (or an I/O error
// such as fs.ErrNotExist, or the context's error).
var (
	// ErrFormat reports a malformed line or file.
	ErrFormat = errors.New("malformed input")
	// ErrEmptyGraph reports an input with no edges.
	ErrEmptyGraph = errors.New("graph has no edges")
	// ErrUnknownNode reports a node id that is not in the graph, or a row
	// outside the node range.
	ErrUnknownNode = errors.New("unknown node id")
)

// ParseError is an error in an input file, with its position, modelled on
// encoding/csv's ParseError. It unwraps to the underlying error: one of the
// sentinels above, or an I/O error.
type ParseError struct {
	File string // file name as given
	Line int    // 1-based line number, 0 when the error concerns the whole file
	Err  error
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

func formatErr(file string, line int, format string, args ...any) error {
	return &ParseError{File: file, Line: line, Err: fmt.Errorf("%w: "+format, append([]any{ErrFormat}, args...)...)}
}

// IDMode says how node ids in an edge list are read.
type IDMode int

const (
	// IDAuto reads ids as integers while every id seen is a non-negative
	// integer below 2^64, and falls back to tokens (converting the ids
	// read so far to their decimal text) at the first id that is not.
	IDAuto IDMode = iota
	// IDInteger requires non-negative 64-bit integer ids; any other id is
	// an error.
	IDInteger
	// IDToken treats every id as an opaque token, ordered as byte strings.
	IDToken
)

// LoadOptions controls ReadEdgeList. The zero value reads an undirected,
// unweighted graph with integer-or-token ids and drops self-loops.
type LoadOptions struct {
	// Directed keeps arcs as given; false stores each edge as both arcs.
	Directed bool
	// Weighted reads the third column as a positive, finite edge weight;
	// false ignores every column after the second and uses weight 1.
	Weighted bool
	// KeepSelfLoops keeps u→u edges; false drops them (they are counted in
	// the report).
	KeepSelfLoops bool
	// IDs selects how ids are read; 0 means IDAuto.
	IDs IDMode
}

// LoadReport describes what ReadEdgeList read and what its policies did.
type LoadReport struct {
	File     string
	Lines    int // lines read, comments and blank lines included
	Comments int // lines whose first field starts with '#' or '%'
	Blank    int
	// EdgesRead counts edge lines.
	EdgesRead int
	// SelfLoops counts the distinct u→u edges. They are stored when
	// KeptSelfLoops and dropped otherwise.
	SelfLoops     int
	KeptSelfLoops bool
	// Duplicates counts edge lines that repeat an edge read before:
	// EdgesRead − UniqueEdges. For an undirected graph an edge given in
	// both directions (as SNAP lists undirected graphs) counts one
	// duplicate. The first line naming an edge sets its weight.
	Duplicates int
	// UniqueEdges counts distinct edges (undirected: unordered pairs;
	// directed: arcs), self-loops included whether kept or not.
	UniqueEdges int
	// Nodes counts distinct ids, including ids that appear only in dropped
	// self-loops (they become isolated rows).
	Nodes      int
	Arcs       int // stored nonzeros of the adjacency matrix
	Directed   bool
	Weighted   bool
	NumericIDs bool // ids were read as integers (false: tokens)
}

// maxLine bounds the length of one line of text input.
const maxLine = 1 << 20

// LoadEdgeList opens path (plain text or gzip, detected by content) and
// reads it with ReadEdgeList.
func LoadEdgeList(ctx context.Context, path string, opt LoadOptions) (*Graph, *LoadReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("pipeline: %w (check the path)", err)
	}
	defer f.Close()
	return ReadEdgeList(ctx, f, path, opt)
}

// textReader is a buffered reader over plain or gzip-compressed text that
// reports decompression failures as format errors.
type textReader struct {
	*bufio.Reader
	name string
	gz   bool
	zr   *gzip.Reader
}

// openText returns a reader of r's content, decompressing it when it
// starts with the gzip magic bytes (whatever the name says).
func openText(r io.Reader, name string) (*textReader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	magic, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return nil, &ParseError{File: name, Err: fmt.Errorf("read failed: %w", err)}
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &ParseError{File: name, Err: fmt.Errorf("%w: unreadable gzip header (%v); the file starts like gzip but is not: re-download or decompress it", ErrFormat, err)}
		}
		return &textReader{Reader: bufio.NewReaderSize(zr, 1<<16), name: name, gz: true, zr: zr}, nil
	}
	return &textReader{Reader: br, name: name}, nil
}

// Close releases the decompressor; it does not close the underlying reader.
func (t *textReader) Close() {
	if t.zr != nil {
		t.zr.Close()
	}
}

// readErr wraps an error met while reading line (1-based).
func (t *textReader) readErr(line int, err error) error {
	if t.gz && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader)) {
		return &ParseError{File: t.name, Line: line, Err: fmt.Errorf("%w: unreadable gzip data (%v): the file is truncated or corrupt; re-download it", ErrFormat, err)}
	}
	return &ParseError{File: t.name, Line: line, Err: fmt.Errorf("read failed: %w", err)}
}

// lines calls fn for every line of t (without its line end; "\r\n" and
// "\n" both end a line, and the last line may lack one). The slice passed
// to fn is only valid during the call. Every 2^16 lines it checks ctx.
func (t *textReader) lines(ctx context.Context, fn func(line int, text []byte) error) error {
	var long []byte
	for ln := 1; ; ln++ {
		text, err := t.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], text...)
			for err == bufio.ErrBufferFull {
				text, err = t.ReadSlice('\n')
				long = append(long, text...)
				if len(long) > maxLine {
					return formatErr(t.name, ln, "line longer than %d bytes: this is not a line-oriented text file", maxLine)
				}
			}
			text = long
		}
		if err != nil && err != io.EOF {
			return t.readErr(ln, err)
		}
		if len(text) == 0 && err == io.EOF {
			return nil
		}
		text = bytes.TrimSuffix(text, []byte{'\n'})
		text = bytes.TrimSuffix(text, []byte{'\r'})
		if bytes.IndexByte(text, '\r') >= 0 {
			return formatErr(t.name, ln, "carriage return inside a line: the file seems to use CR-only line ends; convert them to LF (tr '\\r' '\\n')")
		}
		if ferr := fn(ln, text); ferr != nil {
			return ferr
		}
		if ln&(1<<16-1) == 0 {
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// ReadEdgeList reads a SNAP-style edge list from r: one edge per line as
// two node ids separated by spaces or tabs, an optional third column
// holding a weight (read when opt.Weighted; further columns are ignored),
// lines starting with '#' or '%' as comments, blank lines ignored, LF or
// CRLF line ends, the last line with or without one. r may be plain text
// or gzip; gzip is recognised by its magic bytes. name is used in errors
// and the report.
//
// Ids are renumbered to rows 0..N−1 by sorted order: numerically when all
// are integers, otherwise as byte strings (see IDMode and NodeIDs).
//
// Policy: self-loops are dropped unless opt.KeepSelfLoops (a dropped
// self-loop's node stays, as an isolated row). Duplicate edges are merged
// and keep the weight of the first line naming them; for an undirected
// graph "u v w1" and a later "v u w2" are the same edge, and both stored
// arcs get w1. An undirected graph stores both arcs of each edge, so Adj
// is symmetric.
//
// Errors name the file and line and wrap ErrFormat (missing column, bad or
// non-positive weight, non-integer id under IDInteger, corrupt gzip),
// ErrEmptyGraph (no edge stored), or the context's error.
//
// Memory: 16 bytes per edge line while reading integer ids (8 for
// tokens, plus the distinct tokens), then up to about 40 bytes per edge
// line while the CSR is built (12 bytes per stored arc) for an undirected
// graph, half that for a directed one.
func ReadEdgeList(ctx context.Context, r io.Reader, name string, opt LoadOptions) (*Graph, *LoadReport, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	in, err := openText(r, name)
	if err != nil {
		return nil, nil, err
	}
	defer in.Close()
	rep := &LoadReport{File: name, Directed: opt.Directed, Weighted: opt.Weighted, KeptSelfLoops: opt.KeepSelfLoops}
	p := edgeParser{name: name, opt: opt, rep: rep}
	if err := in.lines(ctx, p.line); err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if rep.EdgesRead == 0 {
		return nil, nil, &ParseError{File: name, Err: fmt.Errorf("%w: no edge lines found (expected lines like \"u v\" or \"u v weight\")", ErrEmptyGraph)}
	}
	g, err := p.build(ctx)
	if err != nil {
		return nil, nil, err
	}
	return g, rep, nil
}

// edgeParser accumulates edges while reading.
type edgeParser struct {
	name string
	opt  LoadOptions
	rep  *LoadReport

	decided bool // id mode fixed
	numeric bool
	nums    []uint64 // integer ids, two per edge line (u, v)
	tokens  map[string]uint32
	toks    []uint32 // token numbers in order of first appearance, two per edge line
	w       []float64
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

// fields splits line into at most 3 whitespace-separated fields without
// allocating.
func fields(line []byte, out *[3][]byte) int {
	n := 0
	i := 0
	for n < len(out) {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) {
			break
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		out[n] = line[i:j]
		n++
		i = j
	}
	return n
}

func (p *edgeParser) line(ln int, line []byte) error {
	p.rep.Lines = ln
	var f [3][]byte
	n := fields(line, &f)
	if n == 0 {
		p.rep.Blank++
		return nil
	}
	if f[0][0] == '#' || f[0][0] == '%' {
		p.rep.Comments++
		return nil
	}
	if n < 2 {
		return formatErr(p.name, ln, "missing column: want \"u v\" or \"u v weight\", got %q", bytes.TrimSpace(line))
	}
	if p.opt.Weighted {
		if n < 3 {
			return formatErr(p.name, ln, "missing weight column: the graph is read as weighted, so every edge needs \"u v weight\" (or read it unweighted)")
		}
		v, err := strconv.ParseFloat(string(f[2]), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return formatErr(p.name, ln, "weight %q is not a finite number", f[2])
		}
		if v <= 0 {
			return formatErr(p.name, ln, "weight %v is not positive (edge weights must be > 0; leave the edge out instead)", v)
		}
		p.w = append(p.w, v)
	}
	if !p.decided {
		p.decide()
	}
	p.rep.EdgesRead++
	if p.numeric {
		u, ok1 := parseID(f[0])
		v, ok2 := parseID(f[1])
		if ok1 && ok2 {
			p.nums = append(p.nums, u, v)
			return nil
		}
		if p.opt.IDs == IDInteger {
			bad := f[0]
			if ok1 {
				bad = f[1]
			}
			return formatErr(p.name, ln, "node id %q is not an integer: ids must be non-negative integers below 2^64 (or read ids as tokens)", bad)
		}
		p.toTokens()
	}
	a, err := p.intern(f[0])
	if err != nil {
		return err
	}
	b, err := p.intern(f[1])
	if err != nil {
		return err
	}
	p.toks = append(p.toks, a, b)
	return nil
}

// parseID parses a non-negative decimal integer below 2^64 without
// allocating.
func parseID(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

func (p *edgeParser) decide() {
	p.decided = true
	p.numeric = p.opt.IDs != IDToken
	if !p.numeric {
		p.tokens = make(map[string]uint32)
	}
}

// toTokens switches from integer to token ids, converting the ids read so
// far to their decimal text.
func (p *edgeParser) toTokens() {
	p.numeric = false
	p.tokens = make(map[string]uint32)
	p.toks = make([]uint32, len(p.nums), max(len(p.nums), 64))
	for i, v := range p.nums {
		s := strconv.FormatUint(v, 10)
		id, ok := p.tokens[s]
		if !ok {
			id = uint32(len(p.tokens))
			p.tokens[s] = id
		}
		p.toks[i] = id
	}
	p.nums = nil
}

func (p *edgeParser) intern(tok []byte) (uint32, error) {
	if id, ok := p.tokens[string(tok)]; ok {
		return id, nil
	}
	if len(p.tokens) >= math.MaxInt32 {
		return 0, formatErr(p.name, p.rep.Lines, "more than 2^31-1 distinct node ids")
	}
	id := uint32(len(p.tokens))
	p.tokens[string(tok)] = id
	return id, nil
}

// build renumbers the ids and assembles the CSR.
func (p *edgeParser) build(ctx context.Context) (*Graph, error) {
	var ids *NodeIDs
	var rows []int32 // two rows per edge line
	if p.numeric {
		all := slices.Clone(p.nums)
		slices.Sort(all)
		uniq := slices.Clone(slices.Compact(all)) // drop the large backing array
		all = nil
		if len(uniq) > math.MaxInt32 {
			return nil, &ParseError{File: p.name, Err: fmt.Errorf("%w: %d distinct nodes exceed the limit of 2^31-1", ErrFormat, len(uniq))}
		}
		ids = NewNumericIDs(uniq)
		rows = make([]int32, len(p.nums))
		for i, v := range p.nums {
			r, _ := slices.BinarySearch(uniq, v)
			rows[i] = int32(r)
		}
		p.nums = nil
	} else {
		names := make([]string, len(p.tokens))
		for tok, id := range p.tokens {
			names[id] = tok
		}
		p.tokens = nil
		order := make([]int32, len(names)) // token numbers by increasing name
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortFunc(order, func(a, b int32) int {
			switch {
			case names[a] < names[b]:
				return -1
			case names[a] > names[b]:
				return 1
			}
			return 0
		})
		remap := make([]int32, len(names))
		sorted := make([]string, len(names))
		for r, id := range order {
			remap[id] = int32(r)
			sorted[r] = names[id]
		}
		ids = NewStringIDs(sorted)
		rows = make([]int32, len(p.toks))
		for i, id := range p.toks {
			rows[i] = remap[id]
		}
		p.toks = nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := ids.Len()
	p.rep.Nodes = n
	p.rep.NumericIDs = ids.Numeric()

	// Apply the policies. For an undirected graph both arcs of a line are
	// appended together; NewFromCOO keeps input order within a row, so with
	// DupFirst the first line naming an edge, in either direction, sets the
	// weight of both arcs.
	lines := len(rows) / 2
	capacity := lines
	if !p.opt.Directed {
		capacity *= 2
	}
	src := make([]int32, 0, capacity)
	dst := make([]int32, 0, capacity)
	var w []float64
	if p.w != nil {
		w = make([]float64, 0, capacity)
	}
	loops := make([]uint64, (n+63)/64) // distinct self-loops, as a bit set
	for e := 0; e < lines; e++ {
		u, v := rows[2*e], rows[2*e+1]
		if u == v {
			loops[u/64] |= 1 << (u % 64)
			if !p.opt.KeepSelfLoops {
				continue
			}
		}
		src = append(src, u)
		dst = append(dst, v)
		if w != nil {
			w = append(w, p.w[e])
		}
		if !p.opt.Directed && u != v {
			src = append(src, v)
			dst = append(dst, u)
			if w != nil {
				w = append(w, p.w[e])
			}
		}
	}
	rows, p.w = nil, nil
	nloops := 0
	for _, b := range loops {
		nloops += bits.OnesCount64(b)
	}
	adj, err := sparse.NewFromCOO(n, n, src, dst, w, sparse.DupFirst)
	if err != nil {
		return nil, &ParseError{File: p.name, Err: err}
	}
	if adj.NNZ() < len(src) {
		// Merged duplicates leave slack in the arrays; release it.
		adj.Indices = slices.Clone(adj.Indices)
		adj.Data = slices.Clone(adj.Data)
	}
	src, dst, w = nil, nil, nil

	p.rep.SelfLoops = nloops
	p.rep.Arcs = adj.NNZ()
	kept := 0
	if p.opt.KeepSelfLoops {
		kept = nloops
	}
	if p.opt.Directed {
		p.rep.UniqueEdges = adj.NNZ() - kept + nloops
	} else {
		p.rep.UniqueEdges = (adj.NNZ()-kept)/2 + nloops
	}
	p.rep.Duplicates = p.rep.EdgesRead - p.rep.UniqueEdges
	if adj.NNZ() == 0 {
		return nil, &ParseError{File: p.name, Err: fmt.Errorf("%w: every edge is a self-loop, and self-loops are dropped (keep them to load this graph)", ErrEmptyGraph)}
	}
	return &Graph{Adj: adj, IDs: ids, Directed: p.opt.Directed, Weighted: p.opt.Weighted}, nil
}
