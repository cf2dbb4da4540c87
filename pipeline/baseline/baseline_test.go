package baseline

import (
	"context"
	"errors"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/internal/kernels"
	"github.com/wys-project/wys/sparse"
	"gonum.org/v1/gonum/mat"
)

func TestBaselines(t *testing.T) {
	t.Parallel()
	// An easy graph (4 communities, a wide gap after the 4th eigenvalue)
	// and a crowded one (40 communities of 10: the top 40 eigenvalues of
	// the normalised adjacency crowd below 1, where a few power
	// iterations fail: with RandomizedEigSym's 12 on S + I, the Rayleigh
	// quotients were 1e-3 off).
	for _, tc := range []struct {
		blocks, size, dim int
		pOut, tol         float64
	}{{4, 80, 8, 0.02, 1e-4}, {40, 10, 24, 0.01, 1e-6}} {
		g, err := pipeline.PlantedPartition(tc.blocks*tc.size, tc.blocks, 0.3, tc.pOut, 2)
		if err != nil {
			t.Fatal(err)
		}
		checkSVD(t, g, tc.dim)
		checkEigenmaps(t, g, tc.dim, tc.tol)
	}
}

// checkSVD checks that L Rᵀ is the best rank-dim/2 approximation of A
// (Eckart–Young).
func checkSVD(t *testing.T, g *pipeline.Graph, dim int) {
	t.Helper()
	a, _ := g.Adj.ToDense()
	n, h := g.N(), dim/2
	res, err := Run(context.Background(), g, nil, Config{Method: MethodSVD, Dim: dim, Seed: 1, Workers: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var exact mat.SVD
	exact.Factorize(a, mat.SVDFull)
	sv := exact.Values(nil)
	var tail float64
	for _, s := range sv[h:] {
		tail += s * s
	}
	approx := mat.NewDense(n, n, nil)
	for u := 0; u < n; u++ {
		for v := 0; v < n; v++ {
			approx.Set(u, v, float64(kernels.Dot(res.L[u*res.Half:(u+1)*res.Half], res.R[v*res.Half:(v+1)*res.Half])))
		}
	}
	var diff mat.Dense
	diff.Sub(a, approx)
	got := mat.Norm(&diff, 2)
	// float32 storage: within 0.1% of optimal.
	if got > 1.001*math.Sqrt(tail)+1e-4 {
		t.Errorf("%d nodes: ‖A − LRᵀ‖_F = %v, optimal %v", n, got, math.Sqrt(tail))
	}
}

// checkEigenmaps checks that the columns of the eigenmaps baseline solve
// (D − A) y = λ D y for the smallest non-trivial λ of the normalised
// Laplacian, within tol.
func checkEigenmaps(t *testing.T, g *pipeline.Graph, dim int, tol float64) {
	t.Helper()
	n, h := g.N(), dim/2
	res, err := Run(context.Background(), g, nil, Config{Method: MethodEigenmaps, Dim: dim, Seed: 1, Workers: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := g.Adj.SymNormalize()
	sd, _ := s.ToDense()
	lap := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := -sd.At(i, j)
			if i == j {
				v++
			}
			lap.SetSym(i, j, v)
		}
	}
	var eig mat.EigenSym
	eig.Factorize(lap, false)
	vals := eig.Values(nil)
	sort.Float64s(vals)
	deg := g.Adj.RowSums()
	for j := 0; j < h; j++ {
		y := make([]float64, n)
		for i := range y {
			y[i] = float64(res.L[i*h+j])
		}
		// Rayleigh quotient yᵀ(D − A)y / yᵀDy.
		var num, den float64
		for i := 0; i < n; i++ {
			idx, _ := g.Adj.Row(i)
			for _, k := range idx {
				num += (y[i] - y[k]) * (y[i] - y[k]) / 2
			}
			den += deg[i] * y[i] * y[i]
		}
		if lam := num / den; math.Abs(lam-vals[j+1]) > tol {
			t.Errorf("%d nodes: eigenmap %d: Rayleigh quotient %v, eigenvalue %v", n, j, lam, vals[j+1])
		}
	}
}

// denseNetMF computes NetMF's small-window matrix
// log max(vol/(b·T)·Σ_{r=1..T} P^r·D^{-1}, 1) with dense gonum products,
// on the graph made undirected (the pattern of A + Aᵀ when directed).
func denseNetMF(t *testing.T, g *pipeline.Graph, window int) *mat.Dense {
	t.Helper()
	n := g.N()
	a, err := g.Adj.ToDense()
	if err != nil {
		t.Fatal(err)
	}
	if g.Directed {
		for v := range n {
			for u := range n {
				if a.At(v, u) != 0 || a.At(u, v) != 0 {
					a.Set(v, u, 1)
				}
			}
		}
	}
	deg := make([]float64, n)
	var vol float64
	p := mat.NewDense(n, n, nil)
	for v := range n {
		deg[v] = mat.Sum(a.RowView(v))
		vol += deg[v]
		for u := range n {
			if deg[v] > 0 {
				p.Set(v, u, a.At(v, u)/deg[v])
			}
		}
	}
	sum := mat.NewDense(n, n, nil)
	pw := mat.DenseCopyOf(p)
	for r := 1; r <= window; r++ {
		if r > 1 {
			pw.Mul(pw, p)
		}
		sum.Add(sum, pw)
	}
	m := mat.NewDense(n, n, nil)
	for v := range n {
		for u := range n {
			if deg[u] > 0 {
				m.Set(v, u, math.Log(math.Max(vol/float64(window)*sum.At(v, u)/deg[u], 1)))
			}
		}
	}
	return m
}

// TestNetMF checks NetMF's matrix entry by entry against the dense twin
// and the baseline against Eckart–Young on it (L·Rᵀ within 1% of the
// best rank-d/2 approximation's Frobenius error), on an undirected graph
// and a directed one, and that a graph above the node limit is refused
// before any N x N allocation.
func TestNetMF(t *testing.T) {
	t.Parallel()
	und, err := pipeline.PlantedPartition(300, 4, 0.05, 0.005, 7)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := pipeline.RMAT(context.Background(), 7, 4, true, 3)
	if err != nil {
		t.Fatal(err)
	}
	const d, window = 16, 5
	for _, g := range []*pipeline.Graph{und, dir} {
		res, err := Run(context.Background(), g, nil, Config{Method: MethodNetMF, Dim: d, Window: window, Seed: 3, Workers: 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := denseNetMF(t, g, window)
		got, err := netmfMatrix(context.Background(), g, window, 2)
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		var above int
		for i, x := range m.RawMatrix().Data {
			worst = math.Max(worst, math.Abs(float64(got[i])-x)/math.Max(1, math.Abs(x)))
			if x > 0 {
				above++
			}
		}
		if worst > 1e-5 {
			t.Errorf("directed %v: largest relative error %.3g against the dense twin", g.Directed, worst)
		}
		if above == 0 || above == len(got) {
			t.Errorf("directed %v: %d of %d entries above the clamp: the test does not exercise it", g.Directed, above, len(got))
		}
		var svd mat.SVD
		if !svd.Factorize(m, mat.SVDNone) {
			t.Fatal("dense SVD failed")
		}
		var best float64
		for _, x := range svd.Values(nil)[d/2:] {
			best += x * x
		}
		n, h := g.N(), d/2
		approx := mat.NewDense(n, n, nil)
		for v := range n {
			for u := range n {
				approx.Set(v, u, float64(kernels.Dot(res.L[v*h:(v+1)*h], res.R[u*h:(u+1)*h])))
			}
		}
		approx.Sub(m, approx)
		if got, want := mat.Norm(approx, 2), math.Sqrt(best); got > 1.01*want || want == 0 {
			t.Errorf("directed %v: ‖M − L·Rᵀ‖_F = %.6g, want within 1%% of the optimum %.6g", g.Directed, got, want)
		}
	}
	big, err := pipeline.RMAT(context.Background(), 16, 1, false, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), big, nil, Config{Method: MethodNetMF, Dim: 8}, nil); err == nil || !strings.Contains(err.Error(), "at most 32768 nodes") {
		t.Errorf("a %d-node graph: error %v, want the node limit", big.N(), err)
	}
}

// TestSolverProgress checks the factorize stage's progress: one event per
// iteration, never past its total, the total at most the cap, and, when
// the solver converges (no note), a last event with Done = Total.
func TestSolverProgress(t *testing.T) {
	t.Parallel()
	g, err := pipeline.PlantedPartition(400, 40, 0.3, 0.01, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{MethodSVD, MethodEigenmaps} {
		var evs []pipeline.Event
		var notes int
		rec := pipeline.RecordFunc(func(e pipeline.Event) {
			switch e.Kind {
			case pipeline.Progress:
				evs = append(evs, e)
			case pipeline.Note:
				notes++
			}
		})
		if _, err := Run(context.Background(), g, nil, Config{Method: m, Dim: 24, Seed: 1, Workers: 1}, rec); err != nil {
			t.Fatal(err)
		}
		if len(evs) < 2 {
			t.Fatalf("%s: %d progress events", m, len(evs))
		}
		for i, e := range evs {
			if e.Stage != "factorize" || e.Unit != "iterations" || e.Done != int64(i) || e.Done > e.Total || e.Total > solveMaxIters {
				t.Errorf("%s: event %d: %+v", m, i, e)
			}
		}
		if last := evs[len(evs)-1]; notes == 0 && last.Done != last.Total {
			t.Errorf("%s: converged, but the last event reads %d/%d", m, last.Done, last.Total)
		}
	}
}

// TestConfigValidate checks that each refused field is named as its JSON
// form names it, with the value, for a front end to map to its flag.
func TestConfigValidate(t *testing.T) {
	t.Parallel()
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("zero Config: %v", err)
	}
	for _, tc := range []struct {
		cfg     Config
		setting string
		text    string
	}{
		{Config{Method: "lle"}, "method", `baseline: method = "lle": want svd, eigenmaps, netmf or prone`},
		{Config{Window: -1}, "window", "baseline: window = -1: want a NetMF window of at least 1 (0: 10)"},
		{Config{Dim: 3}, "dim", "baseline: dim = 3: want an even width of at least 2 (d/2 per side)"},
		{Config{Workers: -2}, "workers", "baseline: workers = -2: want at least 1 (0: all cores)"},
	} {
		err := tc.cfg.Validate()
		var se *pipeline.SettingError
		if !errors.As(err, &se) || se.Setting != tc.setting || err.Error() != tc.text {
			t.Errorf("%+v: got %v, want a SettingError of %q: %q", tc.cfg, err, tc.setting, tc.text)
		}
	}
}

// TestDirectedWeightedSymmetrised: eigenmaps and NetMF embed a directed
// weighted graph as the undirected graph A + Aᵀ with its summed weights,
// built here edge by edge, where symmetrise had dropped the weights (the
// run equalled that of the unweighted graph).
func TestDirectedWeightedSymmetrised(t *testing.T) {
	ctx := context.Background()
	const n = 40
	var src, dst []int32
	var w []float64
	sum := map[[2]int32]float64{}
	for v := int32(0); v < n; v++ {
		for _, d := range []int32{1, 3, 7} {
			u := (v + d) % n
			x := float64(1 + (v*d)%5)
			src, dst, w = append(src, v), append(dst, u), append(w, x)
			sum[[2]int32{v, u}] += x
			sum[[2]int32{u, v}] += x
		}
	}
	arcs, err := sparse.NewFromCOO(ctx, n, n, src, dst, w, sparse.DupSum)
	if err != nil {
		t.Fatal(err)
	}
	var su, sv []int32
	var sw []float64
	for p, x := range sum {
		su, sv, sw = append(su, p[0]), append(sv, p[1]), append(sw, x)
	}
	edges, err := sparse.NewFromCOO(ctx, n, n, su, sv, sw, sparse.DupSum)
	if err != nil {
		t.Fatal(err)
	}
	directed := &pipeline.Graph{Adj: arcs, Directed: true, Weighted: true}
	undirected := &pipeline.Graph{Adj: edges, Weighted: true}
	for _, m := range []string{MethodEigenmaps, MethodNetMF} {
		cfg := Config{Method: m, Dim: 8, Seed: 3, Workers: 1}
		a, err := Run(ctx, directed, nil, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Run(ctx, undirected, nil, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range a.L {
			if math.Abs(float64(a.L[i]-b.L[i])) > 1e-5 {
				t.Fatalf("%s: L[%d] %v on the directed graph, %v on A + Aᵀ", m, i, a.L[i], b.L[i])
			}
		}
	}
}
