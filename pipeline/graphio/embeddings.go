package graphio

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wys-project/wys/pipeline"
)

// Layouts of an embedding table.
const (
	// LayoutAuto takes the layout from the marker file WriteEmbeddings
	// writes beside the embeddings (MarkerPath); without one, the table is
	// a single table.
	LayoutAuto = ""
	// LayoutHalves is wys's Y = [L | R]: the first d/2 columns are L, the
	// last d/2 are R, and the score of the arc u→v is L_u·R_v.
	LayoutHalves = "halves"
	// LayoutSingle is one table Y, as DeepWalk, node2vec, ProNE and
	// gensim write; pairs are scored by Y_u·Y_v or the cosine.
	LayoutSingle = "single"
)

// Embeddings is an embedding table read back from a file.
type Embeddings struct {
	// IDs names the rows, in file order (0..N−1 for a bare .npy).
	IDs *pipeline.NodeIDs
	// Dim is the width of a row; Y holds N rows of Dim numbers.
	Dim int
	Y   []float32
	// Halves reports the layout Y = [L | R] (see LayoutHalves).
	Halves bool
	// Header is the first line of a text file, skipped as column names
	// (pandas' to_csv writes them), or "".
	Header string
	// Marked reports the marker file wys-sparse writes beside its
	// embeddings (MarkerPath): the ids are the graph's own.
	Marked bool
	// ByRow reports a .npy without an ids file: row i is the node named
	// "i" (IDs are those names), as a DeepWalk-style script or a library
	// that numbers nodes 0..N−1 saves it, and for a split, its row i.
	ByRow bool
	// SHA256 is the hex SHA-256 of the file's bytes, taken as it was read
	// (ReadEmbeddings), for the marker's check and a report's inputs.
	SHA256 string
}

// N returns the number of rows.
func (e *Embeddings) N() int { return e.IDs.Len() }

// Sides returns L and R of Y = [L | R], each N x Dim/2 row-major (copies).
// It splits every row at Dim/2 whatever the layout: for a single table
// (Halves false, such as another tool's .emb) the two halves mean
// nothing, and use Y itself; an odd Dim (never Halves) leaves its last
// column out of both.
func (e *Embeddings) Sides() (l, r []float32) {
	h := e.Dim / 2
	n := e.N()
	l, r = make([]float32, n*h), make([]float32, n*h)
	for i := 0; i < n; i++ {
		copy(l[i*h:i*h+h], e.Y[i*e.Dim:i*e.Dim+h])
		copy(r[i*h:i*h+h], e.Y[i*e.Dim+h:i*e.Dim+2*h])
	}
	return l, r
}

// ReadOptions controls ReadEmbeddings. The zero value guesses the format
// from the file name and the layout from the marker file.
type ReadOptions struct {
	// Format is FormatWord2Vec, FormatNPY, FormatTSV or FormatCSV; ""
	// guesses it from the name (FormatFromPath).
	Format string
	// Layout is LayoutAuto, LayoutHalves or LayoutSingle.
	Layout string
}

// marker is the content of the file WriteEmbeddings writes beside an
// embedding file to say that its rows are [L | R]: other tools' readers
// never see it, and the embedding file itself stays exactly what numpy
// and gensim read.
type marker struct {
	Layout string `json:"layout"`
	Rows   int    `json:"rows"`
	Dim    int    `json:"dim"`
	Score  string `json:"score"`
	// SHA256 is the hex SHA-256 of the embedding file's bytes as written,
	// so that a marker left beside a file that has since been replaced
	// (another tool's table of the same shape) is caught. Markers written
	// before it have none.
	SHA256 string `json:"sha256,omitempty"`
}

// MarkerPath returns the marker file written beside an embedding file:
// path with ".wys.json" appended (emb.npy.wys.json, emb.txt.gz.wys.json).
func MarkerPath(path string) string { return path + ".wys.json" }

// ReadEmbeddings reads an embedding table: word2vec text (an optional
// header "N D", then "id x1 … xD" per line, spaces or tabs, as gensim's
// save_word2vec_format and node2vec's or ProNE's .emb files), TSV (the
// same without a header), each plain or gzip; or a NumPy .npy array of
// float16, float32 or float64 (read as float32), with row names from the ids file
// beside it (IDsPath) or, without one, rows 0..N−1 matched by position
// (ByRow, as DeepWalk-style scripts save row i for node i). Binary
// word2vec is not read (re-save it with binary=False).
//
// The layout is [L | R] when opt.Layout says so or, with LayoutAuto, when
// the marker file MarkerPath(path) says so; otherwise single. Errors name
// the file and line and wrap ErrFormat: a ragged row, a number that does
// not parse or is not finite, a header that disagrees with the rows, a
// duplicate id. ctx is checked every 65,536 lines or 4 MiB of text,
// whichever comes first.
func ReadEmbeddings(ctx context.Context, path string, opt ReadOptions) (*Embeddings, error) {
	format, err := ResolveFormat(opt.Format, path)
	if err != nil {
		return nil, err
	}
	if !KnownFormat(format) {
		return nil, fmt.Errorf("graphio: unknown embedding format %q (want %s)", format, FormatList)
	}
	f, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file's bytes are hashed as they are read: the marker's check
	// reads it no second time.
	h := sha256.New()
	r := io.TeeReader(f, h)
	var e *Embeddings
	if format == FormatNPY {
		e, err = loadEmbeddingsNPY(ctx, r, path)
	} else {
		e, err = readEmbeddingsText(ctx, r, path, format == FormatCSV)
	}
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(h, f); err != nil { // what the reader left, if any
		return nil, fmt.Errorf("graphio: %s: %w", path, err)
	}
	e.SHA256 = hex.EncodeToString(h.Sum(nil))
	return e, setLayout(e, path, opt.Layout)
}

// setLayout decides whether e is [L | R].
func setLayout(e *Embeddings, path, layout string) error {
	switch layout {
	case LayoutHalves:
		if e.Dim%2 != 0 {
			return fmt.Errorf("graphio: %s: %d columns cannot be split into halves [L | R]; the file holds a single table", path, e.Dim)
		}
		e.Halves = true
		return nil
	case LayoutSingle:
		return nil
	case LayoutAuto:
	default:
		return fmt.Errorf("graphio: unknown layout %q (want %s or %s)", layout, LayoutHalves, LayoutSingle)
	}
	b, err := os.ReadFile(MarkerPath(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var m marker
	if err := json.Unmarshal(b, &m); err != nil || m.Layout != LayoutHalves {
		return &pipeline.ParseError{File: MarkerPath(path), Err: fmt.Errorf("%w: not a wys layout marker (want {\"layout\": \"halves\", …}); delete it", pipeline.ErrFormat)}
	}
	switch {
	case m.Rows != e.N() || m.Dim != e.Dim:
		return &pipeline.ParseError{File: MarkerPath(path), Err: fmt.Errorf("%w: says %d x %d but %s holds %d x %d: it belongs to another file; delete it", pipeline.ErrFormat, m.Rows, m.Dim, path, e.N(), e.Dim)}
	case e.Dim%2 != 0:
		return &pipeline.ParseError{File: MarkerPath(path), Err: fmt.Errorf("%w: says %s is [L | R], but its %d columns cannot be split into halves: it belongs to another file; delete it", pipeline.ErrFormat, path, e.Dim)}
	}
	if m.SHA256 != "" {
		if e.SHA256 != m.SHA256 {
			return &pipeline.ParseError{File: MarkerPath(path), Err: fmt.Errorf("%w: was written for other contents of %s (the file's SHA-256 is not the one the marker records: it was replaced or changed since wys wrote it): delete the marker, or read the file with -layout halves if it is still a [L | R] table", pipeline.ErrFormat, path)}
		}
	}
	if e.ByRow {
		// wys writes a .npy's ids beside it: without them row i is not
		// node i but the i-th node in the graph's order.
		return &pipeline.ParseError{File: path, Err: fmt.Errorf("%w: a wys .npy (its marker %s is beside it) without its ids file %s, which names each row's node: put it back (or read the table as a bare array with -layout halves, if row i is node i)", pipeline.ErrFormat, filepath.Base(MarkerPath(path)), filepath.Base(IDsPath(path)))}
	}
	e.Halves, e.Marked = true, true
	return nil
}

// writeMarker writes the marker that says path, whose bytes have the
// SHA-256 sum (hex), holds rows x dim [L | R].
func writeMarker(path string, rows, dim int, sum string) error {
	return WriteJSON(MarkerPath(path), marker{Layout: LayoutHalves, Rows: rows, Dim: dim, Score: "L_u·R_v: the first dim/2 columns of u's row times the last dim/2 of v's", SHA256: sum})
}

// textTable accumulates the rows of a text embedding file.
type textTable struct {
	name      string
	csv       bool // fields separated by commas, the id maybe quoted
	headerN   int  // -1 without a header
	dim       int  // 0 until the first row
	names     []string
	y         []float32
	firstLine map[string]int
	fields    []string // the last line's fields, reused
	columns   string   // the first line, skipped as column names
	// badHeader is line 1 when it is two integers that make no header
	// "N D" (N < 0 or D ≤ 0), read as a row of one number.
	badHeader string
}

// ReadEmbeddingsText reads word2vec text or TSV embeddings (see
// ReadEmbeddings) from r, plain or gzip; name is used in errors. A first
// line of exactly two integers is the header "N D"; blank lines are
// skipped.
func ReadEmbeddingsText(ctx context.Context, r io.Reader, name string) (*Embeddings, error) {
	return readEmbeddingsText(ctx, r, name, false)
}

// readEmbeddingsText is ReadEmbeddingsText; with csv the fields are
// separated by commas (FormatCSV) instead of spaces or tabs.
func readEmbeddingsText(ctx context.Context, r io.Reader, name string, csv bool) (*Embeddings, error) {
	in, err := openText(r, name)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	if err := refuseBinary(in, name); err != nil {
		return nil, err
	}
	t := &textTable{name: name, csv: csv, headerN: -1, firstLine: map[string]int{}}
	last := 0
	err = in.lines(ctx, func(ln int, text []byte) error {
		last = ln
		return t.line(ln, string(dropBOM(ln, text)))
	})
	if err != nil {
		return nil, err
	}
	if len(t.names) == 0 {
		return nil, &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: no embedding rows", pipeline.ErrFormat)}
	}
	if t.headerN >= 0 && t.headerN != len(t.names) {
		return nil, formatErr(name, last, "the header announces %d rows but the file holds %d: the file is truncated or the header is wrong", t.headerN, len(t.names))
	}
	ids, err := pipeline.NewIndexedIDs(t.names)
	if err != nil {
		return nil, err // duplicates were caught by line already
	}
	return &Embeddings{IDs: ids, Dim: t.dim, Y: t.y, Header: t.columns}, nil
}

// header reads line 1, its fields f and text, as the header "N D" when it
// is two integers that make one, and reports whether it did. Two that
// make none (N < 0 or D ≤ 0) are kept as badHeader, the line being read
// as a row of one number unless the next row is wider.
func (t *textTable) header(f []string, text string) bool {
	if len(f) != 2 {
		return false
	}
	n, err1 := strconv.Atoi(f[0])
	d, err2 := strconv.Atoi(f[1])
	switch {
	case err1 != nil || err2 != nil:
		return false
	case n >= 0 && d > 0:
		t.headerN, t.dim = n, d
		return true
	}
	t.badHeader = strings.TrimSpace(text)
	return false
}

// otherFormat is the end of the error for a first row that holds an id
// alone: when the line's text splits in another text format, the hint to
// read the file in that one.
func (t *textTable) otherFormat(text string) string {
	var as, ext string
	switch {
	case !t.csv && strings.Count(text, ",") > 0:
		as, ext = "CSV", ".csv"
	case t.csv && strings.Contains(text, "\t"):
		as, ext = "TSV", ".tsv"
	case t.csv && len(strings.Fields(text)) > 1:
		as, ext = "word2vec text", ".txt"
	default:
		return ""
	}
	return fmt.Sprintf(" (the line splits as %s: read it as %s, by a %s name or by giving its format)", as, as, ext)
}

// line reads line ln of a text embedding file.
func (t *textTable) line(ln int, text string) error {
	var f []string
	if t.csv {
		var err error
		if f, err = csvFields(text); err != nil {
			return formatErr(t.name, ln, "%v", err)
		}
	} else if id, rest, ok := strings.Cut(strings.TrimLeft(text, " "), "\t"); ok && strings.TrimSpace(id) != "" {
		// The id ends at a line's first tab, so that TSV ids may hold
		// spaces ("Smith, J."), as the edge lists they come from do.
		f = appendTextFields(append(t.fields[:0], strings.TrimSpace(id)), rest)
	} else {
		f = appendTextFields(t.fields[:0], text)
	}
	t.fields = f
	if len(f) == 0 {
		return nil
	}
	if names := t.headerNames(ln, text, f); names != nil && csvHeader(names) {
		// Column names: pandas' to_csv, with sep="," or "\t".
		if col := idAfterIndex(names); col != "" {
			return formatErr(t.name, ln, "the first column has no name (pandas' index, the row numbers) and the second, %q, is no vector column: the ids are in it; write the file with df.set_index(%q).to_csv(path), or without the row numbers, df.to_csv(path, index=False)", col, col)
		}
		t.columns = strings.TrimSpace(text)
		return nil
	}
	if f[0] == "" {
		return formatErr(t.name, ln, "an empty node id: each line is \"id,x1,…,xD\"")
	}
	if ln == 1 && t.header(f, text) {
		return nil
	}
	if t.dim == 0 {
		t.dim = len(f) - 1
		if t.dim == 0 {
			return formatErr(t.name, ln, "a node id with no vector: each line is \"id x1 … xD\"%s", t.otherFormat(text))
		}
	}
	if len(f)-1 != t.dim && t.badHeader != "" && len(t.names) == 1 {
		return formatErr(t.name, 1, "%q reads as a header \"N D\" (line %d holds %d numbers after its id), but N rows and D columns must be N ≥ 0 and D > 0: write the number of rows and the vectors' width there, as gensim does, or drop the line", t.badHeader, ln, len(f)-1)
	}
	if len(f)-1 != t.dim {
		what := "the first row"
		if t.headerN >= 0 {
			what = "the header"
		}
		return formatErr(t.name, ln, "%d numbers after id %.40q, but %s says %d: every row needs the same width", len(f)-1, f[0], what, t.dim)
	}
	if t.headerN >= 0 && len(t.names) == t.headerN {
		return formatErr(t.name, ln, "more rows than the %d the header announces: fix the header", t.headerN)
	}
	if prev, dup := t.firstLine[f[0]]; dup {
		if x, err := strconv.ParseFloat(f[0], 64); err == nil && x != math.Trunc(x) {
			return formatErr(t.name, ln, "node id %.40q already has a vector on line %d, and is a number with a fraction: the first column is likely a coordinate, not an id: write each row's node id first (pandas: to_csv with the ids as the index)", f[0], prev)
		}
		return formatErr(t.name, ln, "node id %.40q already has a vector on line %d: each id once", f[0], prev)
	}
	// The id is copied out of the line, which it would keep alive.
	id := strings.Clone(f[0])
	t.firstLine[id] = ln
	for j, s := range f[1:] {
		x, err := strconv.ParseFloat(s, 32)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return formatErr(t.name, ln, "column %d of id %.40q is %.40q, not a number", j+2, f[0], s)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return formatErr(t.name, ln, "column %d of id %.40q is %s: embeddings must be finite (the run that wrote them diverged)", j+2, f[0], s)
		}
		t.y = append(t.y, float32(x))
	}
	t.names = append(t.names, id)
	return nil
}

// appendTextFields appends to dst the fields of word2vec text or TSV s,
// its runs of bytes other than spaces and tabs, and returns it.
func appendTextFields(dst []string, s string) []string {
	start := -1
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ' ' || c == '\t' {
			if start >= 0 {
				dst = append(dst, s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		dst = append(dst, s[start:])
	}
	return dst
}

// csvFields splits a line of FormatCSV: comma-separated fields, spaces
// around them trimmed, the first (the id) in double quotes when it holds
// a comma or a quote, a quote inside doubled (RFC 4180, as csvField
// writes it and pandas reads it). A blank line has no fields.
func csvFields(line string) ([]string, error) {
	line = strings.TrimSpace(line)
	if line == "" {
		return nil, nil
	}
	var id string
	if strings.HasPrefix(line, `"`) {
		end := 1
		var b strings.Builder
		for {
			i := strings.IndexByte(line[end:], '"')
			if i < 0 {
				return nil, fmt.Errorf("the quoted id %.40s has no closing quote", line)
			}
			b.WriteString(line[end : end+i])
			end += i + 1
			if !strings.HasPrefix(line[end:], `"`) {
				break
			}
			b.WriteByte('"') // a doubled quote
			end++
		}
		id, line = b.String(), strings.TrimSpace(line[end:])
		if line != "" && !strings.HasPrefix(line, ",") {
			return nil, fmt.Errorf("text after the quoted id %.40q: want a comma", id)
		}
		line = strings.TrimPrefix(line, ",")
	} else {
		id, line, _ = strings.Cut(line, ",")
	}
	f := []string{strings.TrimSpace(id)}
	if line == "" {
		return f, nil
	}
	for _, x := range strings.Split(line, ",") {
		f = append(f, strings.TrimSpace(x))
	}
	return f, nil
}

// headerNames returns the fields of line ln, text, as column names: f
// for CSV, text split at its tabs for TSV, nil for any other line.
func (t *textTable) headerNames(ln int, text string, f []string) []string {
	switch {
	case ln != 1:
		return nil
	case t.csv:
		return f
	case strings.Contains(text, "\t"):
		return strings.Split(strings.TrimRight(text, " \t"), "\t")
	}
	return nil
}

// idAfterIndex returns the second of the column names f when they are
// pandas' header above an unnamed index and a named column of ids
// (",index,0,1,…" from df.reset_index().to_csv()): a second name that
// is no number, followed by 0, 1, … or itself a usual name of ids.
func idAfterIndex(f []string) string {
	if len(f) < 3 || f[0] != "" {
		return ""
	}
	if _, err := strconv.ParseFloat(f[1], 64); err == nil {
		return ""
	}
	switch strings.ToLower(f[1]) {
	case "index", "id", "ids", "node", "nodes", "node_id", "nodeid", "name", "vertex", "word", "key":
		return f[1]
	}
	for j, s := range f[2:] {
		if s != strconv.Itoa(j) {
			return ""
		}
	}
	return f[1]
}

// csvHeader reports whether the fields of a CSV file's first line (or a
// TSV file's, split at its tabs) are
// column names rather than a node's vector: an empty first name (pandas'
// to_csv writes ",0,1,…" above an unnamed index), value columns none of
// which is a number ("id,x1,x2"), or a first name that is no number over
// at least two value columns named 0, 1, …, D−1 (pandas' names for a
// NumPy array's columns, "node,0,1,…"; "a,0" and "7,0,1" are rows).
func csvHeader(f []string) bool {
	if f[0] == "" {
		return true
	}
	numbers, counting := 0, len(f) > 2
	if _, err := strconv.ParseFloat(f[0], 64); err == nil {
		counting = false
	}
	for j, s := range f[1:] {
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			numbers++
		}
		counting = counting && s == strconv.Itoa(j)
	}
	return numbers == 0 || counting
}

// csvField returns s as one field of a CSV line: as it is, or in double
// quotes with its quotes doubled when it holds a comma, a quote or a line
// break.
func csvField(s string) string {
	if !strings.ContainsAny(s, ",\"\r\n") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// refuseBinary returns an error when the file starts like binary
// word2vec: a header line "N D" followed by bytes that are not text (the
// raw float32 after each id).
func refuseBinary(in *textReader, name string) error {
	head, _ := in.Peek(4096)
	nl := bytes.IndexByte(head, '\n')
	if nl < 0 || len(strings.Fields(string(head[:nl]))) != 2 {
		return nil
	}
	rest := head[nl+1:]
	line, _, _ := bytes.Cut(rest, []byte{'\n'})
	if f := strings.Fields(string(line)); len(f) >= 2 {
		if _, err := strconv.ParseFloat(f[1], 32); err == nil {
			return nil // text, whatever bytes its ids hold
		}
	}
	if len(head) == 4096 {
		rest = rest[:max(0, len(rest)-utf8.UTFMax)] // a character cut by the peek
	}
	if isText(string(rest)) {
		return nil
	}
	return formatErr(name, 2, "binary word2vec (raw float32 after each id) is not read: re-save it as text (gensim: KeyedVectors.load_word2vec_format(path, binary=True).save_word2vec_format(out, binary=False))")
}

// isText reports whether s holds no NUL or invalid UTF-8 (binary
// word2vec rows do).
func isText(s string) bool {
	return strings.IndexByte(s, 0) < 0 && strings.ToValidUTF8(s, "\x00") == s
}

// loadEmbeddingsNPY reads a .npy embedding table and its ids file.
func loadEmbeddingsNPY(ctx context.Context, r io.Reader, path string) (*Embeddings, error) {
	y, n, d, err := ReadMatrixNPY(ctx, r, path)
	if err != nil {
		return nil, err
	}
	ids := pipeline.IdentityIDs(n)
	idf, err := os.Open(IDsPath(path))
	hasIDs := err == nil
	if hasIDs {
		defer idf.Close()
		if ids, err = readIDLines(ctx, idf, IDsPath(path), n); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return &Embeddings{IDs: ids, Dim: d, Y: y, ByRow: !hasIDs}, nil
}

// readIDLines reads one id per line, n of them, each once. Ids that are
// increasing canonical integers (as WriteEmbeddings writes a graph with
// integer ids) are kept as numbers.
func readIDLines(ctx context.Context, r io.Reader, name string, n int) (*pipeline.NodeIDs, error) {
	in, err := openText(r, name)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	names := make([]string, 0, n)
	blank := 0 // the first blank line; only trailing ones are allowed
	err = in.lines(ctx, func(ln int, text []byte) error {
		id := strings.TrimSpace(string(dropBOM(ln, text)))
		switch {
		case id == "":
			blank = cmp.Or(blank, ln)
			return nil
		case blank > 0:
			return formatErr(name, blank, "empty id: one node id per line, in the rows' order")
		}
		names = append(names, id)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(names) != n {
		return nil, &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: %d ids for the %d rows of the .npy beside it: they belong to different runs", pipeline.ErrFormat, len(names), n)}
	}
	if ids := increasingIntegers(names); ids != nil {
		return ids, nil
	}
	ids, err := pipeline.NewIndexedIDs(names)
	if err != nil {
		return nil, &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: %s (rows are lines − 1): each id once", pipeline.ErrFormat, strings.TrimPrefix(err.Error(), "pipeline: "))}
	}
	return ids, nil
}

// increasingIntegers returns numeric ids when names are canonical
// non-negative integers in strictly increasing order, else nil.
func increasingIntegers(names []string) *pipeline.NodeIDs {
	vals := make([]uint64, len(names))
	for i, s := range names {
		v, ok := parseID([]byte(s))
		if !ok || (len(s) > 1 && s[0] == '0') || (i > 0 && v <= vals[i-1]) {
			return nil
		}
		vals[i] = v
	}
	return pipeline.NewNumericIDs(vals)
}

// ReadMatrixNPY reads a 2-D C-ordered .npy array of float16, float32 or float64
// (either byte order; float64 is rounded to float32) as n rows of d
// numbers. Errors name the file and wrap ErrFormat; a NaN or infinite
// entry is an error naming its row. ctx is checked between blocks of
// rows.
func ReadMatrixNPY(ctx context.Context, r io.Reader, name string) (y []float32, n, d int, err error) {
	bad := func(format string, args ...any) error {
		return &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: "+format, append([]any{pipeline.ErrFormat}, args...)...)}
	}
	br := bufio.NewReaderSize(r, 1<<20)
	pre, err := br.Peek(12)
	if err != nil && len(pre) < 10 {
		return nil, 0, 0, bad("not a NumPy .npy file (too short)")
	}
	if pre[0] == 0x1f && pre[1] == 0x8b {
		return nil, 0, 0, bad("gzip-compressed: a .npy is read as numpy writes it; gunzip it first")
	}
	if !bytes.HasPrefix(pre, []byte("\x93NUMPY")) {
		text := ""
		if utf8.Valid(pre) && !bytes.ContainsRune(pre, 0) {
			text = "; it starts like text: read it as word2vec text, TSV or CSV (by a .txt, .tsv or .csv name, or by giving its format)"
		}
		return nil, 0, 0, bad("not a NumPy .npy file (it does not start with numpy's magic bytes \\x93NUMPY)%s", text)
	}
	hlen, start := 0, 10
	if len(pre) >= 10 && pre[6] == 1 {
		hlen = int(binary.LittleEndian.Uint16(pre[8:10]))
	} else if len(pre) >= 12 {
		hlen, start = int(binary.LittleEndian.Uint32(pre[8:12])), 12
	}
	if hlen > 1<<20 {
		return nil, 0, 0, bad("corrupt .npy header length %d", hlen)
	}
	head := make([]byte, start+hlen)
	if _, err := io.ReadFull(br, head); err != nil {
		return nil, 0, 0, bad("truncated .npy header")
	}
	if _, err := npyPreamble(head); err != nil {
		return nil, 0, 0, bad("%v", err)
	}
	descr, fortran, shape, err := parseNPYDict(string(head[start:]))
	if err != nil {
		return nil, 0, 0, bad("%v", err)
	}
	return readNPYRows(ctx, br, name, descr, fortran, shape)
}

// parseNPYDict reads descr, fortran_order and shape from a .npy header
// dictionary as numpy.save writes it.
func parseNPYDict(h string) (descr string, fortran bool, shape []int, err error) {
	i := strings.Index(h, "'descr': '")
	j := strings.Index(h[i+10:], "'")
	if j < 0 {
		return "", false, nil, errors.New("unreadable .npy dtype")
	}
	descr = h[i+10 : i+10+j]
	fortran = strings.Contains(h, "'fortran_order': True")
	s := strings.Index(h, "'shape': (")
	e := strings.Index(h[s:], ")")
	for _, p := range strings.Split(h[s+10:s+e], ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return "", false, nil, fmt.Errorf("unreadable .npy shape %q", h[s+9:s+e+1])
		}
		shape = append(shape, v)
	}
	return descr, fortran, shape, nil
}

// halfToFloat32 returns the IEEE 754 binary16 number h as a float32,
// which holds every one of them exactly.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp, mant := uint32(h>>10)&0x1f, uint32(h&0x3ff)
	switch exp {
	case 0: // zero or subnormal: mant·2⁻²⁴
		x := float32(mant) / (1 << 24)
		if sign != 0 {
			x = -x
		}
		return x
	case 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// npyFloat returns the j-th float of width bytes in b as a float32.
func npyFloat(b []byte, j, width int, order binary.ByteOrder) float32 {
	switch width {
	case 2:
		return halfToFloat32(order.Uint16(b[2*j:]))
	case 4:
		return math.Float32frombits(order.Uint32(b[4*j:]))
	}
	return float32(math.Float64frombits(order.Uint64(b[8*j:])))
}

// readNPYRows reads the payload of a float .npy array.
func readNPYRows(ctx context.Context, br io.Reader, name, descr string, fortran bool, shape []int) ([]float32, int, int, error) {
	bad := func(format string, args ...any) error {
		return &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: "+format, append([]any{pipeline.ErrFormat}, args...)...)}
	}
	var width int
	var order binary.ByteOrder = binary.LittleEndian
	switch descr {
	case "<f2", ">f2", "<f4", "|f4", "<f8", ">f4", ">f8":
		width = int(descr[2] - '0')
		if descr[0] == '>' {
			order = binary.BigEndian
		}
	default:
		return nil, 0, 0, bad("dtype %q, want float16, float32 or float64 embeddings (numpy.asarray(y, dtype=numpy.float32))", descr)
	}
	if len(shape) != 2 || shape[0] == 0 || shape[1] == 0 {
		return nil, 0, 0, bad("array shape %v, want (N, D) with N, D > 0: one row per node", shape)
	}
	n, d := shape[0], shape[1]
	if n > math.MaxInt32 || d > 1<<20 || n*d > 1<<34 {
		return nil, 0, 0, bad("array shape (%d, %d) is too large for an embedding table", n, d)
	}
	if fortran {
		// Column-major: read the (D, N) array in row order, then
		// transpose it.
		n, d = d, n
	}
	// Rows are read a chunk at a time and the table grows (doubling) with
	// what was read, so a header that claims a huge shape over a short
	// payload fails without allocating the claimed size.
	chunkRows := max(1, (1<<20)/(d*width))
	y := make([]float32, 0, min(n*d, 1<<24))
	buf := make([]byte, chunkRows*d*width)
	for i := 0; i < n; i += chunkRows {
		if err := ctx.Err(); err != nil {
			return nil, 0, 0, err
		}
		rows := min(chunkRows, n-i)
		chunk := buf[:rows*d*width]
		if k, err := io.ReadFull(br, chunk); err != nil {
			return nil, 0, 0, bad("the payload ends in row %d of %d: the file is truncated", i+k/(d*width), n)
		}
		base := len(y)
		if need := base + rows*d; need > cap(y) {
			y = slices.Grow(y, min(max(2*cap(y), need), n*d)-base)
		}
		y = y[:base+rows*d]
		dst := y[base:]
		for j := range dst {
			x := npyFloat(chunk, j, width, order)
			if x != x || x > math.MaxFloat32 || x < -math.MaxFloat32 {
				r, c := i+j/d, j%d
				if fortran {
					r, c = c, r
				}
				return nil, 0, 0, bad("row %d column %d is %v: embeddings must be finite (the run that wrote them diverged)", r, c, x)
			}
			dst[j] = x
		}
	}
	rowBytes := buf[:1]
	if k, _ := br.Read(rowBytes[:1]); k > 0 {
		return nil, 0, 0, bad("bytes after the (%d, %d) array: the header's shape is wrong", shape[0], shape[1])
	}
	if fortran {
		t := make([]float32, n*d)
		for r := range n {
			for c := range d {
				t[c*n+r] = y[r*d+c]
			}
		}
		return t, d, n, nil
	}
	return y, n, d, nil
}

// Align returns e's rows in the order of another numbering of the nodes:
// row i of the result is the vector of the node named ids.Name(i) (nil
// ids name the rows "0".."n−1", as a split without an index does). A
// table read ByRow names its rows "0".."N−1", so it matches the nodes of
// those ids; to match it by position, as the rows of a split, pass nil
// ids. Nodes that e has no vector for get a zero row and are listed in
// missing; e's rows that ids do not name are left out.
func (e *Embeddings) Align(ids *pipeline.NodeIDs, n int) (y []float32, missing []int) {
	if ids == nil {
		ids = pipeline.IdentityIDs(n)
	}
	d := e.Dim
	y = make([]float32, n*d)
	for i := 0; i < n; i++ {
		r, ok := e.IDs.Row(ids.Name(i))
		if !ok {
			missing = append(missing, i)
			continue
		}
		copy(y[i*d:i*d+d], e.Y[r*d:r*d+d])
	}
	return y, missing
}
