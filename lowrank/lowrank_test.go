package lowrank

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/sparse"
)

type graph struct {
	name     string
	adj      *sparse.CSR
	directed bool
}

func build(n int, src, dst []int32, undirected bool) *sparse.CSR {
	if undirected {
		s2 := append(append([]int32{}, src...), dst...)
		d2 := append(append([]int32{}, dst...), src...)
		src, dst = s2, d2
	}
	a, err := sparse.NewFromCOO(context.Background(), n, n, src, dst, nil, sparse.DupFirst)
	if err != nil {
		panic(err)
	}
	return a
}

// testGraphs: random, ring, star, bipartite, disconnected, and directed
// with dangling nodes.
func testGraphs() []graph {
	var gs []graph
	rng := rand.New(rand.NewPCG(3, 3))
	var src, dst []int32
	for e := 0; e < 160; e++ {
		u, v := int32(rng.IntN(60)), int32(rng.IntN(60))
		if u != v {
			src, dst = append(src, u), append(dst, v)
		}
	}
	gs = append(gs, graph{"random", build(60, src, dst, true), false})
	src, dst = nil, nil
	for i := int32(0); i < 30; i++ {
		src, dst = append(src, i), append(dst, (i+1)%30)
	}
	gs = append(gs, graph{"ring", build(30, src, dst, true), false})
	src, dst = nil, nil
	for i := int32(1); i < 25; i++ {
		src, dst = append(src, 0), append(dst, i)
	}
	gs = append(gs, graph{"star", build(25, src, dst, true), false})
	src, dst = nil, nil
	for i := int32(0); i < 20; i++ {
		for j := int32(20); j < 40; j++ {
			if rng.Float64() < 0.2 {
				src, dst = append(src, i), append(dst, j)
			}
		}
	}
	gs = append(gs, graph{"bipartite", build(40, src, dst, true), false})
	src, dst = nil, nil
	for i := int32(0); i < 15; i++ {
		src, dst = append(src, i), append(dst, (i+1)%15)
		src, dst = append(src, 15+i), append(dst, 15+(i+3)%15)
	}
	gs = append(gs, graph{"disconnected", build(30, src, dst, true), false})
	src, dst = nil, nil
	for e := 0; e < 150; e++ {
		u, v := int32(rng.IntN(50)), int32(rng.IntN(50))
		if u != v && u%7 != 0 { // rows 0, 7, 14, … dangling
			src, dst = append(src, u), append(dst, v)
		}
	}
	gs = append(gs, graph{"directed-dangling", build(50, src, dst, false), true})
	return gs
}

func TestRandomizedSVDNearOptimal(t *testing.T) {
	t.Parallel()
	for _, g := range testGraphs() {
		tm, _ := g.adj.RowNormalize()
		d, _ := tm.ToDense()
		n, _ := d.Dims()
		var exact mat.SVD
		exact.Factorize(d, mat.SVDThin)
		sv := exact.Values(nil)
		for _, r := range []int{5, 10} {
			svd, err := RandomizedSVD(context.Background(), NewCSROperator(tm, 2), Options{Rank: r, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			// Orthonormal factors (tolerance: rounding of the QR).
			for _, f := range []*mat.Dense{svd.U, svd.V} {
				var g mat.Dense
				g.Mul(f.T(), f)
				if !mat.EqualApprox(&g, eye(r), 1e-10) {
					t.Errorf("%s r=%d: factor not orthonormal", "svd", r)
				}
			}
			// Spectral-norm error within 2x of the optimal σ_{r+1}
			// (2 power iterations on these small graphs are near exact).
			approx := mat.NewDense(n, n, nil)
			us := mat.DenseCopyOf(svd.U)
			for j := 0; j < r; j++ {
				for i := 0; i < n; i++ {
					us.Set(i, j, us.At(i, j)*svd.S[j])
				}
			}
			approx.Mul(us, svd.V.T())
			var diff mat.Dense
			diff.Sub(d, approx)
			var ds mat.SVD
			ds.Factorize(&diff, mat.SVDNone)
			errNorm := ds.Values(nil)[0]
			if errNorm > 2*sv[r]+1e-9 {
				t.Errorf("%s r=%d: ‖T − UΣVᵀ‖₂ = %.4g, optimal σ_{r+1} = %.4g", g.name, r, errNorm, sv[r])
			}
			for j := 0; j < r; j++ {
				if math.Abs(svd.S[j]-sv[j]) > 1e-6*math.Max(1, sv[j])+0.05*sv[r] {
					t.Errorf("%s r=%d: σ_%d = %v, exact %v", g.name, r, j, svd.S[j], sv[j])
				}
			}
		}
	}
}

func eye(n int) *mat.Dense {
	d := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		d.Set(i, i, 1)
	}
	return d
}

// TestSeriesMatchesDense checks the factored power series against exact
// dense powers: exact at full rank, and an error that falls with rank.
func TestSeriesMatchesDense(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := []float64{0.3, 0.2, 0.15, 0.1, 0.1, 0.05, 0.05, 0.05}
	for _, g := range testGraphs() {
		n, _ := g.adj.Dims()
		want, err := DensePowerSeries(g.adj, c)
		if err != nil {
			t.Fatal(err)
		}
		rows := make([]int32, n)
		for i := range rows {
			rows[i] = int32(i)
		}
		prev := math.Inf(1)
		for _, r := range []int{n / 4, n / 2, n} {
			for _, exact := range []int{-1, 1, 2} {
				s, err := NewSeries(ctx, g.adj, SeriesOptions{Options: Options{Rank: r, Seed: 2, PowerIters: 3}, C: len(c), Exact: exact, Directed: g.directed})
				if err != nil {
					t.Fatal(err)
				}
				got := mat.NewDense(n, n, nil)
				s.RowsTo(got, c, rows)
				e := relFrobenius(got, want)
				// The dense form by matrix products agrees with the per-pair values.
				viaGemm := mat.NewDense(n, n, nil)
				if err := s.DenseTo(viaGemm, c); err != nil {
					t.Fatal(err)
				}
				if d := relFrobenius(viaGemm, got); d > 1e-10 {
					t.Errorf("%s r=%d exact=%d: DenseTo differs from per-pair values by %.3g", g.name, r, exact, d)
				}
				if r == n && e > 1e-8 {
					t.Errorf("%s full rank, exact=%d: relative error %.3g, want ~0", g.name, exact, e)
				}
				if exact == 1 && r < n {
					if e > prev+1e-9 {
						t.Errorf("%s: error grew from %.3g to %.3g as rank rose to %d", g.name, prev, e, r)
					}
					prev = e
				}
			}
		}
	}
}

func TestPairValuesMatchDense(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := testGraphs()[0]
	n, _ := g.adj.Dims()
	c := []float64{0.5, 0.3, 0.2}
	s, err := NewSeries(ctx, g.adj, SeriesOptions{Options: Options{Rank: n, Seed: 3}, C: 3, Exact: 2})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := DensePowerSeries(g.adj, c)
	var pairs [][2]int32
	for v := 0; v < n; v += 3 {
		for u := 0; u < n; u += 5 {
			pairs = append(pairs, [2]int32{int32(v), int32(u)})
		}
	}
	for _, w := range []int{1, 2} {
		got := make([]float64, len(pairs))
		if err := s.PairValues(ctx, got, c, pairs, w); err != nil {
			t.Fatal(err)
		}
		for i, p := range pairs {
			// Tolerance: rounding in the eigendecomposition.
			if math.Abs(got[i]-want.At(int(p[0]), int(p[1]))) > 1e-9 {
				t.Fatalf("workers=%d pair %v: %v, dense %v", w, p, got[i], want.At(int(p[0]), int(p[1])))
			}
		}
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	g := testGraphs()[1]
	if _, err := RandomizedSVD(context.Background(), NewCSROperator(g.adj, 1), Options{Rank: 31}); !errors.Is(err, ErrRank) {
		t.Errorf("rank > n: %v", err)
	}
	if _, err := RandomizedEigSym(context.Background(), NewCSROperator(g.adj, 1), Options{Rank: 0}); !errors.Is(err, ErrRank) {
		t.Errorf("rank 0: %v", err)
	}
	big, _ := sparse.NewFromCOO(t.Context(), MaxDenseNodes+1, MaxDenseNodes+1, []int32{0}, []int32{1}, nil, sparse.DupFirst)
	if _, err := DensePowerSeries(big, []float64{1}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("dense twin size guard: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RandomizedSVD(ctx, NewCSROperator(testGraphs()[0].adj, 1), Options{Rank: 5}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestDirectedCoresFallback checks that the O(C·r²) path (cores too large
// to precompute) gives the same values as the O(C·r) one.
func TestDirectedCoresFallback(t *testing.T) {
	g := testGraphs()[5] // directed with dangling nodes
	opt := SeriesOptions{Options: Options{Rank: 20, Seed: 4}, C: 6, Directed: true}
	fast, err := NewSeries(context.Background(), g.adj, opt)
	if err != nil {
		t.Fatal(err)
	}
	saved := MaxCoreBytes
	MaxCoreBytes = 0
	slow, err := NewSeries(context.Background(), g.adj, opt)
	MaxCoreBytes = saved
	if err != nil {
		t.Fatal(err)
	}
	if slow.vcores != nil || fast.vcores == nil {
		t.Fatal("paths not exercised")
	}
	a, b := make([]float64, 6), make([]float64, 6)
	for v := int32(0); v < 50; v += 3 {
		for u := int32(0); u < 50; u += 7 {
			fast.PowersTo(a, nil, v, u)
			slow.PowersTo(b, make([]float64, 2*slow.Rank()), v, u)
			for k := range a {
				// Summation order differs: rounding only.
				if math.Abs(a[k]-b[k]) > 1e-12 {
					t.Fatalf("(%d,%d) k=%d: %v vs %v", v, u, k+1, a[k], b[k])
				}
			}
		}
	}
}

// TestSpectralFactors checks that at full rank left·rightᵀ is the dense
// series: Σ_k c_k S^k (S = D^{-1/2} A D^{-1/2}) for undirected graphs and
// Σ_k c_k T^k for directed ones, both from dense matrix powers.
func TestSpectralFactors(t *testing.T) {
	t.Parallel()
	c := []float64{0.4, 0.3, 0.2, 0.1}
	for _, g := range testGraphs() {
		n, _ := g.adj.Dims()
		s, err := NewSeries(context.Background(), g.adj, SeriesOptions{Options: Options{Rank: n, Seed: 4, PowerIters: 3}, C: len(c), Directed: g.directed})
		if err != nil {
			t.Fatal(err)
		}
		left, right, err := s.Spectral(c)
		if err != nil {
			t.Fatal(err)
		}
		var got mat.Dense
		got.Mul(left, right.T())
		a, _ := g.adj.ToDense()
		base := mat.NewDense(n, n, nil)
		for v := 0; v < n; v++ {
			var dv float64
			for u := 0; u < n; u++ {
				dv += a.At(v, u)
			}
			for u := 0; u < n; u++ {
				if dv == 0 {
					continue
				}
				if g.directed {
					base.Set(v, u, a.At(v, u)/dv)
				} else {
					var du float64
					for w := 0; w < n; w++ {
						du += a.At(u, w)
					}
					base.Set(v, u, a.At(v, u)/math.Sqrt(dv*du))
				}
			}
		}
		want := mat.NewDense(n, n, nil)
		pow := mat.DenseCopyOf(base)
		for k, ck := range c {
			if k > 0 {
				var next mat.Dense
				next.Mul(pow, base)
				pow = &next
			}
			var t mat.Dense
			t.Scale(ck, pow)
			want.Add(want, &t)
		}
		if e := relFrobenius(&got, want); e > 1e-8 {
			t.Errorf("%s: left·rightᵀ differs from the dense series by %.3g", g.name, e)
		}
	}
}

// TestSeriesBytes counts what each series holds by hand: U, Λ and √deg
// (undirected); U, V, C cores of r x r and a table of n x r for each
// power above Exact (directed), and no tables when they would pass
// MaxCoreBytes. It sets MaxCoreBytes, so it does not run in parallel.
func TestSeriesBytes(t *testing.T) {
	ctx := context.Background()
	const c, r = 5, 4
	defer func(m int64) { MaxCoreBytes = m }(MaxCoreBytes)
	for _, g := range testGraphs() {
		n, _ := g.adj.Dims()
		for _, exact := range []int{0, 2, 3} {
			tables := exact < 3
			MaxCoreBytes = 2 << 30
			if !tables {
				exact, MaxCoreBytes = 2, int64(c*n*r*8-1)
			}
			s, err := NewSeries(ctx, g.adj, SeriesOptions{Options: Options{Rank: r, Seed: 1}, C: c, Exact: exact, Directed: g.directed})
			if err != nil {
				t.Fatal(err)
			}
			want := int64(n*r+r+n) * 8
			if g.directed {
				want = int64(2*n*r+c*r*r) * 8
				if tables {
					want += int64((c-s.Exact)*n*r) * 8
				}
			}
			if got := s.Bytes(); got != want {
				t.Errorf("%s exact=%d: Bytes %d, counted %d", g.name, exact, got, want)
			}
		}
	}
}

// TestConvergedSeries: with Converged, the factored series of a clustered
// graph (four dense blocks: S's top four eigenvalues crowd near 1) and of
// a bipartite one (two dense bipartite blocks: ±1 and ±0.9 or so) is the
// series of S's exact r eigenpairs of largest magnitude, from gonum's
// dense EigenSym, and keeps T^k's row sums of 1; a directed series at full
// rank is exact.
func TestConvergedSeries(t *testing.T) {
	ctx := context.Background()
	const n, blocks, r = 120, 4, 4
	rng := rand.New(rand.NewPCG(5, 5))
	var src, dst, bsrc, bdst []int32
	for u := int32(0); u < n; u++ {
		for v := u + 1; v < n; v++ {
			p := 0.01
			if u/(n/blocks) == v/(n/blocks) {
				p = 0.4
			}
			if rng.Float64() < p {
				src, dst = append(src, u), append(dst, v)
			}
			// Bipartite: even and odd nodes, in two halves joined weakly.
			p = 0.01
			if u/(n/2) == v/(n/2) {
				p = 0.4
			}
			if (u+v)%2 == 1 && rng.Float64() < p {
				bsrc, bdst = append(bsrc, u), append(bdst, v)
			}
		}
	}
	c := []float64{0.3, 0.25, 0.2, 0.15, 0.1}
	for _, g := range []struct {
		name string
		adj  *sparse.CSR
	}{{"clustered", build(n, src, dst, true)}, {"bipartite", build(n, bsrc, bdst, true)}} {
		s, err := NewSeries(ctx, g.adj, SeriesOptions{Options: Options{Rank: r, Seed: 1}, C: len(c), Exact: -1, Converged: true})
		if err != nil {
			t.Fatal(err)
		}
		if s.Residual > ConvergedTol {
			t.Errorf("%s: residual %.3g, above %g", g.name, s.Residual, ConvergedTol)
		}
		got := mat.NewDense(n, n, nil)
		if err := s.DenseTo(got, c); err != nil {
			t.Fatal(err)
		}
		want, vals := topMagnitudeSeries(t, g.adj, c, r)
		if e := relFrobenius(got, want); e > 1e-6 {
			t.Errorf("%s: converged rank-%d series, relative error %.3g against the exact eigenpairs of largest magnitude (%.4f)", g.name, r, e, vals)
		}
		// Σ_k c_k T^k has row sums Σ c_k = 1; the eigenvalue 1 carries them.
		for v := range n {
			if sum := mat.Sum(got.RowView(v)); math.Abs(sum-1) > 1e-6 {
				t.Fatalf("%s: row %d of the converged series sums to %.8f, want 1", g.name, v, sum)
			}
		}
	}
	for _, g := range testGraphs() {
		if !g.directed {
			continue
		}
		gn, _ := g.adj.Dims()
		want, err := DensePowerSeries(g.adj, c)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewSeries(ctx, g.adj, SeriesOptions{Options: Options{Rank: gn, Seed: 1}, C: len(c), Exact: -1, Directed: true, Converged: true})
		if err != nil {
			t.Fatal(err)
		}
		got := mat.NewDense(gn, gn, nil)
		if err := s.DenseTo(got, c); err != nil {
			t.Fatal(err)
		}
		if e := relFrobenius(got, want); e > 1e-6 {
			t.Errorf("%s: converged full-rank series, relative error %.3g", g.name, e)
		}
	}
}

// topMagnitudeSeries returns the dense D^{-1/2} U f(Λ) Uᵀ D^{1/2},
// f(λ) = Σ c_k λ^k, over the r eigenpairs of largest magnitude of
// S = D^{-1/2} A D^{-1/2} (gonum's EigenSym of the dense S), and their
// eigenvalues.
func topMagnitudeSeries(t *testing.T, adj *sparse.CSR, c []float64, r int) (*mat.Dense, []float64) {
	t.Helper()
	n, _ := adj.Dims()
	deg := make([]float64, n)
	for v := range n {
		idx, _ := adj.Row(v)
		deg[v] = float64(len(idx))
	}
	sym := mat.NewSymDense(n, nil)
	for v := range n {
		idx, _ := adj.Row(v)
		for _, u := range idx {
			sym.SetSym(v, int(u), 1/math.Sqrt(deg[v]*deg[int(u)]))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		t.Fatal("EigenSym failed")
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return math.Abs(vals[order[a]]) > math.Abs(vals[order[b]]) })
	want := mat.NewDense(n, n, nil)
	var kept []float64
	for _, j := range order[:r] {
		kept = append(kept, vals[j])
		f := 0.0
		for k := range c {
			f += c[k] * math.Pow(vals[j], float64(k+1))
		}
		for v := range n {
			for u := range n {
				want.Set(v, u, want.At(v, u)+f*vecs.At(v, j)*vecs.At(u, j)*math.Sqrt(deg[u]/deg[v]))
			}
		}
	}
	return want, kept
}
