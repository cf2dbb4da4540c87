// Command scale measures how the sparse trainer's time and memory grow
// with the graph: Graph500-style R-MAT graphs (A = 0.57, B = 0.19,
// C = 0.19, edge factor 16, seeded) from -min to -max scale, each run in a
// child process so that its peak RSS is its own. For each scale it reports
// the time of generation, splitting (half the edges held out), one
// training epoch and the evaluation, the test AUC and the peak RSS, and
// the dense reference's memory estimate (run for real up to -dense-max).
// Up to -gensim-max it also runs gensim skip-gram on DeepWalk walks of the
// same training graph and scores it on the same test pairs. With -starts
// it trains once per start of L and R (each in its own child), so that
// the spectral start, with its factorization's time, and the random start
// sit side by side.
//
//	go run ./benchmarks/cmd/scale -min 12 -max 20 -out benchmarks/results/scaling.md
//	go run ./benchmarks/cmd/scale -min 20 -max 20 -epochs 0 -rank 0 -dense-max 0 -starts random,spectral -out benchmarks/results/scale20-start.md
//
// The shared flags (-data, -out, -allow-dirty) and the exit statuses are
// those of benchmarks.Harness.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/internal/sysmem"
	"github.com/wys-project/wys/lowrank"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/reference"
	"github.com/wys-project/wys/pipeline/train"
)

type row struct {
	Scale        int     `json:"scale"`
	Nodes        int     `json:"nodes"`
	Edges        int     `json:"edges"`
	GenSeconds   float64 `json:"gen_s"`
	LoadSeconds  float64 `json:"load_s"`
	FactorSecs   float64 `json:"factor_s"`
	FactorRank   int     `json:"factor_rank"`
	SplitSeconds float64 `json:"split_s"`
	// Start is the run's resolved start and StartSeconds the time of its
	// factorization (the spectral start's), which the run includes.
	Start        string  `json:"start"`
	StartSeconds float64 `json:"start_s"`
	// Optimizer and NegativeBlock are the run's resolved optimizer and
	// negative blocks (train.NegativePairs: pair by pair).
	Optimizer     string  `json:"optimizer"`
	NegativeBlock int     `json:"negative_block"`
	EpochSeconds  float64 `json:"epoch_s"`
	TrainSeconds  float64 `json:"train_s"`
	EvalSeconds   float64 `json:"eval_s"`
	Epochs        float64 `json:"epochs"`
	TestAUC       float64 `json:"test_auc"`
	PairsPerSec   float64 `json:"pairs_per_s"`
	PeakRSS       int64   `json:"peak_rss"`
	Estimated     int64   `json:"estimated"`
	DenseBytes    int64   `json:"dense_bytes"`
	DenseSeconds  float64 `json:"dense_s"`
	DenseAUC      float64 `json:"dense_auc"`
	// GensimSeconds is DeepWalk's time from the training graph's edge
	// list to its vectors (walks included); the AUCs score Y·Y and Y·Y′.
	Gensim        bool    `json:"gensim"`
	GensimSeconds float64 `json:"gensim_s"`
	GensimYY      float64 `json:"gensim_yy"`
	GensimYYC     float64 `json:"gensim_yyc"`
}

func main() { os.Exit(benchmarks.Main("scale", run)) }

// options are the command's own flags.
type options struct {
	minScale, maxScale, step, dim, denseMax, one, rank int
	gensimMax                                          int
	epochs                                             float64
	plot, optimizer, start, starts                     string
	negBlock                                           int
	gensim                                             benchmarks.Gensim
}

func run(ctx context.Context, h *benchmarks.Harness) error {
	o := &options{}
	fs := h.Flags
	fs.IntVar(&o.minScale, "min", 12, "smallest R-MAT scale (2^scale nodes)")
	fs.IntVar(&o.maxScale, "max", 20, "largest R-MAT scale")
	fs.IntVar(&o.step, "step", 2, "scale increment")
	fs.Float64Var(&o.epochs, "epochs", 1, "sparse training epochs per scale (0: the trainer's default length and evaluations, a default run)")
	fs.IntVar(&o.dim, "dim", 128, "embedding width d")
	fs.StringVar(&o.optimizer, "optimizer", "", "sparse trainer's optimizer: adam, rmsprop, rowrms or sgd (empty: its default)")
	fs.IntVar(&o.negBlock, "negative-block", 0, "sparse trainer's negatives as blocks of `m` x m pairs (0: its default, -1: pair by pair)")
	fs.IntVar(&o.denseMax, "dense-max", 12, "largest scale at which the dense reference also runs (300 steps)")
	fs.IntVar(&o.one, "one", -1, "internal: measure this scale in this process and print one JSON row")
	fs.StringVar(&o.start, "start", "", "internal: the sparse trainer's start in -one's run")
	fs.StringVar(&o.starts, "starts", "", "comma-separated starts of the sparse trainer to run at each scale, one row each: spectral, random (empty: its default); the dense reference and gensim run with the first only")
	fs.IntVar(&o.rank, "rank", 64, "rank of the factorization stage (lowrank.NewSeries on the training graph; 0: skip)")
	fs.IntVar(&o.gensimMax, "gensim-max", 0, "largest scale at which gensim DeepWalk also runs on the same split (0: none)")
	o.gensim.Register(fs, 1, "one pass over 10 walks of 80 per node, as benchmarks/cmd/large")
	fs.StringVar(&o.plot, "plot", "", "write log-log plots of time per stage and of peak memory against nodes to `PREFIX`-time.png and PREFIX-memory.png")
	if err := h.Parse(); err != nil {
		return err
	}
	if err := o.check(ctx, h); err != nil {
		return err
	}
	if o.plot != "" {
		if err := h.CheckPrefix("-plot", o.plot); err != nil {
			return err
		}
	}
	if o.one >= 0 {
		r, err := measure(ctx, o, o.one)
		if err != nil {
			return err
		}
		return json.NewEncoder(h.Stdout).Encode(r)
	}
	rows, err := measureAll(ctx, h, o)
	var failed *scaleError
	if err != nil && !errors.As(err, &failed) {
		return err
	}
	text := report(h, o, rows)
	if failed != nil {
		text += fmt.Sprintf("\n**Scale %d failed** (%v): the run stopped there.\n", failed.scale, failed.err)
	}
	if o.plot != "" && len(rows) > 0 {
		if err := plotScaling(o.plot, rows); err != nil {
			return err
		}
		text += fmt.Sprintf("\nPlots: [time per stage](%s-time.png), [peak memory](%s-memory.png) (log-log, against nodes).\n",
			filepath.Base(o.plot), filepath.Base(o.plot))
	}
	if err := h.WriteResult(text); err != nil {
		return err
	}
	if failed != nil {
		return failed
	}
	return nil
}

// check validates the flags before any scale is measured.
func (o *options) check(ctx context.Context, h *benchmarks.Harness) error {
	if o.step < 1 || o.epochs < 0 {
		return h.Usagef("-step must be positive and -epochs not negative")
	}
	if o.one < 0 && (o.minScale < 1 || o.maxScale > maxRMAT || o.minScale > o.maxScale) {
		// a negative scale would also reach the children as -one -1, the parent's mode
		return h.Usagef("-min %d, -max %d: want R-MAT scales 1 <= -min <= -max <= %d", o.minScale, o.maxScale, maxRMAT)
	}
	if o.dim < 2 || o.dim%2 != 0 || o.rank < 0 {
		return h.Usagef("-dim %d, -rank %d: want an even width of at least 2 and a rank of 0 (skip) or more", o.dim, o.rank)
	}
	if err := (train.Config{Optimizer: o.optimizer}).Validate(); err != nil {
		return h.Usagef("-optimizer: %v", err)
	}
	if err := (train.Config{NegativeBlock: o.negBlock}).Validate(); err != nil {
		return h.Usagef("-negative-block: %v", err)
	}
	for _, st := range strings.Split(o.starts, ",") {
		if err := (train.Config{Start: st}).Validate(); err != nil {
			return h.Usagef("-starts: %v", err)
		}
	}
	if err := (train.Config{Start: o.start}).Validate(); err != nil {
		return h.Usagef("-start: %v", err)
	}
	if o.one < 0 && o.gensimMax >= o.minScale {
		return o.gensim.CheckMethods(ctx, h, map[string]bool{"gensim": true})
	}
	return nil
}

// maxRMAT is the largest scale pipeline.RMAT generates.
const maxRMAT = 30

// scaleError is a scale whose child process failed: the rows before it
// are kept, and the results file says where the run stopped.
type scaleError struct {
	scale int
	err   error
}

func (e *scaleError) Error() string {
	return fmt.Sprintf("scale %d failed: %v; the results hold the scales before it", e.scale, e.err)
}

// measureAll measures each scale in a child process (this program with
// -one) and returns the rows up to the first scale that failed, and then
// a *scaleError.
func measureAll(ctx context.Context, h *benchmarks.Harness, o *options) ([]row, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var rows []row
	for s := o.minScale; s <= o.maxScale; s += o.step {
		for i, start := range strings.Split(o.starts, ",") {
			denseMax, gensimMax := o.denseMax, o.gensimMax
			if i > 0 {
				denseMax, gensimMax = -1, -1
			}
			args := []string{"-one", strconv.Itoa(s), "-start", start, "-epochs", fmt.Sprint(o.epochs), "-dim", strconv.Itoa(o.dim), "-dense-max", strconv.Itoa(denseMax), "-rank", strconv.Itoa(o.rank),
				"-optimizer", o.optimizer, "-negative-block", strconv.Itoa(o.negBlock),
				"-gensim-max", strconv.Itoa(gensimMax), "-python", o.gensim.Python, "-script", o.gensim.Script,
				"-gensim-walks", strconv.Itoa(o.gensim.Walks), "-gensim-length", strconv.Itoa(o.gensim.Length), "-gensim-window", strconv.Itoa(o.gensim.Window),
				"-gensim-negative", strconv.Itoa(o.gensim.Negative), "-gensim-epochs", strconv.Itoa(o.gensim.Epochs), "-gensim-workers", strconv.Itoa(o.gensim.Workers)}
			cmd := exec.CommandContext(ctx, self, args...)
			cmd.Stderr = h.Stderr
			var buf bytes.Buffer
			cmd.Stdout = &buf
			if err := cmd.Run(); err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return rows, &scaleError{scale: s, err: err}
			}
			var r row
			if err := json.Unmarshal(buf.Bytes(), &r); err != nil {
				return nil, fmt.Errorf("scale %d: %w", s, err)
			}
			fmt.Fprintf(h.Stderr, "scale %d: %d nodes, %d edges, %s start, epoch %.1fs, peak RSS %s, test AUC %.4f\n",
				s, r.Nodes, r.Edges, r.Start, r.EpochSeconds, sysmem.FormatBytes(r.PeakRSS), r.TestAUC)
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// report formats the results file (without the plots' line).
func report(h *benchmarks.Harness, o *options, rows []row) string {
	var b strings.Builder
	b.WriteString(h.Header("Scaling on R-MAT graphs"))
	fmt.Fprintf(&b, "Graph500 R-MAT (A = 0.57, B = 0.19, C = 0.19, edge factor 16, ids permuted, undirected, duplicates and self-loops dropped), generated, written as a SNAP edge list to a temporary file and loaded back (load = parsing that file into the CSR); half the edges held out by the splitter; factorization = lowrank.NewSeries of the training graph's transition matrix at rank %d (C = 10 powers; the factors are dropped before training); start: the trainer's resolved start of L and R, and the time of its own factorization (the spectral start's, rank d/2), which its run includes; sparse trainer with default settings%s, d = %d, C = 10, %s (one epoch = N walks, 10 positive and 10 negative pairs each). Peak RSS is the child process's VmHWM over all stages. Dense: the reference's pre-flight memory estimate (C + 1 float32 N x N matrices); its time and AUC where it ran (300 steps).%s\n\n", o.rank, settingsNote(o.optimizer, o.negBlock), o.dim, lengthNote(o.epochs), gensimNote(o))
	b.WriteString("| scale | nodes | edges | generate | load | split | factorize | start | start time | optimizer | negatives | epochs | one epoch | train | evaluate | end to end | pairs/s | test AUC | gensim Y·Y | gensim Y·Y′ | gensim time | peak RSS | sparse estimate | dense memory | dense time | dense AUC |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		dt, da := "—", "—"
		if r.DenseSeconds > 0 {
			dt, da = fmt.Sprintf("%.1f s", r.DenseSeconds), fmt.Sprintf("%.4f", r.DenseAUC)
		}
		gy, gyc, gt := "—", "—", "—"
		if r.Gensim {
			gy, gyc, gt = fmt.Sprintf("%.4f", r.GensimYY), fmt.Sprintf("%.4f", r.GensimYYC), fmt.Sprintf("%.1f s", r.GensimSeconds)
		}
		st := "—"
		if r.Start == train.StartSpectral {
			st = fmt.Sprintf("%.1f s", r.StartSeconds)
		}
		total := r.GenSeconds + r.LoadSeconds + r.SplitSeconds + r.FactorSecs + r.StartSeconds + r.TrainSeconds + r.EvalSeconds
		fmt.Fprintf(&b, "| %d | %d | %d | %.1f s | %.1f s | %.1f s | %.1f s | %s | %s | %s | %s | %g | %.1f s | %.1f s | %.1f s | %.1f s | %.2fM | %.4f | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.Scale, r.Nodes, r.Edges, r.GenSeconds, r.LoadSeconds, r.SplitSeconds, r.FactorSecs, r.Start, st, r.Optimizer, train.NegativesText(r.NegativeBlock), r.Epochs, r.EpochSeconds, r.TrainSeconds, r.EvalSeconds, total, r.PairsPerSec/1e6, r.TestAUC, gy, gyc, gt,
			sysmem.FormatBytes(r.PeakRSS), sysmem.FormatBytes(r.Estimated), sysmem.FormatBytes(r.DenseBytes), dt, da)
	}
	return b.String()
}

// measure runs every stage of one scale in this process.
func measure(ctx context.Context, o *options, scale int) (*row, error) {
	r := &row{Scale: scale, Epochs: o.epochs}
	split, tg, err := prepare(ctx, r, scale, o.rank)
	if err != nil {
		return nil, err
	}
	cfg := train.Config{Dim: o.dim, Epochs: o.epochs, EvalEvery: o.epochs, EvalPairs: 100000, Seed: 1, Optimizer: o.optimizer, NegativeBlock: o.negBlock, Start: o.start}
	resolved := cfg.Resolve(tg.N(), tg.Adj.NNZ())
	r.Epochs, r.Start = resolved.Epochs, resolved.Start
	r.Optimizer, r.NegativeBlock = resolved.Optimizer, resolved.NegativeBlock
	r.Estimated = cfg.EstimateMemory(tg.N(), tg.Adj.NNZ(), 4*len(split.Train))
	t := time.Now()
	res, err := train.Run(ctx, tg, split, cfg, nil)
	if err != nil {
		return nil, err
	}
	total := time.Since(t).Seconds()
	trainSec := res.Stats.Stage("train").Seconds()
	r.StartSeconds = res.Stats.Stage("factorize").Seconds()
	r.EpochSeconds = trainSec / r.Epochs
	r.TrainSeconds = trainSec
	r.EvalSeconds = total - trainSec - r.StartSeconds
	r.TestAUC = res.TestAUC
	r.PairsPerSec = res.Stats.PairsPerSecond
	r.PeakRSS = sysmem.PeakRSS()
	res = nil
	dcfg := reference.Config{Dim: o.dim}
	r.DenseBytes, _ = reference.CheckMemory(tg.N(), reference.Config{Dim: o.dim, MemoryLimit: math.MaxInt64})
	if scale <= o.denseMax {
		t = time.Now()
		dres, err := benchmarks.RunSplit(ctx, reference.Run, split, dcfg, nil)
		if err == nil {
			r.DenseSeconds = time.Since(t).Seconds()
			r.DenseAUC = dres.TestAUC
		}
	}
	if scale <= o.gensimMax {
		if err := measureGensim(ctx, r, o.gensim, o.dim, tg, split); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// prepare generates the graph of scale, loads it back from an edge list,
// splits it and factorizes the training graph at rank (0: skip), timing
// each stage into r; it returns the split and its training graph.
func prepare(ctx context.Context, r *row, scale, rank int) (*pipeline.Split, *pipeline.Graph, error) {
	t := time.Now()
	g, err := pipeline.RMAT(ctx, scale, 16, false, 1)
	if err != nil {
		return nil, nil, err
	}
	r.GenSeconds = time.Since(t).Seconds()
	// Load: the same graph as a SNAP edge list on disk, parsed back.
	path, err := benchmarks.WriteEdgeListTemp(g.Adj)
	if err != nil {
		return nil, nil, err
	}
	defer os.Remove(path)
	g = nil
	t = time.Now()
	g, _, err = graphio.LoadEdgeList(ctx, path, graphio.LoadOptions{IDs: graphio.IDInteger})
	if err != nil {
		return nil, nil, err
	}
	r.LoadSeconds = time.Since(t).Seconds()
	r.Nodes, r.Edges = g.N(), g.Adj.NNZ()/2
	t = time.Now()
	split, err := pipeline.SplitEdges(ctx, g, 0.5, 1)
	if err != nil {
		return nil, nil, err
	}
	r.SplitSeconds = time.Since(t).Seconds()
	tg, err := split.TrainGraph(ctx)
	if err != nil {
		return nil, nil, err
	}
	g = nil
	if rank > 0 {
		r.FactorRank = rank
		t = time.Now()
		// The factors are dropped at once, and collected before training.
		if _, err := lowrank.NewSeries(ctx, tg.Adj, lowrank.SeriesOptions{Options: lowrank.Options{Rank: rank, Seed: 1}, C: 10}); err != nil {
			return nil, nil, err
		}
		r.FactorSecs = time.Since(t).Seconds()
		runtime.GC()
	}
	return split, tg, nil
}

// measureGensim runs DeepWalk on the training graph tg and scores its last
// epoch's vectors on the split's test pairs by Y·Y and Y·Y′.
func measureGensim(ctx context.Context, r *row, o benchmarks.Gensim, dim int, tg *pipeline.Graph, split *pipeline.Split) error {
	o.Dim, o.Seed = dim, 1
	runtime.GC()
	return benchmarks.RunDeepWalk(ctx, o, tg.Adj, func(ep benchmarks.GensimEpoch) error {
		r.Gensim, r.GensimSeconds = true, ep.Elapsed
		r.GensimYY = pipeline.PairAUC(ep.Y, ep.Y, dim, split.Test, split.TestNeg)
		r.GensimYYC = pipeline.PairAUC(ep.Y, ep.YC, dim, split.Test, split.TestNeg)
		return nil
	})
}

// gensimNote describes the gensim columns.
func gensimNote(o *options) string {
	if o.gensimMax < o.minScale {
		return ""
	}
	g := o.gensim
	g.Dim = o.dim
	return fmt.Sprintf(" gensim (up to scale %d, in the same process after wys, on the same training graph and test pairs): %s, test AUC of Y·Y and of Y·Y′; its time runs from the edge list to the vectors, walks included; its memory is not in the peak RSS.", o.gensimMax, g.Describe())
}

// lengthNote describes the training length of -epochs.
func lengthNote(epochs float64) string {
	if epochs == 0 {
		return "the trainer's default length (train.DefaultEpochs) and evaluations, model selected on the train pairs"
	}
	return fmt.Sprintf("%g epoch(s)", epochs)
}

// settingsNote names the settings of the optimizer and of the negatives
// other than the defaults.
func settingsNote(opt string, block int) string {
	var but []string
	if opt != "" {
		but = append(but, "the optimizer "+opt)
	}
	switch {
	case block > 0:
		but = append(but, fmt.Sprintf("negatives in blocks of %d x %d pairs", block, block))
	case block == train.NegativePairs:
		but = append(but, "negatives drawn pair by pair")
	}
	if len(but) == 0 {
		return ""
	}
	return " but " + strings.Join(but, " and ")
}
