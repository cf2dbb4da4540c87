// Command sensitivity repeats the paper's Figure 4 sweep with the sparse
// trainer: test ROC-AUC on the released splits for C in {5, 10, 20, 30}
// and β in {0.3, 0.5, 0.7, 0.9}, next to fixed-Q baselines (DeepWalk's
// linear decay and GloVe's 1/k at C = 10), and writes a Markdown table.
//
//	go run ./benchmarks/cmd/sensitivity -datasets ca-HepTh,PPI -out benchmarks/results/sensitivity.md
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/train"
)

func main() {
	datasets := flag.String("datasets", "ca-HepTh,PPI", "datasets with a released split under -data")
	data := flag.String("data", "../shared/datasets", "folder holding the datasets")
	cs := flag.String("C", "5,10,20,30", "values of C")
	betas := flag.String("beta", "0.3,0.5,0.7,0.9", "values of β")
	epochs := flag.Float64("epochs", 0, "epochs per run (0: the trainer's default)")
	dim := flag.Int("dim", 128, "embedding width d")
	out := flag.String("out", "", "write the Markdown table here")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "sensitivity:", err)
		os.Exit(1)
	}
	floats := func(s string) []float64 {
		var out []float64
		for _, f := range strings.Split(s, ",") {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				fail(fmt.Errorf("bad number %q", f))
			}
			out = append(out, v)
		}
		return out
	}
	cvals, bvals := floats(*cs), floats(*betas)
	var b strings.Builder
	fmt.Fprintf(&b, "# Sensitivity to C and β (the paper's Figure 4)\n\n%s\n\nCommand: `go run ./benchmarks/cmd/sensitivity %s`\n\n", benchmarks.MachineLine(), strings.Join(os.Args[1:], " "))
	fmt.Fprintf(&b, "Sparse trainer, code formulation, d = %d, seed 1, default epochs unless given; test ROC-AUC at the best train AUC. The last rows fix Q instead of learning it (C = 10).\n\n", *dim)
	for _, ds := range strings.Split(*datasets, ",") {
		split, err := graphio.LoadSplitDir(ctx, filepath.Join(*data, ds, "asymproj"), false)
		if err != nil {
			fail(err)
		}
		run := func(obj pipeline.ObjectiveConfig, fixed []float64) *pipeline.Result {
			res, err := benchmarks.RunSplit(ctx, train.Run, split, train.Config{Objective: obj, Dim: *dim, Epochs: *epochs, FixedQ: fixed, Seed: 1}, nil)
			if err != nil {
				fail(err)
			}
			return res
		}
		fmt.Fprintf(&b, "## %s\n\n| C \\ β |", ds)
		for _, beta := range bvals {
			fmt.Fprintf(&b, " %g |", beta)
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(bvals)) + "\n")
		for _, c := range cvals {
			fmt.Fprintf(&b, "| %g |", c)
			for _, beta := range bvals {
				res := run(pipeline.ObjectiveConfig{C: int(c), Beta: beta}, nil)
				fmt.Fprintf(&b, " %.2f |", 100*res.TestAUC)
				fmt.Fprintf(os.Stderr, "%s C=%g β=%g: %.2f Q1 %.3f\n", ds, c, beta, 100*res.TestAUC, res.Q[0])
			}
			b.WriteString("\n")
		}
		b.WriteString("\n| fixed Q (C = 10) | test AUC |\n|---|---|\n")
		for _, name := range []string{"deepwalk", "glove"} {
			q := make([]float64, 10)
			for k := range q {
				if name == "deepwalk" {
					q[k] = 1 - float64(k)/10
				} else {
					q[k] = 1 / float64(k+1)
				}
			}
			res := run(pipeline.ObjectiveConfig{C: 10}, q)
			fmt.Fprintf(&b, "| %s | %.2f |\n", name, 100*res.TestAUC)
			fmt.Fprintf(os.Stderr, "%s fixed %s: %.2f\n", ds, name, 100*res.TestAUC)
		}
		b.WriteString("\n")
	}
	fmt.Print(b.String())
	if *out != "" {
		if err := benchmarks.WriteFileAtomic(*out, []byte(b.String())); err != nil {
			fail(err)
		}
	}
}
