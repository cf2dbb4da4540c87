// Command kernels measures the three kernels with 1 and 2 workers in one
// run and writes a Markdown table: the parallel CSR x dense product
// (SpMM), the randomized factorization of the transition matrix, and the
// sparse trainer's throughput in positive pairs per second, next to gensim
// word2vec's skip-gram rate on DeepWalk walks of the same graph (when
// python3 with gensim is available: apt-get install python3-gensim).
//
//	go run ./benchmarks/cmd/kernels -out benchmarks/results/kernels.md
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/lowrank"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/train"
	"github.com/wys-project/wys/sparse"
)

// It is longer than 80 lines because it predates the shared benchmark
// harness (flags, signals, results header), which is still to come.
func main() {
	data := flag.String("data", "../shared/datasets", "folder holding the datasets")
	spmmGraph := flag.String("spmm-graph", "soc-Slashdot0902/soc-Slashdot0902.txt.gz", "edge list under -data for SpMM and the factorization")
	cols := flag.Int("cols", 64, "SpMM: columns of the dense block")
	rank := flag.Int("rank", 64, "factorization rank")
	split := flag.String("split", "ca-HepTh", "released split under -data for the trainer and gensim")
	epochs := flag.Float64("epochs", 40, "trainer epochs per measurement")
	python := flag.String("python", "/usr/bin/python3", "python3 with gensim for the word2vec comparison (empty: skip)")
	repeats := flag.Int("repeats", 5, "SpMM repetitions (the median is reported)")
	out := flag.String("out", "", "write the Markdown table here")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "kernels:", err)
		os.Exit(1)
	}
	workers := []int{1, 2}
	type line struct {
		kernel, setting, unit string
		vals                  []float64
	}
	var lines []line

	// SpMM and factorization on a SNAP graph, as arcs.
	g, _, err := graphio.LoadEdgeList(ctx, filepath.Join(*data, *spmmGraph), graphio.LoadOptions{Directed: true})
	if err != nil {
		fail(err)
	}
	n, _ := g.Adj.Dims()
	name := strings.Split(*spmmGraph, "/")[0]
	x := make([]float32, n**cols)
	for i := range x {
		x[i] = float32(i%7) - 3
	}
	y := make([]float32, n**cols)
	l := line{kernel: "SpMM (CSR x dense, float32)", setting: fmt.Sprintf("%s: %d nodes, %d arcs, %d columns", name, n, g.Adj.NNZ(), *cols), unit: "GFLOP/s"}
	for _, w := range workers {
		var ts []float64
		for range *repeats {
			t := time.Now()
			if err := sparse.MulBlockTo(ctx, y, g.Adj, x, *cols, w); err != nil {
				fail(err)
			}
			ts = append(ts, time.Since(t).Seconds())
		}
		slices.Sort(ts)
		l.vals = append(l.vals, 2*float64(g.Adj.NNZ())*float64(*cols)/ts[len(ts)/2]/1e9)
		fmt.Fprintf(os.Stderr, "SpMM workers=%d: %.2f GFLOP/s\n", w, l.vals[len(l.vals)-1])
	}
	lines = append(lines, l)
	l = line{kernel: "factorization (randomized SVD of T, C = 10 cores)", setting: fmt.Sprintf("%s, rank %d", name, *rank), unit: "s"}
	for _, w := range workers {
		t := time.Now()
		if _, err := lowrank.NewSeries(ctx, g.Adj, lowrank.SeriesOptions{Options: lowrank.Options{Rank: *rank, Seed: 1}, C: 10, Directed: true, Workers: w}); err != nil {
			fail(err)
		}
		l.vals = append(l.vals, time.Since(t).Seconds())
		fmt.Fprintf(os.Stderr, "factorization workers=%d: %.1f s\n", w, l.vals[len(l.vals)-1])
	}
	lines = append(lines, l)
	g = nil

	// Trainer throughput on a released split.
	sp, err := graphio.LoadSplitDir(ctx, filepath.Join(*data, *split, "asymproj"), false)
	if err != nil {
		fail(err)
	}
	tg, err := sp.TrainGraph()
	if err != nil {
		fail(err)
	}
	for _, neg := range []int{1, 5} {
		l := line{kernel: "sparse trainer (d = 128, C = 10)", setting: fmt.Sprintf("%s, %d negative(s) per positive pair", *split, neg), unit: "positive pairs/s"}
		for _, w := range workers {
			cfg := train.Config{Epochs: *epochs, Negatives: neg, Workers: w, Seed: 1, EvalEvery: *epochs}
			res, err := train.Run(ctx, tg, nil, cfg, nil)
			if err != nil {
				fail(err)
			}
			l.vals = append(l.vals, res.Stats.PairsPerSecond)
			fmt.Fprintf(os.Stderr, "trainer negatives=%d workers=%d: %.2fM pairs/s\n", neg, w, res.Stats.PairsPerSecond/1e6)
		}
		lines = append(lines, l)
	}
	gensimNote := "gensim: not measured (no -python)"
	if *python != "" {
		vals, version, err := gensimRates(ctx, *python, tg, workers)
		if err != nil {
			gensimNote = "gensim: not measured (" + err.Error() + ")"
			fmt.Fprintln(os.Stderr, "kernels:", gensimNote)
		} else {
			gensimNote = "gensim " + version + ": `benchmarks/gensim/w2v_rate.py` (skip-gram, 5 negatives, d = 128, window 10, no subsampling, one epoch over 10 DeepWalk walks of length 40 per node of the same training graph; pairs are the expected (centre, context) pairs of gensim's shrunk window; train() time only)"
			lines = append(lines, line{kernel: "gensim word2vec skip-gram", setting: *split + ", 5 negatives per positive pair", unit: "positive pairs/s", vals: vals})
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "# Kernels with 1 and 2 workers\n\n%s\n\nCommand: `go run ./benchmarks/cmd/kernels %s`\n\n", benchmarks.MachineLine(), strings.Join(os.Args[1:], " "))
	fmt.Fprintf(&b, "SpMM: median of %d products y = A·x, GFLOP/s = 2·nnz·columns / time. Factorization: lowrank.NewSeries (randomized SVD with 2 power iterations, 10 oversampling columns, then the C cores), wall time. Trainer: %g epochs of the sparse trainer with default settings, positive pairs drawn per second of training (sampling, gradients and updates; one evaluation at the end is excluded). %s.\n\n", *repeats, *epochs, gensimNote)
	b.WriteString("| kernel | setting | unit | 1 worker | 2 workers | 2 workers / 1 |\n|---|---|---|---|---|---|\n")
	for _, l := range lines {
		f := func(v float64) string {
			switch {
			case l.unit == "s":
				return fmt.Sprintf("%.1f", v)
			case v >= 1e5:
				return fmt.Sprintf("%.2fM", v/1e6)
			default:
				return fmt.Sprintf("%.2f", v)
			}
		}
		ratio := l.vals[1] / l.vals[0]
		if l.unit == "s" {
			ratio = l.vals[0] / l.vals[1]
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.2f× |\n", l.kernel, l.setting, l.unit, f(l.vals[0]), f(l.vals[1]), ratio)
	}
	fmt.Print(b.String())
	if *out != "" {
		if err := benchmarks.WriteFileAtomic(*out, []byte(b.String())); err != nil {
			fail(err)
		}
	}
}

// gensimRates writes g's edges to a temporary file and runs the gensim
// script once per worker count, returning positive pairs per second.
func gensimRates(ctx context.Context, python string, g *pipeline.Graph, workers []int) ([]float64, string, error) {
	path, err := benchmarks.WriteEdgeListTemp(g.Adj)
	if err != nil {
		return nil, "", err
	}
	defer os.Remove(path)
	script := filepath.Join("benchmarks", "gensim", "w2v_rate.py")
	var out []float64
	var version string
	for _, wk := range workers {
		cmd := exec.CommandContext(ctx, python, script, path, fmt.Sprint(wk))
		cmd.Stderr = os.Stderr
		b, err := cmd.Output()
		if err != nil {
			return nil, "", fmt.Errorf("%s %s: %w", python, script, err)
		}
		var r struct {
			Gensim    string  `json:"gensim"`
			PairsPerS float64 `json:"pairs_per_s"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, "", fmt.Errorf("%s: %w", script, err)
		}
		fmt.Fprintf(os.Stderr, "gensim workers=%d: %.2fM pairs/s\n", wk, r.PairsPerS/1e6)
		out = append(out, r.PairsPerS)
		version = r.Gensim
	}
	return out, version, nil
}
