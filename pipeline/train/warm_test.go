package train

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/internal/ctxtest"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// warmStarted returns a trainer on g with the spectral start of cfg.
func warmStarted(t *testing.T, g *pipeline.Graph, cfg Config) *trainer {
	t.Helper()
	series, err := factorSeries(context.Background(), g, cfg, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	tr := newTrainer(g, cfg)
	if err := tr.warmStart(context.Background(), series); err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestWarmStartCosines checks the warm start against a dense computation
// of its definition. At full rank the spectral factors of the undirected
// series M = Σ_k S^k/C (S = D^{-1/2} A D^{-1/2}) satisfy left·rightᵀ = M
// and ‖left_v‖² = ‖right_v‖² = |M|_vv, with |M| = U|Λ|Uᵀ the matrix
// absolute value of M = UΛUᵀ. Unit rows therefore score
// L_v·R_u = M_vu / sqrt(|M|_vv |M|_uu), computed here from a dense
// eigendecomposition, not through the package lowrank.
func TestWarmStartCosines(t *testing.T) {
	g, err := pipeline.PlantedPartition(24, 3, 0.5, 0.1, 3)
	if err != nil {
		t.Fatal(err)
	}
	n := g.N()
	cfg := Config{Dim: 2 * n, FactorRank: n, Start: StartSpectral, Seed: 1, Workers: 1}.Resolve(n, g.Adj.NNZ())
	tr := warmStarted(t, g, cfg)

	// Dense S, M and |M|.
	s := mat.NewSymDense(n, nil)
	deg := make([]float64, n)
	for v := range n {
		idx, _ := g.Adj.Row(v)
		deg[v] = float64(len(idx))
	}
	for v := range n {
		idx, _ := g.Adj.Row(v)
		for _, u := range idx {
			s.SetSym(v, int(u), 1/math.Sqrt(deg[v]*deg[int(u)]))
		}
	}
	c := cfg.Objective.C
	m := mat.NewDense(n, n, nil)
	pw := mat.DenseCopyOf(s)
	for k := 1; k <= c; k++ {
		if k > 1 {
			pw.Mul(pw, s)
		}
		m.Add(m, pw)
	}
	m.Scale(1/float64(c), m)
	msym := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			msym.SetSym(i, j, (m.At(i, j)+m.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(msym, true) {
		t.Fatal("eigendecomposition failed")
	}
	var u mat.Dense
	eig.VectorsTo(&u)
	lam := eig.Values(nil)
	abs := make([]float64, n) // diagonal of |M|
	for v := range n {
		for i, l := range lam {
			abs[v] += math.Abs(l) * u.At(v, i) * u.At(v, i)
		}
	}

	h := tr.half
	var worst float64
	for v := range n {
		lv := tr.l[v*h : v*h+h]
		var norm float64
		for _, x := range lv {
			norm += float64(x) * float64(x)
		}
		if math.Abs(norm-1) > 1e-5 {
			t.Fatalf("row %d of L has squared norm %g, want 1", v, norm)
		}
		for w := range n {
			rw := tr.r[w*h : w*h+h]
			var got float64
			for i := range lv {
				got += float64(lv[i]) * float64(rw[i])
			}
			want := m.At(v, w) / math.Sqrt(abs[v]*abs[w])
			worst = max(worst, math.Abs(got-want))
		}
	}
	if worst > 1e-4 {
		t.Errorf("warm-start scores differ from M_vu/sqrt(|M|_vv |M|_uu) by up to %g", worst)
	}
}

// TestWarmStartNoDeadColumn: on a 4-cycle and a triangle the series
// Σ_k T^k/C with C even cancels the 4-cycle's eigenvalue −1, so a
// factor column is zero; a column of L and R that starts at zero gets
// no gradient, and must keep the random start instead.
func TestWarmStartNoDeadColumn(t *testing.T) {
	src := []int32{0, 1, 2, 3, 4, 5, 6}
	dst := []int32{1, 2, 3, 0, 5, 6, 4}
	adj, err := sparse.NewFromCOO(t.Context(), 7, 7, append(src, dst...), append(dst, src...), nil, sparse.DupFirst)
	if err != nil {
		t.Fatal(err)
	}
	g := &pipeline.Graph{Adj: adj}
	n := g.N()
	cfg := Config{Dim: 4, Start: StartSpectral, Seed: 1, Workers: 1}.Resolve(n, g.Adj.NNZ())
	tr := warmStarted(t, g, cfg)
	h := tr.half
	for j := range h {
		var l, r float64
		for v := range n {
			l = max(l, math.Abs(float64(tr.l[v*h+j])))
			r = max(r, math.Abs(float64(tr.r[v*h+j])))
		}
		if l < 1e-3 || r < 1e-3 {
			t.Errorf("column %d starts at zero: largest |L| %v, |R| %v", j, l, r)
		}
	}
}

// TestWarmStartCancelled cancels the spectral start at each of its
// checks of the context (after the factors, then every 65,536 rows) and
// requires context.Canceled, with the rows after the check left as the
// random start drew them.
func TestWarmStartCancelled(t *testing.T) {
	g, err := pipeline.RMAT(context.Background(), 17, 4, false, 5) // 131,072 rows: three checks
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Dim: 4, Seed: 1, Start: StartSpectral}.Resolve(g.N(), g.Adj.NNZ())
	series, err := factorSeries(context.Background(), g, cfg, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 3; n++ {
		tr := newTrainer(g, cfg)
		random := slices.Clone(tr.l)
		ctx := &ctxtest.CancelAfter{Context: context.Background(), N: n}
		if err := tr.warmStart(ctx, series); !errors.Is(err, context.Canceled) || ctx.Calls != n {
			t.Fatalf("cancel at check %d: %v after %d checks", n, err, ctx.Calls)
		}
		// Rows from the cancelling check on keep their random start.
		from := max(0, n-2) << 16
		if !slices.Equal(tr.l[from*tr.half:], random[from*tr.half:]) {
			t.Errorf("cancel at check %d: rows from %d were changed", n, from)
		}
	}
}
