package baseline

import (
	"context"
	"math"
	"testing"

	"github.com/wys-project/wys/lowrank"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/internal/kernels"
	"github.com/wys-project/wys/sparse"
	"gonum.org/v1/gonum/mat"
)

// TestBesselI checks I_n(0.5) against SciPy's scipy.special.iv.
func TestBesselI(t *testing.T) {
	want := []float64{1.0634833707413236, 0.25789430539089636, 0.031906149177738256, 0.002645111968990286,
		0.00016480554985482356, 8.223171313109265e-06, 3.4212359263825786e-07, 1.2205089791076953e-08,
		3.8107848810317687e-10, 1.057817177529413e-11}
	for n, w := range want {
		if got := besselI(n, 0.5); math.Abs(got-w) > 1e-15*w {
			t.Errorf("I_%d(0.5) = %.17g, want %.17g", n, got, w)
		}
	}
}

// TestProNE checks ProNE's embedding against a dense twin written from
// the authors' code with gonum's dense SVD and products, on a graph given
// as arcs in one direction, with a self-loop and an isolated node (the
// method makes it undirected, unit-weight and loop-free). The embeddings
// are compared through their Gram matrices Y·Yᵀ, which do not depend on
// the signs and rotations an SVD leaves free.
func TestProNE(t *testing.T) {
	t.Parallel()
	pp, err := pipeline.PlantedPartition(90, 3, 0.25, 0.03, 7)
	if err != nil {
		t.Fatal(err)
	}
	// The arcs u < v, a self-loop at 0 and an isolated node 90.
	src, dst := []int32{0}, []int32{0}
	for v := 0; v < pp.N(); v++ {
		idx, _ := pp.Adj.Row(v)
		for _, u := range idx {
			if v < int(u) {
				src, dst = append(src, int32(v)), append(dst, u)
			}
		}
	}
	adj, err := sparse.NewFromCOO(t.Context(), pp.N()+1, pp.N()+1, src, dst, nil, sparse.DupFirst)
	if err != nil {
		t.Fatal(err)
	}
	g := &pipeline.Graph{Adj: adj, IDs: pipeline.IdentityIDs(pp.N() + 1), Directed: true}
	const half = 3
	ctx := context.Background()
	// With F factored exactly (TopSVD, converged), the method is the
	// dense twin's.
	exact := func(f *sparse.CSR) (*lowrank.SVD, error) {
		return lowrank.TopSVD(ctx, lowrank.NewCSROperator(f, 2), lowrank.TopOptions{Options: lowrank.Options{Rank: half, Seed: 1}, Tol: 1e-10, MaxIters: 500})
	}
	emb, err := prone(ctx, g, half, 2, exact, pipeline.NopRecorder{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := denseProNE(t, g, half)
	if worst := gramDiff(emb, want, half); worst > 1e-4 {
		t.Errorf("Y·Yᵀ differs from the dense twin's by up to %.3g", worst)
	}
	// Run factors F as the authors do, with a randomized SVD of 5 power
	// iterations, which on a graph this small nearly converges.
	var progress []pipeline.Event
	rec := pipeline.RecordFunc(func(e pipeline.Event) {
		if e.Kind == pipeline.Progress {
			progress = append(progress, e)
		}
	})
	res, err := Run(ctx, g, nil, Config{Method: MethodProNE, Dim: 2 * half, Seed: 1, Workers: 2}, rec)
	if err != nil {
		t.Fatal(err)
	}
	// One event per product of the randomized SVD (1 + 2·5 + 1), per
	// product with M² of the propagation (9: T_1 … T_9) and one for its
	// last product and the final SVD, each step counted once.
	if n := len(progress); n != 22 || progress[n-1].Done != 22 || progress[n-1].Total != 22 {
		t.Errorf("%d progress events, want 22 ending at 22 of 22: %+v", n, progress)
	}
	for i, e := range progress {
		if e.Done != int64(i+1) || e.Total != 22 || e.Unit != "steps" {
			t.Errorf("event %d: %d of %d %s, want %d of 22 steps", i, e.Done, e.Total, e.Unit, i+1)
		}
	}
	if worst := gramDiff(res.L, want, half); worst > 0.02 {
		t.Errorf("Run: Y·Yᵀ differs from the dense twin's by up to %.3g", worst)
	}
}

// gramDiff returns the largest difference between Y·Yᵀ of emb (rows of
// half) and of want.
func gramDiff(emb []float32, want *mat.Dense, half int) float64 {
	n, _ := want.Dims()
	var worst float64
	for u := 0; u < n; u++ {
		for v := 0; v < n; v++ {
			got := float64(kernels.Dot(emb[u*half:(u+1)*half], emb[v*half:(v+1)*half]))
			w := mat.Dot(want.RowView(u), want.RowView(v))
			worst = math.Max(worst, math.Abs(got-w))
		}
	}
	return worst
}

// denseProNE is ProNE on dense matrices: F from the unit-weight
// undirected adjacency, E = U√S of its top half singular triplets with
// unit rows, the Chebyshev propagation as the authors' chebyshev_gaussian
// writes it, and U√S of the result's SVD with unit rows.
func denseProNE(t *testing.T, g *pipeline.Graph, half int) *mat.Dense {
	t.Helper()
	n := g.N()
	a := mat.NewDense(n, n, nil)
	for v := 0; v < n; v++ {
		idx, _ := g.Adj.Row(v)
		for _, u := range idx {
			if int(u) != v {
				a.Set(v, int(u), 1)
				a.Set(int(u), v, 1)
			}
		}
	}
	deg := make([]float64, n)
	col := make([]float64, n)
	for i := 0; i < n; i++ {
		deg[i] = mat.Sum(a.RowView(i))
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if deg[i] > 0 {
				col[j] += a.At(i, j) / deg[i]
			}
		}
	}
	var total float64
	for j := range col {
		col[j] = math.Pow(col[j], 0.75)
		total += col[j]
	}
	f := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if a.At(i, j) != 0 {
				f.Set(i, j, math.Log(a.At(i, j)/deg[i])-math.Log(col[j]/total))
			}
		}
	}
	e := sqrtUnit(t, f, half)
	at := mat.NewDense(n, n, nil)
	at.Add(a, eye(n))
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		s := mat.Sum(at.RowView(i))
		for j := 0; j < n; j++ {
			m.Set(i, j, -at.At(i, j)/s)
		}
		m.Set(i, i, m.At(i, i)+1-0.2)
	}
	var m2 mat.Dense
	m2.Mul(m, m)
	lx0 := mat.DenseCopyOf(e)
	lx1 := mat.NewDense(n, half, nil)
	lx1.Mul(&m2, e)
	lx1.Scale(0.5, lx1)
	lx1.Sub(lx1, e)
	conv := mat.NewDense(n, half, nil)
	var tmp mat.Dense
	tmp.Scale(scipyIV(0), lx0)
	conv.Add(conv, &tmp)
	tmp.Scale(-2*scipyIV(1), lx1)
	conv.Add(conv, &tmp)
	for i := 2; i < 10; i++ {
		lx2 := mat.NewDense(n, half, nil)
		lx2.Mul(&m2, lx1)
		tmp.Scale(2, lx1)
		lx2.Sub(lx2, &tmp)
		lx2.Sub(lx2, lx0)
		c := 2 * scipyIV(i)
		if i%2 == 1 {
			c = -c
		}
		tmp.Scale(c, lx2)
		conv.Add(conv, &tmp)
		lx0, lx1 = lx1, lx2
	}
	var diff, mm mat.Dense
	diff.Sub(e, conv)
	mm.Mul(at, &diff)
	return sqrtUnit(t, &mm, half)
}

// sqrtUnit returns U√S of x's top k singular triplets, rows scaled to
// unit length.
func sqrtUnit(t *testing.T, x mat.Matrix, k int) *mat.Dense {
	t.Helper()
	var svd mat.SVD
	if !svd.Factorize(x, mat.SVDThin) {
		t.Fatal("dense SVD failed")
	}
	var u mat.Dense
	svd.UTo(&u)
	s := svd.Values(nil)
	n, _ := u.Dims()
	out := mat.NewDense(n, k, nil)
	for i := 0; i < n; i++ {
		var ss float64
		for j := 0; j < k; j++ {
			v := u.At(i, j) * math.Sqrt(s[j])
			out.Set(i, j, v)
			ss += v * v
		}
		if ss > 0 {
			for j := 0; j < k; j++ {
				out.Set(i, j, out.At(i, j)/math.Sqrt(ss))
			}
		}
	}
	return out
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	return m
}

// scipyIV is scipy.special.iv(i, 0.5), ProNE's Chebyshev coefficients
// without their factor 2.
func scipyIV(i int) float64 {
	return []float64{1.0634833707413236, 0.25789430539089636, 0.031906149177738256, 0.002645111968990286,
		0.00016480554985482356, 8.223171313109265e-06, 3.4212359263825786e-07, 1.2205089791076953e-08,
		3.8107848810317687e-10, 1.057817177529413e-11}[i]
}
