// Command sensitivity repeats the paper's Figure 4 sweep with the sparse
// trainer: test ROC-AUC on the released splits for C in {5, 10, 20, 30}
// and β in {0.3, 0.5, 0.7, 0.9}, next to fixed-Q baselines (DeepWalk's
// linear decay and GloVe's 1/k at C = 10), and writes a Markdown table.
//
//	go run ./benchmarks/cmd/sensitivity -datasets ca-HepTh,PPI -out benchmarks/results/sensitivity.md
//
// The shared flags (-data, -out, -allow-dirty) and the exit statuses are
// those of benchmarks.Harness.
package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/train"
)

func main() { os.Exit(benchmarks.Main("sensitivity", run)) }

// options are the command's own flags, with the lists parsed.
type options struct {
	datasets     string
	epochs       float64
	dim          int
	cvals, bvals []float64
}

func run(ctx context.Context, h *benchmarks.Harness) error {
	o := &options{}
	fs := h.Flags
	fs.StringVar(&o.datasets, "datasets", "ca-HepTh,PPI", "datasets with a released split under -data")
	cs := fs.String("C", "5,10,20,30", "values of C")
	betas := fs.String("beta", "0.3,0.5,0.7,0.9", "values of β")
	fs.Float64Var(&o.epochs, "epochs", 0, "epochs per run (0: the trainer's default)")
	fs.IntVar(&o.dim, "dim", 128, "embedding width d")
	if err := h.Parse(); err != nil {
		return err
	}
	var err error
	if o.cvals, err = h.Floats("C", *cs, func(c float64) bool { return c >= 1 && c == math.Trunc(c) }, "a number of powers (a positive integer)"); err != nil {
		return err
	}
	if o.bvals, err = h.Floats("beta", *betas, func(b float64) bool { return b >= 0 }, "a weight β ≥ 0"); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(h.Header("Sensitivity to C and β (the paper's Figure 4)"))
	fmt.Fprintf(&b, "Sparse trainer, code formulation, d = %d, seed 1, default epochs unless given; test ROC-AUC at the selected step (the last within two standard errors of the best train AUC). The last rows fix Q instead of learning it (C = 10).\n\n", o.dim)
	for _, ds := range strings.Split(o.datasets, ",") {
		text, err := section(ctx, h, o, ds)
		if err != nil {
			return fmt.Errorf("%s: %w", ds, err)
		}
		b.WriteString(text)
	}
	return h.WriteResult(b.String())
}

// objective is the objective of the cell (C, β): β = 0 is passed as a
// negative Beta, pipeline's spelling of "no regulariser", since a zero
// Beta means the default 0.5.
func objective(c, beta float64) pipeline.ObjectiveConfig {
	if beta == 0 {
		beta = -1
	}
	return pipeline.ObjectiveConfig{C: int(c), Beta: beta}
}

// section runs the sweep and the fixed-Q baselines on one dataset and
// returns its part of the results file.
func section(ctx context.Context, h *benchmarks.Harness, o *options, ds string) (string, error) {
	split, err := graphio.LoadSplitDir(ctx, filepath.Join(h.Data, ds, "asymproj"), false)
	if err != nil {
		return "", err
	}
	auc := func(obj pipeline.ObjectiveConfig, fixed []float64) (*pipeline.Result, error) {
		return benchmarks.RunSplit(ctx, train.Run, split, train.Config{Objective: obj, Dim: o.dim, Epochs: o.epochs, FixedQ: fixed, Seed: 1}, nil)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n| C \\ β |", ds)
	for _, beta := range o.bvals {
		fmt.Fprintf(&b, " %g |", beta)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(o.bvals)) + "\n")
	for _, c := range o.cvals {
		fmt.Fprintf(&b, "| %g |", c)
		for _, beta := range o.bvals {
			res, err := auc(objective(c, beta), nil)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, " %.2f |", 100*res.TestAUC)
			fmt.Fprintf(h.Stderr, "%s C=%g β=%g: %.2f Q1 %.3f\n", ds, c, beta, 100*res.TestAUC, res.Q[0])
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
		res, err := auc(pipeline.ObjectiveConfig{C: 10}, q)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "| %s | %.2f |\n", name, 100*res.TestAUC)
		fmt.Fprintf(h.Stderr, "%s fixed %s: %.2f\n", ds, name, 100*res.TestAUC)
	}
	b.WriteString("\n")
	return b.String(), nil
}
