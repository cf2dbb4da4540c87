package graphio

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/wys-project/wys/internal/datasets"
	"github.com/wys-project/wys/pipeline"
)

// BenchmarkLoadEdgeList reports parsing throughput (edge lines per second),
// the bytes allocated per load relative to the CSR's own size
// (alloc/CSR), and the peak live heap during one load, measured with the
// garbage collector at GOGC=1 and sampled every 100µs, relative to the CSR
// (peak/CSR). Inputs: soc-Slashdot0902 (gzip, 948k directed arcs) and a
// generated 1M-edge undirected text list with ids up to 1.6·10⁹, and one
// with ids 0..199,999 (dense, as SNAP's and R-MAT's are).
func BenchmarkLoadEdgeList(b *testing.B) {
	inputs := []struct {
		name     string
		data     func(testing.TB) []byte
		directed bool
	}{
		{"input=soc-Slashdot0902/format=gz/directed=true", func(tb testing.TB) []byte {
			d, err := os.ReadFile(datasets.Path(tb, "soc-Slashdot0902/soc-Slashdot0902.txt.gz"))
			if err != nil {
				tb.Fatal(err)
			}
			return d
		}, true},
		{"input=generated/edges=1M/format=text/directed=false", func(testing.TB) []byte {
			rng := rand.New(rand.NewPCG(1, 1))
			var gen bytes.Buffer
			for e := 0; e < 1_000_000; e++ {
				fmt.Fprintf(&gen, "%d\t%d\n", rng.IntN(200_000)*7919, rng.IntN(200_000)*7919)
			}
			return gen.Bytes()
		}, false},
		{"input=generated/edges=1M/format=text/ids=dense/directed=false", func(testing.TB) []byte {
			rng := rand.New(rand.NewPCG(1, 1))
			var gen bytes.Buffer
			for e := 0; e < 1_000_000; e++ {
				fmt.Fprintf(&gen, "%d\t%d\n", rng.IntN(200_000), rng.IntN(200_000))
			}
			return gen.Bytes()
		}, false},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			data := in.data(b)
			opt := LoadOptions{Directed: in.directed}
			peak, csr := peakHeap(b, func() *pipeline.Graph {
				g, _, err := ReadEdgeList(context.Background(), bytes.NewReader(data), in.name, opt)
				if err != nil {
					b.Fatal(err)
				}
				return g
			})
			var edges int
			var ms0, ms1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms0)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				_, rep, err := ReadEdgeList(context.Background(), bytes.NewReader(data), in.name, opt)
				if err != nil {
					b.Fatal(err)
				}
				edges += rep.EdgesRead
			}
			b.StopTimer()
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(edges)/b.Elapsed().Seconds(), "edges/s")
			b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N)/float64(csr), "alloc/CSR")
			b.ReportMetric(float64(peak)/float64(csr), "peak/CSR")
			b.ReportMetric(float64(csr), "CSR-bytes")
		})
	}
}

// peakHeap runs load once with an aggressive garbage collector and returns
// the largest live-heap growth seen over the baseline, and the CSR size
// of the graph it returned. The input data are part of the baseline.
func peakHeap(b *testing.B, load func() *pipeline.Graph) (peak, csr int64) {
	old := debug.SetGCPercent(1)
	defer debug.SetGCPercent(old)
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := int64(sample[0].Value.Uint64())
	stop := make(chan struct{})
	done := make(chan int64)
	go func() {
		var peak int64
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, int64(s[0].Value.Uint64())-base)
			select {
			case <-stop:
				done <- peak
				return
			case <-t.C:
			}
		}
	}()
	g := load()
	close(stop)
	peak = <-done
	csr = g.Adj.Bytes()
	runtime.KeepAlive(g)
	return peak, csr
}

// BenchmarkLoadMAT reports the time to read POS.mat.gz (gzip, 184,812
// stored entries of a weighted symmetric `network` and a 4,777 x 40
// `group`) into a weighted graph and its labels, in stored entries per
// second.
func BenchmarkLoadMAT(b *testing.B) {
	data, err := os.ReadFile(datasets.Path(b, "POS/POS.mat.gz"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("input=POS/format=gz", func(b *testing.B) {
		var entries int
		b.ReportAllocs()
		for b.Loop() {
			f, err := ReadMAT(context.Background(), bytes.NewReader(data), "POS.mat.gz")
			if err != nil {
				b.Fatal(err)
			}
			_, _, rep, err := f.Graph(context.Background(), LoadOptions{Weighted: true, KeepSelfLoops: true})
			if err != nil {
				b.Fatal(err)
			}
			entries += rep.EdgesRead
		}
		b.ReportMetric(float64(entries)/b.Elapsed().Seconds(), "entries/s")
	})
}
