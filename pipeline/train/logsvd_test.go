package train

import (
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// denseLogTarget computes M_vu = log max(ρ_v·Σ_k w_k (T^k)_vu / Σ w, 1)
// with dense gonum products, independently of logTarget.
func denseLogTarget(t *testing.T, g *pipeline.Graph, obj pipeline.ObjectiveConfig, w []float64) *mat.Dense {
	t.Helper()
	n := g.N()
	a, err := g.Adj.ToDense()
	if err != nil {
		t.Fatal(err)
	}
	tm := mat.NewDense(n, n, nil)
	deg := make([]float64, n)
	for v := range n {
		deg[v] = mat.Sum(a.RowView(v))
		for u := range n {
			if deg[v] > 0 {
				tm.Set(v, u, a.At(v, u)/deg[v])
			}
		}
	}
	var ws float64
	for _, x := range w {
		ws += x
	}
	e := mat.NewDense(n, n, nil)
	pw := mat.DenseCopyOf(tm)
	for k, wk := range w {
		if k > 0 {
			pw.Mul(pw, tm)
		}
		var term mat.Dense
		term.Scale(wk/ws, pw)
		e.Add(e, &term)
	}
	m := mat.NewDense(n, n, nil)
	for v := range n {
		rho := obj.WalksPerNode
		if obj.Formulation != pipeline.FormulationPaper {
			rho *= float64(n) * deg[v]
		}
		for u := range n {
			m.Set(v, u, math.Log(math.Max(rho*e.At(v, u), 1)))
		}
	}
	return m
}

// TestLogTargetDense checks the log target, on an undirected graph of
// more than one column block and on a directed graph with dangling
// nodes, in both formulations, against the dense twin.
func TestLogTargetDense(t *testing.T) {
	und, err := pipeline.PlantedPartition(300, 4, 0.05, 0.005, 7)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := pipeline.RMAT(context.Background(), 7, 4, true, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		g    *pipeline.Graph
		form pipeline.Formulation
		w    []float64
	}{
		{"undirected code", und, pipeline.FormulationCode, []float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}},
		{"undirected paper", und, pipeline.FormulationPaper, []float64{0.5, 0.3, 0.2}},
		{"directed code", dir, pipeline.FormulationCode, []float64{0.7, 0.2, 0.05, 0.05}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := pipeline.ObjectiveConfig{Formulation: tc.form, C: len(tc.w)}.Resolve()
			got, err := logTarget(context.Background(), tc.g, obj, tc.w, 2)
			if err != nil {
				t.Fatal(err)
			}
			want := denseLogTarget(t, tc.g, obj, tc.w)
			n := tc.g.N()
			var worst float64
			var nonzero int
			for v := range n {
				for u := range n {
					x := want.At(v, u)
					if x > 0 {
						nonzero++
					}
					worst = math.Max(worst, math.Abs(float64(got[v*n+u])-x)/math.Max(1, math.Abs(x)))
				}
			}
			if worst > 1e-5 {
				t.Errorf("largest relative error %.3g against the dense twin, want at most 1e-5", worst)
			}
			if nonzero < n || nonzero == n*n {
				t.Errorf("%d of %d entries above the clamp: the test does not exercise it", nonzero, n*n)
			}
		})
	}
}

// TestLogSVDStart checks the start against Eckart–Young: L·Rᵀ is close
// to the best rank-d/2 approximation of the dense twin's target (from a
// full dense SVD), and it is bitwise the same for 1 and 2 workers. The
// directed graph's target is not symmetric, so L and R swapped fail it
// (an undirected graph's is, in the code formulation: deg(v)·(T^k)_vu is
// symmetric).
func TestLogSVDStart(t *testing.T) {
	und, err := pipeline.PlantedPartition(120, 3, 0.15, 0.02, 5)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := pipeline.RMAT(context.Background(), 7, 6, true, 11)
	if err != nil {
		t.Fatal(err)
	}
	for name, g := range map[string]*pipeline.Graph{"undirected": und, "directed": dir} {
		t.Run(name, func(t *testing.T) { checkLogSVDStart(t, g) })
	}
}

func checkLogSVDStart(t *testing.T, g *pipeline.Graph) {
	n := g.N()
	const d = 16
	var params [2]*Params
	for i, workers := range []int{1, 2} {
		var err error
		params[i], err = InitialParameters(context.Background(), g, Config{Dim: d, Start: StartLogSVD, Seed: 9, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range params[0].L {
		if params[0].L[i] != params[1].L[i] || params[0].R[i] != params[1].R[i] {
			t.Fatalf("entry %d of L or R differs between 1 and 2 workers", i)
		}
	}
	obj := pipeline.ObjectiveConfig{}.Resolve()
	w := make([]float64, obj.C)
	for k := range w {
		w[k] = 1
	}
	m := denseLogTarget(t, g, obj, w)
	var svd mat.SVD
	if !svd.Factorize(m, mat.SVDNone) {
		t.Fatal("dense SVD failed")
	}
	h := d / 2
	var best float64 // ‖M − M_h‖_F² = Σ_{i ≥ h} s_i²
	for _, x := range svd.Values(nil)[h:] {
		best += x * x
	}
	l := mat.NewDense(n, h, nil)
	r := mat.NewDense(n, h, nil)
	for v := range n {
		for j := range h {
			l.Set(v, j, float64(params[0].L[v*h+j]))
			r.Set(v, j, float64(params[0].R[v*h+j]))
		}
	}
	var diff mat.Dense
	diff.Mul(l, r.T())
	diff.Sub(m, &diff)
	got := mat.Norm(&diff, 2) // Frobenius
	if want := math.Sqrt(best); got > 1.01*want {
		t.Errorf("‖M − L·Rᵀ‖_F = %.6g, want within 1%% of the optimum %.6g", got, want)
	}
}

// TestLogSVDStartRefused checks the clear errors: a graph above the node
// limit (before any N x N allocation), the bucketed schedule, and an
// unknown start.
func TestLogSVDStartRefused(t *testing.T) {
	n := DefaultLogSVDNodes + 1
	src, dst := make([]int32, n-1), make([]int32, n-1)
	for i := range src {
		src[i], dst[i] = int32(i), int32(i+1)
	}
	adj, err := sparse.NewFromCOO(t.Context(), n, n, src, dst, nil, sparse.DupSum)
	if err != nil {
		t.Fatal(err)
	}
	g := &pipeline.Graph{Adj: adj, Directed: true}
	_, err = InitialParameters(context.Background(), g, Config{Dim: 8, Start: StartLogSVD})
	if err == nil || !strings.Contains(err.Error(), "at most 32768 nodes") {
		t.Errorf("path of %d nodes: error %v, want one naming the limit of 32768 nodes", n, err)
	}
	// Run refuses it before its memory pre-flight, which a limit of one
	// byte would fail with a message about memory.
	_, err = Run(context.Background(), g, nil, Config{Dim: 8, Start: StartLogSVD, MemoryLimit: 1}, nil)
	if err == nil || !strings.Contains(err.Error(), "at most 32768 nodes") {
		t.Errorf("Run on a path of %d nodes: error %v, want one naming the limit of 32768 nodes", n, err)
	}
	// Within the node limit, a memory refusal names the dense target.
	pp, err := pipeline.PlantedPartition(1500, 3, 0.01, 0.001, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Dim: 8, Start: StartLogSVD}
	cfg.MemoryLimit = cfg.EstimateMemory(pp.N(), pp.Adj.NNZ(), 0) - 1
	_, err = Run(context.Background(), pp, nil, cfg, nil)
	if err == nil || !strings.Contains(err.Error(), "log-SVD start's dense 1500 x 1500 target") || !strings.Contains(err.Error(), "-start spectral") {
		t.Errorf("Run over its memory limit: error %v, want one naming the dense target and -start spectral", err)
	}
	if err := bucketedSupports(Config{Start: StartLogSVD}); err == nil || !strings.Contains(err.Error(), "log-SVD") {
		t.Errorf("bucketed schedule: error %v, want one naming the log-SVD start", err)
	}
	if err := (Config{Dim: 8, Start: "logsvd"}).Validate(); err == nil || !strings.Contains(err.Error(), StartLogSVD) {
		t.Errorf("start \"logsvd\": error %v, want one listing %s", err, StartLogSVD)
	}
}
