// Command table1 reproduces the link-prediction column of the paper's
// Table 1 on the released AsymProj splits, with the dense reference
// trainer and the sparse trainer side by side, and writes a Markdown table.
//
//	go run -tags openblas ./benchmarks/cmd/table1 -trainers dense,sparse -out benchmarks/results/table1.md
//
// Each (dataset, d, trainer) cell is the mean ± standard deviation over
// -seeds runs of the test ROC-AUC at the step with the best train AUC.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
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

// paper holds Table 1's WYS column (d = 64, d = 128).
var paper = map[string][2]float64{
	"ca-HepTh":      {93.6, 93.9},
	"ego-Facebook":  {99.4, 99.5},
	"PPI":           {89.8, 91.0},
	"soc-Epinions1": {math.NaN(), math.NaN()},
}

// It is longer than 80 lines because it predates the shared benchmark
// harness (flags, signals, results header), which is still to come.
func main() {
	datasets := flag.String("datasets", "ca-HepTh,ego-Facebook,PPI", "comma-separated datasets under -data with an asymproj/ split")
	data := flag.String("data", "../shared/datasets", "folder holding the datasets")
	trainers := flag.String("trainers", "dense,sparse", "trainers to run: dense, sparse")
	dims := flag.String("dims", "128,64", "embedding widths d (d/2 per side)")
	seeds := flag.Int("seeds", 1, "runs per cell (seeds 1..n)")
	formulation := flag.String("formulation", "code", "objective formulation: code or paper")
	steps := flag.Int("steps", 300, "dense: full-batch steps")
	epochs := flag.Float64("epochs", 0, "sparse: epochs (0: the trainer's default)")
	batch := flag.Int("batch", 0, "sparse: walks per batch (0: default)")
	lr := flag.Float64("lr", 0, "sparse: learning rate (0: default)")
	negatives := flag.Int("negatives", 0, "sparse: negatives per positive (0: default)")
	opt := flag.String("opt", "", "sparse: optimizer adam or sgd (empty: default)")
	out := flag.String("out", "", "write the Markdown table here (default: stdout only)")
	verbose := flag.Bool("v", false, "print evaluation points")
	contexts := flag.String("contexts", "", "comma-separated context variants, one row each: none, ppr, aa, ppr+aa (the paper's extension types; empty: none, without a context column)")
	alpha := flag.Float64("ppr-alpha", 0.15, "restart probability of the ppr context")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var rows []string
	log := io.Writer(os.Stderr)
	for _, ds := range strings.Split(*datasets, ",") {
		directed := ds == "soc-Epinions1"
		split, err := graphio.LoadSplitDir(ctx, filepath.Join(*data, ds, "asymproj"), directed)
		if err != nil {
			fmt.Fprintln(os.Stderr, "table1:", err)
			os.Exit(1)
		}
		for _, dstr := range strings.Split(*dims, ",") {
			var d int
			fmt.Sscan(dstr, &d)
			variants := strings.Split(*contexts, ",")
			for _, tv := range cross(strings.Split(*trainers, ","), variants) {
				tr, variant := tv[0], tv[1]
				var aucs []float64
				var q []float64
				var wall time.Duration
				var peak int64
				var best int
				var pps float64
				for s := 1; s <= *seeds; s++ {
					obj := pipeline.ObjectiveConfig{Formulation: pipeline.Formulation(*formulation)}
					switch variant {
					case "", "none":
					case "ppr":
						obj.PPR = *alpha
					case "aa":
						obj.AdamicAdar = true
					case "ppr+aa":
						obj.PPR, obj.AdamicAdar = *alpha, true
					default:
						fmt.Fprintf(os.Stderr, "table1: -contexts %q: want none, ppr, aa or ppr+aa\n", variant)
						os.Exit(2)
					}
					rec := pipeline.RecordFunc(func(e pipeline.Event) {
						if *verbose && e.Kind == pipeline.Eval {
							fmt.Fprintf(log, "  %s %s d=%d step %d loss %.4g train %.4f test %.4f Q1 %.3f %v\n",
								ds, tr, d, e.Done, e.Point.Loss, e.Point.TrainAUC, e.Point.TestAUC, e.Point.Q[0], e.Elapsed.Round(time.Second))
						}
					})
					start := time.Now()
					var res *pipeline.Result
					switch tr {
					case "dense":
						res, err = benchmarks.RunSplit(ctx, reference.Run, split, reference.Config{Objective: obj, Dim: d, Steps: *steps, Seed: uint64(s)}, rec)
					case "sparse":
						res, err = benchmarks.RunSplit(ctx, train.Run, split, train.Config{Objective: obj, Dim: d, Epochs: *epochs,
							BatchWalks: *batch, LR: *lr, Negatives: *negatives, Optimizer: *opt, Seed: uint64(s)}, rec)
					default:
						err = fmt.Errorf("unknown trainer %q", tr)
					}
					if err != nil {
						fmt.Fprintln(os.Stderr, "table1:", err)
						os.Exit(1)
					}
					wall += time.Since(start)
					aucs = append(aucs, 100*res.TestAUC)
					q = res.Q
					best = res.BestStep
					peak = max(peak, res.Stats.PeakRSS)
					pps = res.Stats.PairsPerSecond
					fmt.Fprintf(log, "%s d=%d %s seed %d: test AUC %.2f (best step %d) in %v, Q %.3v\n",
						ds, d, tr, s, 100*res.TestAUC, res.BestStep, time.Since(start).Round(time.Second), res.Q)
				}
				mean, std := benchmarks.MeanStd(aucs)
				pcol := 0
				if d == 128 {
					pcol = 1
				}
				extra := ""
				if tr == "sparse" {
					extra = fmt.Sprintf("%.2fM pairs/s", pps/1e6)
				} else {
					extra = "BLAS " + reference.BLAS
				}
				ctxCol := ""
				if *contexts != "" {
					// The extra types' weights follow the C = 10 powers.
					ctxCol = " " + variant + " |"
					var ws []string
					for j, name := range strings.Split(variant, "+") {
						if name != "none" && len(q) > pipeline.DefaultC+j {
							ws = append(ws, fmt.Sprintf("%s %.3f", name, q[pipeline.DefaultC+j]))
						}
					}
					if len(ws) == 0 {
						ws = append(ws, "—")
					}
					ctxCol += " " + strings.Join(ws, ", ") + " |"
				}
				paperCol := "—" // not in the paper's Table 1
				if p := paper[ds][pcol]; !math.IsNaN(p) {
					paperCol = fmt.Sprintf("%.1f", p)
				}
				rows = append(rows, fmt.Sprintf("| %s | %d | %s |%s %.2f ± %.2f | %s | %d | %.1f s | %.2f GiB | %s | %s |",
					ds, d, tr, ctxCol, mean, std, paperCol, best, wall.Seconds()/float64(*seeds),
					float64(peak)/(1<<30), benchmarks.FormatQ(q, 4), extra))
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Table 1 (link prediction, test ROC-AUC)\n\n%s\n\n", benchmarks.MachineLine())
	fmt.Fprintf(&b, "Command: `go run -tags openblas ./benchmarks/cmd/table1 %s`\n\n", strings.Join(os.Args[1:], " "))
	fmt.Fprintf(&b, "Formulation %s, C = 10, β = 0.5; dense: %d PercentDelta steps; %d seed(s) per cell. Peak RSS is the process's high-water mark so far (cumulative over the run).\n\n", *formulation, *steps, *seeds)
	if *contexts != "" {
		fmt.Fprintf(&b, "Context variants: none (the C powers only), ppr (Personalized PageRank, restart probability %g), aa (Adamic–Adar), each extra type with its own learned entry of Q.\n\n", *alpha)
		b.WriteString("| dataset | d | trainer | contexts | learned weight of the extra types | test AUC (mean ± std) | paper | best step | time per run | peak RSS | learned Q (k = 1..4) | notes |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	} else {
		b.WriteString("| dataset | d | trainer | test AUC (mean ± std) | paper | best step | time per run | peak RSS | learned Q (k = 1..4) | notes |\n|---|---|---|---|---|---|---|---|---|---|\n")
	}
	for _, r := range rows {
		b.WriteString(r + "\n")
	}
	fmt.Print(b.String())
	if *out != "" {
		if err := benchmarks.WriteFileAtomic(*out, []byte(b.String())); err != nil {
			fmt.Fprintln(os.Stderr, "table1:", err)
			os.Exit(1)
		}
	}
}

// cross returns every (a, b) pair, a-major.
func cross(as, bs []string) [][2]string {
	var out [][2]string
	for _, a := range as {
		for _, b := range bs {
			out = append(out, [2]string{a, b})
		}
	}
	return out
}
