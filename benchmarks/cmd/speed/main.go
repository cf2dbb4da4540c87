// Command speed measures, in one run on one released split, the time each
// trainer needs to reach a target test ROC-AUC: the dense reference, and
// the sparse trainer with each source of positives (walk, factored) with
// and without the spectral warm start. The target is the dense
// reference's best test AUC minus -margin points (or -target).
//
//	go run -tags openblas ./benchmarks/cmd/speed -out benchmarks/results/speed.md
//
// Time to target counts every stage a user waits for: the dense model's
// powers or the sparse trainer's factorization, plus training up to the
// first evaluation at or above the target (evaluations every 4 dense steps
// and every Epochs/20 sparse epochs). Evaluation time is included.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/reference"
	"github.com/wys-project/wys/pipeline/train"
)

type row struct {
	name       string
	auc        float64
	setup      time.Duration
	toTarget   time.Duration // negative: never reached
	total      time.Duration
	pairsPerS  float64
	curvePoint int
}

// It is longer than 80 lines because it predates the shared benchmark
// harness (flags, signals, results header), which is still to come.
func main() {
	data := flag.String("data", "../shared/datasets", "folder holding the datasets")
	dataset := flag.String("dataset", "ca-HepTh", "dataset under -data with an asymproj/ split")
	dim := flag.Int("dim", 128, "embedding width d")
	steps := flag.Int("steps", 300, "dense: full-batch steps")
	epochs := flag.Float64("epochs", 0, "sparse: epochs (0: the trainer's default)")
	variants := flag.String("variants", "walk,walk+warm,factored,factored+warm", "sparse variants: source (walk or factored), +warm for the spectral warm start")
	dense := flag.Bool("dense", true, "run the dense reference (sets the target)")
	target := flag.Float64("target", 0, "target test AUC in points (0: the dense reference's best minus -margin)")
	margin := flag.Float64("margin", 0.5, "points below the dense reference's best test AUC that count as reaching it")
	seed := flag.Uint64("seed", 1, "seed of every run")
	out := flag.String("out", "", "write the Markdown table here")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "speed:", err)
		os.Exit(1)
	}
	split, err := graphio.LoadSplitDir(ctx, filepath.Join(*data, *dataset, "asymproj"), *dataset == "soc-Epinions1")
	if err != nil {
		fail(err)
	}
	// firstAt returns the time of the first curve point at or above goal.
	firstAt := func(res *pipeline.Result, goal float64) (time.Duration, int) {
		for _, p := range res.Curve {
			if 100*p.TestAUC >= goal {
				return p.Elapsed, p.Step
			}
		}
		return -1, 0
	}
	var rows []row
	var denseRes *pipeline.Result
	goal := *target
	if *dense {
		fmt.Fprintf(os.Stderr, "dense reference, %d steps…\n", *steps)
		start := time.Now()
		denseRes, err = benchmarks.RunSplit(ctx, reference.Run, split, reference.Config{Dim: *dim, Steps: *steps, Seed: *seed}, nil)
		if err != nil {
			fail(err)
		}
		if goal == 0 {
			goal = 100*denseRes.TestAUC - *margin
		}
		rows = append(rows, row{name: "dense reference (BLAS " + reference.BLAS + ")", auc: 100 * denseRes.TestAUC,
			setup: denseRes.Stats.Stage("powers"), total: time.Since(start)})
	}
	if goal == 0 {
		fail(fmt.Errorf("no target: give -target or run the dense reference"))
	}
	for _, v := range strings.Split(*variants, ",") {
		source, warm := strings.CutSuffix(v, "+warm")
		cfg := train.Config{Dim: *dim, Epochs: *epochs, Source: source, WarmStart: warm, Seed: *seed}
		fmt.Fprintf(os.Stderr, "sparse %s…\n", v)
		start := time.Now()
		res, err := benchmarks.RunSplit(ctx, train.Run, split, cfg, nil)
		if err != nil {
			fail(err)
		}
		rows = append(rows, row{name: "sparse " + v, auc: 100 * res.TestAUC, setup: res.Stats.Stage("factorize"),
			total: time.Since(start), pairsPerS: res.Stats.PairsPerSecond})
		r := &rows[len(rows)-1]
		if t, step := firstAt(res, goal); t >= 0 {
			r.toTarget, r.curvePoint = r.setup+t, step
		} else {
			r.toTarget = -1
		}
	}
	if denseRes != nil {
		if t, step := firstAt(denseRes, goal); t >= 0 {
			rows[0].toTarget, rows[0].curvePoint = rows[0].setup+t, step
		} else {
			rows[0].toTarget = -1
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "# Time to a target test AUC on %s (d = %d)\n\n%s\n\n", *dataset, *dim, benchmarks.MachineLine())
	fmt.Fprintf(&b, "Command: `go run -tags openblas ./benchmarks/cmd/speed %s`\n\n", strings.Join(os.Args[1:], " "))
	fmt.Fprintf(&b, "Target: test ROC-AUC %.2f", goal)
	if *target == 0 {
		fmt.Fprintf(&b, " (the dense reference's best, %.2f, minus %.1f points)", 100*denseRes.TestAUC, *margin)
	}
	fmt.Fprintf(&b, ". Time to target = setup (dense powers or sparse factorization) + training, evaluations included, up to the first evaluation at or above the target. Seed %d, code formulation, C = 10; dense %d PercentDelta steps, sparse defaults otherwise. All rows ran one after another in this process.\n\n", *seed, *steps)
	b.WriteString("| trainer | final test AUC | setup | time to target | at step | total time | speed-up to target vs dense | positive pairs/s |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		tt, ratio := "not reached", "—"
		if r.toTarget >= 0 {
			tt = fmt.Sprintf("%.1f s", r.toTarget.Seconds())
			if denseRes != nil && rows[0].toTarget > 0 {
				ratio = fmt.Sprintf("%.1f×", rows[0].toTarget.Seconds()/r.toTarget.Seconds())
			}
		}
		pps := "—"
		if r.pairsPerS > 0 {
			pps = fmt.Sprintf("%.2fM", r.pairsPerS/1e6)
		}
		fmt.Fprintf(&b, "| %s | %.2f | %.1f s | %s | %d | %.1f s | %s | %s |\n", r.name, r.auc, r.setup.Seconds(), tt, r.curvePoint,
			r.total.Seconds(), ratio, pps)
	}
	fmt.Print(b.String())
	if *out != "" {
		if err := benchmarks.WriteFileAtomic(*out, []byte(b.String())); err != nil {
			fail(err)
		}
	}
}
