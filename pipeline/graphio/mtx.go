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
	banner string // the banner, as written
	size   MatrixMarketSize
	read   bool // whether the size line is read
}

// MatrixMarketSize is what the size line of a Matrix Market file says:
// its entries' indices run 1..Nodes, and it holds Entries entry lines.
type MatrixMarketSize struct {
	Nodes   uint64
	Entries int64
	Line    int // the size line's line number
}

// isMTXName reports whether name is a Matrix Market file's (.mtx, plain
// or gzip).
func isMTXName(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".mtx") || strings.HasSuffix(n, ".mtx.gz")
}

// parseMatrixMarketBanner reads line 1 of file name: a Matrix Market
// banner ("%%MatrixMarket matrix coordinate FIELD SYMMETRY") gives its
// matrixMarket, another line nil. It refuses a matrix that is not a
// graph's adjacency (a dense array, complex values, a skew-symmetric or
// Hermitian matrix), a symmetric one read as directed (its file holds
// each edge once), a pattern read as weighted (it has no values), and a
// .mtx name without the banner.
func parseMatrixMarketBanner(name string, line []byte, opt LoadOptions) (mm *matrixMarket, err error) {
	text := strings.TrimSpace(string(dropBOM(1, line)))
	f := strings.Fields(strings.ToLower(text)) // the keywords are case-insensitive
	if len(f) == 0 || !strings.HasPrefix(f[0], strings.ToLower(mmBanner)) {
		if isMTXName(name) {
			return nil, formatErr(name, 1, "a .mtx file starts with the Matrix Market banner \"%%%%MatrixMarket matrix coordinate FIELD SYMMETRY\", and this one does not (%.40q): put the banner first or, for a plain edge list, another name", text)
		}
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
	case f[3] == "pattern" && opt.Weighted:
		return nil, bad("a pattern matrix has no values to weight its edges with: drop -weighted")
	}
	return &matrixMarket{banner: text}, nil
}

// ReadMatrixMarketSize reads the size line "rows columns entries" of
// file name at line ln: the matrix must be square (an adjacency matrix).
func ReadMatrixMarketSize(name string, ln int, line []byte) (MatrixMarketSize, error) {
	f := bytes.Fields(line)
	var v [3]uint64
	ok := len(f) == 3
	for i := 0; ok && i < 3; i++ {
		var err error
		v[i], err = strconv.ParseUint(string(f[i]), 10, 64)
		ok = err == nil && v[i] <= 1<<62
	}
	switch {
	case !ok:
		return MatrixMarketSize{}, formatErr(name, ln, "Matrix Market size line %q: want \"rows columns entries\"", bytes.TrimSpace(line))
	case v[0] != v[1]:
		return MatrixMarketSize{}, formatErr(name, ln, "Matrix Market size line %q: a %d x %d matrix is not an adjacency matrix (rows and columns are the same nodes)", bytes.TrimSpace(line), v[0], v[1])
	}
	return MatrixMarketSize{Nodes: v[0], Entries: int64(v[2]), Line: ln}, nil
}

// CheckIndex checks the index id of the entry at line ln of file name:
// an integer in 1..Nodes.
func (s MatrixMarketSize) CheckIndex(name string, ln int, id []byte) error {
	x, err := strconv.ParseUint(string(id), 10, 64)
	if err != nil || x < 1 || x > s.Nodes {
		return formatErr(name, ln, "Matrix Market entry index %s: indices run from 1 to %d, the size of the matrix (line %d)", id, s.Nodes, s.Line)
	}
	return nil
}

// CheckCount compares the number of entry lines of file name with the
// size line's count.
func (s MatrixMarketSize) CheckCount(name string, read int64) error {
	if s.Entries != read {
		return formatErr(name, s.Line, "Matrix Market size line says %d %s, the file holds %d: it is truncated or the size line is wrong", s.Entries, map[bool]string{true: "entry", false: "entries"}[s.Entries == 1], read)
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
