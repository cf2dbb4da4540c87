package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
)

// BenchmarkLoadEdgeList reports parsing throughput (edge lines per second)
// and the bytes allocated per run relative to the CSR's own size, on
// soc-Slashdot0902 (gzip, 948k arcs) and on a generated 1M-edge text list.
func BenchmarkLoadEdgeList(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	var gen bytes.Buffer
	for e := 0; e < 1_000_000; e++ {
		fmt.Fprintf(&gen, "%d\t%d\n", rng.IntN(200_000)*7919, rng.IntN(200_000)*7919)
	}
	inputs := []struct {
		name     string
		data     func(testing.TB) []byte
		directed bool
	}{
		{"slashdot-gz", func(tb testing.TB) []byte {
			d, err := os.ReadFile(sharedPath(tb, "soc-Slashdot0902/soc-Slashdot0902.txt.gz"))
			if err != nil {
				tb.Fatal(err)
			}
			return d
		}, true},
		{"generated-1M", func(testing.TB) []byte { return gen.Bytes() }, false},
	}
	for _, in := range inputs {
		b.Run("input="+in.name, func(b *testing.B) {
			data := in.data(b)
			var edges int
			var csrBytes int64
			var ms0, ms1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms0)
			b.ResetTimer()
			for b.Loop() {
				g, rep, err := ReadEdgeList(context.Background(), bytes.NewReader(data), in.name, LoadOptions{Directed: in.directed})
				if err != nil {
					b.Fatal(err)
				}
				edges += rep.EdgesRead
				csrBytes = g.Adj.Bytes()
			}
			b.StopTimer()
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(edges)/b.Elapsed().Seconds(), "edges/s")
			b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N)/float64(csrBytes), "alloc/CSR")
		})
	}
}
