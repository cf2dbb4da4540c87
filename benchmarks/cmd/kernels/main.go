// Command kernels measures the three kernels with 1 and 2 workers in one
// run and writes a Markdown table: the parallel CSR x dense product
// (SpMM), the randomized factorization of the transition matrix, and the
// sparse trainer's throughput in positive pairs per second, next to gensim
// word2vec's skip-gram rate on DeepWalk walks of the same graph (when
// python3 with gensim is available: apt-get install python3-gensim; an
// empty -python skips it). gensim runs after each round over the
// trainer's settings, and each rate is the median over the rounds. With
// -rmat S it also measures the trainer with its parameters far out of
// cache: on a Graph500 R-MAT graph of 2^S nodes (ids permuted, as
// benchmarks/cmd/scale builds it), trained whole. -settings picks the
// trainer's settings; an empty -spmm-graph or -split skips that part, so
// that one setting can be measured out of cache on its own (with every
// part skipped, the run is a usage error):
//
//	go run ./benchmarks/cmd/kernels -out benchmarks/results/kernels.md
//	go run ./benchmarks/cmd/kernels -rmat 20 -rmat-epochs 1 -out benchmarks/results/kernels.md
//	go run ./benchmarks/cmd/kernels -spmm-graph '' -split '' -rmat 20 -rmat-epochs 1 -settings 1,1x16 -out benchmarks/results/kernels-rmat-blocks.md
//
// The shared flags (-data, -out, -allow-dirty) and the exit statuses are
// those of benchmarks.Harness.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/lowrank"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/train"
	"github.com/wys-project/wys/sparse"
)

func main() { os.Exit(benchmarks.Main("kernels", run)) }

// workers are the worker counts every kernel is measured with.
var workers = []int{1, 2}

// options are the command's own flags.
type options struct {
	spmmGraph, split, python string
	settings                 []setting
	cols, rank, repeats      int
	trainerRuns              int
	rmat                     int
	epochs, rmatEpochs       float64
}

// line is one row of the table: a kernel's value per worker count.
type line struct {
	kernel, setting, unit string
	vals                  []float64
}

func run(ctx context.Context, h *benchmarks.Harness) error {
	o := &options{}
	fs := h.Flags
	fs.StringVar(&o.spmmGraph, "spmm-graph", "soc-Slashdot0902/soc-Slashdot0902.txt.gz", "edge list under -data for SpMM and the factorization")
	fs.IntVar(&o.cols, "cols", 64, "SpMM: columns of the dense block")
	fs.IntVar(&o.rank, "rank", 64, "factorization rank")
	fs.StringVar(&o.split, "split", "ca-HepTh", "released split under -data for the trainer and gensim")
	fs.Float64Var(&o.epochs, "epochs", 40, "trainer epochs per measurement")
	fs.StringVar(&o.python, "python", "/usr/bin/python3", "python3 with gensim for the word2vec comparison (empty: skip)")
	fs.IntVar(&o.repeats, "repeats", 5, "SpMM repetitions (the median is reported)")
	fs.IntVar(&o.trainerRuns, "trainer-runs", 3, "rounds over the trainer's settings (the median of each is reported)")
	fs.IntVar(&o.rmat, "rmat", 0, "also measure the trainer on an R-MAT graph of 2^`scale` nodes (edge factor 16, seed 1; 0: skip)")
	fs.Float64Var(&o.rmatEpochs, "rmat-epochs", 0.3, "trainer epochs per measurement on the R-MAT graph")
	settings := fs.String("settings", defaultSettings, "comma-separated trainer settings, each `negatives[xblock][/optimizer]` (5x16: 5 negatives per positive pair in blocks of 16 x 16)")
	if err := h.Parse(); err != nil {
		return err
	}
	if o.repeats < 1 || o.trainerRuns < 1 || o.cols < 1 || o.rank < 1 || o.epochs <= 0 || o.rmatEpochs <= 0 {
		return h.Usagef("-repeats, -trainer-runs, -cols, -rank, -epochs and -rmat-epochs must be positive")
	}
	if o.rmat < 0 || o.rmat > 26 {
		return h.Usagef("-rmat %d: want an R-MAT scale from 1 to 26, or 0 to skip", o.rmat)
	}
	if o.spmmGraph == "" && o.split == "" && o.rmat == 0 {
		return h.Usagef("nothing to measure: -spmm-graph and -split are empty and -rmat is 0")
	}
	var err error
	if o.settings, err = parseSettings(*settings); err != nil {
		return h.Usagef("-settings: %v", err)
	}
	var lines []line
	if o.spmmGraph != "" {
		if lines, err = graphLines(ctx, h, o); err != nil {
			return err
		}
	}
	gensimNote := "gensim: not measured (no -split)"
	if o.split != "" {
		sl, note, err := splitLines(ctx, h, o)
		if err != nil {
			return err
		}
		lines, gensimNote = append(lines, sl...), note
	}
	if o.rmat > 0 {
		rl, err := rmatLines(ctx, h, o)
		if err != nil {
			return err
		}
		lines = append(lines, rl...)
	}
	return h.WriteResult(report(h, o, lines, gensimNote))
}

// splitLines measures the trainer on the released split -split and, with
// -python, gensim on the same training graph, and returns their lines and
// the note on gensim.
func splitLines(ctx context.Context, h *benchmarks.Harness, o *options) ([]line, string, error) {
	sp, err := graphio.LoadSplitDir(ctx, filepath.Join(h.Data, o.split, "asymproj"), false)
	if err != nil {
		return nil, "", err
	}
	tg, err := sp.TrainGraph(ctx)
	if err != nil {
		return nil, "", err
	}
	// gensim runs once per worker count after each round over the
	// trainer's settings on the split, so that its rate, like theirs, is
	// a median over rounds that shared the machine's drift.
	var gs *gensimRates
	gensimNote := "gensim: not measured (no -python)"
	if o.python != "" {
		gs, err = newGensimRates(o.python, tg)
		if err != nil {
			return nil, "", err
		}
		defer gs.close()
	}
	round := func() error {
		if gs == nil || gs.err != nil {
			return nil
		}
		if err := gs.round(ctx, h); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			gs.err = err
			fmt.Fprintln(h.Stderr, "kernels: gensim: not measured:", err)
		}
		return nil
	}
	lines, err := trainerRates(ctx, h, o, tg, o.split, o.epochs, round)
	if err != nil {
		return nil, "", err
	}
	if gs != nil {
		var l *line
		gensimNote, l = gs.report(o)
		if l != nil {
			lines = append(lines, *l)
		}
	}
	return lines, gensimNote, nil
}

// graphLines measures SpMM and the factorization on the SNAP graph
// -spmm-graph, read as arcs.
func graphLines(ctx context.Context, h *benchmarks.Harness, o *options) ([]line, error) {
	g, _, err := graphio.LoadEdgeList(ctx, filepath.Join(h.Data, o.spmmGraph), graphio.LoadOptions{Directed: true})
	if err != nil {
		return nil, err
	}
	n, _ := g.Adj.Dims()
	name := strings.Split(o.spmmGraph, "/")[0]
	x := make([]float32, n*o.cols)
	for i := range x {
		x[i] = float32(i%7) - 3
	}
	y := make([]float32, n*o.cols)
	spmm := line{kernel: "SpMM (CSR x dense, float32)", setting: fmt.Sprintf("%s: %d nodes, %d arcs, %d columns", name, n, g.Adj.NNZ(), o.cols), unit: "GFLOP/s"}
	for _, w := range workers {
		var ts []float64
		for range o.repeats {
			t := time.Now()
			if err := sparse.MulBlockTo(ctx, y, g.Adj, x, o.cols, w); err != nil {
				return nil, err
			}
			ts = append(ts, time.Since(t).Seconds())
		}
		spmm.vals = append(spmm.vals, 2*float64(g.Adj.NNZ())*float64(o.cols)/median(ts)/1e9)
		fmt.Fprintf(h.Stderr, "SpMM workers=%d: %.2f GFLOP/s\n", w, spmm.vals[len(spmm.vals)-1])
	}
	factor := line{kernel: "factorization (randomized SVD of T, C = 10 cores)", setting: fmt.Sprintf("%s, rank %d", name, o.rank), unit: "s"}
	for _, w := range workers {
		t := time.Now()
		if _, err := lowrank.NewSeries(ctx, g.Adj, lowrank.SeriesOptions{Options: lowrank.Options{Rank: o.rank, Seed: 1}, C: 10, Directed: true, Workers: w}); err != nil {
			return nil, err
		}
		factor.vals = append(factor.vals, time.Since(t).Seconds())
		fmt.Fprintf(h.Stderr, "factorization workers=%d: %.1f s\n", w, factor.vals[len(factor.vals)-1])
	}
	return []line{spmm, factor}, nil
}

// rmatLines measures the trainer's throughput on the whole R-MAT graph of
// scale -rmat, as on the split.
func rmatLines(ctx context.Context, h *benchmarks.Harness, o *options) ([]line, error) {
	g, err := pipeline.RMAT(ctx, o.rmat, 16, false, 1)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("R-MAT scale %d (%d nodes, %d arcs, %g epochs)", o.rmat, g.N(), g.Adj.NNZ(), o.rmatEpochs)
	return trainerRates(ctx, h, o, g, name, o.rmatEpochs, nil)
}

// setting is one measured setting of the trainer: block 0 draws the
// negatives pair by pair, opt "" is the trainer's default optimizer for
// the graph.
type setting struct {
	neg, block int
	opt        string
}

// config returns the trainer's configuration of s.
func (s setting) config() train.Config {
	cfg := train.Config{Negatives: s.neg, NegativeBlock: s.block, Optimizer: s.opt}
	if s.block == 0 {
		cfg.NegativeBlock = train.NegativePairs
	}
	return cfg
}

// defaultSettings are the trainer's settings measured by default: 1 and
// 5 negatives per positive drawn pair by pair, 5 in negative blocks of 8
// x 8 and of 16 x 16 pairs, with Adam and then with the row-wise optimiser.
const defaultSettings = "1,5,5x8,5x16,1/rowrms,5x8/rowrms"

// parseSettings parses -settings: a comma-separated list of
// negatives[xblock][/optimizer], each checked by train.Config.Validate.
func parseSettings(list string) ([]setting, error) {
	var out []setting
	for _, f := range strings.Split(list, ",") {
		spec, opt, _ := strings.Cut(f, "/")
		negs, block, hasBlock := strings.Cut(spec, "x")
		var s setting
		var err error
		if s.neg, err = strconv.Atoi(negs); err != nil || s.neg < 1 {
			return nil, fmt.Errorf("%q: want negatives[xblock][/optimizer], negatives a positive integer (e.g. 5x16/rowrms)", f)
		}
		if hasBlock {
			if s.block, err = strconv.Atoi(block); err != nil || s.block < 1 {
				return nil, fmt.Errorf("%q: the block after x must be a positive integer", f)
			}
		}
		s.opt = opt
		if err := s.config().Validate(); err != nil {
			return nil, fmt.Errorf("%q: %v", f, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// trainerRates measures the trainer's throughput on g (named name in the
// table) for the given epochs in each of o.settings with 1 and 2
// workers: o.trainerRuns rounds over all of them, in turn, so that the
// shared machine's drift falls on every setting alike, and the median
// of each. afterRound, when not nil, runs after each round.
func trainerRates(ctx context.Context, h *benchmarks.Harness, o *options, g *pipeline.Graph, name string, epochs float64, afterRound func() error) ([]line, error) {
	rates := make([][][]float64, len(o.settings))
	for i := range rates {
		rates[i] = make([][]float64, len(workers))
	}
	for run := range o.trainerRuns {
		for i, s := range o.settings {
			for wi, w := range workers {
				cfg := s.config()
				cfg.Epochs, cfg.Workers, cfg.Seed, cfg.EvalEvery = epochs, w, 1, epochs
				res, err := train.Run(ctx, g, nil, cfg, nil)
				if err != nil {
					return nil, err
				}
				rate := stepRate(res.Stats)
				rates[i][wi] = append(rates[i][wi], rate)
				fmt.Fprintf(h.Stderr, "trainer run %d negatives=%d block=%d optimizer=%q workers=%d: %.2fM pairs/s\n", run+1, s.neg, s.block, s.opt, w, rate/1e6)
			}
		}
		if afterRound != nil {
			if err := afterRound(); err != nil {
				return nil, err
			}
		}
	}
	var lines []line
	for i, s := range o.settings {
		setting := fmt.Sprintf("%s, %d negative(s) per positive pair", name, s.neg)
		if s.block > 0 {
			setting += fmt.Sprintf(" in blocks of %d x %d", s.block, s.block)
		}
		// The optimizer by name, the default's too: it depends on the
		// graph's size.
		setting += ", optimizer " + s.config().Resolve(g.N(), g.Adj.NNZ()).Optimizer
		l := line{kernel: "sparse trainer (d = 128, C = 10)", setting: setting, unit: "positive pairs/s"}
		for wi := range workers {
			l.vals = append(l.vals, median(rates[i][wi]))
		}
		lines = append(lines, l)
	}
	return lines, nil
}

// stepRate is the positive pairs per second of a run's batches: its
// train stage without the evaluation at its end and the copy of the
// parameters it keeps (Stats.EvalTime), which gensim's train() time has
// no counterpart of.
func stepRate(st pipeline.Stats) float64 {
	return float64(st.Pairs) / (st.Stage("train") - st.EvalTime).Seconds()
}

// report formats the results file.
func report(h *benchmarks.Harness, o *options, lines []line, gensimNote string) string {
	var b strings.Builder
	b.WriteString(h.Header("Kernels with 1 and 2 workers"))
	if o.spmmGraph != "" {
		fmt.Fprintf(&b, "SpMM: median of %d products y = A·x, GFLOP/s = 2·nnz·columns / time. Factorization: lowrank.NewSeries (randomized SVD with 2 power iterations, 10 oversampling columns, then the C cores), wall time. ", o.repeats)
	}
	epochs := fmt.Sprintf("%g epochs", o.epochs)
	if o.split == "" {
		epochs = "the epochs its rows name"
	}
	fmt.Fprintf(&b, "Trainer: %s of the sparse trainer with default settings but those named, the median over %d rounds (each round runs every setting in turn) of the positive pairs drawn per second of the batches (sampling, gradients and updates; the evaluation at the end and the copy of the parameters it keeps are excluded, Stats.EvalTime). %s.\n\n", epochs, o.trainerRuns, gensimNote)
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
	return b.String()
}

// gensimRates runs the gensim script on one graph's edge list, once per
// worker count per round, and keeps every rate.
type gensimRates struct {
	python, edges string
	rates         [][]float64 // per worker count, one per round
	version       string
	err           error // the first failure; later rounds are skipped
}

// newGensimRates writes g's edges to a temporary file (removed by close).
func newGensimRates(python string, g *pipeline.Graph) (*gensimRates, error) {
	path, err := benchmarks.WriteEdgeListTemp(g.Adj)
	if err != nil {
		return nil, err
	}
	return &gensimRates{python: python, edges: path, rates: make([][]float64, len(workers))}, nil
}

func (gs *gensimRates) close() { os.Remove(gs.edges) }

// round runs the script once per worker count.
func (gs *gensimRates) round(ctx context.Context, h *benchmarks.Harness) error {
	script := filepath.Join("benchmarks", "gensim", "w2v_rate.py")
	for wi, wk := range workers {
		cmd := exec.CommandContext(ctx, gs.python, script, gs.edges, fmt.Sprint(wk))
		var stderr strings.Builder
		cmd.Stderr = io.MultiWriter(h.Stderr, &stderr)
		cmd.WaitDelay = benchmarks.WaitDelay
		b, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("%s %s: %w: %s", gs.python, script, err, benchmarks.LastLine(stderr.String()))
		}
		var r struct {
			Gensim    string  `json:"gensim"`
			PairsPerS float64 `json:"pairs_per_s"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: %w", script, err)
		}
		fmt.Fprintf(h.Stderr, "gensim workers=%d: %.2fM pairs/s\n", wk, r.PairsPerS/1e6)
		gs.rates[wi] = append(gs.rates[wi], r.PairsPerS)
		gs.version = r.Gensim
	}
	return nil
}

// report returns the results file's note on gensim and its table line
// (nil when it was not measured).
func (gs *gensimRates) report(o *options) (string, *line) {
	if gs.err != nil {
		return "gensim: not measured (" + gs.err.Error() + ")", nil
	}
	note := "gensim " + gs.version + ": `benchmarks/gensim/w2v_rate.py` (skip-gram, 5 negatives, d = 128, window 10, no subsampling, one epoch over 10 DeepWalk walks of length 40 per node of the same training graph; pairs are the expected (centre, context) pairs of gensim's shrunk window; train() time only), run after each round over the trainer's settings on " + o.split + ": the median of " + fmt.Sprint(o.trainerRuns) + " runs per worker count (range " + gs.ranges() + ")"
	return note, &line{kernel: "gensim word2vec skip-gram", setting: o.split + ", 5 negatives per positive pair", unit: "positive pairs/s", vals: gs.medians()}
}

// medians is the median rate per worker count.
func (gs *gensimRates) medians() []float64 {
	var out []float64
	for _, r := range gs.rates {
		out = append(out, median(r))
	}
	return out
}

// median is the middle value of xs (the upper one of an even count),
// which it leaves unchanged.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// ranges names the lowest and highest rate per worker count.
func (gs *gensimRates) ranges() string {
	var parts []string
	for wi, r := range gs.rates {
		parts = append(parts, fmt.Sprintf("%d worker(s) %.2fM–%.2fM", workers[wi], slices.Min(r)/1e6, slices.Max(r)/1e6))
	}
	return strings.Join(parts, ", ")
}
