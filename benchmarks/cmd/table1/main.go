// Command table1 reproduces the link-prediction column of the paper's
// Table 1 on the released AsymProj splits, with the dense reference
// trainer and the sparse trainer side by side, and the table's SVD and
// Laplacian eigenmaps baselines (pipeline/baseline), and writes a
// Markdown table.
//
//	go run -tags openblas ./benchmarks/cmd/table1 -trainers dense,sparse -out benchmarks/results/table1.md
//
// Each (dataset, d, trainer) cell is the mean ± standard deviation over
// -seeds runs of the test ROC-AUC at the step each trainer selects by its
// train AUC (see pipeline.Result.BestStep). With -objective it also
// gives the exact objective J of each cell's seed-1 model on the
// training graph (reference.Evaluate), and, where both trainers ran, each
// model's L and R at the other trainer's learned q: whether a gap in test
// AUC comes with a gap in the objective both trainers minimise.
// The shared flags (-data, -out, -allow-dirty) and the exit statuses are
// those of benchmarks.Harness.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/baseline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/reference"
	"github.com/wys-project/wys/pipeline/train"
)

func main() { os.Exit(benchmarks.Main("table1", run)) }

// paper holds Table 1's columns (d = 64, d = 128) by trainer: WYS for
// the dense and sparse trainers, and the SVD and EigenMaps baselines.
var paper = map[string]map[string][2]float64{
	"wys": {
		"ca-HepTh":     {93.6, 93.9},
		"ego-Facebook": {99.4, 99.5},
		"PPI":          {89.8, 91.0},
	},
	baseline.MethodSVD: {
		"ca-HepTh":     {79.3, 78.0},
		"ego-Facebook": {96.7, 94.5},
		"PPI":          {75.4, 71.2},
	},
	baseline.MethodEigenmaps: {
		"ca-HepTh":     {80.2, 81.2},
		"ego-Facebook": {96.4, 95.4},
		"PPI":          {70.7, 73.7},
	},
}

// isBaseline reports whether a trainer is one of pipeline/baseline's
// methods (the paper's SVD and EigenMaps, and NetMF and ProNE, which the paper
// does not have), which have no context types, no q and no objective.
var isBaseline = baseline.IsMethod

// options are the command's own flags, with the lists split.
type options struct {
	datasets, trainers, dims, contexts string
	seeds, steps, batch, negatives     int
	formulation, opt                   string
	epochs, lr, alpha, average         float64
	verbose, exact                     bool

	datasetList, trainerList, variantList []string
	dimList                               []int
}

func run(ctx context.Context, h *benchmarks.Harness) error {
	o := &options{}
	fs := h.Flags
	fs.StringVar(&o.datasets, "datasets", "ca-HepTh,ego-Facebook,PPI", "comma-separated datasets under -data with an asymproj/ split")
	fs.StringVar(&o.trainers, "trainers", "dense,sparse", "trainers to run: dense, sparse, and the baselines svd, eigenmaps, netmf and prone")
	fs.StringVar(&o.dims, "dims", "128,64", "embedding widths d (d/2 per side)")
	fs.IntVar(&o.seeds, "seeds", 1, "runs per cell (seeds 1..n)")
	fs.StringVar(&o.formulation, "formulation", "code", "objective formulation: code or paper")
	fs.IntVar(&o.steps, "steps", 300, "dense: full-batch steps")
	fs.Float64Var(&o.epochs, "epochs", 0, "sparse: epochs (0: the trainer's default)")
	fs.IntVar(&o.batch, "batch", 0, "sparse: walks per batch (0: default)")
	fs.Float64Var(&o.lr, "lr", 0, "sparse: learning rate (0: default)")
	fs.Float64Var(&o.average, "average", 0, "sparse: share of the run at its end over which L and R are averaged (0: off)")
	fs.IntVar(&o.negatives, "negatives", 0, "sparse: negatives per positive (0: default)")
	fs.StringVar(&o.opt, "opt", "", "sparse: optimizer adam, rmsprop, rowrms or sgd (empty: default)")
	fs.BoolVar(&o.verbose, "v", false, "print evaluation points")
	fs.BoolVar(&o.exact, "objective", false, "also evaluate the exact objective of each cell's seed-1 model (float64, (C+1)·N² doubles: 6.5 GB on ca-HepTh), and of its L and R at the other trainer's q")
	fs.StringVar(&o.contexts, "contexts", "", "comma-separated context variants, one row each: none, ppr, aa, ppr+aa (the paper's extension types; empty: none, without a context column)")
	fs.Float64Var(&o.alpha, "ppr-alpha", 0.15, "restart probability of the ppr context")
	if err := h.Parse(); err != nil {
		return err
	}
	if err := o.split(h); err != nil {
		return err
	}
	var rows, objRows []string
	for _, ds := range o.datasetList {
		split, err := graphio.LoadSplitDir(ctx, filepath.Join(h.Data, ds, "asymproj"), ds == "soc-Epinions1")
		if err != nil {
			return err
		}
		for _, d := range o.dimList {
			for _, variant := range o.variantList {
				first := map[string]*pipeline.Result{} // seed 1's model by trainer
				for _, tr := range o.trainerList {
					r, res, err := cell(ctx, h, o, split, ds, d, tr, variant)
					if err != nil {
						return err
					}
					rows = append(rows, r)
					first[tr] = res
				}
				if o.exact {
					r, err := objectiveRows(ctx, o, split, ds, d, variant, first)
					if err != nil {
						return err
					}
					objRows = append(objRows, r...)
				}
			}
		}
	}
	return h.WriteResult(report(h, o, rows, objRows))
}

// objectiveRows evaluates the exact objective of each trainer's seed-1
// model on the training graph at its own q and, where both trainers ran,
// at the other's, and returns one table row per trainer.
func objectiveRows(ctx context.Context, o *options, split *pipeline.Split, ds string, d int, variant string, first map[string]*pipeline.Result) ([]string, error) {
	g, err := split.TrainGraph(ctx)
	if err != nil {
		return nil, err
	}
	var rows []string
	for _, tr := range o.trainerList {
		if isBaseline(tr) {
			continue
		}
		res := first[tr]
		own, err := objectiveAt(ctx, g, o.objective(variant), res, res.QLogits)
		if err != nil {
			return nil, fmt.Errorf("%s d=%d %s: objective: %w", ds, d, tr, err)
		}
		cross := "—"
		other := "sparse"
		if tr == "sparse" {
			other = "dense"
		}
		if res2, ok := first[other]; ok {
			v, err := objectiveAt(ctx, g, o.objective(variant), res, res2.QLogits)
			if err != nil {
				return nil, fmt.Errorf("%s d=%d %s at the %s q: objective: %w", ds, d, tr, other, err)
			}
			cross = fmt.Sprintf("%.4f (positive %.4f)", v.Loss, v.Positive)
		}
		ctxCol := ""
		if o.contexts != "" {
			ctxCol = " " + variant + " |"
		}
		rows = append(rows, fmt.Sprintf("| %s | %d | %s |%s %.2f | %.4f | %.4f | %.4f | %.4f | %s |",
			ds, d, tr, ctxCol, 100*res.TestAUC, own.Loss, own.Positive, own.Negative, own.Regularizer, cross))
	}
	return rows, nil
}

// objectiveAt returns the exact objective of res's L and R with the
// attention logits q on g.
func objectiveAt(ctx context.Context, g *pipeline.Graph, obj pipeline.ObjectiveConfig, res *pipeline.Result, q []float64) (*reference.Value, error) {
	dense := func(x []float32) *mat.Dense {
		m := mat.NewDense(res.N, res.Half, nil)
		for i := 0; i < res.N; i++ {
			for j := 0; j < res.Half; j++ {
				m.Set(i, j, float64(x[i*res.Half+j]))
			}
		}
		return m
	}
	return reference.Evaluate(ctx, g.Adj, obj, dense(res.L), dense(res.R), q)
}

// split checks and splits the list flags, before any work starts.
func (o *options) split(h *benchmarks.Harness) error {
	var err error
	if o.datasetList, err = h.Names("datasets", o.datasets); err != nil {
		return err
	}
	o.trainerList = strings.Split(o.trainers, ",")
	baselines := false
	for _, tr := range o.trainerList {
		if tr != "dense" && tr != "sparse" && !isBaseline(tr) {
			return h.Usagef("-trainers: unknown trainer %q (want dense, sparse, svd, eigenmaps, netmf or prone)", tr)
		}
		baselines = baselines || isBaseline(tr)
	}
	if baselines && o.contexts != "" {
		return h.Usagef("-contexts: the baselines svd, eigenmaps, netmf and prone have no context types; run them without -contexts")
	}
	o.variantList = strings.Split(o.contexts, ",")
	for _, v := range o.variantList {
		if !slices.Contains([]string{"", "none", "ppr", "aa", "ppr+aa"}, v) {
			return h.Usagef("-contexts %q: want none, ppr, aa or ppr+aa", v)
		}
		if strings.HasPrefix(v, "ppr") && !(o.alpha > 0) { // 0 is pipeline's "no ppr context"
			return h.Usagef("-ppr-alpha %v: want a restart probability in (0, 1) for the %s rows", o.alpha, v)
		}
	}
	if o.dimList, err = h.Ints("dims", o.dims, func(d int) bool { return d >= 2 && d%2 == 0 }, "an even width of at least 2"); err != nil {
		return err
	}
	if o.seeds < 1 || o.steps < 1 { // -steps 0 would run reference's 300 under a header saying 0
		return h.Usagef("-seeds %d, -steps %d: want at least 1 of each", o.seeds, o.steps)
	}
	for _, tr := range o.trainerList {
		for _, variant := range o.variantList {
			if err := h.Settings(o.config(tr, variant, o.dimList[0], 1)); err != nil {
				return err
			}
		}
	}
	return nil
}

// objective returns the objective of a context variant.
func (o *options) objective(variant string) pipeline.ObjectiveConfig {
	obj := pipeline.ObjectiveConfig{Formulation: pipeline.Formulation(o.formulation)}
	switch variant {
	case "ppr":
		obj.PPR = o.alpha
	case "aa":
		obj.AdamicAdar = true
	case "ppr+aa":
		obj.PPR, obj.AdamicAdar = o.alpha, true
	}
	return obj
}

// config returns trainer tr's configuration for a cell: a baseline.Config,
// reference.Config (dense) or train.Config (sparse).
func (o *options) config(tr, variant string, d int, seed uint64) interface{ Validate() error } {
	switch {
	case isBaseline(tr):
		return baseline.Config{Method: tr, Dim: d, Seed: seed}
	case tr == "dense":
		return reference.Config{Objective: o.objective(variant), Dim: d, Steps: o.steps, Seed: seed}
	}
	return train.Config{Objective: o.objective(variant), Dim: d, Epochs: o.epochs,
		BatchWalks: o.batch, LR: o.lr, Average: o.average, Negatives: o.negatives, Optimizer: o.opt, Seed: seed}
}

// cellStats gathers one cell's runs.
type cellStats struct {
	aucs []float64
	q    []float64 // of the last seed
	wall time.Duration
	peak int64
	best int
	pps  float64
}

// cell runs one (dataset, d, trainer, context) cell over the seeds and
// returns its table row and seed 1's result.
func cell(ctx context.Context, h *benchmarks.Harness, o *options, split *pipeline.Split, ds string, d int, tr, variant string) (string, *pipeline.Result, error) {
	var st cellStats
	var first *pipeline.Result
	for s := 1; s <= o.seeds; s++ {
		rec := pipeline.RecordFunc(func(e pipeline.Event) {
			if o.verbose && e.Kind == pipeline.Eval {
				fmt.Fprintf(h.Stderr, "  %s %s d=%d step %d loss %.4g train %.4f test %.4f Q1 %.3f %v\n",
					ds, tr, d, e.Done, e.Point.Loss, e.Point.TrainAUC, e.Point.TestAUC, e.Point.Q[0], e.Elapsed.Round(time.Second))
			}
		})
		start := time.Now()
		var res *pipeline.Result
		var err error
		switch cfg := o.config(tr, variant, d, uint64(s)).(type) {
		case baseline.Config:
			res, err = benchmarks.RunSplit(ctx, baseline.Run, split, cfg, rec)
		case reference.Config:
			res, err = benchmarks.RunSplit(ctx, reference.Run, split, cfg, rec)
		case train.Config:
			res, err = benchmarks.RunSplit(ctx, train.Run, split, cfg, rec)
		}
		if err != nil {
			return "", nil, fmt.Errorf("%s d=%d %s seed %d: %w", ds, d, tr, s, err)
		}
		if s == 1 {
			first = res
		}
		st.wall += time.Since(start)
		st.aucs = append(st.aucs, 100*res.TestAUC)
		st.q, st.best, st.pps = res.Q, res.BestStep, res.Stats.PairsPerSecond
		st.peak = max(st.peak, res.Stats.PeakRSS)
		fmt.Fprintf(h.Stderr, "%s d=%d %s seed %d: test AUC %.2f (best step %d) in %v, Q %.3v\n",
			ds, d, tr, s, 100*res.TestAUC, res.BestStep, time.Since(start).Round(time.Second), res.Q)
	}
	return o.row(ds, d, tr, variant, &st), first, nil
}

// row formats a cell's table row.
func (o *options) row(ds string, d int, tr, variant string, st *cellStats) string {
	mean, std := benchmarks.MeanStd(st.aucs)
	extra := "BLAS " + reference.BLAS
	switch {
	case tr == "sparse":
		extra = fmt.Sprintf("%.2fM pairs/s", st.pps/1e6)
	case isBaseline(tr):
		extra = "rank d/2 per side"
	}
	ctxCol := ""
	if o.contexts != "" {
		// The extra types' weights follow the C = 10 powers.
		ctxCol = " " + variant + " |"
		var ws []string
		for j, name := range strings.Split(variant, "+") {
			if name != "none" && len(st.q) > pipeline.DefaultC+j {
				ws = append(ws, fmt.Sprintf("%s %.3f", name, st.q[pipeline.DefaultC+j]))
			}
		}
		if len(ws) == 0 {
			ws = append(ws, "—")
		}
		ctxCol += " " + strings.Join(ws, ", ") + " |"
	}
	paperCol := "—" // not in the paper's Table 1
	method := tr
	if !isBaseline(tr) {
		method = "wys"
	}
	if p, ok := paper[method][ds]; ok && (d == 64 || d == 128) {
		paperCol = fmt.Sprintf("%.1f", p[d/128])
	}
	q := "—"
	if st.q != nil {
		q = benchmarks.FormatQ(st.q, 4)
	}
	best := strconv.Itoa(st.best)
	if isBaseline(tr) {
		best = "—"
	}
	return fmt.Sprintf("| %s | %d | %s |%s %.2f ± %.2f | %s | %s | %.1f s | %.2f GiB | %s | %s |",
		ds, d, tr, ctxCol, mean, std, paperCol, best, st.wall.Seconds()/float64(o.seeds),
		float64(st.peak)/(1<<30), q, extra)
}

// report formats the results file.
func report(h *benchmarks.Harness, o *options, rows, objRows []string) string {
	var b strings.Builder
	b.WriteString(h.Header("Table 1 (link prediction, test ROC-AUC)"))
	if slices.Contains(o.trainerList, "dense") || slices.Contains(o.trainerList, "sparse") {
		fmt.Fprintf(&b, "Formulation %s, C = 10, β = 0.5; dense: %d PercentDelta steps. ", o.formulation, o.steps)
	}
	fmt.Fprintf(&b, "%d seed(s) per cell. Peak RSS is the process's high-water mark so far (cumulative over the run).\n\n", o.seeds)
	if slices.ContainsFunc(o.trainerList, isBaseline) {
		b.WriteString("Baselines (pipeline/baseline), as the paper's Table 1 defines them: svd is the truncated SVD of the training adjacency A = UΣVᵀ, L = UΣ^½ and R = VΣ^½, score L_u·R_v; eigenmaps are the eigenvectors of the normalised Laplacian with the smallest eigenvalues after the first, mapped back by D^{-1/2}, score Y_u·Y_v; netmf (not in the paper) is NetMF's small-window matrix log max(vol/(bT)·Σ_{r=1..T} P^r·D^{-1}, 1), T = 10, b = 1, factored as svd factors A; prone (not in the paper) is ProNE with its authors' settings, a sparse factorization refined by spectral propagation, score Y_u·Y_v. All keep rank d/2 (d/2 columns per side, as WYS's L and R), from lowrank.TopSVD, TopEigSym and, for netmf and prone, randomized SVDs with 16 and 5 power iterations (prone's as its authors factor). The paper column is the paper's number for the row's method.\n\n")
	}
	if o.contexts != "" {
		fmt.Fprintf(&b, "Context variants: none (the C powers only), ppr (Personalized PageRank, restart probability %g), aa (Adamic–Adar), each extra type with its own learned entry of Q.\n\n", o.alpha)
		b.WriteString("| dataset | d | trainer | contexts | learned weight of the extra types | test AUC (mean ± std) | paper | best step | time per run | peak RSS | learned Q (k = 1..4) | notes |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	} else {
		b.WriteString("| dataset | d | trainer | test AUC (mean ± std) | paper | best step | time per run | peak RSS | learned Q (k = 1..4) | notes |\n|---|---|---|---|---|---|---|---|---|---|\n")
	}
	for _, r := range rows {
		b.WriteString(r + "\n")
	}
	if len(objRows) > 0 {
		b.WriteString("\n## The exact objective of each seed-1 model\n\n")
		b.WriteString("J = positive + negative + regulariser on the training graph (reference.Evaluate, float64, every one of the N² entries), at the model's own learned q, and its L and R at the other trainer's q.\n\n")
		ctxHead, ctxRule := "", ""
		if o.contexts != "" {
			ctxHead, ctxRule = " contexts |", "---|"
		}
		fmt.Fprintf(&b, "| dataset | d | trainer |%s test AUC | J | positive | negative | regulariser | J of its L, R at the other trainer's q |\n|---|---|---|%s---|---|---|---|---|---|\n", ctxHead, ctxRule)
		for _, r := range objRows {
			b.WriteString(r + "\n")
		}
	}
	return b.String()
}
