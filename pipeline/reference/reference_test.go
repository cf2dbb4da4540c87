package reference

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// randomGraph returns a random graph of n nodes with about m edges
// (both arcs when undirected), some dangling rows when directed.
func randomGraph(n, m int, directed bool, seed uint64) *sparse.CSR {
	rng := rand.New(rand.NewPCG(seed, 7))
	var src, dst []int32
	for e := 0; e < m; e++ {
		u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
		if u == v {
			continue
		}
		if directed && u == 0 {
			continue // node 0 is dangling
		}
		src, dst = append(src, u), append(dst, v)
		if !directed {
			src, dst = append(src, v), append(dst, u)
		}
	}
	a, err := sparse.NewFromCOO(context.Background(), n, n, src, dst, nil, sparse.DupFirst)
	if err != nil {
		panic(err)
	}
	return a
}

// bruteObjective computes the objective with explicit dense matrix powers
// and plain loops over all (v, u): independent of the model code.
func bruteObjective(adj *sparse.CSR, obj pipeline.ObjectiveConfig, l, r *mat.Dense, q []float64) float64 {
	obj = obj.Resolve()
	a, _ := adj.ToDense()
	n, _ := a.Dims()
	_, half := l.Dims()
	t := mat.NewDense(n, n, nil)
	deg := make([]float64, n)
	// The code formulation counts walks per mean arc weight w̄: the sum of
	// the weights over the number of arcs (1 when unweighted).
	var vol, arcs float64
	for v := 0; v < n; v++ {
		for u := 0; u < n; u++ {
			deg[v] += a.At(v, u)
			if a.At(v, u) != 0 {
				vol, arcs = vol+a.At(v, u), arcs+1
			}
		}
		for u := 0; u < n; u++ {
			if deg[v] > 0 {
				t.Set(v, u, a.At(v, u)/deg[v])
			}
		}
	}
	Q := make([]float64, len(q))
	var z float64
	for k := range q {
		Q[k] = math.Exp(q[k])
		z += Q[k]
	}
	e := mat.NewDense(n, n, nil)
	pow := mat.DenseCopyOf(t)
	for k := 0; k < obj.C; k++ {
		if k > 0 {
			var next mat.Dense
			next.Mul(pow, t)
			pow = &next
		}
		for v := 0; v < n; v++ {
			p0 := obj.WalksPerNode
			if obj.Formulation == pipeline.FormulationCode {
				p0 = obj.WalksPerNode * float64(n) * deg[v] / (vol / arcs)
			}
			for u := 0; u < n; u++ {
				e.Set(v, u, e.At(v, u)+p0*Q[k]/z*pow.At(v, u))
			}
		}
	}
	// Extra context types, in closed form: PPR as αT(I − (1−α)T)⁻¹ and
	// Adamic–Adar by explicit common-neighbour sums.
	var extras []*mat.Dense
	if obj.PPR > 0 {
		var m, inv, p mat.Dense
		m.Scale(-(1 - obj.PPR), t)
		for v := 0; v < n; v++ {
			m.Set(v, v, m.At(v, v)+1)
		}
		if err := inv.Inverse(&m); err != nil {
			panic(err)
		}
		p.Mul(t, &inv)
		p.Scale(obj.PPR, &p)
		extras = append(extras, &p)
	}
	if obj.AdamicAdar {
		s := mat.NewDense(n, n, nil)
		for v := 0; v < n; v++ {
			var row float64
			for u := 0; u < n; u++ {
				var x float64
				for w := 0; w < n; w++ {
					x += a.At(v, w) * a.At(w, u) / math.Log(math.Max(deg[w]/(vol/arcs), 2))
				}
				s.Set(v, u, x)
				row += x
			}
			for u := 0; u < n; u++ {
				if row > 0 {
					s.Set(v, u, s.At(v, u)/row)
				}
			}
		}
		extras = append(extras, s)
	}
	for j, m := range extras {
		k := obj.C + j
		for v := 0; v < n; v++ {
			p0 := obj.WalksPerNode
			if obj.Formulation == pipeline.FormulationCode {
				p0 = obj.WalksPerNode * float64(n) * deg[v] / (vol / arcs)
			}
			for u := 0; u < n; u++ {
				e.Set(v, u, e.At(v, u)+p0*Q[k]/z*m.At(v, u))
			}
		}
	}
	var loss float64
	for v := 0; v < n; v++ {
		for u := 0; u < n; u++ {
			var g float64
			for j := 0; j < half; j++ {
				g += l.At(v, j) * r.At(u, j)
			}
			s := 1 / (1 + math.Exp(-g))
			neg := 0.0
			if a.At(v, u) == 0 {
				neg = 1
			}
			if obj.Formulation == pipeline.FormulationCode {
				eps := 1e-5
				if obj.ExactLogs {
					eps = 0
				}
				loss += (-e.At(v, u)*math.Log(s+eps) - neg*math.Log(1-s+eps)) / float64(n*n)
			} else {
				loss += -e.At(v, u)*math.Log(s) - neg*math.Log(1-s)
			}
		}
	}
	for _, x := range q {
		if obj.Formulation == pipeline.FormulationCode {
			loss += obj.Beta * x * x / float64(len(q))
		} else {
			loss += obj.Beta * x * x
		}
	}
	if obj.Formulation == pipeline.FormulationCode {
		var sl float64
		for v := 0; v < n; v++ {
			for j := 0; j < half; j++ {
				sl += l.At(v, j)*l.At(v, j) + r.At(v, j)*r.At(v, j)
			}
		}
		loss += 1e-6 * sl / float64(n*half)
	}
	return loss
}

func randomParams(n, half, c int, seed uint64) (*mat.Dense, *mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	l := mat.NewDense(n, half, nil)
	r := mat.NewDense(n, half, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < half; j++ {
			l.Set(i, j, rng.NormFloat64()*0.7)
			r.Set(i, j, rng.NormFloat64()*0.7)
		}
	}
	q := make([]float64, c)
	for k := range q {
		q[k] = rng.NormFloat64()
	}
	return l, r, q
}

// float32s returns a's entries, row-major, in float32.
func float32s(a *mat.Dense) []float32 {
	raw := a.RawMatrix()
	out := make([]float32, 0, raw.Rows*raw.Cols)
	for i := 0; i < raw.Rows; i++ {
		for _, x := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			out = append(out, float32(x))
		}
	}
	return out
}

var formulations = []pipeline.Formulation{pipeline.FormulationCode, pipeline.FormulationPaper}

func TestEvaluateMatchesBruteForce(t *testing.T) {
	t.Parallel()
	for _, f := range formulations {
		for _, directed := range []bool{false, true} {
			for _, n := range []int{5, 23, 50, -23} {
				// n < 0: the graph of |n| nodes with weights in [0.05, 20).
				adj := randomGraph(max(n, -n), 3*max(n, -n), directed, uint64(max(n, -n)))
				if n < 0 {
					n = -n
					rng := rand.New(rand.NewPCG(uint64(n), 9))
					for i := range adj.Data {
						adj.Data[i] = 0.05 + 19.95*rng.Float64()
					}
				}
				for _, obj := range []pipeline.ObjectiveConfig{
					{Formulation: f, C: 4, Beta: 0.3},
					{Formulation: f, C: 4, Beta: 0.3, PPR: 0.2},
					{Formulation: f, C: 4, Beta: 0.3, AdamicAdar: true},
					{Formulation: f, C: 3, Beta: 0.3, PPR: 0.5, AdamicAdar: true},
					{Formulation: f, C: 4, Beta: 0.3, ExactLogs: f == pipeline.FormulationCode}, // the code formulation's option
				} {
					l, r, q := randomParams(n, 3, obj.Contexts(), 1)
					val, err := Evaluate(context.Background(), adj, obj, l, r, q)
					if err != nil {
						t.Fatal(err)
					}
					want := bruteObjective(adj, obj, l, r, q)
					// Summation order differs (and PPR's series stops at a tail of
					// 1e-12); relative 1e-10 is far below any modelling error.
					if math.Abs(val.Loss-want) > 1e-10*math.Abs(want) {
						t.Errorf("%s directed=%v n=%d %v: loss %v, brute force %v", f, directed, n, obj.ContextNames(), val.Loss, want)
					}
				}
			}
		}
	}
}

// lossOf returns a function that evaluates the objective at l, r and q
// as they are when it is called.
func lossOf(t *testing.T, adj *sparse.CSR, obj pipeline.ObjectiveConfig, l, r *mat.Dense, q []float64) func() float64 {
	return func() float64 {
		v, err := Evaluate(context.Background(), adj, obj, l, r, q)
		if err != nil {
			t.Fatal(err)
		}
		return v.Loss
	}
}

func TestGradientsFiniteDifference(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, f := range formulations {
		for _, directed := range []bool{false, true} {
			n, half := 9, 2
			adj := randomGraph(n, 20, directed, 5)
			// The code formulation's exact logs on the directed graph.
			obj := pipeline.ObjectiveConfig{Formulation: f, C: 3, Beta: 0.4, PPR: 0.3, AdamicAdar: directed, ExactLogs: directed && f == pipeline.FormulationCode}
			c := obj.Contexts()
			l, r, q := randomParams(n, half, c, 2)
			val, err := Evaluate(ctx, adj, obj, l, r, q)
			if err != nil {
				t.Fatal(err)
			}
			loss := lossOf(t, adj, obj, l, r, q)
			// Central differences: error O(h²) ≈ 1e-10 relative at h = 1e-5.
			const h = 1e-5
			check := func(name string, get func() float64, set func(float64), analytic float64) {
				x := get()
				set(x + h)
				up := loss()
				set(x - h)
				down := loss()
				set(x)
				num := (up - down) / (2 * h)
				if math.Abs(num-analytic) > 1e-6*(1+math.Abs(num)) {
					t.Errorf("%s directed=%v: d/d%s analytic %v, finite difference %v", f, directed, name, analytic, num)
				}
			}
			for i := 0; i < n; i++ {
				for j := 0; j < half; j++ {
					check("L", func() float64 { return l.At(i, j) }, func(x float64) { l.Set(i, j, x) }, val.GradL.At(i, j))
					check("R", func() float64 { return r.At(i, j) }, func(x float64) { r.Set(i, j, x) }, val.GradR.At(i, j))
				}
			}
			for k := 0; k < c; k++ {
				check("q", func() float64 { return q[k] }, func(x float64) { q[k] = x }, val.GradQ[k])
			}
		}
	}
}

// TestFloat32MatchesFloat64 checks the training precision against the
// float64 oracle.
func TestFloat32MatchesFloat64(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n, half := 40, 4
	adj := randomGraph(n, 120, false, 9)
	obj := pipeline.ObjectiveConfig{C: 5}
	l, r, q := randomParams(n, half, 5, 4)
	want, err := Evaluate(ctx, adj, obj, l, r, q)
	if err != nil {
		t.Fatal(err)
	}
	m, err := newModel[float32](ctx, adj, obj, 2)
	if err != nil {
		t.Fatal(err)
	}
	l32, r32 := float32s(l), float32s(r)
	got, err := m.evaluate(ctx, l32, r32, half, q)
	if err != nil {
		t.Fatal(err)
	}
	// float32 rounding of E[D] and the scores: relative 1e-4.
	if math.Abs(got.loss-want.Loss) > 1e-4*math.Abs(want.Loss) {
		t.Errorf("float32 loss %v, float64 %v", got.loss, want.Loss)
	}
	var diff, norm float64
	for i := 0; i < n; i++ {
		for j := 0; j < half; j++ {
			d := float64(got.gl[i*half+j]) - want.GradL.At(i, j)
			diff += d * d
			norm += want.GradL.At(i, j) * want.GradL.At(i, j)
		}
	}
	if math.Sqrt(diff/norm) > 1e-4 {
		t.Errorf("float32 gradient relative error %v", math.Sqrt(diff/norm))
	}
}

// TestWorkersBitwise checks that the objective does not depend on the
// number of goroutines.
func TestWorkersBitwise(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n, half := 200, 4
	adj := randomGraph(n, 800, false, 3)
	l, r, q := randomParams(n, half, 10, 8)
	l32, r32 := float32s(l), float32s(r)
	var first *value[float32]
	for _, w := range []int{1, 2, 5} {
		m, err := newModel[float32](ctx, adj, pipeline.ObjectiveConfig{}, w)
		if err != nil {
			t.Fatal(err)
		}
		v, err := m.evaluate(ctx, l32, r32, half, q)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = v
			continue
		}
		if v.loss != first.loss || v.gq[3] != first.gq[3] {
			t.Errorf("workers=%d: loss %v vs %v", w, v.loss, first.loss)
		}
		for i := range v.gl {
			if v.gl[i] != first.gl[i] {
				t.Fatalf("workers=%d: gradient differs at %d", w, i)
			}
		}
	}
}

// TestEvaluateShapes: parameters of the wrong shape (L or R with another
// number of rows or columns, q with another number of logits than C and
// the extra contexts) are an error wrapping mat.ErrShape, where Evaluate
// panicked.
func TestEvaluateShapes(t *testing.T) {
	adj, err := sparse.NewFromCOO(t.Context(), 3, 3, []int32{0, 1, 1, 2}, []int32{1, 0, 2, 1}, nil, sparse.DupFirst)
	if err != nil {
		t.Fatal(err)
	}
	obj := pipeline.ObjectiveConfig{C: 2}
	ok := func() (*mat.Dense, *mat.Dense, []float64) {
		return mat.NewDense(3, 2, nil), mat.NewDense(3, 2, nil), []float64{0, 0}
	}
	l, r, q := ok()
	if _, err := Evaluate(context.Background(), adj, obj, l, r, q); err != nil {
		t.Fatalf("right shapes: %v", err)
	}
	cases := map[string]func() (*mat.Dense, *mat.Dense, []float64){
		"L rows":   func() (*mat.Dense, *mat.Dense, []float64) { _, r, q := ok(); return mat.NewDense(2, 2, nil), r, q },
		"R rows":   func() (*mat.Dense, *mat.Dense, []float64) { l, _, q := ok(); return l, mat.NewDense(4, 2, nil), q },
		"R width":  func() (*mat.Dense, *mat.Dense, []float64) { l, _, q := ok(); return l, mat.NewDense(3, 1, nil), q },
		"q length": func() (*mat.Dense, *mat.Dense, []float64) { l, r, _ := ok(); return l, r, []float64{0, 0, 0} },
	}
	for name, c := range cases {
		l, r, q := c()
		if _, err := Evaluate(context.Background(), adj, obj, l, r, q); !errors.Is(err, mat.ErrShape) {
			t.Errorf("%s: got %v, want an error wrapping mat.ErrShape", name, err)
		}
	}
}

// TestEvaluatePanels: on a graph of more than panelRows nodes, whose
// products go in panels with gonum's GEMM (and whole with OpenBLAS's),
// the loss matches the brute-force objective and the gradients of rows
// in the first and the last panel their central differences, so a
// panel's offsets, the transposed product's included, are checked
// through Evaluate itself.
func TestEvaluatePanels(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a graph of over a thousand nodes and its brute-force objective")
	}
	ctx := context.Background()
	n, half := panelRows+40, 3
	adj := randomGraph(n, 4*n, true, 11)
	obj := pipeline.ObjectiveConfig{C: 2, Beta: 0.3}
	l, r, q := randomParams(n, half, obj.Contexts(), 4)
	val, err := Evaluate(ctx, adj, obj, l, r, q)
	if err != nil {
		t.Fatal(err)
	}
	if want := bruteObjective(adj, obj, l, r, q); math.Abs(val.Loss-want) > 1e-10*math.Abs(want) {
		t.Errorf("loss %v, brute force %v", val.Loss, want)
	}
	loss := lossOf(t, adj, obj, l, r, q)
	const h = 1e-5
	for _, i := range []int{3, panelRows + 5, n - 1} {
		for _, p := range []struct {
			name string
			m    *mat.Dense
			grad float64
		}{{"L", l, val.GradL.At(i, 1)}, {"R", r, val.GradR.At(i, 1)}} {
			x := p.m.At(i, 1)
			p.m.Set(i, 1, x+h)
			up := loss()
			p.m.Set(i, 1, x-h)
			down := loss()
			p.m.Set(i, 1, x)
			if num := (up - down) / (2 * h); math.Abs(num-p.grad) > 1e-6*(1+math.Abs(num)) {
				t.Errorf("d/d%s[%d][1]: analytic %v, finite difference %v", p.name, i, p.grad, num)
			}
		}
	}
}
