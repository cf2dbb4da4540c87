package graphio

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// IsMATPath reports whether path names a MATLAB .mat file by its
// extension: .mat or .mat.gz, in any case.
func IsMATPath(path string) bool {
	p := strings.ToLower(path)
	return strings.HasSuffix(p, ".mat") || strings.HasSuffix(p, ".mat.gz")
}

// LoadGraph reads the graph of path: the network of a .mat or .mat.gz
// file (IsMATPath) with LoadMAT, its labels left out, or an edge list with
// LoadEdgeList.
func LoadGraph(ctx context.Context, path string, opt LoadOptions) (*pipeline.Graph, *LoadReport, error) {
	if IsMATPath(path) {
		f, err := loadMATFile(ctx, path, opt)
		if err != nil {
			return nil, nil, err
		}
		return f.Network(ctx, opt)
	}
	return LoadEdgeList(ctx, path, opt)
}

// loadMATFile validates opt, opens path and reads it with ReadMAT.
func loadMATFile(ctx context.Context, path string, opt LoadOptions) (*MATFile, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	fh, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return ReadMAT(ctx, fh, path)
}

// LoadMAT opens path, a MATLAB .mat file plain or gzip-compressed (as
// .mat.gz; recognised by content), reads it with ReadMAT and returns its
// graph and labels with MATFile.Graph: the N x N variable `network` and
// the N x L variable `group`, the layout of the BlogCatalog, PPI, POS and
// Flickr files of DeepWalk and node2vec. labels is nil when the file has
// no `group`.
func LoadMAT(ctx context.Context, path string, opt LoadOptions) (*pipeline.Graph, *pipeline.MultiLabels, *LoadReport, error) {
	f, err := loadMATFile(ctx, path, opt)
	if err != nil {
		return nil, nil, nil, err
	}
	return f.Graph(ctx, opt)
}

// matFormat is LoadReport.Format for a graph read from a .mat file.
const matFormat = "mat"

// Graph returns the graph held in the variable `network` and, when the
// file has a variable `group`, its labels (see Labels; nil otherwise).
//
// `network` must be a square matrix, sparse or dense, of non-negative
// finite values: its nonzero entry (i, j) is an arc i→j of weight
// network(i, j) (1 unless opt.Weighted); zeros, stored or not, are not
// arcs. The graph's rows are the matrix's rows and its ids are the 0-based
// row numbers (pipeline.IdentityIDs), so every node is present, isolated
// or not, and rows match the rows of `group`; opt.IDs plays no part.
//
// The policies are ReadEdgeList's, each stored entry counting as one edge
// line, read in the file's column-major order: self-loops (diagonal
// entries) are dropped unless opt.KeepSelfLoops, and counted; unless
// opt.Directed the matrix is symmetrised, an entry and its transpose
// being one edge whose weight is that of the entry stored first (the one
// in the lower-numbered column). LoadReport.Asymmetric counts the
// off-diagonal entries whose transpose was missing or had another weight,
// so that symmetrising a directed matrix does not pass unnoticed. For the
// symmetric PPI and POS files, Duplicates counts each edge's second
// entry, and UniqueEdges the edges.
func (f *MATFile) Graph(ctx context.Context, opt LoadOptions) (*pipeline.Graph, *pipeline.MultiLabels, *LoadReport, error) {
	g, rep, err := f.Network(ctx, opt)
	if err != nil {
		return nil, nil, nil, err
	}
	n := g.N()
	if !slices.Contains(f.Names(), "group") {
		return g, nil, rep, nil
	}
	lab, err := f.Labels("group")
	if err != nil {
		return nil, nil, nil, err
	}
	if len(lab.Of) != n {
		return nil, nil, nil, &pipeline.ParseError{File: f.name, Err: fmt.Errorf("%w: variable \"group\" has %d rows but \"network\" has %d nodes; both must have one row per node", pipeline.ErrFormat, len(lab.Of), n)}
	}
	return g, lab, rep, nil
}

// Network returns the graph held in the variable `network`, as Graph
// does, without reading `group`: for callers that train on the graph
// alone, whom a label matrix they never use should not stop.
func (f *MATFile) Network(ctx context.Context, opt LoadOptions) (*pipeline.Graph, *LoadReport, error) {
	if err := opt.Validate(); err != nil {
		return nil, nil, err
	}
	v, err := f.matrixVar("network")
	if err != nil {
		return nil, nil, err
	}
	if err := f.checkSize(v); err != nil {
		return nil, nil, err
	}
	n := v.dims[0]
	if v.dims[1] != n {
		return nil, nil, f.varErr(v, "is %d x %d; an adjacency matrix must be square (N x N)", v.dims[0], v.dims[1])
	}
	// At most one entry per stored value.
	src, dst, w := make([]int32, 0, len(v.re)), make([]int32, 0, len(v.re)), make([]float64, 0, len(v.re))
	err = v.entries(func(i, j int, x float64) error {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return f.varErr(v, "has the weight %v at row %d, column %d (1-based); edge weights must be finite and positive (0 means no edge)", x, i+1, j+1)
		}
		src, dst, w = append(src, int32(i)), append(dst, int32(j)), append(w, x)
		if len(src)&(1<<16-1) == 0 {
			return ctx.Err()
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(src) == 0 {
		return nil, nil, &pipeline.ParseError{File: f.name, Err: fmt.Errorf("%w: variable \"network\" has no nonzero entry", pipeline.ErrEmptyGraph)}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	rep := &LoadReport{File: f.name, Format: matFormat, EdgesRead: len(src), Nodes: n, NumericIDs: true,
		Directed: opt.Directed, Weighted: opt.Weighted, KeptSelfLoops: opt.KeepSelfLoops}
	if !opt.Weighted {
		for _, x := range w {
			if x != 1 {
				rep.UnreadWeights++
			}
		}
	}
	if !opt.Directed {
		if rep.Asymmetric, err = asymmetric(ctx, n, src, dst, w, opt.Weighted); err != nil {
			return nil, nil, err
		}
	}
	edge := func(e int) (int32, int32, float64) { return src[e], dst[e], w[e] }
	adj, err := assemble(ctx, f.name, n, len(src), edge, opt, rep)
	if err != nil {
		return nil, nil, err
	}
	return &pipeline.Graph{Adj: adj, IDs: pipeline.IdentityIDs(n), Directed: opt.Directed, Weighted: opt.Weighted}, rep, nil
}

// asymmetric counts the off-diagonal entries (src[e], dst[e]) whose
// transpose is not among them or (when weighted) has another weight; the
// first of duplicate entries counts. It stops within 1,048,576 entries of
// a cancel and returns ctx.Err().
func asymmetric(ctx context.Context, n int, src, dst []int32, w []float64, weighted bool) (int, error) {
	m, err := sparse.NewFromCOO(ctx, n, n, src, dst, w, sparse.DupFirst)
	if err != nil {
		return 0, err // ctx.Err(): the entries are in range and finite
	}
	count, sinceCheck := 0, 0
	for i := 0; i < n; i++ {
		cols, vals := m.Row(i)
		if sinceCheck += len(cols) + 1; sinceCheck >= 1<<20 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			sinceCheck = 0
		}
		for k, j := range cols {
			if int(j) == i {
				continue
			}
			if !m.Has(int(j), i) || (weighted && m.At(int(j), i) != vals[k]) {
				count++
			}
		}
	}
	return count, nil
}

// checkSize refuses a matrix whose dimensions cannot be stored or are
// implausible for its size in the file (a corrupt dimension).
func (f *MATFile) checkSize(v *matVar) error {
	rows, cols := v.dims[0], v.dims[1]
	if limit := min(maxDim(v.elements), math.MaxInt32); rows > limit || cols > limit {
		return f.varErr(v, "is %d x %d, too large for its %d bytes: the file is corrupt; re-save it", rows, cols, v.elements)
	}
	return nil
}

// varErr returns a format error about the variable v.
func (f *MATFile) varErr(v *matVar, format string, args ...any) error {
	return &pipeline.ParseError{File: f.name, Err: fmt.Errorf("%w: variable %q (%s) "+format, append([]any{pipeline.ErrFormat, v.name, v.at}, args...)...)}
}

// Labels returns the variable name, an N x L matrix (sparse or dense, as
// `group` in the DeepWalk and node2vec files), as a multi-label
// assignment: row i carries label l when entry (i, l) is positive (a
// negative entry is an error: ±1 codings would give every row every
// label). Count is
// L, the number of columns, whether or not every label is carried (so
// that F1 averages over the file's labels, as scikit-learn does on the
// indicator matrix).
func (f *MATFile) Labels(name string) (*pipeline.MultiLabels, error) {
	v, err := f.matrixVar(name)
	if err != nil {
		return nil, err
	}
	if err := f.checkSize(v); err != nil {
		return nil, err
	}
	lab := &pipeline.MultiLabels{Of: make([][]int32, v.dims[0]), Count: v.dims[1]}
	err = v.entries(func(i, j int, x float64) error {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return f.varErr(v, "has the value %v at row %d, column %d (1-based); a label entry must be finite (nonzero: the row has the label)", x, i+1, j+1)
		}
		if x < 0 {
			// A ±1 coding would give every row every label.
			return f.varErr(v, "has the value %v at row %d, column %d (1-based); a label entry is 0 (no label) or positive (the label), and a negative one reads as neither: if it is coded ±1, set its negative entries to 0 (scipy: m[m < 0] = 0)", x, i+1, j+1)
		}
		lab.Of[i] = append(lab.Of[i], int32(j))
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, ls := range lab.Of {
		// Column-major order lists each row's labels increasingly; a
		// sparse matrix may repeat an entry.
		lab.Of[i] = slices.Compact(ls)
	}
	return lab, nil
}
