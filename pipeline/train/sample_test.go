package train

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// denseContexts returns the PPR and Adamic–Adar context matrices of a as
// rows, applying the core's operators (themselves tested against brute
// force) to the identity.
func denseContexts(t *testing.T, a *sparse.CSR, alpha float64) (ppr, aa [][]float64) {
	t.Helper()
	n, _ := a.Dims()
	eye := make([]float64, n*n)
	for i := 0; i < n; i++ {
		eye[i*n+i] = 1
	}
	rows := func(m []float64) [][]float64 {
		out := make([][]float64, n)
		for v := range out {
			out[v] = m[v*n : v*n+n]
		}
		return out
	}
	p, s := make([]float64, n*n), make([]float64, n*n)
	if err := pipeline.ApplyPPR(context.Background(), p, a, alpha, eye, n, 1); err != nil {
		t.Fatal(err)
	}
	if err := pipeline.ApplyAdamicAdar(context.Background(), s, a, eye, n, 1); err != nil {
		t.Fatal(err)
	}
	return rows(p), rows(s)
}

// TestContextSamplers draws many samples from each row's PPR and
// Adamic–Adar samplers and compares the frequencies (including the
// probability of no result) with the brute-force rows, within 4.5
// standard errors per entry.
func TestContextSamplers(t *testing.T) {
	t.Parallel()
	for _, directed := range []bool{false, true} {
		g, err := pipeline.RMAT(context.Background(), 4, 3, directed, 7) // 16 nodes with skewed degrees
		if err != nil {
			t.Fatal(err)
		}
		a := g.Adj
		n, _ := a.Dims()
		const alpha = 0.3
		ppr, aa := denseContexts(t, a, alpha)
		w := newWalker(a, false)
		w.initAdamicAdar()
		rng := rand.New(rand.NewPCG(1, 2))
		const draws = 20000
		for v := 0; v < n; v++ {
			for _, c := range []struct {
				name string
				row  []float64
				draw func() (int32, bool)
			}{
				{"ppr", ppr[v], func() (int32, bool) { return w.ppr(rng, int32(v), alpha) }},
				{"adamic-adar", aa[v], func() (int32, bool) { return w.adamicAdar(rng, int32(v)) }},
			} {
				count := make([]float64, n+1) // the last entry: no result
				for range draws {
					u, ok := c.draw()
					if !ok {
						u = int32(n)
					}
					count[u]++
				}
				want := append([]float64(nil), c.row...)
				var s float64
				for _, p := range c.row {
					s += p
				}
				want = append(want, math.Max(1-s, 0))
				for u, p := range want {
					got := count[u] / draws
					se := math.Sqrt(p*(1-p)/draws) + 1e-9
					if math.Abs(got-p) > 4.5*se {
						t.Errorf("directed=%v %s row %d: P(%d) sampled %.4f, exact %.4f", directed, c.name, v, u, got, p)
					}
				}
			}
		}
	}
}

// TestSortByRow checks the radix sort of row keys against slices.Sort on
// keys whose low halves increase along the input, for spans of rows that
// take one, two and three passes and the fallbacks.
func TestSortByRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var tmp []uint64
	for _, c := range []struct{ n, base, span int }{{0, 0, 1}, {10, 3, 5}, {300, 7, 1}, {300, 0, 200}, {5000, 1 << 20, 16384}, {5000, 9, 1 << 20}, {3000, 0, 1 << 30}} {
		keys := make([]uint64, c.n)
		for j := range keys {
			keys[j] = uint64(c.base+rng.IntN(c.span))<<32 | uint64(j)
		}
		want := slices.Clone(keys)
		slices.Sort(want)
		sortByRow(keys, &tmp)
		if !slices.Equal(keys, want) {
			t.Errorf("%d keys over %d rows from %d: not slices.Sort's order", c.n, c.span, c.base)
		}
	}
}

// TestDrawNegativesIsNegative checks that the pipelined sampler keeps
// exactly the pairs that negative draws one by one from the same stream,
// on a graph dense enough that about half the candidates are arcs (so
// that rejections fall at every position of its ring).
func TestDrawNegativesIsNegative(t *testing.T) {
	const n = 30
	rng := rand.New(rand.NewPCG(7, 8))
	var src, dst []int32
	for v := range int32(n) {
		for u := range int32(n) {
			if rng.IntN(2) == 0 {
				src, dst = append(src, v), append(dst, u)
			}
		}
	}
	adj, err := sparse.NewFromCOO(t.Context(), n, n, src, dst, nil, sparse.DupSum)
	if err != nil {
		t.Fatal(err)
	}
	tr := &trainer{adj: adj, n: n}
	for _, negs := range []int{0, 1, negAhead - 1, negAhead, 1000} {
		var out shardOut
		if !tr.drawNegatives(context.Background(), &out, rand.New(rand.NewPCG(3, uint64(negs))), negs) {
			t.Fatal("drawNegatives reported a cancellation")
		}
		one := rand.New(rand.NewPCG(3, uint64(negs)))
		if len(out.pairs) != negs {
			t.Fatalf("%d pairs, want %d", len(out.pairs), negs)
		}
		for i, p := range out.pairs {
			v, u := negative(adj, n, one)
			if p.v != v || p.u != u {
				t.Fatalf("negs=%d: pair %d is (%d, %d), negative drew (%d, %d)", negs, i, p.v, p.u, v, u)
			}
		}
	}
}

// TestArcRow checks the guide table's row of every arc against a linear
// scan of Indptr, on graphs with empty rows (leading, inner, trailing),
// one heavy row and more rows than arcs or arcs than rows.
func TestArcRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 40 {
		n := 1 + rng.IntN(60)
		var src, dst []int32
		heavy := rng.IntN(n)
		for v := range int32(n) {
			deg := 0
			switch {
			case int(v) == heavy && trial%2 == 0:
				deg = n
			case rng.IntN(3) > 0:
				deg = rng.IntN(min(5, n+1))
			}
			// Distinct columns: unit weights, so the walker is unweighted.
			for _, u := range rng.Perm(n)[:deg] {
				src, dst = append(src, v), append(dst, int32(u))
			}
		}
		if len(src) == 0 {
			continue
		}
		adj, err := sparse.NewFromCOO(t.Context(), n, n, src, dst, nil, sparse.DupSum)
		if err != nil {
			t.Fatal(err)
		}
		w := newWalker(adj, false)
		if w.weighted {
			t.Fatal("unit weights read as weighted")
		}
		for e := range adj.Indptr[n] {
			want := 0
			for adj.Indptr[want+1] <= e {
				want++
			}
			if got := w.arcRow(e); int(got) != want {
				t.Fatalf("trial %d (n = %d, %d arcs): arc %d in row %d, want %d", trial, n, adj.Indptr[n], e, got, want)
			}
		}
	}
}
