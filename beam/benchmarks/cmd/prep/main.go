// Command prep measures the Beam preprocessing (wysbeam.BuildPrep) on
// Prism in-process against the driver-side loading it replaced
// (graphio.LoadEdgeList and pipeline.SplitEdges) on shared SNAP edge
// lists: each file is decompressed to a temporary file, so that the
// pipeline reads it in byte ranges, and the preprocessing's whole graph,
// split and training graph are checked against the loader's bit for bit.
//
//	cd beam && go run ./benchmarks/cmd/prep -data ../../shared/datasets \
//	    -graphs ca-HepTh/CA-HepTh.txt.gz,email-Enron/Email-Enron.txt.gz \
//	    -out ../benchmarks/results/beam-prep.md
//
// The shared flags (-data, -out, -allow-dirty) and the exit statuses are
// those of benchmarks.Harness.
package main

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/wys-project/wys/beam/internal/beamrun"
	"github.com/wys-project/wys/beam/wysbeam"
	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
)

func main() {
	beamrun.SetLogLevel("warn") // Prism's info lines would bury the progress
	beam.Init()
	os.Exit(benchmarks.Main("prep", run))
}

// options are the command's own flags.
type options struct {
	graphs       string
	rangeBytes   int64
	shards       int
	testFraction float64
}

func run(ctx context.Context, h *benchmarks.Harness) error {
	restore, err := beamrun.PrivateTemp() // Prism's launcher files go there
	if err != nil {
		return err
	}
	defer restore()
	o := &options{}
	h.Flags.StringVar(&o.graphs, "graphs", "ca-HepTh/CA-HepTh.txt.gz", "edge lists under -data, comma-separated")
	h.Flags.Int64Var(&o.rangeBytes, "range-bytes", 1<<20, "bytes per read range of the pipeline")
	h.Flags.IntVar(&o.shards, "shards", 8, "CSR shards")
	h.Flags.Float64Var(&o.testFraction, "test-fraction", 0.5, "fraction of edges held out (seed 1)")
	if err := h.Parse(); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "wys-prep-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var b strings.Builder
	b.WriteString(h.Header("The preprocessing as a Beam pipeline (Prism, in-process) against the driver-side loading"))
	fmt.Fprintf(&b, "Each edge list is decompressed first; the pipeline reads it in ranges of %d bytes, writes %d CSR shards and splits with test fraction %g, seed 1. The driver-side loading is `graphio.LoadEdgeList` of the same plain file and `pipeline.SplitEdges`. Equal: the pipeline's ids, CSR, split pairs and training graph are the loader's and SplitEdges' bit for bit.\n\n",
		o.rangeBytes, o.shards, o.testFraction)
	b.WriteString("| edge list | lines | nodes | arcs | ranges | driver: load + split (s) | Prism: pipeline (s) | Prism / driver | equal |\n|---|---|---|---|---|---|---|---|---|\n")
	for i, rel := range strings.Split(o.graphs, ",") {
		line, err := measure(ctx, h, o, filepath.Join(h.Data, rel), filepath.Join(tmp, fmt.Sprint(i)))
		if err != nil {
			return err
		}
		b.WriteString(line)
	}
	return h.WriteResult(b.String())
}

// measure preprocesses one edge list both ways and returns its table row.
func measure(ctx context.Context, h *benchmarks.Harness, o *options, src, dir string) (string, error) {
	plain := filepath.Join(dir, "edges.txt")
	if err := decompress(src, plain); err != nil {
		return "", err
	}
	start := time.Now()
	g, rep, err := graphio.LoadEdgeList(ctx, plain, graphio.LoadOptions{})
	if err != nil {
		return "", err
	}
	want, err := pipeline.SplitEdges(ctx, g, o.testFraction, 1)
	if err != nil {
		return "", err
	}
	driver := time.Since(start).Seconds()
	p := wysbeam.Prep{Input: plain, Dir: filepath.Join(dir, "prep"), Shards: o.shards, RangeBytes: o.rangeBytes, TestFraction: o.testFraction, Seed: 1}
	start = time.Now()
	ranges, err := wysbeam.PlanRanges(ctx, p)
	if err != nil {
		return "", err
	}
	pl, scope := beam.NewPipelineWithRoot()
	wysbeam.BuildPrep(scope, p, ranges)
	if _, err := prism.Execute(ctx, pl); err != nil {
		return "", err
	}
	onPrism := time.Since(start).Seconds()
	equal, err := same(ctx, p, g, want)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h.Stderr, "%s: driver %.2f s, Prism %.2f s, equal %v\n", src, driver, onPrism, equal)
	return fmt.Sprintf("| %s | %d | %d | %d | %d | %.2f | %.2f | %.1f | %v |\n", filepath.Base(src), rep.Lines, g.N(), g.Adj.NNZ(), len(ranges),
		driver, onPrism, onPrism/driver, equal), nil
}

// same compares the preprocessing's outputs with the loader's graph g and
// SplitEdges' split.
func same(ctx context.Context, p wysbeam.Prep, g *pipeline.Graph, want *pipeline.Split) (bool, error) {
	got, err := wysbeam.ReadShards(ctx, p)
	if err != nil {
		return false, err
	}
	s, err := wysbeam.ReadPrep(ctx, p)
	if err != nil {
		return false, err
	}
	tg, err := wysbeam.ReadGraph(ctx, p.GraphPath())
	if err != nil {
		return false, err
	}
	wg, err := want.TrainGraph(ctx)
	if err != nil {
		return false, err
	}
	ok := got.N() == g.N() && slices.Equal(got.Adj.Indptr, g.Adj.Indptr) && slices.Equal(got.Adj.Indices, g.Adj.Indices) &&
		slices.Equal(got.Adj.Data, g.Adj.Data) && slices.Equal(s.Train, want.Train) && slices.Equal(s.Test, want.Test) &&
		slices.Equal(s.TrainNeg, want.TrainNeg) && slices.Equal(s.TestNeg, want.TestNeg) &&
		slices.Equal(tg.Adj.Indptr, wg.Adj.Indptr) && slices.Equal(tg.Adj.Indices, wg.Adj.Indices)
	for i := 0; ok && i < g.N(); i++ {
		ok = got.IDs.Name(i) == g.IDs.Name(i)
	}
	return ok, nil
}

// decompress writes the gzip file src to dst as plain text.
func decompress(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, zr); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
