package train

import (
	"math/rand/v2"
	"sort"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// walker samples anchors and random walks on a graph.
//
// Anchors: proportional to weighted out-degree (the code formulation's
// starting mass 80·N·deg(v)/w̄) or uniform over nodes (the paper's
// P0 = diag(80)). A walk step from v moves to a neighbour with probability
// A_vu / deg(v), the row of T = D⁻¹A; a node without out-arcs ends the walk
// (T's row is zero there).
type walker struct {
	adj      *sparse.CSR
	n        int
	uniform  bool      // uniform anchors (paper) or by degree (code)
	weighted bool      // arcs of different weights: use cumulative sums
	cum      []float64 // cumulative weights along Data (weighted only)
	rowCum   []float64 // cumulative weighted degree by row (weighted, degree anchors)
	aaCum    []float64 // Adamic–Adar: cumulative A_vw·h_w·deg_w along Data
	// guide[b] is the row of arc b·len(Indices)/len(guide) (unweighted,
	// degree anchors): anchor starts its search for an arc's row there.
	guide []int32
}

func newWalker(adj *sparse.CSR, uniformAnchors bool) *walker {
	n, _ := adj.Dims()
	w := &walker{adj: adj, n: n, uniform: uniformAnchors}
	// Arcs of one common weight walk as unweighted arcs do: only the
	// weights' ratios matter, and the unweighted draws are cheaper.
	for _, x := range adj.Data {
		if x != adj.Data[0] {
			w.weighted = true
			break
		}
	}
	if !w.weighted && !uniformAnchors {
		w.guide = anchorGuide(adj.Indptr, n)
	}
	if w.weighted {
		w.cum = make([]float64, len(adj.Data))
		w.rowCum = make([]float64, n+1)
		for i := 0; i < n; i++ {
			var s float64
			for p := adj.Indptr[i]; p < adj.Indptr[i+1]; p++ {
				s += adj.Data[p]
				w.cum[p] = s
			}
			w.rowCum[i+1] = w.rowCum[i] + s
		}
	}
	return w
}

// anchor draws a starting node.
func (w *walker) anchor(rng *rand.Rand) int32 {
	if w.uniform {
		return int32(rng.IntN(w.n))
	}
	if w.weighted {
		// Rows of zero weight are never chosen.
		return int32(drawCum(rng, w.rowCum[1:]))
	}
	// Uniform arc, then its row: proportional to out-degree. The row is
	// the last i with Indptr[i] <= e, found from the guide table by a
	// forward scan (a few entries on average) instead of a binary search
	// of Indptr, whose last steps each miss the cache on a large graph.
	return w.arcRow(rng.IntN(len(w.adj.Indices)))
}

// arcRow returns the row of arc e (unweighted, degree anchors).
func (w *walker) arcRow(e int) int32 {
	i := int(w.guide[uint64(e)*uint64(len(w.guide))/uint64(len(w.adj.Indices))])
	for w.adj.Indptr[i+1] <= e {
		i++
	}
	return int32(i)
}

// anchorGuide returns the guide table of rows for arcs: g[b] is the row
// holding arc ⌊b·arcs/len(g)⌋, for len(g) = n buckets (the last i with
// indptr[i] <= that arc). A row without arcs is never any arc's row.
func anchorGuide(indptr []int, n int) []int32 {
	arcs := indptr[n]
	if arcs == 0 {
		return nil
	}
	g := make([]int32, n)
	i := 0
	for b := range g {
		e := int(uint64(b) * uint64(arcs) / uint64(n))
		for indptr[i+1] <= e {
			i++
		}
		g[b] = int32(i)
	}
	return g
}

// step moves one step from v; ok is false when v has no out-arcs.
func (w *walker) step(rng *rand.Rand, v int32) (int32, bool) {
	lo, hi := w.adj.Indptr[v], w.adj.Indptr[v+1]
	if lo == hi {
		return 0, false
	}
	if !w.weighted {
		return w.adj.Indices[lo+rng.IntN(hi-lo)], true
	}
	return w.adj.Indices[lo+drawCum(rng, w.cum[lo:hi])], true
}

// drawCum draws an index i with probability proportional to
// cum[i] − cum[i−1], for cumulative weights cum (non-decreasing, last
// entry positive): the first entry above a uniform draw in [0, last).
// Entries of zero weight are never chosen.
func drawCum(rng *rand.Rand, cum []float64) int {
	x := rng.Float64() * cum[len(cum)-1]
	i := sort.Search(len(cum), func(i int) bool { return cum[i] > x })
	return min(i, len(cum)-1)
}

// ppr draws a node from row v of the PPR context
// Π = Σ_{t≥1} α(1−α)^{t−1} T^t: it walks from v and, after each step,
// stops with probability α and returns the node reached. A node without
// out-arcs ends the walk without a result (T's row is zero there), so ok
// is false with the probability mass that Π's row lacks.
func (w *walker) ppr(rng *rand.Rand, v int32, alpha float64) (int32, bool) {
	cur := v
	for {
		next, ok := w.step(rng, cur)
		if !ok {
			return 0, false
		}
		cur = next
		if rng.Float64() < alpha {
			return cur, true
		}
	}
}

// initAdamicAdar builds the table adamicAdar samples from.
func (w *walker) initAdamicAdar() {
	_, hd, _ := pipeline.AdamicAdarWeights(w.adj)
	w.aaCum = make([]float64, len(w.adj.Data))
	for i := 0; i < w.n; i++ {
		var s float64
		for p := w.adj.Indptr[i]; p < w.adj.Indptr[i+1]; p++ {
			s += w.adj.Data[p] * hd[w.adj.Indices[p]]
			w.aaCum[p] = s
		}
	}
}

// adamicAdar draws a node from row v of the Adamic–Adar context
// S = rownorm(A·H·A): a middle node w with probability ∝ A_vw·h_w·deg_w,
// then a step from w (∝ A_wu), which gives u with probability
// Σ_w A_vw·h_w·A_wu / Σ_w A_vw·h_w·deg_w = S_vu. ok is false when v has no
// path of length 2.
func (w *walker) adamicAdar(rng *rand.Rand, v int32) (int32, bool) {
	lo, hi := w.adj.Indptr[v], w.adj.Indptr[v+1]
	if lo == hi || w.aaCum[hi-1] == 0 {
		return 0, false
	}
	return w.step(rng, w.adj.Indices[lo+drawCum(rng, w.aaCum[lo:hi])])
}

// negative draws a uniform pair (v, u) with A_vu = 0, by rejection. The
// diagonal is included (it is a negative unless it is an arc). Rejection
// takes 1/(1 − nnz/N²) tries on average.
func negative(adj *sparse.CSR, n int, rng *rand.Rand) (int32, int32) {
	for {
		v, u := negativeCandidate(n, rng)
		if !adj.Has(int(v), int(u)) {
			return v, u
		}
	}
}

// negativeCandidate draws one candidate of the rejection sampler: a
// uniform pair of nodes, v first. negative and drawNegatives both draw
// through it, so that they see the same candidates.
func negativeCandidate(n int, rng *rand.Rand) (int32, int32) {
	return int32(rng.IntN(n)), int32(rng.IntN(n))
}

// FitPairs returns the pairs on which a run without train pairs measures
// its fit to the graph: those Run draws with the same seed (up to k arcs
// of g and as many uniform non-edges), so a bucketed run's fit is
// scored on the pairs of the single-machine run's.
func FitPairs(g *pipeline.Graph, k int, seed uint64) (pos, neg []pipeline.Pair) {
	return fitPairs(g, k, pipeline.Stream(seed, pipeline.StreamEval, 0))
}

// fitPairs draws the model-selection pairs of a run without train pairs:
// k arcs of g drawn uniformly (with replacement) and as many uniform
// non-edges. Their AUC
// measures how well the embeddings fit the training graph, which is what
// the train AUC of a split measures too.
func fitPairs(g *pipeline.Graph, k int, rng *rand.Rand) (pos, neg []pipeline.Pair) {
	adj := g.Adj
	nnz := adj.NNZ()
	k = min(k, max(nnz, 1000))
	pos = make([]pipeline.Pair, 0, k)
	for range k {
		p := rng.IntN(nnz)
		v := sort.Search(len(adj.Indptr)-1, func(i int) bool { return adj.Indptr[i+1] > p })
		pos = append(pos, pipeline.Pair{U: int32(v), V: adj.Indices[p]})
	}
	neg = make([]pipeline.Pair, k)
	for i := range neg {
		v, u := negative(adj, g.N(), rng)
		neg[i] = pipeline.Pair{U: v, V: u}
	}
	return pos, neg
}
