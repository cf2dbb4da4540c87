package sparse

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wys-project/wys/internal/datasets"
)

// readSNAP is a minimal reader for the benchmark: a gzip SNAP edge list
// with integer ids, directed, self-loops kept. The real loader lives in
// package pipeline, which sparse must not import.
func readSNAP(tb testing.TB, path string) *CSR {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	ids := map[int64]int32{}
	id := func(s string) int32 {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			tb.Fatal(err)
		}
		r, ok := ids[v]
		if !ok {
			r = int32(len(ids))
			ids[v] = r
		}
		return r
	}
	var src, dst []int32
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		src = append(src, id(f[0]))
		dst = append(dst, id(f[1]))
	}
	m, err := NewFromCOO(tb.Context(), len(ids), len(ids), src, dst, nil, DupFirst)
	if err != nil {
		tb.Fatal(err)
	}
	t, _ := m.RowNormalize()
	return t
}

// rmat returns a seeded R-MAT graph (Graph500 parameters A=0.57, B=0.19,
// C=0.19) with 2^scale nodes and about edgeFactor·2^scale arcs, vertex ids
// randomly permuted so that neighbours are scattered in memory, row-normalised.
func rmat(scale, edgeFactor int, seed uint64) *CSR {
	n := 1 << scale
	m := edgeFactor * n
	rng := rand.New(rand.NewPCG(seed, 0x726d6174))
	perm := rng.Perm(n)
	src := make([]int32, m)
	dst := make([]int32, m)
	for e := 0; e < m; e++ {
		var u, v int
		for l := 0; l < scale; l++ {
			r := rng.Float64()
			switch {
			case r < 0.57:
			case r < 0.76:
				v |= 1 << l
			case r < 0.95:
				u |= 1 << l
			default:
				u |= 1 << l
				v |= 1 << l
			}
		}
		src[e], dst[e] = int32(perm[u]), int32(perm[v])
	}
	a, _ := NewFromCOO(context.Background(), n, n, src, dst, nil, DupFirst)
	t, _ := a.RowNormalize()
	return t
}

var benchGraphs = struct {
	sync.Once
	slashdot, rmat20 *CSR
}{}

func BenchmarkSpMM(b *testing.B) {
	graphs := []struct {
		name string
		get  func(testing.TB) *CSR
	}{
		{"slashdot", func(tb testing.TB) *CSR {
			p := datasets.Path(tb, "soc-Slashdot0902/soc-Slashdot0902.txt.gz")
			if benchGraphs.slashdot == nil {
				benchGraphs.slashdot = readSNAP(tb, p)
			}
			return benchGraphs.slashdot
		}},
		{"rmat-1M", func(testing.TB) *CSR {
			if benchGraphs.rmat20 == nil {
				benchGraphs.rmat20 = rmat(20, 10, 1)
			}
			return benchGraphs.rmat20
		}},
	}
	for _, g := range graphs {
		for _, cols := range []int{64, 256} {
			for _, prec := range []string{"float32", "float64"} {
				for _, workers := range []int{1, 2} {
					name := fmt.Sprintf("graph=%s/cols=%d/type=%s/workers=%d", g.name, cols, prec, workers)
					b.Run(name, func(b *testing.B) {
						m := g.get(b)
						r, c := m.Dims()
						if prec == "float32" {
							benchMul[float32](b, m, r, c, cols, workers)
						} else {
							benchMul[float64](b, m, r, c, cols, workers)
						}
					})
				}
			}
		}
	}
}

func benchMul[T Float](b *testing.B, m *CSR, r, c, cols, workers int) {
	rng := rand.New(rand.NewPCG(2, 2))
	in := make([]T, c*cols)
	for i := range in {
		in[i] = T(rng.Float64())
	}
	out := make([]T, r*cols)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := MulBlockTo(ctx, out, m, in, cols, workers); err != nil {
			b.Fatal(err)
		}
	}
	flops := 2 * float64(m.NNZ()) * float64(cols)
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// benchArcs returns both arcs of each of 4M edges on 1M nodes (scale
// 20), as the loader stores an undirected edge list: uniform random
// edges, whose rows are short, or Graph500 R-MAT edges (A = 0.57,
// B = C = 0.19), whose hubs hold tens of thousands of entries.
func benchArcs(graph string) (n int, src, dst []int32) {
	const scale, m = 20, 1 << 22
	n = 1 << scale
	rng := rand.New(rand.NewPCG(1, 1))
	src, dst = make([]int32, 0, 2*m), make([]int32, 0, 2*m)
	for range m {
		var u, v int32
		if graph == "uniform" {
			u, v = int32(rng.IntN(n)), int32(rng.IntN(n))
		} else {
			for bit := scale - 1; bit >= 0; bit-- {
				switch p := rng.Float64(); {
				case p < 0.19:
					v |= 1 << bit
				case p < 0.38:
					u |= 1 << bit
				case p < 0.43:
					u, v = u|1<<bit, v|1<<bit
				}
			}
		}
		src, dst = append(src, u, v), append(dst, v, u)
	}
	return n, src, dst
}

// BenchmarkNewFromCOO builds the CSR of benchArcs (each row's entries
// arrive out of column order).
func BenchmarkNewFromCOO(b *testing.B) {
	for _, graph := range []string{"uniform", "rmat"} {
		n, src, dst := benchArcs(graph)
		b.Run("graph="+graph, func(b *testing.B) {
			for b.Loop() {
				if _, err := NewFromCOO(b.Context(), n, n, src, dst, nil, DupFirst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIsSymmetric checks the CSR of benchArcs, which is symmetric,
// so that every entry is visited.
func BenchmarkIsSymmetric(b *testing.B) {
	for _, graph := range []string{"uniform", "rmat"} {
		n, src, dst := benchArcs(graph)
		m, err := NewFromCOO(b.Context(), n, n, src, dst, nil, DupFirst)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("graph="+graph, func(b *testing.B) {
			for b.Loop() {
				if !m.IsSymmetric() {
					b.Fatal("not symmetric")
				}
			}
			b.ReportMetric(float64(m.NNZ())*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}
