package eval

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"

	"golang.org/x/sync/errgroup"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/internal/kernels"
	"github.com/wys-project/wys/sparse"
)

// Graph reconstruction ranks, for each source node v, every other node u
// by the score of the arc v→u, and asks how well the graph's own arcs come
// first: the measures of SDNE, HOPE and the GEM benchmark.
const (
	// DefaultReconstructionAll is the largest graph whose every row
	// Reconstruction ranks when ReconstructionConfig.Rows is 0.
	DefaultReconstructionAll = 10000
	// DefaultReconstructionRows is the sample of rows it ranks above
	// that size.
	DefaultReconstructionRows = 2048
)

// DefaultPrecisionK are the k of precision@k when none are given.
var DefaultPrecisionK = []int{10, 100, 1000, 10000}

// streamReconstruct is the random stream purpose of the sampled rows.
const streamReconstruct uint64 = 0x7265636f // "reco"

// ReconstructionConfig sets Reconstruction.
type ReconstructionConfig struct {
	// Rows is the number of source nodes ranked: 0 means every node up to
	// DefaultReconstructionAll nodes and DefaultReconstructionRows above;
	// a number below the node count draws that many distinct nodes
	// uniformly (ReconstructionRows).
	Rows int
	// K lists the k of precision@k, each at least 1 (nil:
	// DefaultPrecisionK); a k above the number of ranked pairs is left out.
	K []int
	// Seed draws the sampled rows.
	Seed uint64
	// Workers bounds the goroutines (0: GOMAXPROCS). The result does not
	// depend on it.
	Workers int
}

// ReconstructionResult holds the graph reconstruction measures.
type ReconstructionResult struct {
	Nodes int `json:"nodes"`
	// Rows is the number of source nodes ranked, RowsWithArcs those with
	// at least one arc to another node: MAP is their mean.
	Rows         int `json:"rows"`
	RowsWithArcs int `json:"rows_with_arcs"`
	// Arcs is the number of arcs out of the ranked rows (self-loops
	// aside), Pairs the number of ranked pairs (v, u), u ≠ v.
	Arcs  int64 `json:"arcs"`
	Pairs int64 `json:"pairs"`
	// MAP is the mean over RowsWithArcs of the average precision of a
	// row's ranking (pipeline.AveragePrecision: tied scores enter
	// together, as in scikit-learn's average_precision_score).
	MAP float64 `json:"map"`
	// PrecisionAtK maps k to the share of arcs among the k best-scored
	// of all ranked pairs. Pairs tied with the k-th score count with the
	// share of arcs among them (the mean over every order of the ties).
	PrecisionAtK map[string]float64 `json:"precision_at_k"`
}

// ReconstructionRows returns the source nodes that Reconstruction ranks
// for a graph of n nodes under rows and seed (see
// ReconstructionConfig.Rows), in increasing order.
func ReconstructionRows(n, rows int, seed uint64) []int {
	if rows == 0 {
		rows = n
		if n > DefaultReconstructionAll {
			rows = DefaultReconstructionRows
		}
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	if rows >= n {
		return all
	}
	rng := pipeline.Stream(seed, streamReconstruct, 0)
	for i := range rows { // a partial Fisher–Yates shuffle
		j := i + rng.IntN(n-i)
		all[i], all[j] = all[j], all[i]
	}
	out := all[:rows]
	slices.Sort(out)
	return out
}

// Reconstruction scores how well the embeddings rank the arcs of adj: for
// each ranked row v, every u ≠ v is scored L_v·R_u (half is the width of
// L and R; summed by the trainer's vector kernels, so that the last bits
// may differ from pipeline.ScorePairs's sequential sum), and
// the arcs v→u of adj are the relevant ones. Each row's average precision
// gives MAP; precision@k ranks the pairs of all ranked rows together.
// Scores are computed twice (once to find the k-th best scores, once to
// count arcs around them), so memory stays O(N + max k) per worker.
func Reconstruction(ctx context.Context, adj *sparse.CSR, l, r []float32, half int, cfg ReconstructionConfig) (*ReconstructionResult, error) {
	if err := checkReconstruction(adj, l, r, half, cfg); err != nil {
		return nil, err
	}
	n, _ := adj.Dims()
	ks := cfg.K
	if ks == nil {
		ks = DefaultPrecisionK
	}
	rows := ReconstructionRows(n, cfg.Rows, cfg.Seed)
	res := &ReconstructionResult{Nodes: n, Rows: len(rows), Pairs: int64(len(rows)) * int64(n-1), PrecisionAtK: map[string]float64{}}
	ks = slices.DeleteFunc(slices.Clone(ks), func(k int) bool { return int64(k) > res.Pairs })
	kmax := 0
	if len(ks) > 0 {
		kmax = slices.Max(ks)
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(rows))
	rc := &reconRun{adj: adj, l: l, half: half, rows: rows, ap: make([]float64, len(rows)), arcs: make([]int, len(rows)),
		rRows: make([][]float32, n)}
	for u := range rc.rRows {
		rc.rRows[u] = r[u*half : (u+1)*half]
	}

	// Pass 1: each row's average precision, and the kmax best scores.
	tops := make([][]float32, workers)
	if err := rc.parallel(ctx, workers, func(w int, rs *rowScorer) error {
		h := &topScores{k: kmax}
		err := rc.each(ctx, w, workers, rs, func(i int, s []float32, arc []bool) {
			rc.ap[i] = rowAP(s, rc.rows[i], arc, rc.arcs[i])
			h.addAll(s, rc.rows[i])
		})
		tops[w] = h.s
		return err
	}); err != nil {
		return nil, err
	}
	var sum float64
	for i, a := range rc.arcs {
		res.Arcs += int64(a)
		if a > 0 {
			res.RowsWithArcs++
			sum += rc.ap[i]
		}
	}
	res.MAP = math.NaN()
	if res.RowsWithArcs > 0 {
		res.MAP = sum / float64(res.RowsWithArcs)
	}
	if len(ks) == 0 {
		return res, nil
	}

	// The k-th best score of each k, then pass 2: the pairs above and at it.
	best := slices.Concat(tops...)
	slices.SortFunc(best, func(a, b float32) int { return -cmp.Compare(a, b) })
	counts, err := rc.countAround(ctx, workers, ks, best)
	if err != nil {
		return nil, err
	}
	for j, k := range ks {
		c := counts[j]
		hits := float64(c.arcsAbove) + float64(int64(k)-c.above)*float64(c.arcsAt)/float64(c.at)
		res.PrecisionAtK[strconv.Itoa(k)] = hits / float64(k)
	}
	return res, nil
}

// checkReconstruction reports arguments Reconstruction cannot use.
func checkReconstruction(adj *sparse.CSR, l, r []float32, half int, cfg ReconstructionConfig) error {
	n, cols := adj.Dims()
	if cols != n {
		return fmt.Errorf("eval: reconstruction needs a square adjacency matrix; have %d x %d", n, cols)
	}
	if half < 1 || len(l) != n*half || len(r) != n*half {
		return fmt.Errorf("eval: reconstruction of %d nodes needs L and R of %d x %d; have %d and %d values", n, n, half, len(l), len(r))
	}
	if n < 2 {
		return fmt.Errorf("eval: reconstruction needs at least 2 nodes; the graph has %d", n)
	}
	if cfg.Rows < 0 {
		return fmt.Errorf("eval: reconstruction of %d rows; want 0 (the default) or more", cfg.Rows)
	}
	for _, k := range cfg.K {
		if k < 1 {
			return fmt.Errorf("eval: precision@%d; want k of at least 1", k)
		}
	}
	return nil
}

// countAround counts, for each k of ks, the ranked pairs scoring above
// and at the k-th best score (best holds the best scores in decreasing
// order, at least max(ks) of them), and the arcs among them.
func (rc *reconRun) countAround(ctx context.Context, workers int, ks []int, best []float32) ([]tieCount, error) {
	kth := make([]float32, len(ks))
	for j, k := range ks {
		kth[j] = best[k-1]
	}
	counts := make([][]tieCount, workers)
	if err := rc.parallel(ctx, workers, func(w int, rs *rowScorer) error {
		c := make([]tieCount, len(ks))
		err := rc.each(ctx, w, workers, rs, func(i int, s []float32, arc []bool) {
			v := rc.rows[i]
			for u, x := range s {
				if u == v {
					continue
				}
				for j, t := range kth {
					switch {
					case x > t:
						c[j].above++
						if arc[u] {
							c[j].arcsAbove++
						}
					case x == t:
						c[j].at++
						if arc[u] {
							c[j].arcsAt++
						}
					}
				}
			}
		})
		counts[w] = c
		return err
	}); err != nil {
		return nil, err
	}
	total := make([]tieCount, len(ks))
	for _, wc := range counts {
		for j := range total {
			total[j].above += wc[j].above
			total[j].arcsAbove += wc[j].arcsAbove
			total[j].at += wc[j].at
			total[j].arcsAt += wc[j].arcsAt
		}
	}
	return total, nil
}

// tieCount counts the pairs scoring above and at a threshold, and the
// arcs among them.
type tieCount struct{ above, arcsAbove, at, arcsAt int64 }

// reconRun is the shared, read-only state of one Reconstruction, but for
// ap and arcs, which each row's worker writes at the row's index.
type reconRun struct {
	adj   *sparse.CSR
	l     []float32
	half  int
	rRows [][]float32 // the rows of r
	rows  []int
	ap    []float64
	arcs  []int
}

// rowScorer is a worker's space: a row's scores and its arc marks.
type rowScorer struct {
	s   []float32
	arc []bool
}

// parallel runs fn on workers goroutines, each with its own rowScorer.
func (rc *reconRun) parallel(ctx context.Context, workers int, fn func(w int, rs *rowScorer) error) error {
	g, _ := errgroup.WithContext(ctx)
	n, _ := rc.adj.Dims()
	for w := range workers {
		g.Go(func() error { return fn(w, &rowScorer{s: make([]float32, n), arc: make([]bool, n)}) })
	}
	return g.Wait()
}

// each scores the rows of worker w (a contiguous share of rc.rows) and
// calls fn with the row's index in rc.rows, its scores (u = v included)
// and its arcs marked; a NaN score is an error.
func (rc *reconRun) each(ctx context.Context, w, workers int, rs *rowScorer, fn func(i int, s []float32, arc []bool)) error {
	lo, hi := w*len(rc.rows)/workers, (w+1)*len(rc.rows)/workers
	for i := lo; i < hi; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		v := rc.rows[i]
		kernels.Dots(rs.s, rc.l[v*rc.half:(v+1)*rc.half], rc.rRows)
		for u, x := range rs.s {
			if x != x {
				return fmt.Errorf("eval: the score of node %d to node %d is NaN: the embeddings hold a NaN or an infinity, or values too large for the float32 sums the scores are computed in (3.4e38)", v, u)
			}
		}
		idx, _ := rc.adj.Row(v)
		arcs := 0
		for _, u := range idx {
			if int(u) != v {
				rs.arc[u] = true
				arcs++
			}
		}
		rc.arcs[i] = arcs
		fn(i, rs.s, rs.arc)
		for _, u := range idx {
			rs.arc[u] = false
		}
	}
	return nil
}

// rowAP returns the average precision of one row's ranking of u ≠ v by
// s, arcs (of which there are narcs) being the positives, as
// pipeline.AveragePrecision computes it: for each distinct score t of an
// arc, the share of the arcs scoring t times the precision of all pairs
// scoring at least t. It takes O(N log narcs) instead of a sort of the row.
// It returns NaN for a row without arcs.
func rowAP(s []float32, v int, arc []bool, narcs int) float64 {
	if narcs == 0 {
		return math.NaN()
	}
	pos := make([]float32, 0, narcs)
	for u, x := range s {
		if arc[u] && u != v {
			pos = append(pos, x)
		}
	}
	slices.SortFunc(pos, func(a, b float32) int { return -cmp.Compare(a, b) })
	// The distinct arc scores t_0 > t_1 > …, and how many arcs score each.
	ts, eq := pos[:0:0], []int{}
	for _, x := range pos {
		if len(ts) > 0 && ts[len(ts)-1] == x {
			eq[len(eq)-1]++
			continue
		}
		ts = append(ts, x)
		eq = append(eq, 1)
	}
	// neg[i]: the non-arcs whose score is at least t_i but below t_{i-1}.
	neg := make([]int, len(ts))
	last := ts[len(ts)-1]
	for u, x := range s {
		if u == v || arc[u] || x < last {
			continue
		}
		// The first i with t_i <= x.
		i, _ := slices.BinarySearchFunc(ts, x, func(t, x float32) int { return -cmp.Compare(t, x) })
		neg[i]++
	}
	var ap float64
	posAbove, negAbove := 0, 0
	for i := range ts {
		posAbove += eq[i]
		negAbove += neg[i]
		ap += float64(eq[i]) / float64(narcs) * float64(posAbove) / float64(posAbove+negAbove)
	}
	return ap
}

// topScores keeps the k largest scores seen, as a min-heap.
type topScores struct {
	k int
	s []float32
}

// addAll offers the scores of a row, but the one at v (the node itself).
func (h *topScores) addAll(s []float32, v int) {
	if h.k == 0 {
		return
	}
	for u, x := range s {
		if u == v {
			continue
		}
		if len(h.s) < h.k {
			h.s = append(h.s, x)
			h.up(len(h.s) - 1)
			continue
		}
		if x > h.s[0] {
			h.s[0] = x
			h.down(0)
		}
	}
}

func (h *topScores) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h.s[p] <= h.s[i] {
			return
		}
		h.s[p], h.s[i] = h.s[i], h.s[p]
		i = p
	}
}

func (h *topScores) down(i int) {
	n := len(h.s)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && h.s[c+1] < h.s[c] {
			c++
		}
		if h.s[i] <= h.s[c] {
			return
		}
		h.s[i], h.s[c] = h.s[c], h.s[i]
		i = c
	}
}
