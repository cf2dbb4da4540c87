package reference

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// BenchmarkGEMM times the three float32 products of one training step at
// the size of ego-Facebook (N ≈ 4000, d/2 = 64) with the BLAS of the build
// (gonum's pure Go by default, OpenBLAS with -tags openblas), on 1 and all
// cores:
//
//	go test -run '^$' -bench GEMM -benchtime 5x ./pipeline/reference
//	go test -tags openblas -run '^$' -bench GEMM -benchtime 5x ./pipeline/reference
func BenchmarkGEMM(b *testing.B) {
	const n, half = 4000, 64
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(x []float32) []float32 {
		for i := range x {
			x[i] = float32(rng.Float64() - 0.5)
		}
		return x
	}
	l := fill(make([]float32, n*half))
	r := fill(make([]float32, n*half))
	rt := make([]float32, n*half)
	transposeTo(rt, r, n, half)
	g := fill(make([]float32, n*n))
	out := make([]float32, n*half)
	products := []struct {
		name string
		run  func()
	}{
		// G = L Rᵀ through an explicit Rᵀ (what evaluate does) and through
		// the transposed operand.
		{"LRt-NN", func() { gemm(false, false, n, n, half, l, half, rt, n, g, n) }},
		{"LRt-NT", func() { gemm(false, true, n, n, half, l, half, r, half, g, n) }},
		// dJ/dL = Γ R and dJ/dR = Γᵀ L.
		{"GR-NN", func() { gemm(false, false, n, half, n, g, n, r, half, out, half) }},
		{"GtL-TN", func() { gemm(true, false, n, half, n, g, n, l, half, out, half) }},
	}
	flops := 2.0 * n * n * half
	for _, procs := range []int{1, runtime.NumCPU()} {
		for _, p := range products {
			b.Run(fmt.Sprintf("blas=%s/op=%s/n=%d/k=%d/procs=%d", BLAS, p.name, n, half, procs), func(b *testing.B) {
				prev := runtime.GOMAXPROCS(procs)
				defer runtime.GOMAXPROCS(prev)
				setBLASThreads(procs)
				defer setBLASThreads(prev)
				for b.Loop() {
					p.run()
				}
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// transposeTo writes into t the half x n transpose of the n x half
// matrix a.
func transposeTo[T Float](t, a []T, n, half int) {
	for i := 0; i < n; i++ {
		for j := 0; j < half; j++ {
			t[j*n+i] = a[i*half+j]
		}
	}
}

// TestPanels: with OpenBLAS, up to wholeNodes nodes a product is one
// range; above it, and always with gonum, ranges of panelRows rows; a
// cancelled context stops before any.
func TestPanels(t *testing.T) {
	t.Parallel()
	var ranges [][2]int
	record := func(lo, hi int) { ranges = append(ranges, [2]int{lo, hi}) }
	want := [2]int{0, wholeNodes}
	if BLAS == "gonum" {
		want = [2]int{0, panelRows}
	}
	if panels(context.Background(), wholeNodes, record); ranges[0] != want || ranges[len(ranges)-1][1] != wholeNodes {
		t.Errorf("BLAS %s, %d nodes: ranges %v, want the first %v", BLAS, wholeNodes, ranges, want)
	}
	ranges = nil
	if panels(context.Background(), wholeNodes+1, record); len(ranges) != (wholeNodes+panelRows)/panelRows || ranges[1] != [2]int{panelRows, 2 * panelRows} || ranges[len(ranges)-1][1] != wholeNodes+1 {
		t.Errorf("%d nodes: ranges %v, want panels of %d rows", wholeNodes+1, ranges, panelRows)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ranges = nil
	if err := panels(ctx, wholeNodes+1, record); !errors.Is(err, context.Canceled) || len(ranges) != 0 {
		t.Errorf("cancelled: error %v after %d panels, want context.Canceled before any", err, len(ranges))
	}
}

// TestPanelsBitwise: the three products of an evaluation computed in
// panels of panelRows rows (as evaluateLoss does with gonum's GEMM, so
// that a cancel stops it between panels) equal, bit for bit, the same
// products computed whole, in float32 and float64, on a size that leaves
// a partial panel: with gonum's GEMM (OpenBLAS's may round a panel
// differently, which panels' doc says).
func TestPanelsBitwise(t *testing.T) {
	t.Parallel()
	if BLAS != "gonum" {
		t.Skipf("BLAS %s: panels may round differently from a whole product", BLAS)
	}
	// Last panels of 300 and 40 rows (the small one may take gonum's
	// serial path), d/2 below and above its 64-wide block.
	for _, size := range [][2]int{{2*panelRows + 300, 24}, {panelRows + 40, 80}} {
		testPanelsBitwise[float32](t, size[0], size[1])
		testPanelsBitwise[float64](t, size[0], size[1])
	}
}

func testPanelsBitwise[T Float](t *testing.T, n, half int) {
	rng := rand.New(rand.NewPCG(3, 4))
	fill := func(size int) []T {
		x := make([]T, size)
		for i := range x {
			x[i] = T(rng.NormFloat64())
		}
		return x
	}
	l, r, gamma := fill(n*half), fill(n*half), fill(n*n)
	type products struct{ g, gl, gr []T }
	whole := products{make([]T, n*n), make([]T, n*half), make([]T, n*half)}
	gemm(false, true, n, n, half, l, half, r, half, whole.g, n)
	gemm(false, false, n, half, n, gamma, n, r, half, whole.gl, half)
	gemm(true, false, n, half, n, gamma, n, l, half, whole.gr, half)
	panel := products{make([]T, n*n), make([]T, n*half), make([]T, n*half)}
	err := panelsOf(context.Background(), n, panelRows, func(lo, hi int) {
		gemm(false, true, hi-lo, n, half, l[lo*half:], half, r, half, panel.g[lo*n:], n)
		gemm(false, false, hi-lo, half, n, gamma[lo*n:], n, r, half, panel.gl[lo*half:], half)
		gemm(true, false, hi-lo, half, n, gamma[lo:], n, l, half, panel.gr[lo*half:], half)
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, pair := range map[string][2][]T{"G = L Rᵀ": {whole.g, panel.g}, "Γ R": {whole.gl, panel.gl}, "Γᵀ L": {whole.gr, panel.gr}} {
		if !slices.Equal(pair[0], pair[1]) {
			t.Errorf("%T, n = %d, d/2 = %d: %s in panels of %d rows differs from the whole product", T(0), n, half, name, panelRows)
		}
	}
}
