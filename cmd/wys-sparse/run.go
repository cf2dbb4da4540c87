package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/reference"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// usageError is a bad flag or flag combination: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// options are the parsed flags.
type options struct {
	graph, split           string
	directed, weighted     bool
	keepLoops, lcc         bool
	ids                    string
	trainer                string
	dim, c, steps          int
	beta, walks            float64
	ppr                    float64
	adamicAdar             bool
	source                 string
	warmStart              bool
	formulation, optimizer string
	lr, qlr, epochs        float64
	batch, negatives       int
	patience               int
	evalEvery              float64
	testFraction           float64
	seed                   uint64
	workers                int
	out, format            string
	qJSON, qPlot, report   string
	labels, labelSplit     string
	progress               string
	maxMemory              float64
	quiet                  bool
	fixedQ                 string
	method                 string
	rank                   int
	checkpoint             string
	checkpointEvery        time.Duration
	resume                 bool
}

func newFlagSet(o *options, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("wys-sparse", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.graph, "graph", "", "edge list `FILE` to embed (SNAP text, plain or .gz)")
	fs.StringVar(&o.split, "split", "", "released split `DIR` (train/test .npy arrays and index.tsv) instead of -graph")
	fs.BoolVar(&o.directed, "directed", false, "treat edges as arcs (default: undirected, both arcs stored)")
	fs.BoolVar(&o.weighted, "weighted", false, "read the third column of -graph as an edge weight")
	fs.BoolVar(&o.keepLoops, "keep-self-loops", false, "keep u-u edges of -graph (default: dropped and counted)")
	fs.BoolVar(&o.lcc, "lcc", false, "keep only the largest (weakly) connected component of -graph, as the paper does")
	fs.StringVar(&o.ids, "ids", "auto", "node ids of -graph: auto, int or token")
	fs.Float64Var(&o.testFraction, "test-fraction", 0.5, "with -graph: fraction of edges held out for link prediction (0: train on all, no evaluation)")
	fs.StringVar(&o.trainer, "trainer", "sparse", "sparse (minibatch, scales to millions of nodes) or dense (exact paper reference, O(N²) memory)")
	fs.IntVar(&o.dim, "dim", 128, "embedding width d of Y = [L | R], d/2 per side (even)")
	fs.IntVar(&o.rank, "rank", 0, "rank of the score matrix g(Y) = L Rᵀ, the width of each side: -rank r is -dim 2r (0: from -dim)")
	fs.IntVar(&o.c, "C", pipeline.DefaultC, "number of transition-matrix powers k = 1..C")
	fs.Float64Var(&o.beta, "beta", pipeline.DefaultBeta, "weight of the attention regulariser on q")
	fs.StringVar(&o.source, "source", "walk", "sparse: positive pairs weighted by the walk steps (walk) or by the factored E[D] of rank -rank (factored)")
	fs.BoolVar(&o.warmStart, "warm-start", false, "sparse: start L and R from the rank -rank spectral factors of the transition-matrix series instead of noise")
	fs.Float64Var(&o.ppr, "ppr", 0, "add a Personalized PageRank context with this restart probability in (0, 1), with its own learned attention weight (0: off)")
	fs.BoolVar(&o.adamicAdar, "adamic-adar", false, "add an Adamic–Adar context (common neighbours weighted by 1/ln degree), with its own learned attention weight")
	fs.Float64Var(&o.walks, "walks-per-node", pipeline.DefaultWalksPerNode, "starting mass P0 of E[D] (walks per node)")
	fs.StringVar(&o.formulation, "formulation", "code", "E[D] weighting and loss: code (authors' released numerics, reproduces Table 1) or paper")
	fs.StringVar(&o.method, "method", "wys", "wys (Watch Your Step), or a baseline of the paper's Table 1: svd (truncated SVD of A), eigenmaps (Laplacian eigenmaps), wys-fixed-deepwalk or wys-fixed-glove (WYS with Q fixed, as -fixed-q)")
	fs.StringVar(&o.fixedQ, "fixed-q", "", "fix Q instead of learning it: deepwalk (1-(k-1)/C) or glove (1/k)")
	fs.StringVar(&o.optimizer, "optimizer", "", "sparse: adam, sgd or percentdelta (default adam); dense: percentdelta or adam (default percentdelta)")
	fs.Float64Var(&o.lr, "lr", 0, "learning rate (0: the trainer's default)")
	fs.Float64Var(&o.qlr, "qlr", 0, "sparse: learning rate of the attention logits q (0: default 0.005)")
	fs.Float64Var(&o.epochs, "epochs", 0, "sparse: epochs, each N walks of length C (0: max(400, 150 walks per arc), e.g. 463 for ca-HepTh, 1500 for PPI)")
	fs.IntVar(&o.steps, "steps", 0, "dense: full-batch steps (0: default 300)")
	fs.IntVar(&o.batch, "batch", 0, "sparse: walks per minibatch (0: default 256)")
	fs.IntVar(&o.negatives, "negatives", 0, "sparse: non-edge pairs per positive pair (0: default 1)")
	fs.Float64Var(&o.evalEvery, "eval-every", 0, "sparse: epochs between train/test AUC evaluations (0: epochs/20)")
	fs.IntVar(&o.patience, "patience", 0, "sparse: stop after this many evaluations without a better train AUC (0: never)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of every random choice (same seed and data: same output)")
	fs.IntVar(&o.workers, "workers", 0, "goroutines (0: all cores); the output does not depend on it")
	fs.StringVar(&o.out, "out", "", "write embeddings to `FILE` (format from -format or the extension: .npy, .tsv, else word2vec text)")
	fs.StringVar(&o.format, "format", "", "embedding format: w2v, npy or tsv (default: from the -out extension)")
	fs.StringVar(&o.qJSON, "q-out", "", "write the learned Q and q as JSON to `FILE`")
	fs.StringVar(&o.qPlot, "q-plot", "", "draw the learned Q (log scale, like the paper's Figure 2a) to `FILE`.png or .svg")
	fs.StringVar(&o.report, "report", "", "write a JSON report (inputs with sha256, settings, curves, metrics, timings, memory) to `FILE`")
	fs.StringVar(&o.labels, "labels", "", "node classes (`FILE`: node<TAB>class) for node classification")
	fs.StringVar(&o.labelSplit, "label-split", "", "Planetoid-style split (`FILE`: node<TAB>train|val|test) for -labels")
	fs.StringVar(&o.checkpoint, "checkpoint", "", "sparse: save the training state (L, R, q, optimiser) to `DIR` periodically and at the end")
	fs.DurationVar(&o.checkpointEvery, "checkpoint-every", 5*time.Minute, "time between checkpoints")
	fs.BoolVar(&o.resume, "resume", false, "continue from the checkpoint in -checkpoint DIR, bit-for-bit as if uninterrupted")
	fs.Float64Var(&o.maxMemory, "max-memory", 0, "memory limit in GiB for the pre-flight check (0: 90% of the machine's available memory)")
	fs.StringVar(&o.progress, "progress", "text", "progress on stderr: text, json (one JSON object per line) or none")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress and no summary: only errors (same as -progress none, plus a silent stdout)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText)
		fs.PrintDefaults()
	}
	return fs
}

const usageText = `wys-sparse learns node embeddings with Watch Your Step (graph attention
over random-walk context, NeurIPS 2018) and evaluates them.

Usage:
  wys-sparse [flags]                       demo on a built-in graph
  wys-sparse -graph edges.txt -out emb.txt  embed a SNAP edge list
  wys-sparse -split DIR                     train and test on a released split

Flags:
`

// run is the whole command: it parses args, does the work and returns the
// exit code. It never calls os.Exit, so tests drive it in-process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o options
	fs := newFlagSet(&o, stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintln(stderr, "wys-sparse: run 'wys-sparse -help' for the flags")
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "wys-sparse: unexpected argument %q: give the graph with -graph FILE\n", fs.Arg(0))
		return exitUsage
	}
	if o.quiet {
		o.progress = "none"
		stdout = io.Discard
	}
	var err error
	if o.rank != 0 {
		dimSet := false
		fs.Visit(func(f *flag.Flag) { dimSet = dimSet || f.Name == "dim" })
		switch {
		case o.rank < 0:
			err = usagef("-rank %d: want a positive rank (the width of each side of Y = [L | R])", o.rank)
		case dimSet && o.dim != 2*o.rank:
			err = usagef("-rank %d and -dim %d disagree: -rank r is -dim 2r, give one of them", o.rank, o.dim)
		default:
			o.dim = 2 * o.rank
		}
	}
	if name, ok := strings.CutPrefix(o.method, "wys-fixed-"); ok && err == nil {
		// -method wys-fixed-deepwalk is -method wys -fixed-q deepwalk.
		switch {
		case name != "deepwalk" && name != "glove":
			err = usagef("-method %q: want wys, svd, eigenmaps, wys-fixed-deepwalk or wys-fixed-glove", o.method)
		case o.fixedQ != "" && o.fixedQ != name:
			err = usagef("-method %s and -fixed-q %s disagree: give one of them", o.method, o.fixedQ)
		default:
			o.method, o.fixedQ = "wys", name
		}
	}
	if err == nil {
		err = job(ctx, &o, stdout, stderr)
	}
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "wys-sparse: %v\n", err)
		return exitUsage
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		if o.checkpoint != "" && o.method == "wys" && o.trainer == "sparse" {
			fmt.Fprintf(stderr, "wys-sparse: interrupted; training state saved in %s: run the same command with -resume to continue\n", o.checkpoint)
		} else {
			fmt.Fprintln(stderr, "wys-sparse: interrupted; no output files were left half-written")
		}
		return exitInterrupted
	default:
		fmt.Fprintf(stderr, "wys-sparse: %v\n", strings.TrimPrefix(err.Error(), "pipeline: "))
		return exitFailure
	}
}

// check validates flag values that the libraries would reject later, so
// that they are reported as usage errors before any work.
func (o *options) check() error {
	switch {
	case o.graph != "" && o.split != "":
		return usagef("give either -graph or -split, not both")
	case o.dim < 2 || o.dim%2 != 0:
		return usagef("-dim %d must be even and at least 2 (d/2 per side of Y = [L | R])", o.dim)
	case o.c < 1:
		return usagef("-C %d: need at least one power of the transition matrix", o.c)
	case o.source != pipeline.SourceWalk && o.source != pipeline.SourceFactored:
		return usagef("-source %q: want walk (positives weighted by the walk steps, the default) or factored (by the rank -rank factored E[D])", o.source)
	case !(o.ppr >= 0 && o.ppr < 1):
		return usagef("-ppr %v: the restart probability must be in (0, 1), e.g. 0.15 (0 turns the PPR context off)", o.ppr)
	case o.trainer != "sparse" && o.trainer != "dense":
		return usagef("-trainer %q: want sparse or dense", o.trainer)
	case o.formulation != "code" && o.formulation != "paper":
		return usagef("-formulation %q: want code or paper", o.formulation)
	case o.testFraction < 0 || o.testFraction >= 1:
		return usagef("-test-fraction %v: want a fraction in [0, 1)", o.testFraction)
	case o.progress != "text" && o.progress != "json" && o.progress != "none":
		return usagef("-progress %q: want text, json or none", o.progress)
	case o.ids != "auto" && o.ids != "int" && o.ids != "token":
		return usagef("-ids %q: want auto, int or token", o.ids)
	case o.method != "wys" && o.method != pipeline.MethodSVD && o.method != pipeline.MethodEigenmaps:
		return usagef("-method %q: want wys, svd, eigenmaps, wys-fixed-deepwalk or wys-fixed-glove", o.method)
	case o.fixedQ != "" && o.fixedQ != "deepwalk" && o.fixedQ != "glove":
		return usagef("-fixed-q %q: want deepwalk or glove", o.fixedQ)
	case o.labelSplit != "" && o.labels == "":
		return usagef("-label-split needs -labels")
	case o.resume && o.checkpoint == "":
		return usagef("-resume needs -checkpoint DIR (the directory the interrupted run saved to)")
	case o.checkpoint != "" && (o.trainer != "sparse" || o.method != "wys"):
		return usagef("-checkpoint works with the sparse WYS trainer only")
	case o.checkpointEvery <= 0:
		return usagef("-checkpoint-every %v: want a positive duration", o.checkpointEvery)
	case o.maxMemory < 0 || o.epochs < 0 || o.lr < 0 || o.qlr < 0 || o.batch < 0 || o.negatives < 0 || o.steps < 0 || o.workers < 0 || o.evalEvery < 0 || o.patience < 0:
		return usagef("numeric flags cannot be negative")
	case o.format != "" && o.format != pipeline.FormatWord2Vec && o.format != pipeline.FormatNPY && o.format != pipeline.FormatTSV:
		return usagef("-format %q: want w2v, npy or tsv", o.format)
	}
	for _, p := range []string{o.out, o.qJSON, o.qPlot, o.report} {
		if p == "" {
			continue
		}
		dir := filepath.Dir(p)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return usagef("cannot write %s: directory %s does not exist", p, dir)
		}
		if err := writableDir(dir); err != nil {
			return usagef("cannot write %s: directory %s is not writable (creating a file there failed: %v); choose another output path", p, dir, err)
		}
	}
	if o.qPlot != "" {
		if ext := strings.ToLower(filepath.Ext(o.qPlot)); ext != ".png" && ext != ".svg" {
			return usagef("-q-plot %s: use a .png or .svg file name", o.qPlot)
		}
	}
	return nil
}

// report is the JSON report of a run.
type report struct {
	Tool     string                   `json:"tool"`
	Started  string                   `json:"started"`
	Inputs   []inputFile              `json:"inputs"`
	Graph    graphStats               `json:"graph"`
	Load     *pipeline.LoadReport     `json:"load,omitempty"`
	Settings map[string]any           `json:"settings"`
	Result   resultSummary            `json:"result"`
	Classify *pipeline.ClassifyResult `json:"classification,omitempty"`
	Curve    []pipeline.CurvePoint    `json:"curve"`
	Stages   []stage                  `json:"stages"`
	PeakRSS  int64                    `json:"peak_rss_bytes"`
	Outputs  []string                 `json:"outputs"`
}

type inputFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

type graphStats struct {
	Nodes      int  `json:"nodes"`
	TrainArcs  int  `json:"train_arcs"`
	Directed   bool `json:"directed"`
	TrainPairs int  `json:"train_pairs"`
	TestPairs  int  `json:"test_pairs"`
}

type resultSummary struct {
	Method          string    `json:"method"`
	TrainAUC        *float64  `json:"train_auc"`
	TestAUC         *float64  `json:"test_auc"`
	TestDirectedAUC *float64  `json:"test_directed_auc,omitempty"`
	BestStep        int       `json:"best_step"`
	Q               []float64 `json:"Q"`
	QLogits         []float64 `json:"q_logits"`
	PairsPerSecond  float64   `json:"pairs_per_second,omitempty"`
	EstimatedBytes  int64     `json:"estimated_bytes"`
}

type stage struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func hashFiles(paths ...string) ([]inputFile, error) {
	var out []inputFile
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		var files []string
		if st.IsDir() {
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				if !e.IsDir() {
					files = append(files, filepath.Join(p, e.Name()))
				}
			}
		} else {
			files = []string{p}
		}
		for _, f := range files {
			h := sha256.New()
			r, err := os.Open(f)
			if err != nil {
				return nil, err
			}
			n, err := io.Copy(h, r)
			r.Close()
			if err != nil {
				return nil, err
			}
			out = append(out, inputFile{Path: f, SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: n})
		}
	}
	return out, nil
}

func job(ctx context.Context, o *options, stdout, stderr io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	started := time.Now()
	prog := newProgress(stderr, o.progress)
	rep := &report{Tool: "wys-sparse", Started: started.UTC().Format(time.RFC3339)}
	obj := pipeline.ObjectiveConfig{Formulation: pipeline.Formulation(o.formulation), C: o.c, Beta: o.beta, WalksPerNode: o.walks,
		PPR: o.ppr, AdamicAdar: o.adamicAdar}
	if o.beta == 0 {
		obj.Beta = -1 // explicit 0 turns the regulariser off
	}
	if err := obj.Validate(); err != nil {
		return usagef("%v", strings.TrimPrefix(err.Error(), "pipeline: "))
	}

	// Input.
	t0 := time.Now()
	var split *pipeline.Split
	var ids *pipeline.NodeIDs
	demo := o.graph == "" && o.split == ""
	switch {
	case o.split != "":
		prog.stage("load", "reading split "+o.split)
		s, err := pipeline.LoadSplitDir(ctx, o.split, o.directed)
		if err != nil {
			return err
		}
		split, ids = s, s.IDs
		fmt.Fprintf(stdout, "split %s: %d nodes, %d train / %d test edges, %d / %d negatives%s\n", o.split, s.N,
			len(s.Train), len(s.Test), len(s.TrainNeg), len(s.TestNeg), directedNote(s.Directed))
	default:
		var g *pipeline.Graph
		if demo {
			var err error
			g, err = pipeline.PlantedPartition(600, 6, 0.06, 0.003, 1)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "built-in demo graph: %d nodes in 6 planted communities, %d edges (no -graph given)\n", g.N(), g.Adj.NNZ()/2)
		} else {
			prog.stage("load", "reading "+o.graph)
			mode := map[string]pipeline.IDMode{"auto": pipeline.IDAuto, "int": pipeline.IDInteger, "token": pipeline.IDToken}[o.ids]
			var lr *pipeline.LoadReport
			var err error
			g, lr, err = pipeline.LoadEdgeList(ctx, o.graph, pipeline.LoadOptions{Directed: o.directed, Weighted: o.weighted, KeepSelfLoops: o.keepLoops, IDs: mode})
			if err != nil {
				return err
			}
			rep.Load = lr
			loops := "dropped"
			if lr.KeptSelfLoops {
				loops = "kept"
			}
			fmt.Fprintf(stdout, "loaded %s: %d nodes, %d %s, %d self-loops %s, %d duplicates merged (%.2fs)\n",
				o.graph, lr.Nodes, lr.UniqueEdges, map[bool]string{true: "arcs", false: "edges"}[o.directed], lr.SelfLoops, loops, lr.Duplicates, time.Since(t0).Seconds())
			if o.lcc {
				before := g.N()
				g = pipeline.LargestComponent(g)
				fmt.Fprintf(stdout, "largest connected component: %d of %d nodes\n", g.N(), before)
			}
		}
		ids = g.IDs
		if o.testFraction > 0 {
			prog.stage("split", fmt.Sprintf("holding out %.0f%% of the edges", 100*o.testFraction))
			s, err := pipeline.SplitEdges(ctx, g, o.testFraction, o.seed)
			if err != nil {
				return err
			}
			split = s
			fmt.Fprintf(stdout, "split: %d train / %d test edges (train graph keeps its connectivity), %d / %d sampled non-edges\n",
				len(s.Train), len(s.Test), len(s.TrainNeg), len(s.TestNeg))
		} else {
			split = &pipeline.Split{N: g.N(), IDs: g.IDs, Directed: g.Directed}
			split.Train = nil
			rep.Graph.TrainArcs = g.Adj.NNZ()
			return trainAndWrite(ctx, o, obj, g, split, ids, rep, prog, stdout, started, t0)
		}
	}
	g, err := split.TrainGraph()
	if err != nil {
		return err
	}
	rep.Graph.TrainArcs = g.Adj.NNZ()
	if err := trainAndWrite(ctx, o, obj, g, split, ids, rep, prog, stdout, started, t0); err != nil {
		return err
	}
	if demo {
		fmt.Fprint(stdout, demoHint)
	}
	return nil
}

const demoHint = `
Next: embed your own graph (SNAP edge list, plain or .gz):
  wys-sparse -graph edges.txt -out emb.txt -q-plot q.png -report report.json
or reproduce the paper on a released split:
  wys-sparse -split ../shared/datasets/ca-HepTh/asymproj
Run 'wys-sparse -help' for every flag.
`

func directedNote(d bool) string {
	if d {
		return " (directed)"
	}
	return ""
}

func fixedQ(name string, c int) []float64 {
	q := make([]float64, c)
	for k := range q {
		switch name {
		case "deepwalk":
			q[k] = 1 - float64(k)/float64(c)
		case "glove":
			q[k] = 1 / float64(k+1)
		}
	}
	return q
}

func trainAndWrite(ctx context.Context, o *options, obj pipeline.ObjectiveConfig, g *pipeline.Graph, split *pipeline.Split,
	ids *pipeline.NodeIDs, rep *report, prog *progress, stdout io.Writer, started, t0 time.Time) error {
	rep.Stages = append(rep.Stages, stage{"load", time.Since(t0).Seconds()})
	rep.Graph.Nodes, rep.Graph.Directed = g.N(), g.Directed
	rep.Graph.TrainPairs, rep.Graph.TestPairs = len(split.Train), len(split.Test)
	var res *pipeline.Result
	var err error
	settings := map[string]any{"trainer": o.trainer, "formulation": o.formulation, "dim": o.dim, "C": o.c, "beta": o.beta,
		"walks_per_node": o.walks, "source": o.source, "warm_start": o.warmStart, "ppr": o.ppr, "adamic_adar": o.adamicAdar, "seed": o.seed, "workers": o.workers, "go": runtime.Version()}
	var fq []float64
	if o.fixedQ != "" {
		fq = fixedQ(o.fixedQ, o.c)
		for range obj.Contexts() - o.c {
			fq = append(fq, 0) // fixed Q weighs the powers only
		}
		settings["fixed_q"] = o.fixedQ
	}
	if o.dim/2 > g.N() {
		return usagef("rank %d (-dim %d) exceeds the %d nodes of the graph; use -rank %d (-dim %d) or less", o.dim/2, o.dim, g.N(), g.N(), 2*g.N())
	}
	t1 := time.Now()
	switch {
	case o.method != "wys":
		settings["method"] = o.method
		prog.stage("factorize", fmt.Sprintf("%s baseline of rank %d", o.method, o.dim/2))
		res, err = pipeline.Baseline(ctx, o.method, g, split, o.dim, o.seed, o.workers)
	case o.trainer == "dense":
		if fq != nil {
			return usagef("-fixed-q is available with the sparse trainer only")
		}
		cfg := reference.Config{Objective: obj, Dim: o.dim, Steps: o.steps, Optimizer: o.optimizer, LR: o.lr, Seed: o.seed, Workers: o.workers,
			MemoryLimit: int64(o.maxMemory * (1 << 30))}
		if err := cfg.Validate(); err != nil {
			return usagef("%v", err)
		}
		if _, err := reference.CheckMemory(g.N(), cfg); err != nil {
			return err
		}
		settings["steps"], settings["optimizer"], settings["lr"] = o.steps, cfg.Optimizer, o.lr
		res, err = reference.TrainGraph(ctx, g, split, cfg, prog)
	default: // the sparse trainer
		cfg := pipeline.TrainConfig{Objective: obj, Dim: o.dim, Epochs: o.epochs, BatchWalks: o.batch, Negatives: o.negatives,
			Optimizer: o.optimizer, LR: o.lr, QLR: o.qlr, EvalEvery: o.evalEvery, Patience: o.patience, FixedQ: fq,
			Source: o.source, WarmStart: o.warmStart, Seed: o.seed, Workers: o.workers, MemoryLimit: int64(o.maxMemory * (1 << 30))}
		if err := cfg.Validate(); err != nil {
			return usagef("%v", strings.TrimPrefix(err.Error(), "pipeline: "))
		}
		if o.checkpoint != "" {
			if err := os.MkdirAll(o.checkpoint, 0o755); err != nil {
				return fmt.Errorf("cannot create checkpoint directory: %w", err)
			}
			path := pipeline.CheckpointPath(o.checkpoint)
			cfg.CheckpointEvery = o.checkpointEvery
			cfg.Checkpoint = func(st *pipeline.TrainState) error { return pipeline.WriteCheckpoint(path, st) }
			if o.resume {
				if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
					return fmt.Errorf("-resume: no checkpoint in %s (no run has saved there yet; drop -resume to start a new run)", o.checkpoint)
				}
				st, err := pipeline.ReadCheckpoint(path)
				if err != nil {
					return fmt.Errorf("%w (delete %s to start over)", err, path)
				}
				cfg.Resume = st
				settings["resumed_from_batch"] = st.Batch
			}
		}
		d := cfg.WithDefaults()
		settings["epochs"], settings["batch_walks"], settings["negatives"] = d.Epochs, d.BatchWalks, d.Negatives
		settings["optimizer"], settings["lr"], settings["qlr"] = d.Optimizer, d.LR, d.QLR
		res, err = pipeline.TrainGraph(ctx, g, split, cfg, prog)
		if errors.Is(err, pipeline.ErrCheckpoint) {
			err = fmt.Errorf("%w; resume with the flags and input of that run, or use another -checkpoint DIR", err)
		}
	}
	prog.done()
	if err != nil {
		return err
	}
	rep.Settings = settings
	rep.Stages = append(rep.Stages, stage{"train", time.Since(t1).Seconds()})

	// Summary.
	if o.method == "wys" {
		fmt.Fprintf(stdout, "trained %s (%s formulation, d = %d, C = %d) in %.1fs", res.Method, o.formulation, o.dim, o.c, time.Since(t1).Seconds())
	} else {
		fmt.Fprintf(stdout, "computed the %s baseline (d = %d) in %.1fs", res.Method, o.dim, time.Since(t1).Seconds())
	}
	if res.Stats.PairsPerSecond > 0 {
		fmt.Fprintf(stdout, ", %.2fM positive pairs/s", res.Stats.PairsPerSecond/1e6)
	}
	fmt.Fprintln(stdout)
	if res.Q != nil {
		if len(res.Q) > o.c {
			extra := strings.Join(obj.ContextNames()[o.c:], ", ")
			fmt.Fprintf(stdout, "learned context distribution Q (k = 1..%d, then %s):\n  %s\n", o.c, extra, formatQ(res.Q))
		} else {
			fmt.Fprintf(stdout, "learned context distribution Q (k = 1..%d):\n  %s\n", len(res.Q), formatQ(res.Q))
		}
	}
	if !math.IsNaN(res.TestAUC) {
		fmt.Fprintf(stdout, "link prediction ROC-AUC: test %.4f, train %.4f", res.TestAUC, res.TrainAUC)
		if o.method == "wys" {
			fmt.Fprintf(stdout, " (model selected at step %d by train AUC)", res.BestStep)
		}
		fmt.Fprintln(stdout)
	}
	if !math.IsNaN(res.TestDirectedAUC) {
		fmt.Fprintf(stdout, "  against reversed arcs and random non-edges: %.4f\n", res.TestDirectedAUC)
	}
	rep.Result = resultSummary{Method: res.Method, TrainAUC: finite(res.TrainAUC), TestAUC: finite(res.TestAUC),
		TestDirectedAUC: finite(res.TestDirectedAUC), BestStep: res.BestStep, Q: res.Q, QLogits: res.QLogits,
		PairsPerSecond: res.Stats.PairsPerSecond, EstimatedBytes: res.Stats.EstimatedBytes}
	rep.Curve = res.Curve

	if o.labels != "" {
		lab, err := pipeline.LoadLabels(o.labels, o.labelSplit, ids)
		if err != nil {
			return err
		}
		if o.labelSplit == "" {
			return usagef("-labels needs -label-split to know the train, validation and test nodes")
		}
		cr, err := pipeline.Classify(ctx, res, lab)
		if err != nil {
			return err
		}
		rep.Classify = cr
		fmt.Fprintf(stdout, "node classification accuracy: test %.1f%%, validation %.1f%% (α = %g, score %s)\n",
			100*cr.TestAccuracy, 100*cr.ValAccuracy, cr.Alpha, cr.Score)
		fmt.Fprintf(stdout, "  best validation accuracy per score: %s\n", bestPerScore(cr.Grid))
	}

	// Outputs.
	if o.out != "" {
		format := o.format
		if format == "" {
			format = pipeline.FormatFromPath(o.out)
		}
		if err := pipeline.WriteEmbeddings(o.out, format, res, ids); err != nil {
			return err
		}
		rep.Outputs = append(rep.Outputs, o.out)
		note := ""
		if format == pipeline.FormatNPY {
			note = " (ids in " + pipeline.IDsPath(o.out) + ")"
			rep.Outputs = append(rep.Outputs, pipeline.IDsPath(o.out))
		}
		fmt.Fprintf(stdout, "wrote %d x %d embeddings [L | R] to %s%s; score of arc u→v = L_u·R_v\n", res.N, 2*res.Half, o.out, note)
	}
	if o.qJSON != "" && res.Q != nil {
		if err := pipeline.WriteJSON(o.qJSON, pipeline.QReport{Q: res.Q, Logits: res.QLogits, Names: obj.ContextNames()}); err != nil {
			return err
		}
		rep.Outputs = append(rep.Outputs, o.qJSON)
		fmt.Fprintf(stdout, "wrote Q to %s\n", o.qJSON)
	}
	if o.qPlot != "" && res.Q != nil {
		title := "demo graph"
		if src := o.graph + o.split; src != "" {
			title = filepath.Base(filepath.Clean(src))
			if title == "asymproj" { // a released split: name the dataset
				title = filepath.Base(filepath.Dir(filepath.Clean(src)))
			}
		}
		if err := pipeline.PlotQNamed(o.qPlot, title, res.Q, obj.ContextNames()); err != nil {
			return err
		}
		rep.Outputs = append(rep.Outputs, o.qPlot)
		fmt.Fprintf(stdout, "drew Q to %s\n", o.qPlot)
	}
	if o.report != "" {
		var inputs []string
		for _, p := range []string{o.graph, o.split, o.labels, o.labelSplit} {
			if p != "" {
				inputs = append(inputs, p)
			}
		}
		files, err := hashFiles(inputs...)
		if err != nil {
			return err
		}
		rep.Inputs = files
		rep.PeakRSS = pipeline.PeakRSS()
		rep.Stages = append(rep.Stages, stage{"total", time.Since(started).Seconds()})
		if err := pipeline.WriteJSON(o.report, rep); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote report to %s\n", o.report)
	}
	return nil
}

func formatQ(q []float64) string {
	parts := make([]string, len(q))
	for i, x := range q {
		parts[i] = fmt.Sprintf("%.3f", x)
	}
	return strings.Join(parts, " ")
}

// bestPerScore formats the best validation accuracy of each pair score
// over the α grid, in the order tried.
func bestPerScore(grid []pipeline.ClassifyPoint) string {
	var order []string
	best := map[string]pipeline.ClassifyPoint{}
	for _, p := range grid {
		b, ok := best[p.Score]
		if !ok {
			order = append(order, p.Score)
		}
		if !ok || p.ValAccuracy > b.ValAccuracy {
			best[p.Score] = p
		}
	}
	parts := make([]string, len(order))
	for i, s := range order {
		parts[i] = fmt.Sprintf("%s %.1f%% (α = %g)", s, 100*best[s].ValAccuracy, best[s].Alpha)
	}
	return strings.Join(parts, ", ")
}

// writableDir checks, before any work, that files can be created in dir,
// so that a long run does not fail at its end: it creates and removes an
// empty temporary file.
func writableDir(dir string) error {
	f, err := os.CreateTemp(dir, ".wys-sparse-write-test-*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return pe.Err
		}
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
