package pipeline

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wys-project/wys/sparse"
)

// skewedGraph returns a graph with very unequal degrees (a hub, a chain
// and random arcs), where 1/ln deg and the restart probability matter;
// node n−1 has no out-arcs when directed.
func skewedGraph(n int, directed bool, seed uint64) *sparse.CSR {
	rng := rand.New(rand.NewPCG(seed, 1))
	var src, dst []int32
	add := func(u, v int32) {
		if u == v || (directed && int(u) == n-1) {
			return
		}
		src, dst = append(src, u), append(dst, v)
		if !directed {
			src, dst = append(src, v), append(dst, u)
		}
	}
	for v := 1; v < n; v++ {
		if v%2 == 0 {
			add(0, int32(v))
		}
		add(int32(v-1), int32(v))
	}
	for e := 0; e < n; e++ {
		add(int32(rng.IntN(n)), int32(rng.IntN(n)))
	}
	a, err := sparse.NewFromCOO(context.Background(), n, n, src, dst, nil, sparse.DupFirst)
	if err != nil {
		panic(err)
	}
	return a
}

// bruteContexts returns the PPR and Adamic–Adar matrices with plain loops:
// PPR by summing α(1−α)^{t−1} T^t with dense products until the tail is
// below 1e-15, Adamic–Adar by explicit sums over middle nodes.
func bruteContexts(a *sparse.CSR, alpha float64) (ppr, aa [][]float64) {
	n, _ := a.Dims()
	d, _ := a.ToDense()
	deg := make([]float64, n)
	t := make([][]float64, n)
	for v := range t {
		t[v] = make([]float64, n)
		for u := 0; u < n; u++ {
			deg[v] += d.At(v, u)
		}
		for u := 0; u < n; u++ {
			if deg[v] > 0 {
				t[v][u] = d.At(v, u) / deg[v]
			}
		}
	}
	mul := func(x, y [][]float64) [][]float64 {
		out := make([][]float64, n)
		for i := range out {
			out[i] = make([]float64, n)
			for k := 0; k < n; k++ {
				for j := 0; j < n; j++ {
					out[i][j] += x[i][k] * y[k][j]
				}
			}
		}
		return out
	}
	ppr = make([][]float64, n)
	for v := range ppr {
		ppr[v] = make([]float64, n)
	}
	pow := t
	for w, tail := alpha, 1.0; tail > 1e-15; w, tail = w*(1-alpha), tail*(1-alpha) {
		for v := 0; v < n; v++ {
			for u := 0; u < n; u++ {
				ppr[v][u] += w * pow[v][u]
			}
		}
		pow = mul(pow, t)
	}
	aa = make([][]float64, n)
	for v := range aa {
		aa[v] = make([]float64, n)
		var s float64
		for u := 0; u < n; u++ {
			for w := 0; w < n; w++ {
				aa[v][u] += d.At(v, w) * d.At(w, u) / math.Log(math.Max(deg[w], 2))
			}
			s += aa[v][u]
		}
		for u := 0; u < n && s > 0; u++ {
			aa[v][u] /= s
		}
	}
	return ppr, aa
}

// TestContextOperators checks ApplyPPR and ApplyAdamicAdar on the
// identity against the brute-force matrices.
func TestContextOperators(t *testing.T) {
	t.Parallel()
	for _, directed := range []bool{false, true} {
		a := skewedGraph(17, directed, 3)
		n, _ := a.Dims()
		const alpha = 0.25
		ppr, aa := bruteContexts(a, alpha)
		eye := make([]float64, n*n)
		for v := 0; v < n; v++ {
			eye[v*n+v] = 1
		}
		got := make([]float64, 2*n*n)
		obj := ObjectiveConfig{PPR: alpha, AdamicAdar: true}
		if err := ApplyContexts(context.Background(), got, a, obj, eye, n, 2); err != nil {
			t.Fatal(err)
		}
		for v := 0; v < n; v++ {
			for u := 0; u < n; u++ {
				if d := math.Abs(got[v*n+u] - ppr[v][u]); d > 1e-11 {
					t.Errorf("directed=%v PPR[%d,%d] = %v, brute force %v", directed, v, u, got[v*n+u], ppr[v][u])
				}
				if d := math.Abs(got[n*n+v*n+u] - aa[v][u]); d > 1e-12 {
					t.Errorf("directed=%v AA[%d,%d] = %v, brute force %v", directed, v, u, got[n*n+v*n+u], aa[v][u])
				}
			}
		}
	}
}

// TestApplyPPRAlpha: a restart probability outside (0, 1) is an error,
// where ApplyPPR panicked; dst is left alone.
func TestApplyPPRAlpha(t *testing.T) {
	adj := skewedGraph(8, false, 1)
	x := make([]float64, 8)
	for _, a := range []float64{0, 1, -0.5, 1.5, math.NaN()} {
		dst := make([]float64, 8)
		if err := ApplyPPR(context.Background(), dst, adj, a, x, 1, 1); err == nil {
			t.Errorf("α = %v: no error", a)
		}
	}
}
