package pipeline

import (
	"context"
	"fmt"
	"math"

	"github.com/wys-project/wys/sparse"
)

// The extra context types of ObjectiveConfig (PPR and Adamic–Adar) as
// exact sparse operators, for the dense reference (which applies them to
// the identity, block by block) and for tests. The sparse trainer never
// forms them: it samples their rows (see walker.ppr and walker.adamicAdar).

// PPRTolerance is the tail mass (1−α)^t below which ApplyPPR stops adding
// terms: the rows of the result are then exact to this much of max|x|.
const PPRTolerance = 1e-12

// ApplyPPR writes Π·x into dst, with Π = Σ_{t≥1} α(1−α)^{t−1} T^t the
// PPR context of ObjectiveConfig.PPR and T = D⁻¹A the transition matrix of
// adj (zero rows for nodes without out-arcs). x and dst are n x cols,
// row-major, and must not overlap. The series is summed with repeated
// sparse products T·(T^{t−1}x), nnz·cols multiply-adds each, until the
// remaining weight (1−α)^t falls below PPRTolerance: about
// ln(1e-12)/ln(1−α) products (170 for α = 0.15). The result does not depend
// on workers. An α outside (0, 1) is an error.
func ApplyPPR[T sparse.Float](ctx context.Context, dst []T, adj *sparse.CSR, alpha float64, x []T, cols, workers int) error {
	if !(alpha > 0 && alpha < 1) {
		return fmt.Errorf("pipeline: ApplyPPR: restart probability %v outside (0, 1)", alpha)
	}
	tm, _ := adj.RowNormalize()
	n, _ := adj.Dims()
	cur := make([]T, n*cols)
	next := make([]T, n*cols)
	if err := sparse.MulBlockTo(ctx, cur, tm, x, cols, workers); err != nil {
		return err
	}
	for i, v := range cur {
		dst[i] = T(alpha) * v
	}
	w := alpha
	for tail := 1 - alpha; tail >= PPRTolerance; tail *= 1 - alpha {
		w *= 1 - alpha
		if err := sparse.MulBlockTo(ctx, next, tm, cur, cols, workers); err != nil {
			return err
		}
		cur, next = next, cur
		for i, v := range cur {
			dst[i] += T(w) * v
		}
	}
	return nil
}

// AdamicAdarWeights returns h_w = 1/ln(max(deg_w/w̄, 2)), hd_w = h_w·deg_w
// and the row sums s_v = Σ_w A_vw·hd_w of A·H·A, deg the weighted
// out-degree and w̄ the MeanArcWeight (1 when unweighted), so that the
// row-normalised context does not depend on the unit of the weights.
func AdamicAdarWeights(adj *sparse.CSR) (h, hd, s []float64) {
	deg, unit := adj.RowSums(), MeanArcWeight(adj)
	n := len(deg)
	h, hd = make([]float64, n), make([]float64, n)
	for w, d := range deg {
		h[w] = 1 / math.Log(math.Max(d/unit, 2))
		hd[w] = h[w] * d
	}
	s = make([]float64, n)
	for v := 0; v < n; v++ {
		idx, val := adj.Row(v)
		for j, w := range idx {
			s[v] += val[j] * hd[w]
		}
	}
	return h, hd, s
}

// ApplyAdamicAdar writes S·x into dst, with S the row-normalised A·H·A of
// ObjectiveConfig.AdamicAdar (rows without any path of length 2 are zero).
// x and dst are n x cols, row-major, and must not overlap; two sparse
// products.
func ApplyAdamicAdar[T sparse.Float](ctx context.Context, dst []T, adj *sparse.CSR, x []T, cols, workers int) error {
	n, _ := adj.Dims()
	h, _, s := AdamicAdarWeights(adj)
	y := make([]T, n*cols)
	if err := sparse.MulBlockTo(ctx, y, adj, x, cols, workers); err != nil {
		return err
	}
	for w := 0; w < n; w++ {
		row := y[w*cols : (w+1)*cols]
		for j := range row {
			row[j] *= T(h[w])
		}
	}
	if err := sparse.MulBlockTo(ctx, dst, adj, y, cols, workers); err != nil {
		return err
	}
	for v := 0; v < n; v++ {
		inv := 0.0
		if s[v] > 0 {
			inv = 1 / s[v]
		}
		row := dst[v*cols : (v+1)*cols]
		for j := range row {
			row[j] *= T(inv)
		}
	}
	return nil
}

// ApplyContexts writes M_j·x into dst for each extra context type j of obj
// after the C powers (PPR, then Adamic–Adar), one n x cols block per type
// in dst, in the order of ObjectiveConfig.ContextNames.
func ApplyContexts[T sparse.Float](ctx context.Context, dst []T, adj *sparse.CSR, obj ObjectiveConfig, x []T, cols, workers int) error {
	obj = obj.Resolve()
	n, _ := adj.Dims()
	size := n * cols
	j := 0
	if obj.PPR > 0 {
		if err := ApplyPPR(ctx, dst[j*size:(j+1)*size], adj, obj.PPR, x, cols, workers); err != nil {
			return err
		}
		j++
	}
	if obj.AdamicAdar {
		if err := ApplyAdamicAdar(ctx, dst[j*size:(j+1)*size], adj, x, cols, workers); err != nil {
			return err
		}
	}
	return nil
}
