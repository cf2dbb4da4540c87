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
// and every Epochs/20 sparse epochs). Evaluation time is included. The
// shared flags (-data, -out, -allow-dirty) and the exit statuses are those
// of benchmarks.Harness.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/reference"
	"github.com/wys-project/wys/pipeline/train"
)

func main() { os.Exit(benchmarks.Main("speed", run)) }

// options are the command's own flags.
type options struct {
	dataset        string
	dim, steps     int
	epochs         float64
	variants       string
	dense          bool
	target, margin float64
	seed           uint64
}

type row struct {
	name       string
	auc        float64
	setup      time.Duration
	toTarget   time.Duration // negative: never reached
	total      time.Duration
	pairsPerS  float64
	curvePoint int
}

func run(ctx context.Context, h *benchmarks.Harness) error {
	o := &options{}
	fs := h.Flags
	fs.StringVar(&o.dataset, "dataset", "ca-HepTh", "dataset under -data with an asymproj/ split")
	fs.IntVar(&o.dim, "dim", 128, "embedding width d")
	fs.IntVar(&o.steps, "steps", 300, "dense: full-batch steps")
	fs.Float64Var(&o.epochs, "epochs", 0, "sparse: epochs (0: the trainer's default)")
	fs.StringVar(&o.variants, "variants", "walk,walk+warm,factored,factored+warm", "sparse variants: source (walk or factored), +warm for the spectral warm start")
	fs.BoolVar(&o.dense, "dense", true, "run the dense reference (sets the target)")
	fs.Float64Var(&o.target, "target", 0, "target test AUC in points (0: the dense reference's best minus -margin)")
	fs.Float64Var(&o.margin, "margin", 0.5, "points below the dense reference's best test AUC that count as reaching it")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of every run")
	if err := h.Parse(); err != nil {
		return err
	}
	if !o.dense && o.target == 0 {
		return h.Usagef("no target: give -target or run the dense reference")
	}
	split, err := graphio.LoadSplitDir(ctx, filepath.Join(h.Data, o.dataset, "asymproj"), o.dataset == "soc-Epinions1")
	if err != nil {
		return err
	}
	var rows []row
	var denseRes *pipeline.Result
	goal := o.target
	if o.dense {
		var r row
		if denseRes, r, err = runDense(ctx, h, o, split); err != nil {
			return err
		}
		if goal == 0 {
			goal = 100*denseRes.TestAUC - o.margin
		}
		r.toTarget, r.curvePoint = toTarget(denseRes, r.setup, goal)
		rows = append(rows, r)
	}
	for _, v := range strings.Split(o.variants, ",") {
		r, err := runSparse(ctx, h, o, split, v, goal)
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}
	return h.WriteResult(report(h, o, rows, goal, denseRes))
}

// runDense runs the dense reference and returns its result and its row
// (without the time to target).
func runDense(ctx context.Context, h *benchmarks.Harness, o *options, split *pipeline.Split) (*pipeline.Result, row, error) {
	fmt.Fprintf(h.Stderr, "dense reference, %d steps…\n", o.steps)
	start := time.Now()
	res, err := benchmarks.RunSplit(ctx, reference.Run, split, reference.Config{Dim: o.dim, Steps: o.steps, Seed: o.seed}, nil)
	if err != nil {
		return nil, row{}, err
	}
	return res, row{name: "dense reference (BLAS " + reference.BLAS + ")", auc: 100 * res.TestAUC,
		setup: res.Stats.Stage("powers"), total: time.Since(start)}, nil
}

// runSparse runs the sparse trainer in variant v ("walk", "factored+warm",
// …) and times it to goal.
func runSparse(ctx context.Context, h *benchmarks.Harness, o *options, split *pipeline.Split, v string, goal float64) (row, error) {
	source, warm := strings.CutSuffix(v, "+warm")
	from := train.StartRandom
	if warm {
		from = train.StartSpectral
	}
	cfg := train.Config{Dim: o.dim, Epochs: o.epochs, Source: source, Start: from, Seed: o.seed}
	fmt.Fprintf(h.Stderr, "sparse %s…\n", v)
	start := time.Now()
	res, err := benchmarks.RunSplit(ctx, train.Run, split, cfg, nil)
	if err != nil {
		return row{}, fmt.Errorf("sparse %s: %w", v, err)
	}
	r := row{name: "sparse " + v, auc: 100 * res.TestAUC, setup: res.Stats.Stage("factorize"),
		total: time.Since(start), pairsPerS: res.Stats.PairsPerSecond}
	r.toTarget, r.curvePoint = toTarget(res, r.setup, goal)
	return r, nil
}

// toTarget returns setup plus the time of the first curve point at or
// above goal (in points) and its step, or -1 when none reached it.
func toTarget(res *pipeline.Result, setup time.Duration, goal float64) (time.Duration, int) {
	for _, p := range res.Curve {
		if 100*p.TestAUC >= goal {
			return setup + p.Elapsed, p.Step
		}
	}
	return -1, 0
}

// report formats the results file.
func report(h *benchmarks.Harness, o *options, rows []row, goal float64, denseRes *pipeline.Result) string {
	var b strings.Builder
	b.WriteString(h.Header(fmt.Sprintf("Time to a target test AUC on %s (d = %d)", o.dataset, o.dim)))
	fmt.Fprintf(&b, "Target: test ROC-AUC %.2f", goal)
	if o.target == 0 {
		fmt.Fprintf(&b, " (the dense reference's best, %.2f, minus %.1f points)", 100*denseRes.TestAUC, o.margin)
	}
	fmt.Fprintf(&b, ". Time to target = setup (dense powers or sparse factorization) + training, evaluations included, up to the first evaluation at or above the target. Seed %d, code formulation, C = 10; dense %d PercentDelta steps, sparse defaults otherwise. All rows ran one after another in this process.\n\n", o.seed, o.steps)
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
	return b.String()
}
