package graphio

import (
	"bytes"
	"strconv"
	"strings"
)

// mmBanner is the first line of a Matrix Market file.
const mmBanner = "%%MatrixMarket"

// matrixMarket is what the banner and size line of a Matrix Market file
// (the format of SuiteSparse and Network Repository's .mtx graphs) say:
// a sparse coordinate matrix whose entries, one "row column [value]" line
// each with 1-based indices, are the graph's edges.
type matrixMarket struct {
	banner  string // the banner, as written
	entries int64  // the size line's entry count; -1 until it is read
}

// parseMatrixMarketBanner reads line 1 of file name when it is a Matrix
// Market banner ("%%MatrixMarket matrix coordinate FIELD SYMMETRY"): ok
// reports one, and err a matrix that is not a graph's adjacency (a dense
// array, complex values, a skew-symmetric or Hermitian matrix), or a
// symmetric one read as directed (its file holds each edge once).
func parseMatrixMarketBanner(name string, line []byte, opt LoadOptions) (mm *matrixMarket, err error) {
	text := strings.TrimSpace(string(dropBOM(1, line)))
	f := strings.Fields(strings.ToLower(text)) // the keywords are case-insensitive
	if len(f) == 0 || !strings.HasPrefix(f[0], strings.ToLower(mmBanner)) {
		return nil, nil
	}
	bad := func(why string) error {
		return formatErr(name, 1, "Matrix Market %q: %s", text, why)
	}
	switch {
	case len(f) != 5 || f[0] != strings.ToLower(mmBanner) || f[1] != "matrix":
		return nil, bad(`want "%%MatrixMarket matrix coordinate FIELD SYMMETRY"`)
	case f[2] != "coordinate":
		return nil, bad("a dense array is not an edge list; write the graph's nonzeros as coordinate entries")
	case f[3] != "pattern" && f[3] != "real" && f[3] != "integer":
		return nil, bad("want pattern, real or integer entries (edge weights)")
	case f[4] != "general" && f[4] != "symmetric":
		return nil, bad("want a general or symmetric matrix (an adjacency matrix)")
	case f[4] == "symmetric" && opt.Directed:
		return nil, bad("a symmetric matrix holds each edge once (its lower triangle): read it undirected (drop -directed)")
	}
	return &matrixMarket{banner: text, entries: -1}, nil
}

// sizeLine reads the size line "rows columns entries" at line ln: the
// matrix must be square (an adjacency matrix).
func (mm *matrixMarket) sizeLine(name string, ln int, line []byte) error {
	f := bytes.Fields(line)
	var v [3]int64
	for i := range v {
		if len(f) != 3 {
			break
		}
		x, err := strconv.ParseInt(string(f[i]), 10, 64)
		if err != nil || x < 0 {
			f = nil
			break
		}
		v[i] = x
	}
	switch {
	case len(f) != 3:
		return formatErr(name, ln, "Matrix Market size line %q: want \"rows columns entries\"", bytes.TrimSpace(line))
	case v[0] != v[1]:
		return formatErr(name, ln, "Matrix Market size line %q: a %d x %d matrix is not an adjacency matrix (rows and columns are the same nodes)", bytes.TrimSpace(line), v[0], v[1])
	}
	mm.entries = v[2]
	return nil
}

// check compares the entries read with the size line's count.
func (mm *matrixMarket) check(name string, read int) error {
	if mm.entries != int64(read) {
		return formatErr(name, 0, "Matrix Market size line says %d entries, the file holds %d: it is truncated or the size line is wrong", mm.entries, read)
	}
	return nil
}

// MatrixMarketBanner reports whether line 1 of file name is a Matrix
// Market banner that ReadEdgeList reads (then the next line that is not
// a comment is the size line, not an edge), or the error it gives for a
// Matrix Market file it does not read, for readers of parts of a file
// (wys-beam's byte ranges).
func MatrixMarketBanner(name string, line []byte, opt LoadOptions) (bool, error) {
	mm, err := parseMatrixMarketBanner(name, line, opt)
	return mm != nil, err
}
