// Command figures draws the paper's pictures from runs of the sparse
// trainer and writes them as PNG files:
//
//   - tsne-cora.png (Figure 3): t-SNE of the embeddings Y = [L | R] learned
//     on Cora, coloured by the 7 classes (800 x 800 px);
//   - q-<dataset>.png (Figure 2a): the learned context distribution Q over
//     k on ego-Facebook, PPI, ca-HepTh and soc-Epinions1 (576 x 336 px);
//   - q-beta-<dataset>.png (Figure 2b): the learned Q for β in
//     {0.3, 0.5, 0.7, 0.9} on ca-HepTh and PPI (800 x 450 px).
//
// Usage:
//
//	go run ./benchmarks/cmd/figures [-data ../shared/datasets] [-out benchmarks/results/figures]
//	        [-only tsne-cora,q-PPI,...] [-epochs n] [-seed s] [-v]
//
// The link-prediction datasets train on their released splits
// (<data>/<name>/asymproj; soc-Epinions1 is directed), Cora on its whole
// graph (<data>/Cora/cora.{edges,labels,split}.tsv.gz). -epochs 0 keeps the
// trainer's default (max(400, 150 walks per arc)) everywhere except soc-Epinions1, which
// then runs 50 epochs (it has 76k nodes); a positive -epochs applies to
// every run. Each figure's title states its epochs. Runs that two figures
// share (β = 0.5 on PPI and ca-HepTh) are trained once.
//
// A full run (no -only) also writes README.md in the output folder, and
// prints it, with the machine, the command and a caption per figure.
// Progress goes to stderr. Files are written atomically. -data,
// -allow-dirty and the exit statuses (0 ok, 1 failure, 2 usage, 130
// interrupted) are those of benchmarks.Harness; -out names the output
// folder here, and is refused from a tree with uncommitted changes unless
// -allow-dirty, as every -out is.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/train"
	"github.com/wys-project/wys/viz/tsne"
	"gonum.org/v1/gonum/mat"
)

func main() { os.Exit(benchmarks.Main("figures", run)) }

// defaultOut is the folder of the committed figures.
const defaultOut = "benchmarks/results/figures"

// Datasets of Figure 2.
var (
	qDatasets    = []string{"ego-Facebook", "PPI", "ca-HepTh", "soc-Epinions1"}
	betaDatasets = []string{"ca-HepTh", "PPI"}
	betas        = []float64{0.3, 0.5, 0.7, 0.9}
)

// epinionsEpochs is soc-Epinions1's length of run when -epochs is 0.
const epinionsEpochs = 50

// figureNames lists every figure in the order they are made.
func figureNames() []string {
	names := []string{"tsne-cora"}
	for _, ds := range qDatasets {
		names = append(names, "q-"+ds)
	}
	for _, ds := range betaDatasets {
		names = append(names, "q-beta-"+ds)
	}
	return names
}

// options are the parsed flags.
type options struct {
	data, out string          // the harness's -data and -out
	only      map[string]bool // nil: every figure
	epochs    float64
	seed      uint64
	verbose   bool
}

// setOutDefault makes the shared -out the output folder, dir by default:
// set before parsing, so that the harness refuses the default run from a
// dirty tree as it refuses any -out.
func setOutDefault(fs *flag.FlagSet, dir string) {
	f := fs.Lookup("out")
	f.Usage = "folder for the PNG files and README.md (refused from a tree with uncommitted changes unless -allow-dirty)"
	f.DefValue = dir
	f.Value.Set(dir)
}

func parse(h *benchmarks.Harness) (*options, error) {
	fs := h.Flags
	o := &options{}
	setOutDefault(fs, defaultOut)
	h.OutFolder = true
	only := fs.String("only", "", "comma-separated figures to make (default all): "+strings.Join(figureNames(), ", "))
	fs.Float64Var(&o.epochs, "epochs", 0, fmt.Sprintf("epochs per training run (0: max(400, 150 walks per arc), and %d on soc-Epinions1)", epinionsEpochs))
	fs.Uint64Var(&o.seed, "seed", 1, "seed of every training run and of t-SNE")
	fs.BoolVar(&o.verbose, "v", false, "print every evaluation during training")
	if err := h.Parse(); err != nil {
		return nil, err
	}
	o.data, o.out = h.Data, h.Out
	if o.out == "" {
		return nil, h.Usagef("-out: want the folder for the figures (default %s)", defaultOut)
	}
	if o.epochs < 0 {
		return nil, h.Usagef("-epochs %v, want a positive number (0: the defaults)", o.epochs)
	}
	if *only != "" {
		o.only = map[string]bool{}
		known := figureNames()
		for _, name := range strings.Split(*only, ",") {
			name = strings.TrimSuffix(strings.TrimSpace(name), ".png")
			if !slices.Contains(known, name) {
				return nil, h.Usagef("-only: unknown figure %q (want some of %s)", name, strings.Join(known, ", "))
			}
			o.only[name] = true
		}
	}
	return o, nil
}

func (o *options) wants(name string) bool { return o.only == nil || o.only[name] }

// epochsFor returns the epochs of a run on the graph g of dataset ds:
// -epochs, or the trainer's default for g (50 on soc-Epinions1).
func (o *options) epochsFor(ds string, g *pipeline.Graph) float64 {
	switch {
	case o.epochs > 0:
		return o.epochs
	case ds == "soc-Epinions1":
		return epinionsEpochs
	}
	return figureEpochs(g)
}

// figureEpochs is the fixed length the figures are drawn with:
// max(400, 150 walks per arc), the trainer's default before its automatic
// length, so that the runs of a β sweep are all of one length.
func figureEpochs(g *pipeline.Graph) float64 {
	return math.Max(400, math.Ceil(150*float64(g.Adj.NNZ())/float64(g.N())))
}

// splitEpochs returns the epochs of the runs on the released split of ds
// (loaded by train).
func (f *figures) splitEpochs(ds string) float64 {
	if e, ok := f.epochs[ds]; ok {
		return e
	}
	return f.opt.epochs
}

func run(ctx context.Context, h *benchmarks.Harness) error {
	o, err := parse(h)
	if err != nil {
		return err
	}
	f := &figures{opt: o, h: h, log: h.Stderr, results: map[runKey]*pipeline.Result{}}
	return f.make(ctx)
}

// runKey identifies a training run on a released split.
type runKey struct {
	dataset string
	beta    float64
}

type figures struct {
	opt      *options
	h        *benchmarks.Harness
	log      io.Writer
	results  map[runKey]*pipeline.Result
	splits   map[string]*pipeline.Split
	epochs   map[string]float64 // epochs of the runs on each split
	captions []string           // "file: caption" for README.md
}

// splitDir returns the released split folder of ds.
func (f *figures) splitDir(ds string) string {
	return filepath.Join(f.opt.data, ds, "asymproj")
}

// coraPrefix is the Planetoid text files' prefix under -data.
func (f *figures) coraPrefix() string { return filepath.Join(f.opt.data, "Cora", "cora") }

// checkData fails, naming the path, if a dataset a wanted figure needs is
// missing, before any training starts.
func (f *figures) checkData() error {
	need := map[string]bool{}
	for _, ds := range qDatasets {
		if f.opt.wants("q-" + ds) {
			need[f.splitDir(ds)] = true
		}
	}
	for _, ds := range betaDatasets {
		if f.opt.wants("q-beta-" + ds) {
			need[f.splitDir(ds)] = true
		}
	}
	var paths []string
	for p := range need {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	if f.opt.wants("tsne-cora") {
		paths = append([]string{f.coraPrefix() + ".edges.tsv.gz"}, paths...)
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			if strings.HasPrefix(filepath.Base(p), "cora.") {
				if _, err2 := os.Stat(strings.TrimSuffix(p, ".gz")); err2 == nil {
					continue
				}
			}
			return fmt.Errorf("dataset missing: %s does not exist (set -data to the folder holding the datasets)", p)
		}
	}
	return nil
}

func (f *figures) make(ctx context.Context) error {
	if err := f.checkData(); err != nil {
		return err
	}
	if err := os.MkdirAll(f.opt.out, 0o755); err != nil {
		return err
	}
	f.splits = map[string]*pipeline.Split{}
	start := time.Now()
	if f.opt.wants("tsne-cora") {
		if err := f.tsneCora(ctx); err != nil {
			return fmt.Errorf("tsne-cora: %w", err)
		}
	}
	for _, ds := range qDatasets {
		name := "q-" + ds
		if !f.opt.wants(name) {
			continue
		}
		res, err := f.train(ctx, ds, 0.5)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		title := fmt.Sprintf("%s (%s epochs, β = 0.5)", ds, fmtNum(f.splitEpochs(ds)))
		if err := f.write(name, func(path string) error { return writeQ(path, title, res.Q) }); err != nil {
			return err
		}
		f.caption(name, fmt.Sprintf("learned Q on %s after %s epochs (test AUC %.3f): %s",
			ds, fmtNum(f.splitEpochs(ds)), res.TestAUC, describeQ(res.Q)))
		delete(f.splits, ds) // soc-Epinions1's split is the largest; free it
	}
	for _, ds := range betaDatasets {
		name := "q-beta-" + ds
		if !f.opt.wants(name) {
			continue
		}
		var series []qSeries
		var parts []string
		for _, b := range betas {
			res, err := f.train(ctx, ds, b)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			series = append(series, qSeries{Name: fmt.Sprintf("β = %g", b), Q: res.Q})
			parts = append(parts, fmt.Sprintf("β = %g: Q_1 = %.3f, AUC %.3f", b, res.Q[0], res.TestAUC))
		}
		title := fmt.Sprintf("Learned Q for several β — %s (%s epochs)", ds, fmtNum(f.splitEpochs(ds)))
		if err := f.write(name, func(path string) error { return writeQSeries(path, title, series) }); err != nil {
			return err
		}
		f.caption(name, fmt.Sprintf("learned Q on %s for β in {0.3, 0.5, 0.7, 0.9} (the regulariser's weight): %s", ds, strings.Join(parts, "; ")))
		delete(f.splits, ds)
	}
	fmt.Fprintf(f.log, "figures: done in %v\n", time.Since(start).Round(time.Second))
	if f.opt.only == nil {
		return f.writeReadme(time.Since(start))
	}
	return nil
}

// write makes one figure through a function of its path and reports it.
func (f *figures) write(name string, draw func(path string) error) error {
	path := filepath.Join(f.opt.out, name+".png")
	if err := draw(path); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	fmt.Fprintf(f.log, "figures: wrote %s\n", path)
	return nil
}

func (f *figures) caption(name, text string) {
	f.captions = append(f.captions, fmt.Sprintf("[`%s.png`](%s.png): %s.", name, name, text))
	fmt.Fprintf(f.log, "figures: %s: %s\n", name, text)
}

// recorder prints evaluations with -v.
func (f *figures) recorder(label string) pipeline.Recorder {
	return pipeline.RecordFunc(func(e pipeline.Event) {
		if f.opt.verbose && e.Kind == pipeline.Eval && e.Point != nil {
			fmt.Fprintf(f.log, "  %s: step %d, epoch %.0f, loss %.4g, train AUC %.4f, Q_1 %.3f, %v\n",
				label, e.Point.Step, e.Point.Epoch, e.Point.Loss, e.Point.TrainAUC, e.Point.Q[0], e.Elapsed.Round(time.Second))
		}
	})
}

// train runs (once) the sparse trainer on the released split of ds with
// attention regulariser β.
func (f *figures) train(ctx context.Context, ds string, beta float64) (*pipeline.Result, error) {
	key := runKey{ds, beta}
	if res, ok := f.results[key]; ok {
		return res, nil
	}
	split, ok := f.splits[ds]
	if !ok {
		var err error
		split, err = graphio.LoadSplitDir(ctx, f.splitDir(ds), ds == "soc-Epinions1")
		if err != nil {
			return nil, err
		}
		f.splits[ds] = split
	}
	epochs, ok := f.epochs[ds]
	if !ok {
		g, err := split.TrainGraph(ctx)
		if err != nil {
			return nil, err
		}
		epochs = f.opt.epochsFor(ds, g)
		if f.epochs == nil {
			f.epochs = map[string]float64{}
		}
		f.epochs[ds] = epochs
	}
	label := fmt.Sprintf("%s β=%g", ds, beta)
	fmt.Fprintf(f.log, "figures: training %s (%s epochs, seed %d)\n", label, fmtNum(epochs), f.opt.seed)
	start := time.Now()
	cfg := train.Config{Objective: pipeline.ObjectiveConfig{Beta: beta}, Epochs: epochs, Seed: f.opt.seed}
	res, err := benchmarks.RunSplit(ctx, train.Run, split, cfg, f.recorder(label))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(f.log, "figures: trained %s in %v: test AUC %.4f, Q %s\n", label, time.Since(start).Round(time.Second), res.TestAUC, benchmarks.FormatQ(res.Q, 4))
	f.results[key] = res
	return res, nil
}

// tsneCora trains on the whole Cora graph and draws the t-SNE of [L | R].
func (f *figures) tsneCora(ctx context.Context) error {
	g, lab, _, err := graphio.LoadPlanetoid(ctx, f.coraPrefix(), graphio.LoadOptions{})
	if err != nil {
		return err
	}
	epochs := f.opt.epochsFor("Cora", g)
	fmt.Fprintf(f.log, "figures: training Cora (%d nodes, %s epochs, seed %d)\n", g.N(), fmtNum(epochs), f.opt.seed)
	start := time.Now()
	res, err := train.Run(ctx, g, nil, train.Config{Epochs: epochs, Seed: f.opt.seed}, f.recorder("Cora"))
	if err != nil {
		return err
	}
	fmt.Fprintf(f.log, "figures: trained Cora in %v, Q %s\n", time.Since(start).Round(time.Second), benchmarks.FormatQ(res.Q, 4))
	x := concatLR(res)
	start = time.Now()
	cfg := tsne.Config{Seed: f.opt.seed, Progress: func(it int, kl float64) {
		if it%250 == 0 {
			fmt.Fprintf(f.log, "figures: t-SNE iteration %d, KL %.4f, %v\n", it, kl, time.Since(start).Round(time.Second))
		}
	}}
	title := fmt.Sprintf("t-SNE of WYS embeddings [L | R] — Cora (%d nodes, %s epochs, d = %d)", res.N, fmtNum(epochs), 2*res.Half)
	var y *mat.Dense
	err = f.write("tsne-cora", func(path string) error {
		var err error
		y, err = writeTSNEScatter(ctx, path, title, x, lab.Class, nil, cfg)
		return err
	})
	if err != nil {
		return err
	}
	f.caption("tsne-cora", fmt.Sprintf("t-SNE (perplexity %d, %d iterations) of the %d x %d embeddings [L | R] learned on Cora without labels, coloured by the %d classes; "+
		"a node's nearest neighbour has its class for %.1f%% of the nodes in the picture and %.1f%% in the %d-dimensional embedding",
		tsne.DefaultPerplexity, tsne.DefaultIterations, res.N, 2*res.Half, lab.Classes, 100*nnAgreement(y, lab.Class), 100*nnAgreement(x, lab.Class), 2*res.Half))
	return nil
}

// concatLR returns the N x d matrix [L | R] of a result.
func concatLR(res *pipeline.Result) *mat.Dense {
	x := mat.NewDense(res.N, 2*res.Half, nil)
	for i := range res.N {
		row := x.RawRowView(i)
		for k := range res.Half {
			row[k] = float64(res.L[i*res.Half+k])
			row[res.Half+k] = float64(res.R[i*res.Half+k])
		}
	}
	return x
}

// describeQ says in words where a learned Q puts its weight: on one power
// k when Q_k is more than all the others together, otherwise spread out,
// with its largest and smallest weights next to uniform's 1/C. The whole
// vector follows.
func describeQ(q []float64) string {
	if len(q) == 0 {
		return "no context"
	}
	hi, lo := 0, 0
	for i, v := range q {
		if v > q[hi] {
			hi = i
		}
		if v < q[lo] {
			lo = i
		}
	}
	var b strings.Builder
	if q[hi] > 0.5 {
		fmt.Fprintf(&b, "k = %d carries most of Q (Q_%d = %.3f)", hi+1, hi+1, q[hi])
	} else {
		fmt.Fprintf(&b, "no k carries most of Q: Q_%d = %.3f is the largest, Q_%d = %.3f the smallest (uniform: %.3f)",
			hi+1, q[hi], lo+1, q[lo], 1/float64(len(q)))
	}
	b.WriteString("; Q = (")
	for i, v := range q {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%.3f", v)
	}
	b.WriteString(")")
	return b.String()
}

func fmtNum(x float64) string { return fmt.Sprintf("%g", x) }

// writeReadme prints README.md and writes it beside the figures.
func (f *figures) writeReadme(took time.Duration) error {
	var b strings.Builder
	b.WriteString(f.h.Header("Figures"))
	fmt.Fprintf(&b, "Run time %v, seed %d. ", took.Round(time.Second), f.opt.seed)
	b.WriteString("Sparse trainer, code formulation, d = 128, C = 10, default settings unless stated; the AUCs are test ROC-AUCs on the released splits at the selected step (the last within two standard errors of the best train AUC).\n\n")
	for _, c := range f.captions {
		b.WriteString("- " + c + "\n")
	}
	if _, err := io.WriteString(f.h.Stdout, b.String()); err != nil {
		return err
	}
	return benchmarks.WriteFileAtomic(filepath.Join(f.opt.out, "README.md"), []byte(b.String()))
}
