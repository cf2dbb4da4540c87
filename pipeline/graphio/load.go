package graphio

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

func formatErr(file string, line int, format string, args ...any) error {
	return &pipeline.ParseError{File: file, Line: line, Err: fmt.Errorf("%w: "+format, append([]any{pipeline.ErrFormat}, args...)...)}
}

// NoEdgesError is the loader's error for an input file (name) that holds
// no edge line; it wraps pipeline.ErrEmptyGraph.
func NoEdgesError(name string) error {
	return &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: no edge lines found (expected lines like \"u v\" or \"u v weight\")", pipeline.ErrEmptyGraph)}
}

// HeaderError is the loader's error for an edge list, read under IDAuto
// without Header, whose ids are all integers but those of its first edge
// line, line ln of file, text as read (line 1's byte-order mark and the
// spaces around the text are dropped here): most likely column names,
// which would become an edge between two made-up nodes and turn every id
// into a token. A first line of integers the loader cannot read
// (negative, or 2^64 or more), or written as floats ("1.0"), is named as
// such instead.
func HeaderError(file string, ln int, text string) error {
	text = string(bytes.TrimSpace(dropBOM(ln, []byte(text))))
	var f [3][]byte
	fields([]byte(text), &f)
	for _, id := range f[:2] {
		if why := integerTrouble(id); why != "" {
			return formatErr(file, ln, "node id %s %s, which is read as a token, while every other line's ids are integers: read all ids as tokens (-ids token)", id, why)
		}
		if floatInteger(id) {
			whole, _, _ := bytes.Cut(id, []byte("."))
			return formatErr(file, ln, "node id %s is an integer written as a float, read as a token apart from node %s, while every other line's ids are integers: write the ids as integers (pandas: df[cols].astype(int))", id, whole)
		}
	}
	return formatErr(file, ln, "%q looks like a header (every other line's ids are integers): skip it (-header) or, if it is an edge, read ids as tokens (-ids token)", text)
}

// IDMode says how node ids in an edge list are read.
type IDMode int

const (
	// IDAuto reads ids as integers while every id seen is a non-negative
	// integer below 2^64 written without leading zeros, and falls back to
	// tokens (converting the ids read so far to their decimal text, which
	// is then what was written) at the first id that is not, so that "001"
	// and "1" stay two nodes.
	IDAuto IDMode = iota
	// IDInteger requires non-negative 64-bit integer ids; any other id is
	// an error.
	IDInteger
	// IDToken treats every id as an opaque token, ordered as byte strings.
	IDToken
)

// ParseIDMode returns the IDMode the command-line tools name auto, int
// or token, and false for any other name.
func ParseIDMode(name string) (IDMode, bool) {
	switch name {
	case "auto":
		return IDAuto, true
	case "int":
		return IDInteger, true
	case "token":
		return IDToken, true
	}
	return 0, false
}

// MarshalText writes m as ParseIDMode names it (auto, int or token), so
// that reports and job settings hold the flag's word, not a number.
func (m IDMode) MarshalText() ([]byte, error) {
	switch m {
	case IDAuto:
		return []byte("auto"), nil
	case IDInteger:
		return []byte("int"), nil
	case IDToken:
		return []byte("token"), nil
	}
	return nil, fmt.Errorf("graphio: id mode %d is not auto, int or token", int(m))
}

// UnmarshalText reads a name MarshalText writes.
func (m *IDMode) UnmarshalText(b []byte) error {
	v, ok := ParseIDMode(string(b))
	if !ok {
		return fmt.Errorf("graphio: id mode %q: want auto, int or token", b)
	}
	*m = v
	return nil
}

// LoadOptions controls ReadEdgeList. The zero value reads an undirected,
// unweighted graph with integer-or-token ids and drops self-loops.
type LoadOptions struct {
	// Directed keeps arcs as given; false stores each edge as both arcs.
	Directed bool `json:"directed"`
	// Weighted reads the third column as a positive, finite edge weight;
	// false ignores every column after the second and uses weight 1.
	Weighted bool `json:"weighted"`
	// KeepSelfLoops keeps u→u edges; false drops them (they are counted in
	// the report).
	KeepSelfLoops bool `json:"keep_self_loops"`
	// IDs selects how ids are read; 0 means IDAuto.
	IDs IDMode `json:"ids"`
	// Header skips the first line of the input that is not blank or a
	// comment: column names, as a CSV file written by pandas or a
	// spreadsheet has (after comments, as some tools write them). Without it, under
	// IDAuto, a first edge line whose ids are not integers while every
	// other line's are is an error that suggests this option.
	Header bool `json:"header,omitempty"`
}

// Validate reports an invalid option.
func (o LoadOptions) Validate() error {
	if o.IDs < IDAuto || o.IDs > IDToken {
		return fmt.Errorf("graphio: LoadOptions.IDs is %d; want IDAuto, IDInteger or IDToken", o.IDs)
	}
	return nil
}

// LoadReport describes what ReadEdgeList read and what its policies did.
type LoadReport struct {
	File  string `json:"file"`
	Lines int    `json:"lines"` // lines read, comments and blank lines included
	// Header holds the line LoadOptions.Header skipped.
	Header   string `json:"header,omitempty"`
	Comments int    `json:"comments"` // lines whose first field starts with '#' or '%'
	Blank    int    `json:"blank"`
	// EdgesRead counts edge lines.
	EdgesRead int `json:"edges_read"`
	// SelfLoops counts the distinct u→u edges. They are stored when
	// KeptSelfLoops and dropped otherwise.
	SelfLoops     int  `json:"self_loops"`
	KeptSelfLoops bool `json:"kept_self_loops"`
	// Duplicates counts edge lines that repeat an edge read before:
	// EdgesRead − UniqueEdges. For an undirected graph an edge given in
	// both directions (as SNAP lists undirected graphs) counts one
	// duplicate. The first line naming an edge sets its weight.
	Duplicates int `json:"duplicates"`
	// UniqueEdges counts distinct edges (undirected: unordered pairs;
	// directed: arcs), self-loops included whether kept or not.
	UniqueEdges int `json:"unique_edges"`
	// Nodes counts distinct ids, including ids that appear only in dropped
	// self-loops (they become isolated rows).
	Nodes      int  `json:"nodes"`
	Arcs       int  `json:"arcs"` // stored nonzeros of the adjacency matrix
	Directed   bool `json:"directed"`
	Weighted   bool `json:"weighted"`
	NumericIDs bool `json:"numeric_ids"` // ids were read as integers (false: tokens)
	// Format is "mat" for a graph read from a MATLAB .mat file (see
	// MATFile.Graph), whose "edge lines" are the stored nonzero entries of
	// its matrix, "mtx" for a Matrix Market file (its coordinate entries
	// are the edge lines, the size line after its banner is skipped and
	// its entry count checked), and empty for an edge list.
	Format string `json:"format,omitempty"`
	// OtherWeights (Weighted) counts the edge lines that repeat an edge
	// with a weight other than the one kept, its first line's: weights
	// the read dropped.
	OtherWeights int `json:"other_weights,omitempty"`
	// Asymmetric (.mat input read as undirected) counts the off-diagonal
	// entries whose transposed entry was missing or, when weighted, had
	// another weight: symmetrising changed the matrix there.
	Asymmetric int `json:"asymmetric,omitempty"`
	// MTXNodes is the size of a Matrix Market file's matrix (Format
	// "mtx"): its indices run 1..MTXNodes, and those without an entry
	// are not nodes of the graph.
	MTXNodes uint64 `json:"mtx_nodes,omitempty"`
	// LeadingZero names, when the ids were read as tokens (IDAuto)
	// because of an integer written with a leading zero, the first such
	// id and its line: "01" and "1" are then two nodes.
	LeadingZero     string `json:"leading_zero,omitempty"`
	LeadingZeroLine int    `json:"leading_zero_line,omitempty"`
	// TokenID names, when the ids were read as tokens (IDAuto) after
	// earlier edge lines whose ids were all integers, the first id not
	// written as one ("+1", "1.0", a stray word) and its line; a leading
	// zero is named by LeadingZero instead.
	TokenID     string `json:"token_id,omitempty"`
	TokenIDLine int    `json:"token_id_line,omitempty"`
	// ExtraColumns counts the edge lines of an unweighted read that have
	// a third column, which is not read (with Weighted it is the weight).
	ExtraColumns int `json:"extra_columns,omitempty"`
	// UnreadWeights counts the entries of a .mat network, read without
	// Weighted, whose value is not 1: weights that the read drops.
	UnreadWeights int `json:"unread_weights,omitempty"`
	// WideLines counts the edge lines with more than three columns, whose
	// columns after the third are never read (an adjacency list, one
	// node and its neighbours per line, is not an edge list).
	WideLines int `json:"wide_lines,omitempty"`
	// SpacedIDLines counts the edge lines with an id that holds a space,
	// read whole because the line is split at its tabs (or commas), and
	// SpacedIDLine is the first.
	SpacedIDLines int `json:"spaced_id_lines,omitempty"`
	SpacedIDLine  int `json:"spaced_id_line,omitempty"`
	// FloatID is the first id that is an integer written as a float
	// ("633.0"), read as a token apart from 633, and FloatIDLine its line.
	FloatID     string `json:"float_id,omitempty"`
	FloatIDLine int    `json:"float_id_line,omitempty"`
	// HeaderLike is the first edge line of a graph read with token ids
	// and without Header when its two ids appear on no other edge line:
	// likely column names ("from to", "source,target") read as an edge
	// of two made-up nodes. HeaderLikeLine is its line.
	HeaderLike     string `json:"header_like,omitempty"`
	HeaderLikeLine int    `json:"header_like_line,omitempty"`
	// LateComments counts the comment lines after the first edge line
	// (an edge whose first id starts with '#' or '%' reads as one), and
	// LateCommentLine is the first.
	LateComments    int `json:"late_comments,omitempty"`
	LateCommentLine int `json:"late_comment_line,omitempty"`
	// IndexColumn reports three or more edge lines, each with a third
	// column, whose first column is an integer that grows from line to
	// line (0, 1, 2, …, or with gaps where rows were filtered out): pandas'
	// index (to_csv without index=False), the edges likely in the columns
	// after. No edge list sorted by its first node repeats none of them.
	IndexColumn bool `json:"index_column,omitempty"`
}

// maxLine bounds the length of one line of text input.
const maxLine = 1 << 20

// LoadEdgeList opens path (plain text or gzip, detected by content) and
// reads it with ReadEdgeList.
func LoadEdgeList(ctx context.Context, path string, opt LoadOptions) (*pipeline.Graph, *LoadReport, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return ReadEdgeList(ctx, f, path, opt)
}

// textReader is a buffered reader over plain or gzip-compressed text that
// reports decompression failures as format errors.
type textReader struct {
	*bufio.Reader
	name string
	zr   *gzip.Reader
}

// openText returns a reader of r's content, decompressing it when it
// starts with the gzip magic bytes (whatever the name says).
func openText(r io.Reader, name string) (*textReader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	gz, err := startsGzip(br, name)
	if err != nil {
		return nil, err
	}
	if gz {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: unreadable gzip header (%v); the file starts like gzip but is not: re-download or decompress it", pipeline.ErrFormat, err)}
		}
		return &textReader{Reader: bufio.NewReaderSize(zr, 1<<16), name: name, zr: zr}, nil
	}
	return &textReader{Reader: br, name: name}, nil
}

// startsGzip reports whether br starts with the gzip magic bytes, which
// the readers go by rather than by the file's name.
func startsGzip(br *bufio.Reader, name string) (bool, error) {
	magic, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return false, &pipeline.ParseError{File: name, Err: fmt.Errorf("read failed: %w", err)}
	}
	return len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b, nil
}

// SniffMAT tells a MATLAB Level 5 file on r, plain or gzip-compressed,
// from an edge list by its first bytes (such a file starts with the text
// "MATLAB"), for a stream such as standard input that has no name to go
// by. It returns a reader of r's whole content, decompressed when it is
// gzip, which ReadMAT or ReadEdgeList then reads.
func SniffMAT(r io.Reader, name string) (io.Reader, bool, error) {
	text, err := openText(r, name)
	if err != nil {
		return nil, false, err
	}
	head, _ := text.Peek(6)
	return text, string(head) == "MATLAB", nil
}

// Close releases the decompressor; it does not close the underlying reader.
func (t *textReader) Close() {
	if t.zr != nil {
		t.zr.Close()
	}
}

// readErr wraps an error met while reading line (1-based). The gzip
// errors are told whether or not t itself decompresses: standard input's
// content reaches the edge-list reader already decompressed (SniffMAT),
// and an unexpected end of it is the end of its gzip stream.
func (t *textReader) readErr(line int, err error) error {
	var corrupt flate.CorruptInputError
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.As(err, &corrupt) {
		return &pipeline.ParseError{File: t.name, Line: line, Err: fmt.Errorf("%w: unreadable gzip data (%v): the file is truncated or corrupt; download or write it again", pipeline.ErrFormat, err)}
	}
	return &pipeline.ParseError{File: t.name, Line: line, Err: fmt.Errorf("read failed: %w", err)}
}

// lines calls fn for every line of t (without its line end; "\r\n" and
// "\n" both end a line, and the last line may lack one). The slice passed
// to fn is only valid during the call. Every 2^16 lines, and after every
// ctxBytes of text, it checks ctx.
func (t *textReader) lines(ctx context.Context, fn func(line int, text []byte) error) error {
	return t.linesAt(ctx, func(line int, _ int64, text []byte) error { return fn(line, text) })
}

// linesAt is lines that also passes each line's byte offset in the
// (decompressed) text.
func (t *textReader) linesAt(ctx context.Context, fn func(line int, off int64, text []byte) error) error {
	var long []byte
	var off, checked int64
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
		start := off
		off += int64(len(text))
		if start < binaryScan && bytes.IndexByte(text, 0) >= 0 || start == 0 && knownBinary(text) != "" {
			return t.binaryErr(ln, start, text)
		}
		if n := len(text); n > 0 && text[n-1] == '\n' {
			text = text[:n-1]
		}
		if n := len(text); n > 0 && text[n-1] == '\r' {
			text = text[:n-1]
		}
		if bytes.IndexByte(text, '\r') >= 0 {
			return formatErr(t.name, ln, "carriage return inside a line: the file seems to use CR-only line ends; convert them to LF (tr '\\r' '\\n')")
		}
		if ferr := fn(ln, start, text); ferr != nil {
			return ferr
		}
		if ln&(1<<16-1) == 0 || off-checked >= ctxBytes {
			checked = off
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// ctxBytes is the most text the line readers read between two checks of
// their context: 2^16 lines of an embedding file of d = 128 are about
// 85 MB, seconds of parsing.
const ctxBytes = 4 << 20

// binaryScan is how far into a text the readers look for a NUL byte,
// which no text file holds and nearly every binary file has early on.
const binaryScan = 1 << 16

// binaryErr is the error for line ln at byte offset start, which holds a
// NUL byte: the file is binary, and its first bytes may say what it is.
func (t *textReader) binaryErr(ln int, start int64, text []byte) error {
	what := "a binary file, not text"
	if known := knownBinary(text); start == 0 && known != "" {
		what = known
	}
	if bytes.IndexByte(text, 0) < 0 {
		return formatErr(t.name, ln, "this is %s", what)
	}
	return formatErr(t.name, ln, "a NUL byte: this is %s", what)
}

// knownBinary says what a file whose first line is text is, when its
// first bytes name a format that is not plain or gzip text, or "".
func knownBinary(text []byte) string {
	switch {
	case bytes.HasPrefix(text, []byte("\x93NUMPY")):
		return "a NumPy .npy array, not text"
	case bytes.HasPrefix(text, []byte("MATLAB")) && bytes.IndexByte(text, 0) >= 0:
		return "a MATLAB .mat file, not text: give it where .mat files are read: its network as the graph (wys-sparse -graph FILE.mat, where the name must end in .mat or .mat.gz), its labels with wys-sparse eval -mat FILE.mat"
	case bytes.HasPrefix(text, []byte("\xff\xfe")) || bytes.HasPrefix(text, []byte("\xfe\xff")):
		return "UTF-16 text (as Excel's \"Unicode text\" saves it), which is not read: save it as UTF-8 (iconv -f UTF-16 -t UTF-8)"
	}
	for _, c := range []struct{ magic, what string }{
		{"BZh", "bzip2-compressed: only plain or gzip text is read; bunzip2 -k it"},
		{"\xfd7zXZ\x00", "xz-compressed: only plain or gzip text is read; unxz -k it"},
		{"\x28\xb5\x2f\xfd", "zstd-compressed: only plain or gzip text is read; unzstd it"},
		{"PK\x03\x04", "a zip archive: only plain or gzip text is read; unzip it"},
		{"\x80\x02", "a Python pickle, not text: load it in Python and write the edges as text"},
		{"\x80\x03", "a Python pickle, not text: load it in Python and write the edges as text"},
		{"\x80\x04", "a Python pickle, not text: load it in Python and write the edges as text"},
	} {
		if bytes.HasPrefix(text, []byte(c.magic)) && (c.magic != "BZh" || len(text) >= 10 && string(text[4:10]) == "1AY&SY") {
			return c.what
		}
	}
	return ""
}

// ReadLines reads the lines of r as ReadEdgeList does (plain text or
// gzip, recognised by its magic bytes; LF or CRLF line ends; a carriage
// return inside a line, a line over 1 MiB or corrupt gzip is an error
// naming name and the line) and calls fn with each line's 1-based number,
// its byte offset in the (decompressed) text and its text without the
// line end, valid only during the call. It returns fn's first error
// unchanged, and checks ctx every 2^16 lines or 4 MiB of text, whichever
// comes first. With ParseEdgeLine it lets
// a reader of a part of a file (a byte range of a split read) apply the
// loader's exact rules.
func ReadLines(ctx context.Context, r io.Reader, name string, fn func(ln int, off int64, text []byte) error) error {
	in, err := openText(r, name)
	if err != nil {
		return err
	}
	defer in.Close()
	return in.linesAt(ctx, fn)
}

// ReadEdgeList reads a SNAP-style edge list from r: one edge per line as
// two node ids separated by spaces, tabs or commas (so CSV files read
// too; quotes are not special), an optional third column holding a
// weight (read when opt.Weighted; further columns are ignored), a first
// line of column names skipped when opt.Header,
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
// Memory: while reading, 16 bytes per edge line for integer ids (8 for
// tokens), plus the distinct ids (for integers, up to 3 words per distinct
// id or 8 MiB, whichever is larger; for tokens, a map entry each); then,
// while the CSR is built, the arc lists (8 bytes per stored arc, 16 when
// weighted) next to the CSR (12 bytes per stored arc), the edge lines
// being released as they are mapped.
func ReadEdgeList(ctx context.Context, r io.Reader, name string, opt LoadOptions) (*pipeline.Graph, *LoadReport, error) {
	if err := opt.Validate(); err != nil {
		return nil, nil, err
	}
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
	if p.mm != nil {
		if err := p.mm.size.CheckCount(name, int64(rep.EdgesRead)); err != nil {
			return nil, nil, err
		}
		rep.MTXNodes = p.mm.size.Nodes
	}
	if rep.EdgesRead == 0 {
		return nil, nil, NoEdgesError(name)
	}
	if p.tokenLines == 1 && rep.EdgesRead > 1 && p.firstIsToken {
		return nil, nil, HeaderError(name, p.firstEdgeLine, p.firstEdgeText)
	}
	rep.IndexColumn = !p.notIndex && rep.EdgesRead >= 3
	if !p.numeric && !opt.Header && p.firstEdgeApart() {
		rep.HeaderLike, rep.HeaderLikeLine = p.firstEdgeText, p.firstEdgeLine
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

	decided    bool          // id mode fixed
	headerSeen bool          // LoadOptions.Header: the line of column names was skipped
	mm         *matrixMarket // a Matrix Market file: its banner and size line
	numeric    bool
	// tokenLines counts the edge lines (under IDAuto) with an id that is
	// no integer in any spelling; firstIsToken says the first edge line
	// is one of them.
	tokenLines   int
	firstIsToken bool
	// notIndex: some edge line has no third column, or a first id that
	// is no integer above the previous line's (see
	// LoadReport.IndexColumn); indexFloor is the least the next may be.
	notIndex   bool
	indexFloor uint64
	// firstEdgeLine is the line of the first edge line, firstEdgeText
	// its text without the spaces around it (and line 1's byte-order
	// mark).
	firstEdgeLine int
	firstEdgeText string
	nums          chunked[uint64] // integer ids, two per edge line (u, v)
	idset         idSet           // the distinct integer ids
	tokens        map[string]uint32
	toks          chunked[uint32] // token numbers in order of first appearance, two per edge line
	w             chunked[float64]
}

// firstEdgeApart reports whether the two ids of the first edge line,
// read as tokens, differ and appear on no other edge line.
func (p *edgeParser) firstEdgeApart() bool {
	if p.toks.n < 4 {
		return false
	}
	a, b := p.toks.at(0), p.toks.at(1)
	if a == b {
		return false
	}
	for i := 2; i < p.toks.n; i++ {
		if t := p.toks.at(i); t == a || t == b {
			return false
		}
	}
	return true
}

// chunkLen is the length of the chunks of a chunked slice.
const chunkLen = 1 << 16

// chunked is an append-only sequence stored in fixed-size chunks, so that
// growing it copies nothing and reading it can free it chunk by chunk.
type chunked[T any] struct {
	c [][]T
	n int
}

func (s *chunked[T]) push(v T) {
	if s.n%chunkLen == 0 {
		s.c = append(s.c, make([]T, 0, chunkLen))
	}
	s.c[len(s.c)-1] = append(s.c[len(s.c)-1], v)
	s.n++
}

func (s *chunked[T]) at(i int) T { return s.c[i/chunkLen][i%chunkLen] }

// hasSpace reports whether b holds a byte that isSpace. (In UTF-8 no
// byte of a multi-byte character is below 0x80, so these are the
// characters.)
func hasSpace(b []byte) bool {
	for _, c := range b {
		if isSpace(c) {
			return true
		}
	}
	return false
}

// isSpace reports whether c separates the fields of a line without tabs
// or commas (and is trimmed around the fields of one with them).
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

// delimiter returns the byte that separates the fields of line: a tab
// when the line has one (TSV, whose fields may hold spaces and commas),
// else a comma when it has one (CSV, whose fields may hold spaces), else
// 0: runs of spaces (SNAP's edge lists, word2vec text). Deciding line by
// line keeps a reader of part of a file (wys-beam's ranges) in step with
// one of the whole.
func delimiter(line []byte) byte {
	switch {
	case bytes.IndexByte(line, '\t') >= 0:
		return '\t'
	case bytes.IndexByte(line, ',') >= 0:
		return ','
	}
	return 0
}

// dataDict reports whether line is split at commas although the commas
// lie in a dictionary after two space-separated ids ("0 1 {'weight': 4,
// 'color': 'red'}").
func dataDict(line []byte) bool {
	i := bytes.IndexByte(line, '{')
	if i < 0 || delimiter(line) != ',' || bytes.IndexByte(line[:i], ',') >= 0 {
		return false
	}
	ws := bytes.Fields(line[:i])
	return len(ws) == 2 && !isComment(ws[0])
}

// appendFields appends to dst the fields of line, split at its delimiter,
// each without the spaces around it, and returns it; a line with a
// delimiter may give empty fields, except at its end (a trailing tab or
// comma adds no field). At most limit fields are appended (limit < 0: all).
func appendFields(dst [][]byte, line []byte, limit int) [][]byte {
	start := len(dst)
	d := delimiter(line)
	for i := 0; limit < 0 || len(dst)-start < limit; {
		if d == 0 {
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
			dst, i = append(dst, line[i:j]), j
			continue
		}
		end := bytes.IndexByte(line[i:], d)
		if end < 0 {
			end = len(line)
		} else {
			end += i
		}
		a, b := i, end
		for a < b && isSpace(line[a]) {
			a++
		}
		for b > a && isSpace(line[b-1]) {
			b--
		}
		dst = append(dst, line[a:b])
		if end == len(line) {
			break
		}
		i = end + 1
	}
	for len(dst) > start && len(dst[len(dst)-1]) == 0 {
		dst = dst[:len(dst)-1]
	}
	return dst
}

// fields splits line into at most 3 fields (appendFields) without
// allocating, and returns how many it has, counting a fourth.
func fields(line []byte, out *[3][]byte) int {
	var buf [4][]byte
	f := appendFields(buf[:0], line, 4)
	copy(out[:], f)
	return len(f)
}

func (p *edgeParser) line(ln int, line []byte) error {
	p.rep.Lines = ln
	if ln == 1 {
		mm, err := parseMatrixMarketBanner(p.name, line, p.opt)
		if err != nil {
			return err
		}
		if mm != nil {
			// The size line after the banner takes the place of a
			// header line.
			p.mm, p.headerSeen, p.rep.Format = mm, true, "mtx"
		}
	}
	if p.mm != nil && !p.mm.read && !IsCommentLine(ln, line) {
		size, err := ReadMatrixMarketSize(p.name, ln, line)
		p.mm.size, p.mm.read = size, true
		return err
	}
	if p.opt.Header && !p.headerSeen && !IsCommentLine(ln, line) {
		if err := CheckHeaderLine(p.name, ln, line); err != nil {
			return err
		}
		p.headerSeen = true
		p.rep.Header = string(bytes.TrimSpace(dropBOM(ln, line)))
		return nil
	}
	e, err := ParseEdgeLine(p.name, ln, line, p.opt)
	if err == nil && p.mm != nil && e.Edge {
		err = p.mm.size.CheckIndex(p.name, ln, e.U)
		if err == nil {
			err = p.mm.size.CheckIndex(p.name, ln, e.V)
		}
	}
	switch {
	case err != nil:
		return err
	case e.Comment:
		p.comment(ln)
		return nil
	case !e.Edge:
		p.rep.Blank++
		return nil
	}
	if p.opt.Weighted {
		p.w.push(e.W)
	}
	p.countColumns(ln, e)
	if !p.decided {
		p.decide()
	}
	p.noteFirstLines(ln, line, e)
	p.rep.EdgesRead++
	if p.numeric {
		if e.Numeric {
			p.nums.push(e.Num[0])
			p.nums.push(e.Num[1])
			p.idset.add(e.Num[0])
			p.idset.add(e.Num[1])
			return nil
		}
		p.toTokens()
		p.noteTokens(ln, e)
	}
	a, err := p.intern(e.U)
	if err != nil {
		return err
	}
	b, err := p.intern(e.V)
	if err != nil {
		return err
	}
	p.toks.push(a)
	p.toks.push(b)
	return nil
}

// comment counts comment line ln, and whether it follows an edge line.
func (p *edgeParser) comment(ln int) {
	p.rep.Comments++
	if p.rep.EdgesRead > 0 {
		if p.rep.LateComments == 0 {
			p.rep.LateCommentLine = ln
		}
		p.rep.LateComments++
	}
}

// noteFirstLines records the first edge line, and counts the edge lines
// whose ids are tokens under IDAuto, for HeaderError and
// LoadReport.HeaderLike; ln and line are edge line e, not yet counted.
func (p *edgeParser) noteFirstLines(ln int, line []byte, e EdgeLine) {
	if p.rep.EdgesRead == 0 {
		p.firstEdgeLine, p.firstEdgeText = ln, string(bytes.TrimSpace(dropBOM(ln, line)))
	}
	if p.opt.IDs == IDAuto && e.TokenIDs() {
		p.firstIsToken = p.firstIsToken || p.rep.EdgesRead == 0
		p.tokenLines++
	}
}

// countColumns counts, for the report's notes, the edge line e (line ln)
// if it has a third column not read, more than three columns, or an id
// holding a space.
func (p *edgeParser) countColumns(ln int, e EdgeLine) {
	if e.Extra && !p.opt.Weighted {
		p.rep.ExtraColumns++
	}
	if e.Wide {
		p.rep.WideLines++
	}
	if e.Spaced {
		if p.rep.SpacedIDLines == 0 {
			p.rep.SpacedIDLine = ln
		}
		p.rep.SpacedIDLines++
	}
	if !p.notIndex {
		var buf [20]byte
		i, err := strconv.ParseUint(string(e.U), 10, 64)
		p.notIndex = !e.Extra || err != nil || i < p.indexFloor || i == math.MaxUint64 || !bytes.Equal(e.U, strconv.AppendUint(buf[:0], i, 10))
		p.indexFloor = i + 1
	}
	if p.rep.FloatID != "" || e.Numeric {
		return // integers, not floats
	}
	for _, id := range [2][]byte{e.U, e.V} {
		if floatInteger(id) {
			p.rep.FloatID, p.rep.FloatIDLine = string(id), ln
			break
		}
	}
}

// floatInteger reports whether id is an integer written as a float
// ("633.0", as pandas writes a column of ids that held a NaN).
func floatInteger(id []byte) bool {
	whole, frac, ok := bytes.Cut(id, []byte("."))
	return ok && len(whole) > 0 && len(frac) > 0 &&
		!bytes.ContainsFunc(whole, func(r rune) bool { return r < '0' || r > '9' }) &&
		!bytes.ContainsFunc(frac, func(r rune) bool { return r != '0' })
}

// EdgeLine is one line of an edge list as ReadEdgeList reads it.
type EdgeLine struct {
	// Edge is false for a blank or comment line; Comment marks a comment.
	Edge, Comment bool
	// U and V are the two ids as written; they alias the line's text.
	U, V []byte
	// Num holds U and V as integers when Numeric: both read as integers
	// under the options' IDMode (IDAuto: canonical spellings only, so
	// "001" is not one; IDToken: never).
	Num     [2]uint64
	Numeric bool
	// W is the weight when the options say Weighted, else 0.
	W float64
	// Extra reports a third column, which is the weight when the options
	// say Weighted and is not read otherwise; Wide reports a fourth, never
	// read; Spaced an id holding a space (a line split at tabs or commas).
	Extra, Wide, Spaced bool
}

// TokenIDs reports whether an edge line read under IDAuto has an id not
// written as an integer (a leading zero still counts as one): the lines
// HeaderError's rule counts.
func (e EdgeLine) TokenIDs() bool { return !e.Numeric && !(isInteger(e.U) && isInteger(e.V)) }

// ParseEdgeLine parses line ln (1-based; only line 1 may start with a
// UTF-8 byte-order mark, which is dropped) of the edge list name, given
// without its line end, with ReadEdgeList's rules and error messages:
// comment and blank lines, a missing column, a quoted id, a missing,
// non-finite or non-positive weight when opt.Weighted, and under
// IDInteger an id that is not an integer are errors naming name and ln
// and wrapping ErrFormat.
// Whether the graph's ids end up numeric is decided over all its lines
// (IDAuto: numeric when every id of every line is; see IDMode).
func ParseEdgeLine(name string, ln int, line []byte, opt LoadOptions) (EdgeLine, error) {
	var e EdgeLine
	line = dropBOM(ln, line)
	var f [3][]byte
	n := fields(line, &f)
	if n == 0 {
		return e, nil
	}
	if isComment(f[0]) {
		e.Comment = true
		return e, nil
	}
	if dataDict(line) {
		return e, formatErr(name, ln, "after its ids the line holds a dictionary with commas, as networkx's write_edgelist writes an edge's data, so it would be split at those commas: write the edges alone with write_edgelist(G, path, data=False), or with their weights, write_weighted_edgelist")
	}
	if n < 2 {
		hint := ""
		if i := bytes.IndexAny(line, ";|"); i > 0 && delimiter(line) == 0 {
			hint = fmt.Sprintf(" (the columns seem to be separated by %q, which is not read: separate them by tabs, commas or spaces, e.g. tr '%c' '\\t')", line[i], line[i])
		} else if delimiter(line) == 0 {
			hint = " (an adjacency list, as networkx's write_adjlist writes, is not an edge list)"
		}
		return e, formatErr(name, ln, "missing column: want \"u v\" or \"u v weight\" (split at the line's tabs if it has one, else its commas, else spaces), got %q%s", bytes.TrimSpace(line), hint)
	}
	for k := range min(n, 3) {
		if len(f[k]) == 0 {
			return e, emptyColumnErr(name, ln, k, line)
		}
	}
	for _, id := range f[:2] {
		if id[0] == '{' {
			return e, formatErr(name, ln, "node id %#q is a networkx data dictionary, as write_multiline_adjlist writes after each neighbour: the file is an adjacency list, not an edge list; write the edges with write_edgelist(G, path, data=False), or with their weights, write_weighted_edgelist", id)
		}
		if id[0] == '"' || id[len(id)-1] == '"' {
			return e, formatErr(name, ln, "node id %#q starts or ends with a quote mark; quotes are not read (a quoted CSV field holding a comma would be split at it, and the quotes kept); write the file as TSV without quotes, where ids may hold spaces and commas, e.g. pandas' to_csv(path, sep=\"\\t\", index=False, quoting=csv.QUOTE_NONE)", id)
		}
	}
	e.Extra, e.Wide = n > 2, n > 3
	e.Spaced = hasSpace(f[0]) || hasSpace(f[1])
	if opt.Weighted {
		if n < 3 {
			return e, formatErr(name, ln, "missing weight column: the graph is read as weighted, so every edge needs \"u v weight\" (or read it unweighted)")
		}
		v, err := strconv.ParseFloat(string(f[2]), 64)
		if err != nil && f[2][0] == '{' {
			return e, formatErr(name, ln, "weight %q is a dictionary, as networkx's write_edgelist writes an edge's data: write the weights alone, with write_weighted_edgelist or write_edgelist(G, path, data=[\"weight\"])", f[2])
		}
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return e, formatErr(name, ln, "weight %q is not a finite number%s", f[2], headerHint(ln))
		}
		if v <= 0 {
			return e, formatErr(name, ln, "weight %v is not positive (edge weights must be > 0; leave the edge out instead)", v)
		}
		e.W = v
	}
	e.Edge, e.U, e.V = true, f[0], f[1]
	if opt.IDs == IDToken {
		return e, nil
	}
	u, ok1 := ParseNodeID(f[0], opt.IDs)
	v, ok2 := ParseNodeID(f[1], opt.IDs)
	e.Num, e.Numeric = [2]uint64{u, v}, ok1 && ok2
	if !e.Numeric && opt.IDs == IDInteger {
		bad := f[0]
		if ok1 {
			bad = f[1]
		}
		if why := integerTrouble(bad); why != "" {
			return e, formatErr(name, ln, "node id %s %s: ids read as integers (-ids int) must be non-negative and below 2^64; read them as tokens (-ids token)", bad, why)
		}
		return e, formatErr(name, ln, "node id %q is not an integer: ids must be non-negative integers below 2^64 (or read them as tokens: -ids token)%s", bad, headerHint(ln))
	}
	return e, nil
}

// integerTrouble says why an id written as an integer is not one wys
// reads as a number ("is negative", "is 2^64 or more"), or "" when it is
// not written as an integer at all.
func integerTrouble(id []byte) string {
	digits := bytes.TrimPrefix(id, []byte("-"))
	if len(digits) == 0 || bytes.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return ""
	}
	if len(digits) < len(id) {
		return "is negative"
	}
	if _, ok := parseID(digits); !ok {
		return "is 2^64 or more"
	}
	return ""
}

// IsCommentLine reports whether line ln (1-based) of an edge list is blank
// or a comment (its first field starts with '#' or '%'), as ReadEdgeList
// and ParseEdgeLine read it. LoadOptions.Header skips the first line that
// is not.
func IsCommentLine(ln int, line []byte) bool {
	var f [3][]byte
	return fields(dropBOM(ln, line), &f) == 0 || isComment(f[0])
}

// CheckHeaderLine checks line ln of file name, the line of column names
// that LoadOptions.Header skips: a first column without a name is pandas'
// index column, which would be read as the edges' sources.
func CheckHeaderLine(name string, ln int, line []byte) error {
	var f [3][]byte
	if n := fields(dropBOM(ln, line), &f); n > 0 && len(f[0]) == 0 {
		return emptyColumnErr(name, ln, 0, line)
	}
	return nil
}

// isComment reports whether a line's first field makes it a comment.
func isComment(first []byte) bool {
	return len(first) > 0 && (first[0] == '#' || first[0] == '%')
}

// emptyColumnErr is the error for line ln, whose column k (0-based) is
// empty: a missing value, or on a first line that starts with its
// delimiter, pandas' index column.
func emptyColumnErr(name string, ln int, k int, line []byte) error {
	hint := "a value is missing (two delimiters in a row): fill it in or leave the line out"
	if k == 0 {
		hint = "a line that starts with its delimiter has an unnamed first column, as pandas' to_csv writes its index (index=True, the default): write the file with index=False"
	}
	return formatErr(name, ln, "column %d is empty: %s", k+1, hint)
}

// dropBOM returns line ln without a UTF-8 byte-order mark (as some
// Windows editors write) when it is line 1, the only one that may start
// with one; the mark is not part of the first id.
func dropBOM(ln int, line []byte) []byte {
	if ln != 1 {
		return line
	}
	return bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
}

// isInteger reports whether b spells a non-negative integer below 2^64,
// leading zeros allowed.
func isInteger(b []byte) bool {
	_, ok := parseID(b)
	return ok
}

// headerHint is the end of an error on line ln: on line 1, it suggests
// the line may be column names.
func headerHint(ln int) string {
	if ln != 1 {
		return ""
	}
	return "; if line 1 holds column names, skip it (-header)"
}

// ParseNodeID reads an id as an integer under mode, reporting whether it
// is one. In IDAuto mode only the canonical spelling counts as an
// integer: "001" (or "+1") would otherwise become the same node as "1",
// so such an id makes the ids tokens, each kept as written. IDInteger,
// asked for explicitly, reads "001" as 1. Under IDToken no id is an
// integer.
func ParseNodeID(b []byte, mode IDMode) (uint64, bool) {
	if mode == IDToken || mode == IDAuto && len(b) > 1 && b[0] == '0' {
		return 0, false
	}
	return parseID(b)
}

// parseID parses a non-negative decimal integer below 2^64 without
// allocating.
func parseID(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, false // leading zeros may make a valid id longer than 20 digits
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

// noteTokens records in the report why the ids became tokens at line ln
// (IDAuto): an integer with a leading zero, or, after integer lines, an
// id not written as an integer.
func (p *edgeParser) noteTokens(ln int, e EdgeLine) {
	if p.opt.IDs != IDAuto {
		return
	}
	for _, id := range [][]byte{e.U, e.V} {
		if len(id) > 1 && id[0] == '0' && isInteger(id) {
			p.rep.LeadingZero, p.rep.LeadingZeroLine = string(id), ln
			return
		}
	}
	for _, id := range [][]byte{e.U, e.V} {
		if !isInteger(id) && p.rep.EdgesRead > 1 {
			p.rep.TokenID, p.rep.TokenIDLine = string(id), ln
			return
		}
	}
}

// toTokens switches from integer to token ids, converting the ids read so
// far to their decimal text.
func (p *edgeParser) toTokens() {
	p.numeric = false
	p.tokens = make(map[string]uint32)
	for _, c := range p.nums.c {
		for _, v := range c {
			s := strconv.FormatUint(v, 10)
			id, ok := p.tokens[s]
			if !ok {
				id = uint32(len(p.tokens))
				p.tokens[s] = id
			}
			p.toks.push(id)
		}
	}
	p.nums, p.idset = chunked[uint64]{}, idSet{}
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

// build renumbers the ids and assembles the CSR. The edge chunks are
// released as they are mapped to rows; assemble applies the policies.
func (p *edgeParser) build(ctx context.Context) (*pipeline.Graph, error) {
	var ids *pipeline.NodeIDs
	var row func(i int) int32 // row of the i-th id read
	if p.numeric {
		uniq := p.idset.sorted()
		if len(uniq) > math.MaxInt32 {
			return nil, &pipeline.ParseError{File: p.name, Err: fmt.Errorf("%w: %d distinct nodes exceed the limit of 2^31-1", pipeline.ErrFormat, len(uniq))}
		}
		ids = pipeline.NewNumericIDs(uniq)
		index := newIDIndex(uniq)
		row = func(i int) int32 {
			c := p.nums.c[i/chunkLen]
			r := index.row(c[i%chunkLen])
			if i%chunkLen == len(c)-1 {
				p.nums.c[i/chunkLen] = nil
			}
			return r
		}
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
		slices.SortFunc(order, func(a, b int32) int { return strings.Compare(names[a], names[b]) })
		remap := make([]int32, len(names))
		sorted := make([]string, len(names))
		for r, id := range order {
			remap[id] = int32(r)
			sorted[r] = names[id]
		}
		ids = pipeline.NewStringIDs(sorted)
		row = func(i int) int32 {
			c := p.toks.c[i/chunkLen]
			r := remap[c[i%chunkLen]]
			if i%chunkLen == len(c)-1 {
				p.toks.c[i/chunkLen] = nil
			}
			return r
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := ids.Len()
	p.rep.Nodes = n
	p.rep.NumericIDs = ids.Numeric()

	edge := func(e int) (u, v int32, w float64) {
		u, v = row(2*e), row(2*e+1)
		if p.opt.Weighted {
			w = p.w.at(e)
		}
		return u, v, w
	}
	adj, err := assemble(ctx, p.name, n, p.rep.EdgesRead, edge, p.opt, p.rep)
	p.nums, p.toks, p.w = chunked[uint64]{}, chunked[uint32]{}, chunked[float64]{}
	if err != nil {
		return nil, err
	}
	return &pipeline.Graph{Adj: adj, IDs: ids, Directed: p.opt.Directed, Weighted: p.opt.Weighted}, nil
}

// arcsOf lists the arcs of assemble's lines edges with its policies
// (self-loops counted, and dropped unless opt.KeepSelfLoops; both arcs of
// an undirected edge) and counts the distinct self-loops. It checks ctx
// every 1,048,576 lines.
func arcsOf(ctx context.Context, n, lines int, edge func(e int) (u, v int32, w float64), opt LoadOptions) (src, dst []int32, w []float64, nloops int, err error) {
	// For an undirected graph both arcs of a line are appended together;
	// NewFromCOO keeps input order within a row, so with DupFirst the first
	// line naming an edge, in either direction, sets the weight of both
	// arcs.
	capacity := lines
	if !opt.Directed {
		capacity *= 2
	}
	src = make([]int32, 0, capacity)
	dst = make([]int32, 0, capacity)
	if opt.Weighted {
		w = make([]float64, 0, capacity)
	}
	loops := make([]uint64, (n+63)/64) // distinct self-loops, as a bit set
	for e := 0; e < lines; e++ {
		if e%(1<<20) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, nil, 0, err
			}
		}
		u, v, x := edge(e)
		if u == v {
			loops[u/64] |= 1 << (u % 64)
			if !opt.KeepSelfLoops {
				continue
			}
		}
		src = append(src, u)
		dst = append(dst, v)
		if w != nil {
			w = append(w, x)
		}
		if !opt.Directed && u != v {
			src = append(src, v)
			dst = append(dst, u)
			if w != nil {
				w = append(w, x)
			}
		}
	}
	for _, b := range loops {
		nloops += bits.OnesCount64(b)
	}
	return src, dst, w, nloops, ctx.Err()
}

// otherWeights counts the arcs (src[i], dst[i]) whose weight w[i] is not
// the one adj kept for them, the first occurrence's: for an edge list,
// the arcs of lines that repeat an edge with another weight; self-loops
// (u, u) apart, in loops.
func otherWeights(ctx context.Context, adj *sparse.CSR, src, dst []int32, w []float64) (other, loops int, err error) {
	for i, u := range src {
		if i%(1<<20) == 0 {
			if err := ctx.Err(); err != nil {
				return 0, 0, err
			}
		}
		lo := adj.Indptr[u]
		if k, ok := slices.BinarySearch(adj.Indices[lo:adj.Indptr[u+1]], dst[i]); ok && adj.Data[lo+k] != w[i] {
			if u == dst[i] {
				loops++
			} else {
				other++
			}
		}
	}
	return other, loops, nil
}

// assemble builds the adjacency matrix of n nodes from lines edges, the
// e-th read by edge (its weight is used when opt.Weighted), with the
// loaders' policies: self-loops dropped unless opt.KeepSelfLoops (and
// counted), duplicates merged keeping the first edge's weight, and for an
// undirected graph both arcs of each edge stored, an edge given in either
// direction being one edge. It sets the report's SelfLoops, Arcs,
// UniqueEdges and Duplicates (from rep.EdgesRead).
func assemble(ctx context.Context, name string, n, lines int, edge func(e int) (u, v int32, w float64), opt LoadOptions, rep *LoadReport) (*sparse.CSR, error) {
	src, dst, w, nloops, err := arcsOf(ctx, n, lines, edge, opt)
	if err != nil {
		return nil, err
	}
	adj, err := sparse.NewFromCOO(ctx, n, n, src, dst, w, sparse.DupFirst)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	if err != nil {
		return nil, &pipeline.ParseError{File: name, Err: err}
	}
	if adj.NNZ() < len(src) {
		// Merged duplicates leave slack in the arrays; release it.
		adj.Indices = slices.Clone(adj.Indices)
		adj.Data = slices.Clone(adj.Data)
	}
	rep.SelfLoops = nloops
	rep.Arcs = adj.NNZ()
	kept := 0
	if opt.KeepSelfLoops {
		kept = nloops
	}
	if opt.Directed {
		rep.UniqueEdges = adj.NNZ() - kept + nloops
	} else {
		rep.UniqueEdges = (adj.NNZ()-kept)/2 + nloops
	}
	rep.Duplicates = rep.EdgesRead - rep.UniqueEdges
	if adj.NNZ() == 0 {
		return nil, &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: every edge is a self-loop, and self-loops are dropped (keep them with -keep-self-loops to load this graph)", pipeline.ErrEmptyGraph)}
	}
	if opt.Weighted {
		if err := CheckWeightRange(name, adj.Data); err != nil {
			return nil, err
		}
		if rep.Duplicates > 0 {
			other, loops, err := otherWeights(ctx, adj, src, dst, w)
			if err != nil {
				return nil, err
			}
			if !opt.Directed {
				other /= 2 // a line of an edge u–v is two arcs, of a self-loop one
			}
			rep.OtherWeights = other + loops
		}
	}
	return adj, nil
}

// CheckWeightRange refuses the weights w of the arcs read from file name
// (a ParseError naming it) when their sum is beyond the float32 range,
// in which the factorizations multiply by the adjacency matrix: every row
// sum is at most the total. (Unit weights cannot overflow: there are fewer than
// 2^53 arcs.) It refuses as well a weight below float32's smallest normal
// number, 2^-126 ≈ 1.2e-38: at or above it every degree and its inverse
// (and inverse square root, by which the Laplacian is normalised) lie in
// the float32 range, below it they need not (Laplacian eigenmaps of edges
// weighted 1e-80 came out infinite, the SVD of edges weighted 1e-170 NaN).
// The loader calls it on a weighted graph, and so does wys-beam's
// preprocessing on the graph it assembles from its shards.
func CheckWeightRange(name string, w []float64) error {
	total, largest, smallest := 0.0, 0.0, math.Inf(1)
	for _, x := range w {
		total, largest, smallest = total+x, max(largest, x), min(smallest, x)
	}
	if total > math.MaxFloat32 {
		return &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: the arcs' weights (an undirected edge is two arcs) sum to %.3g, beyond the float32 range (3.4e38) the factorizations compute in (the largest weight is %g): divide them by a constant", pipeline.ErrFormat, total, largest)}
	}
	if smallest < minWeight {
		return &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: the smallest weight, %g, is below the float32 range (1.2e-38) the factorizations compute in, so that a degree or its inverse may round to 0 or overflow: multiply the weights by a constant", pipeline.ErrFormat, smallest)}
	}
	return nil
}

// minWeight is the smallest edge weight the loader accepts: float32's
// smallest normal number, 2^-126.
const minWeight = 0x1p-126
