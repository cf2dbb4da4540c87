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
	"os"
	"slices"
	"strconv"

	"github.com/wys-project/wys/sparse"
)

// Sentinel errors; every loading error wraps one of them.
var (
	// ErrFormat reports a malformed line or file.
	ErrFormat = errors.New("malformed input")
	// ErrEmptyGraph reports an input with no edges.
	ErrEmptyGraph = errors.New("graph has no edges")
	// ErrUnknownNode reports a node id that is not in the graph.
	ErrUnknownNode = errors.New("unknown node id")
)

// ParseError is an error in an input file, with its position. It unwraps
// to the underlying error (one of the sentinels above, or an I/O error).
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
	// IDAuto reads integer ids when the first edge's ids are non-negative
	// integers (then every id must be one) and tokens otherwise.
	IDAuto IDMode = iota
	// IDInteger requires non-negative 64-bit integer ids.
	IDInteger
	// IDToken treats every id as an opaque token, ordered as strings.
	IDToken
)

// LoadOptions controls ReadEdgeList. The zero value reads an undirected,
// unweighted graph with integer-or-token ids and drops self-loops.
type LoadOptions struct {
	// Directed keeps arcs as given; otherwise each edge is stored as both arcs.
	Directed bool
	// Weighted reads the third column as a positive, finite edge weight;
	// otherwise columns after the second are ignored and weights are 1.
	Weighted bool
	// KeepSelfLoops keeps u→u edges; by default they are dropped (and counted).
	KeepSelfLoops bool
	// IDs selects how ids are read; 0 means IDAuto.
	IDs IDMode
}

// LoadReport describes what ReadEdgeList read and what its policies did.
type LoadReport struct {
	File      string
	Lines     int // lines read, comments and blank lines included
	Comments  int // lines starting with '#' or '%'
	Blank     int
	EdgesRead int // edge lines
	// SelfLoops counts the distinct u→u edges; they are dropped unless
	// KeepSelfLoops was set.
	SelfLoops     int
	KeptSelfLoops bool
	// Duplicates counts arcs that repeated an arc already stored (for an
	// undirected graph, an edge given in both directions counts once here
	// per extra copy). Duplicates keep the first weight read.
	Duplicates int
	// UniqueEdges counts distinct edges (undirected: unordered pairs;
	// directed: arcs), self-loops included whether kept or not.
	UniqueEdges int
	Nodes       int // distinct ids seen, including those only in dropped self-loops
	Arcs        int // stored nonzeros of the adjacency matrix
	Directed    bool
	Weighted    bool
	NumericIDs  bool
}

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

// openMaybeGzip returns a reader of r's content, decompressing it when it
// starts with the gzip magic bytes.
func openMaybeGzip(r io.Reader, name string) (io.Reader, func(), error) {
	br := bufio.NewReaderSize(r, 1<<16)
	magic, err := br.Peek(2)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, nil, &ParseError{File: name, Err: err}
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, &ParseError{File: name, Err: fmt.Errorf("%w: unreadable gzip header: %v", ErrFormat, err)}
		}
		return bufio.NewReaderSize(zr, 1<<16), func() { zr.Close() }, nil
	}
	return br, func() {}, nil
}

// ReadEdgeList reads a SNAP-style edge list: one edge per line as two ids
// separated by spaces or tabs, an optional third column holding a weight,
// '#' or '%' comment lines, LF or CRLF line ends, gzip or plain text. name
// is used in errors and the report.
//
// Ids are renumbered to rows 0..N−1 by sorted order (see NodeIDs). Policy:
// self-loops are dropped unless opt.KeepSelfLoops; duplicate arcs keep the
// first weight read; an undirected graph stores both arcs of each edge.
// Memory: about 16 bytes per edge line for integer ids while reading, then
// the CSR (12 bytes per stored arc).
func ReadEdgeList(ctx context.Context, r io.Reader, name string, opt LoadOptions) (*Graph, *LoadReport, error) {
	in, done, err := openMaybeGzip(r, name)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	rep := &LoadReport{File: name, Directed: opt.Directed, Weighted: opt.Weighted, KeptSelfLoops: opt.KeepSelfLoops}
	p := edgeParser{name: name, opt: opt, rep: rep}
	br := in.(*bufio.Reader)
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: gather it whole.
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			if perr := p.line(line); perr != nil {
				return nil, nil, perr
			}
			if rep.Lines%(1<<20) == 0 {
				if cerr := ctx.Err(); cerr != nil {
					return nil, nil, cerr
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, &ParseError{File: name, Line: rep.Lines + 1, Err: fmt.Errorf("read failed: %w", err)}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if rep.EdgesRead == 0 {
		return nil, nil, &ParseError{File: name, Err: fmt.Errorf("%w: no edge lines found (expected lines like \"u v\" or \"u v weight\")", ErrEmptyGraph)}
	}
	g, err := p.build()
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
	nsrc    []uint64 // numeric ids
	ndst    []uint64
	tokens  map[string]uint32 // token ids: interned in order of appearance
	tsrc    []uint32
	tdst    []uint32
	w       []float64
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

// fields splits line into at most 4 whitespace-separated fields without
// allocating.
func fields(line []byte, out *[4][]byte) int {
	n := 0
	i := 0
	for n < 4 {
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

func (p *edgeParser) line(line []byte) error {
	p.rep.Lines++
	ln := p.rep.Lines
	var f [4][]byte
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
	w := 1.0
	if p.opt.Weighted {
		if n < 3 {
			return formatErr(p.name, ln, "missing weight column (the graph is read as weighted; add a third column or drop the weighted option)")
		}
		v, err := strconv.ParseFloat(string(f[2]), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return formatErr(p.name, ln, "weight %q is not a finite number", f[2])
		}
		if v <= 0 {
			return formatErr(p.name, ln, "weight %v is not positive (edge weights must be > 0; leave the edge out instead)", v)
		}
		w = v
	}
	if !p.decided {
		p.decide(f[0], f[1])
	}
	p.rep.EdgesRead++
	if p.numeric {
		u, ok1 := parseID(f[0])
		v, ok2 := parseID(f[1])
		if !ok1 || !ok2 {
			bad := f[0]
			if ok1 {
				bad = f[1]
			}
			hint := "ids must be non-negative integers below 2^64, like the ids before this line; read ids as tokens to allow any text"
			if p.opt.IDs == IDInteger {
				hint = "ids must be non-negative integers below 2^64; read ids as tokens to allow any text"
			}
			return formatErr(p.name, ln, "node id %q is not an integer id: %s", bad, hint)
		}
		p.nsrc = append(p.nsrc, u)
		p.ndst = append(p.ndst, v)
	} else {
		p.tsrc = append(p.tsrc, p.intern(f[0]))
		p.tdst = append(p.tdst, p.intern(f[1]))
	}
	if p.opt.Weighted {
		p.w = append(p.w, w)
	}
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

func (p *edgeParser) decide(a, b []byte) {
	p.decided = true
	switch p.opt.IDs {
	case IDInteger:
		p.numeric = true
	case IDToken:
		p.numeric = false
	default:
		_, ok1 := parseID(a)
		_, ok2 := parseID(b)
		p.numeric = ok1 && ok2
	}
	if !p.numeric {
		p.tokens = make(map[string]uint32)
	}
}

func (p *edgeParser) intern(tok []byte) uint32 {
	if id, ok := p.tokens[string(tok)]; ok {
		return id
	}
	id := uint32(len(p.tokens))
	p.tokens[string(tok)] = id
	return id
}

// build renumbers the ids and assembles the CSR.
func (p *edgeParser) build() (*Graph, error) {
	var ids *NodeIDs
	var src, dst []int32
	if p.numeric {
		all := make([]uint64, 0, 2*len(p.nsrc))
		all = append(append(all, p.nsrc...), p.ndst...)
		ids = NewNumericIDs(all)
		if ids.Len() > math.MaxInt32 {
			return nil, &ParseError{File: p.name, Err: fmt.Errorf("%w: %d distinct nodes exceed the limit of 2^31-1", ErrFormat, ids.Len())}
		}
		src = make([]int32, len(p.nsrc))
		dst = make([]int32, len(p.ndst))
		for e := range p.nsrc {
			u, _ := ids.RowOf(p.nsrc[e])
			v, _ := ids.RowOf(p.ndst[e])
			src[e], dst[e] = int32(u), int32(v)
		}
		p.nsrc, p.ndst = nil, nil
	} else {
		names := make([]string, len(p.tokens))
		for tok, id := range p.tokens {
			names[id] = tok
		}
		sorted := slices.Clone(names)
		ids = NewStringIDs(sorted)
		remap := make([]int32, len(names))
		for id, tok := range names {
			r, _ := ids.Row(tok)
			remap[id] = int32(r)
		}
		src = make([]int32, len(p.tsrc))
		dst = make([]int32, len(p.tdst))
		for e := range p.tsrc {
			src[e], dst[e] = remap[p.tsrc[e]], remap[p.tdst[e]]
		}
		p.tsrc, p.tdst, p.tokens = nil, nil, nil
	}
	p.rep.Nodes = ids.Len()
	p.rep.NumericIDs = ids.Numeric()
	n := ids.Len()

	// Distinct edges and self-loops of the input, before any policy:
	// arcs as given for a directed graph, unordered pairs otherwise.
	cs, cd := src, dst
	if !p.opt.Directed {
		cs, cd = make([]int32, len(src)), make([]int32, len(src))
		for e := range src {
			cs[e], cd[e] = min(src[e], dst[e]), max(src[e], dst[e])
		}
	}
	canon, err := sparse.NewFromCOO(n, n, cs, cd, nil, sparse.DupFirst)
	if err != nil {
		return nil, &ParseError{File: p.name, Err: err}
	}
	p.rep.UniqueEdges = canon.NNZ()
	p.rep.SelfLoops = countDiag(canon)
	p.rep.Duplicates = p.rep.EdgesRead - p.rep.UniqueEdges
	canon, cs, cd = nil, nil, nil

	// Apply the policies. For an undirected graph both arcs of a line are
	// appended together, so with DupFirst the first line that names an
	// edge, in either direction, sets the weight of both arcs.
	w := p.w
	capacity := len(src)
	if !p.opt.Directed {
		capacity *= 2
	}
	s2 := make([]int32, 0, capacity)
	d2 := make([]int32, 0, capacity)
	var w2 []float64
	if w != nil {
		w2 = make([]float64, 0, capacity)
	}
	for e := range src {
		u, v := src[e], dst[e]
		if u == v && !p.opt.KeepSelfLoops {
			continue
		}
		s2 = append(s2, u)
		d2 = append(d2, v)
		if w != nil {
			w2 = append(w2, w[e])
		}
		if !p.opt.Directed && u != v {
			s2 = append(s2, v)
			d2 = append(d2, u)
			if w != nil {
				w2 = append(w2, w[e])
			}
		}
	}
	src, dst, p.w = nil, nil, nil
	adj, err := sparse.NewFromCOO(n, n, s2, d2, w2, sparse.DupFirst)
	if err != nil {
		return nil, &ParseError{File: p.name, Err: err}
	}
	p.rep.Arcs = adj.NNZ()
	if adj.NNZ() == 0 {
		return nil, &ParseError{File: p.name, Err: fmt.Errorf("%w: every edge is a self-loop, and self-loops are dropped (keep them to load this graph)", ErrEmptyGraph)}
	}
	return &Graph{Adj: adj, IDs: ids, Directed: p.opt.Directed, Weighted: p.opt.Weighted}, nil
}

func countDiag(m *sparse.CSR) int {
	r, _ := m.Dims()
	c := 0
	for i := 0; i < r; i++ {
		if m.Has(i, i) {
			c++
		}
	}
	return c
}
