package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wys-project/wys/internal/atomicfile"
	"github.com/wys-project/wys/internal/buildinfo"
	"github.com/wys-project/wys/internal/outcheck"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/baseline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/reference"
	"github.com/wys-project/wys/pipeline/train"
)

// config is everything one run does. The flags bind straight into it:
// a setting that several methods share (the dimension, the seed, the
// objective…) is written into each method's configuration by one flag,
// so the configuration a method receives is the one the user gave, and
// its Resolve supplies every default.
type config struct {
	// Input.
	graph, split       string
	directed, weighted bool
	keepLoops, lcc     bool
	header             bool
	ids                string
	args               []string        // the command line, for the report
	given              map[string]bool // the flags on the command line
	testFraction       float64
	valFraction        float64

	// Method: wys (with the sparse or dense trainer) or a baseline.
	method, trainer, fixedQ string
	rank                    int
	Sparse                  train.Config
	Dense                   reference.Config
	Baseline                baseline.Config
	Refine                  train.RefineConfig // exact steps after either trainer

	// Checkpoints (sparse trainer).
	checkpoint string
	resume     bool

	// Outputs.
	out, format          string
	qJSON, qPlot, report string
	labels, labelSplit   string
	saveSplit            string
	progress             string
	quiet                bool
	version              bool
}

// sparseDefaults are the sparse trainer's defaults that do not depend on
// the graph, shown in -help: Resolve is where they come from.
var sparseDefaults = train.Config{}.Resolve(0, 0)

func newFlagSet(c *config, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("wys-sparse", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sp, de, bl := &c.Sparse, &c.Dense, &c.Baseline
	obj := []*pipeline.ObjectiveConfig{&sp.Objective, &de.Objective}

	fs.StringVar(&c.graph, "graph", "", "edge list `FILE` to embed (SNAP text, CSV or Matrix Market .mtx, plain or .gz; the network matrix of a .mat or .mat.gz file; - reads standard input, either kind)")
	fs.StringVar(&c.split, "split", "", "released split `DIR` (train/test .npy arrays and index.tsv) instead of -graph")
	fs.BoolVar(&c.directed, "directed", false, "treat edges as arcs (default: undirected, both arcs stored)")
	fs.BoolVar(&c.weighted, "weighted", false, "read the third column of -graph as an edge weight (an edge listed again keeps its first weight; only the weights' ratios matter, not their unit)")
	fs.BoolVar(&c.keepLoops, "keep-self-loops", false, "keep u-u edges of -graph (default: dropped and counted)")
	fs.BoolVar(&c.lcc, "lcc", false, "keep only the largest (weakly) connected component of -graph, as the paper does")
	fs.StringVar(&c.ids, "ids", "auto", "node ids of -graph: auto, int or token")
	fs.BoolVar(&c.header, "header", false, "skip the first line of -graph that is not blank or a comment (column names, as in a CSV file)")
	fs.Float64Var(&c.testFraction, "test-fraction", 0, "with -graph: fraction of edges held out to evaluate link prediction, e.g. 0.5 (0: embed the whole graph, as every peer does; the demo holds out 0.5)")
	fs.Float64Var(&c.valFraction, "val-fraction", 0, "share of the held-out test edges (and as many of the test non-edges) that select the model instead of the train AUC, e.g. 0.1; the test AUC is then measured on the others (0: select on the train AUC, as the paper does)")
	fs.StringVar(&c.trainer, "trainer", "sparse", "sparse (minibatch, scales to millions of nodes) or dense (exact paper reference, O(N²) memory)")
	fs.StringVar(&c.method, "method", "wys", "wys (Watch Your Step), or a baseline: svd (truncated SVD of A) or eigenmaps (Laplacian eigenmaps), as in the paper's Table 1; netmf (NetMF's closed form of DeepWalk, window -C, a dense N x N matrix: up to 32,768 nodes); prone (ProNE: a sparse factorization refined by spectral propagation, its authors' settings, d/2 columns, scales like svd); wys-fixed-deepwalk or wys-fixed-glove (WYS with Q fixed, as -fixed-q)")
	fs.StringVar(&c.fixedQ, "fixed-q", "", "fix Q instead of learning it: deepwalk (1-(k-1)/C) or glove (1/k)")

	dim := sparseDefaults.Dim
	sp.Dim, de.Dim, bl.Dim = dim, dim, dim
	fs.Var(ints{&sp.Dim, &de.Dim, &bl.Dim}, "dim", "embedding width d of Y = [L | R], d/2 per side (even)")
	fs.IntVar(&c.rank, "rank", 0, "rank of the score matrix g(Y) = L Rᵀ, the width of each side: -rank r is -dim 2r (0: from -dim)")
	bindObjective[int, ints](fs, obj, "C", pipeline.DefaultC, func(o *pipeline.ObjectiveConfig) *int { return &o.C }, "number of transition-matrix powers k = 1..C")
	bindObjective[float64, floats](fs, obj, "beta", pipeline.DefaultBeta, func(o *pipeline.ObjectiveConfig) *float64 { return &o.Beta }, "weight of the attention regulariser on q (0: off)")
	bindObjective[float64, floats](fs, obj, "walks-per-node", pipeline.DefaultWalksPerNode, func(o *pipeline.ObjectiveConfig) *float64 { return &o.WalksPerNode }, "starting mass P0 of E[D] (walks per node)")
	bindObjective[float64, floats](fs, obj, "ppr", 0, func(o *pipeline.ObjectiveConfig) *float64 { return &o.PPR }, "add a Personalized PageRank context with this restart probability in [0.001, 1), with its own learned attention weight (0: off)")
	fs.Var(bools{&sp.Objective.AdamicAdar, &de.Objective.AdamicAdar}, "adamic-adar", "add an Adamic–Adar context (common neighbours weighted by 1/ln degree), with its own learned attention weight")
	for _, o := range obj {
		o.Formulation = pipeline.FormulationCode
	}
	fs.Var(objForm(obj), "formulation", "E[D] weighting and loss: code (authors' released numerics, reproduces Table 1) or paper")
	fs.Var(bools{&sp.Objective.ExactLogs, &de.Objective.ExactLogs}, "exact-logs", "code formulation: exact log σ and log(1−σ), without the authors' ε = 1e-5 inside them, which leaves scores beyond ±11.5 almost without gradient; for whole-graph embeddings scored by their own ranking (graph reconstruction), where on long runs non-arcs drift above the arcs")

	fs.StringVar(&sp.Source, "source", train.SourceWalk, "sparse: positive pairs weighted by the walk steps (walk) or by the factored E[D] of rank -rank (factored)")
	fs.StringVar(&sp.Start, "start", "", "sparse: how L and R start: spectral (the rank -rank spectral factors of the transition-matrix series, each row of unit length), random (uniform noise), or log-svd (the rank d/2 SVD of the objective's log minimiser, a dense N x N matrix: up to 32,768 nodes; use it with a small -lr such as 0.002) (default: spectral on graphs of up to 1,048,576 nodes, random above)")
	fs.Var(warmStart{&sp.Start}, "warm-start", "sparse: -warm-start is -start spectral, -warm-start=false is -start random")
	fs.Var(strs{&sp.Optimizer, &de.Optimizer}, "optimizer", "sparse: adam, rmsprop (Adam without momentum: per-element second moments, no first moments), rowrms (one second moment per row, no momentum: 1.2-1.4x faster when the parameters are far out of cache, up to 0.14 points of test AUC lower), sgd or percentdelta (default adam below 100,000 nodes, rmsprop from there, with -negative-block 16); dense: percentdelta or adam (default percentdelta)")
	fs.Var(floats{&sp.LR, &de.LR}, "lr", "learning rate (0: the trainer's default: sparse 0.02 with adam, rmsprop, rowrms and percentdelta, 0.2 with sgd; dense 0.2 with percentdelta, 0.01 with adam)")
	sp.QLR = sparseDefaults.QLR
	fs.Float64Var(&sp.QLR, "qlr", sp.QLR, "sparse: learning rate of the attention logits q (positive; -fixed-q fixes Q instead)")
	fs.Float64Var(&sp.Epochs, "epochs", 0, "sparse: epochs, each N walks of length C (0: max(400, 150 walks per arc), e.g. 463 for ca-HepTh, capped at 3e8 positive pairs, e.g. 300 for 100k nodes)")
	fs.BoolVar(&sp.Converge, "converge", false, "sparse: end the run early once the train AUC gains less than -tol per doubling of the run (after a short annealing phase)")
	sp.Tolerance = sparseDefaults.Tolerance
	fs.Float64Var(&sp.Tolerance, "tol", sp.Tolerance, "sparse: train AUC a doubling of the run must still gain under -converge, as a fraction (0.002: 0.2 points of AUC; below 1)")
	fs.Float64Var(&sp.Average, "average", 0, "sparse: average L and R over this `share` of the run at its end (at most 100 snapshots; 0: off): a final model with less minibatch noise; not with -converge or -time")
	fs.DurationVar(&sp.TimeBudget, "time", 0, "sparse: stop once this much training time has passed, evaluating there and keeping the selected model (0: none; the length then depends on the machine); a checkpointed run resumes with a longer -time toward its planned length")
	fullBatchFlags(fs, c)
	sp.Negatives = sparseDefaults.Negatives
	fs.IntVar(&sp.BatchWalks, "batch", 0, "sparse: walks per minibatch (0: 256, or about N/100 above 25,600 nodes: rounded to a multiple of 64, at most 16384); larger batches take fewer steps per epoch, so q moves less: raise -qlr with them")
	fs.IntVar(&sp.Negatives, "negatives", sp.Negatives, "sparse: non-edge pairs per positive pair")
	fs.Var(negBlock{&sp.NegativeBlock}, "negative-block", "sparse: draw negatives as blocks of `m` x m pairs between m uniform rows of L and of R, or 0: pair by pair (default: 16 with rmsprop, the optimizer's default there, on graphs of 100,000 nodes or more, else 0; unbiased either way, blocks move far less memory on large graphs)")
	fs.Float64Var(&sp.EvalEvery, "eval-every", 0, "sparse: epochs between train/test AUC evaluations (0: epochs/20)")
	fs.IntVar(&sp.Patience, "patience", 0, "sparse: stop after this many evaluations without a better train AUC, or validation AUC with -val-fraction (0: never)")
	sp.Seed, de.Seed, bl.Seed = 1, 1, 1
	fs.Var(uints{&sp.Seed, &de.Seed, &bl.Seed, &c.Refine.Seed}, "seed", "seed of every random choice (same seed and data: same output)")
	fs.Var(ints{&sp.Workers, &de.Workers, &bl.Workers, &c.Refine.Workers}, "workers", "cores to use: goroutines of every parallel step, GOMAXPROCS of the run (0: all cores); the output does not depend on it")
	fs.StringVar(&c.out, "out", "", "write embeddings to `FILE` (format from -format or the extension: .npy, .tsv, .csv, else word2vec text; .gz compresses text)")
	fs.StringVar(&c.format, "format", "", "embedding format: w2v, npy, tsv or csv (default: from the -out extension)")
	fs.StringVar(&c.qJSON, "q-out", "", "write the learned Q and q as JSON to `FILE`")
	fs.StringVar(&c.qPlot, "q-plot", "", "draw the learned Q (log scale, like the paper's Figure 2a) to `FILE`.png or .svg")
	fs.StringVar(&c.report, "report", "", "write a JSON report (inputs with sha256, settings, curves, metrics, timings, memory) to `FILE`")
	fs.StringVar(&c.saveSplit, "save-split", "", "with -test-fraction: write the split (train and test edges, their non-edges, the node ids) to `DIR` in the layout -split and eval -split read, so that other tools' embeddings of the same training graph are scored on the same pairs")
	fs.StringVar(&c.labels, "labels", "", "node classes (`FILE`: node<TAB>class lines, or node,class; integer classes, -1 for none) for node classification")
	fs.StringVar(&c.labelSplit, "label-split", "", "Planetoid-style split (`FILE`: node<TAB>train|val|test) for -labels")
	fs.StringVar(&c.checkpoint, "checkpoint", "", "sparse: save the training state (L, R, q, optimiser) to `DIR` periodically and at the end")
	sp.CheckpointEvery = sparseDefaults.CheckpointEvery
	fs.DurationVar(&sp.CheckpointEvery, "checkpoint-every", sp.CheckpointEvery, "time between checkpoints")
	fs.BoolVar(&c.resume, "resume", false, "continue from the checkpoint in -checkpoint DIR, bit-for-bit as if uninterrupted")
	fs.Var(gib{&sp.MemoryLimit, &de.MemoryLimit, &c.Refine.MemoryLimit}, "max-memory", "memory limit in GiB for the pre-flight check of the WYS trainers, and the Go heap's soft limit while they run (unless GOMEMLIMIT is set) (0: 90% of the available memory: the machine's, or less under the memory limit of the process's cgroup or an ancestor's, as a container sets it)")
	fs.StringVar(&c.progress, "progress", "text", "progress on stderr: text, json (one JSON object per line: every stage, note and evaluation, progress with rate and eta_seconds at most once a second, and a last error or done event with the exit code) or none")
	fs.BoolVar(&c.quiet, "quiet", false, "no progress and no summary: only errors (same as -progress none, plus a silent stdout)")
	fs.BoolVar(&c.version, "version", false, "print the version (module, commit, Go) and exit")
	// A bad flag gets its one-line error and a pointer to -help (see run);
	// -help prints the usage on stdout (see printUsage).
	fs.Usage = func() {}
	return fs
}

// fullBatchFlags defines the flags of the full-batch steps: the dense
// reference's and -refine's.
func fullBatchFlags(fs *flag.FlagSet, c *config) {
	fs.IntVar(&c.Refine.Steps, "refine", 0, "end with this many exact full-batch Adam steps on L and R at the run's Q (learned, or -fixed-q's), which stays fixed (dense N x N matrices: graphs of up to 32,768 nodes; each step costs N²·d; 0: none), whose last step's model is the result: on small graphs they add the last gains that the minibatch gradient's noise hides (e.g. 30; docs/results.md, \"Exact refinement\")")
	fs.Float64Var(&c.Refine.LR, "refine-lr", 0, "Adam learning rate of the -refine steps (0: 0.01)")
	c.Dense.Steps = reference.Config{}.Resolve().Steps
	fs.IntVar(&c.Dense.Steps, "steps", c.Dense.Steps, "dense: full-batch steps")
}

// printUsage writes the usage text and every flag with its default to w,
// the descriptions wrapped to fit 80 columns.
func printUsage(w io.Writer) {
	fs := newFlagSet(&config{}, w)
	fmt.Fprint(w, usageText)
	printFlags(w, fs)
}

// printFlags writes every flag of fs with its default to w, the
// descriptions wrapped to fit 80 columns.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  -" + f.Name
		if name != "" {
			line += " " + name
		}
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintln(w, line)
		for _, l := range wrap(usage, 72) {
			fmt.Fprintln(w, "      "+l)
		}
	})
}

// wrap breaks text into lines of at most width bytes at spaces (a longer
// word gets a line of its own).
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return append(lines, line)
}

// version is -version's line.
func version() string { return buildinfo.Version("wys-sparse") }

const usageText = `wys-sparse learns node embeddings with Watch Your Step (graph attention
over random-walk context, NeurIPS 2018) and evaluates them.

Usage:
  wys-sparse [flags]                        demo on a built-in graph
  wys-sparse -graph edges.txt -out emb.txt  embed a SNAP edge list
  wys-sparse -split DIR                     train and test on a released split
  wys-sparse eval -emb FILE -split DIR      score an embedding file
  wys-sparse neighbors -emb FILE -node ID   the top-k nodes for a node
  wys-sparse help [COMMAND]                 this text, or a command's

Flags:
`

// Flag values that write one parsed value into several destinations.
type (
	ints    []*int
	uints   []*uint64
	floats  []*float64
	strs    []*string
	bools   []*bool
	gib     []*int64 // a size in GiB written as bytes
	objForm []*pipeline.ObjectiveConfig
)

func (v ints) String() string {
	if len(v) == 0 {
		return "0"
	}
	return strconv.Itoa(*v[0])
}

func (v ints) Set(s string) error {
	x, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("want an integer")
	}
	for _, p := range v {
		*p = x
	}
	return nil
}

// negBlock is -negative-block: m > 0 rows per side, or 0 for pairs drawn
// one by one (train.NegativePairs); unset leaves the size-dependent
// default.
type negBlock struct{ p *int }

func (v negBlock) String() string {
	switch {
	case v.p == nil || *v.p == 0:
		return ""
	case *v.p == train.NegativePairs:
		return "0"
	}
	return strconv.Itoa(*v.p)
}

func (v negBlock) Set(s string) error {
	x, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return errors.New("want an integer")
	case x < 0:
		return errors.New("cannot be negative (0: pair by pair)")
	case x == 0:
		x = train.NegativePairs
	}
	*v.p = x
	return nil
}

func (v uints) String() string {
	if len(v) == 0 {
		return "0"
	}
	return strconv.FormatUint(*v[0], 10)
}

func (v uints) Set(s string) error {
	x, err := outcheck.ParseUint64(s)
	if err != nil {
		return err
	}
	for _, p := range v {
		*p = x
	}
	return nil
}

func (v floats) String() string {
	if len(v) == 0 {
		return "0"
	}
	return strconv.FormatFloat(*v[0], 'g', -1, 64)
}

func (v floats) Set(s string) error {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("want a number")
	}
	for _, p := range v {
		*p = x
	}
	return nil
}

func (v strs) String() string {
	if len(v) == 0 {
		return ""
	}
	return *v[0]
}

func (v strs) Set(s string) error {
	for _, p := range v {
		*p = s
	}
	return nil
}

func (v bools) String() string {
	if len(v) == 0 {
		return "false"
	}
	return strconv.FormatBool(*v[0])
}

func (v bools) Set(s string) error {
	x, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	for _, p := range v {
		*p = x
	}
	return nil
}

func (v bools) IsBoolFlag() bool { return true }

// warmStart is the boolean spelling of -start: true is spectral, false
// random.
type warmStart struct{ start *string }

func (v warmStart) String() string {
	return strconv.FormatBool(v.start != nil && *v.start == train.StartSpectral)
}

func (v warmStart) Set(s string) error {
	x, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	*v.start = train.StartRandom
	if x {
		*v.start = train.StartSpectral
	}
	return nil
}

func (v warmStart) IsBoolFlag() bool { return true }

func (v gib) String() string {
	if len(v) == 0 {
		return "0"
	}
	return strconv.FormatFloat(float64(*v[0])/(1<<30), 'g', -1, 64)
}

func (v gib) Set(s string) error {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x >= 0) || math.IsInf(x, 0) {
		return fmt.Errorf("want a size in GiB such as 8 (0: 90%% of the available memory)")
	}
	for _, p := range v {
		*p = int64(x * (1 << 30))
	}
	return nil
}

func (v objForm) String() string {
	if len(v) == 0 {
		return ""
	}
	return string(v[0].Formulation)
}

func (v objForm) Set(s string) error {
	for _, o := range v {
		o.Formulation = pipeline.Formulation(s)
	}
	return nil
}

// bindObjective binds one field of each objective to one flag (ints or
// floats: a value that writes all its destinations).
func bindObjective[T any, V interface {
	~[]*T
	flag.Value
}](fs *flag.FlagSet, obj []*pipeline.ObjectiveConfig, name string, def T, field func(*pipeline.ObjectiveConfig) *T, usage string) {
	var v V
	for _, o := range obj {
		*field(o) = def
		v = append(v, field(o))
	}
	fs.Var(v, name, usage)
}

// parseFlags parses args into c and settles the flags that stand for
// others (-quiet, -rank, -method wys-fixed-*, an explicit -beta 0).
func parseFlags(c *config, args []string, stderr io.Writer) error {
	fs := newFlagSet(c, stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return argumentError(fs.Arg(0), "-graph", "graph", true)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	c.given = set
	if c.quiet {
		if set["progress"] && c.progress != "none" {
			return usagef("-quiet silences the progress that -progress %s asks for; give one of them", c.progress)
		}
		c.progress = "none"
	}
	if c.graph == "" && c.split == "" && !set["test-fraction"] {
		c.testFraction = 0.5 // the demo shows link prediction
	}
	if c.rank != 0 {
		switch {
		case c.rank < 0:
			return usagef("-rank %d: want a positive rank (the width of each side of Y = [L | R])", c.rank)
		case set["dim"] && c.Sparse.Dim != 2*c.rank:
			return usagef("-rank %d and -dim %d disagree: -rank r is -dim 2r, give one of them", c.rank, c.Sparse.Dim)
		}
		ints{&c.Sparse.Dim, &c.Dense.Dim, &c.Baseline.Dim}.Set(strconv.Itoa(2 * c.rank))
	}
	if name, ok := strings.CutPrefix(c.method, "wys-fixed-"); ok {
		// -method wys-fixed-deepwalk is -method wys -fixed-q deepwalk
		// (fixedQFlag names it as given).
		switch {
		case name != "deepwalk" && name != "glove":
			return usagef("-method %q: want wys, svd, eigenmaps, netmf, prone, wys-fixed-deepwalk or wys-fixed-glove", c.method)
		case c.fixedQ != "" && c.fixedQ != name:
			return usagef("-method %s and -fixed-q %s disagree: give one of them", c.method, c.fixedQ)
		}
		c.method, c.fixedQ = "wys", name
	}
	if c.method != "wys" {
		c.Baseline.Method = c.method
	}
	if c.method == baseline.MethodNetMF {
		c.Baseline.Window = c.Sparse.Objective.C // NetMF's window T
	}
	if b := c.Sparse.Objective.Beta; b < 0 || math.IsNaN(b) || math.IsInf(b, 0) {
		return usagef("-beta %v: want a non-negative weight (0 turns the regulariser off)", b)
	}
	if set["negatives"] && c.Sparse.Negatives == 0 {
		// The library reads 0 as its default, 1; the negative term
		// cannot be left out.
		return usagef("-negatives 0: want at least 1 non-edge pair per positive pair (the model needs the non-edges)")
	}
	if set["qlr"] && c.Sparse.QLR == 0 {
		// The library reads 0 as its default, 0.005, which learns Q.
		return usagef("-qlr 0: want a positive rate for the attention logits (drop -qlr for the default 0.005); to fix Q instead of learning it, use -fixed-q deepwalk or glove")
	}
	if set["beta"] && c.Sparse.Objective.Beta == 0 {
		// An explicit 0 turns the regulariser off (0 means the default in
		// the library).
		c.Sparse.Objective.Beta, c.Dense.Objective.Beta = -1, -1
	}
	if w := c.Sparse.Objective.WalksPerNode; !(w > 0 && w <= pipeline.MaxWalksPerNode) {
		return usagef("-walks-per-node %v: %s", w, pipeline.WalksPerNodeWant)
	}
	return unusedFlags(c, set)
}

// Flags that only some runs read.
var (
	sparseOnly = []string{"epochs", "batch", "negatives", "negative-block", "qlr", "patience", "eval-every", "start", "warm-start", "source", "converge", "tol", "time", "average"}
	graphOnly  = []string{"weighted", "lcc", "keep-self-loops", "ids", "header", "test-fraction"}
	// wysOnly are the settings of WYS's objective and training, sparse or
	// dense, which no baseline reads (-C is NetMF's window too).
	wysOnly = []string{"C", "beta", "formulation", "walks-per-node", "exact-logs", "adamic-adar", "ppr", "fixed-q", "lr", "optimizer", "trainer", "q-out", "q-plot", "val-fraction", "max-memory", "refine", "refine-lr"}
)

// unusedFlags refuses a flag that the run would silently ignore: WYS's
// settings with a baseline, the sparse trainer's settings with the dense
// reference, and the settings of reading -graph with a released split.
func unusedFlags(c *config, set map[string]bool) error {
	for _, f := range wysOnly {
		if set[f] && c.method != "wys" && !(f == "C" && c.method == baseline.MethodNetMF) {
			return usagef("-%s is a setting of WYS; the baseline -method %s does not use it", f, c.method)
		}
	}
	for _, f := range []string{"weighted", "keep-self-loops"} {
		if set[f] && c.method == baseline.MethodProNE {
			return usagef("-%s: -method prone reads the graph with unit weights and without self-loops, as its authors' code does, so it would not use it", f)
		}
	}
	for _, f := range sparseOnly {
		switch {
		case !set[f]:
		case c.method != "wys":
			return usagef("-%s is a setting of the sparse WYS trainer; -method %s does not use it", f, c.method)
		case c.trainer == "dense":
			hint := ""
			if f == "epochs" || f == "converge" || f == "time" {
				hint = " (its length is -steps)"
			}
			return usagef("-%s is a setting of the sparse trainer; the dense reference (-trainer dense) does not use it%s", f, hint)
		}
	}
	switch {
	case set["steps"] && c.method != "wys":
		return usagef("-steps is a setting of the dense WYS reference; -method %s does not use it", c.method)
	case set["steps"] && c.trainer != "dense":
		return usagef("-steps is a setting of the dense reference; add -trainer dense, or give the sparse trainer's length with -epochs")
	}
	if set["ids"] && graphio.IsMATPath(c.graph) {
		return usagef("-ids is a setting of reading an edge list; a .mat file's nodes are the rows of its network matrix")
	}
	if set["header"] && graphio.IsMATPath(c.graph) {
		return usagef("-header is a setting of reading an edge list; a .mat file has no header line")
	}
	if c.split != "" {
		for _, f := range graphOnly {
			if set[f] {
				return usagef("-%s is a setting of reading -graph; a released split (-split) fixes the graph and its test edges", f)
			}
		}
	}
	return dependentFlags(c, set)
}

// dependentFlags refuses a flag given without the flag it qualifies,
// and two flags that set the same thing.
func dependentFlags(c *config, set map[string]bool) error {
	switch {
	case set["tol"] && !c.Sparse.Converge:
		return usagef("-tol is the tolerance of -converge; add -converge, or drop -tol")
	case set["checkpoint-every"] && c.checkpoint == "":
		return usagef("-checkpoint-every sets how often -checkpoint DIR saves; add -checkpoint DIR, or drop -checkpoint-every")
	case set["format"] && c.out == "":
		return usagef("-format is the format of -out; add -out FILE, or drop -format")
	case set["warm-start"] && set["start"]:
		return usagef("-warm-start and -start both choose the start of L and R; give -start alone")
	}
	for _, f := range []string{"qlr", "beta"} {
		if set[f] && c.fixedQ != "" {
			return usagef("-%s acts on the learned Q, and %s fixes Q; drop one of them", f, c.fixedQFlag())
		}
	}
	return nil
}

// validate reports, before any input is read, every flag value and
// combination that cannot work, as a usage error naming the flag.
func (c *config) validate() error {
	if err := c.checkFlags(); err != nil {
		return err
	}
	var err error
	switch {
	case c.method != "wys":
		// A baseline refuses the objective's flags (unusedFlags); NetMF's
		// window is -C, which the objective's check bounds.
		if err = c.Sparse.Objective.Validate(); err == nil {
			err = c.Baseline.Validate()
		}
	case c.trainer == "dense":
		err = c.Dense.Validate()
	default:
		if c.fixedQ != "" {
			c.Sparse.FixedQ = fixedQ(c.fixedQ, c.Sparse.Objective)
		}
		err = c.Sparse.Validate()
	}
	if err == nil {
		err = c.Refine.Validate()
	}
	if err != nil {
		return settingUsage(err)
	}
	return c.checkOutputs()
}

// settingUsage makes err, a refused setting, a usage error under the
// flags that set it (outcheck.SettingText).
func settingUsage(err error) error { return usagef("%s", outcheck.SettingText(err)) }

// settingErrUsage returns err as settingUsage does when it is a
// pipeline.SettingError (a setting a trainer refused for this graph: the
// length on its N), else err itself.
func settingErrUsage(err error) error {
	var se *pipeline.SettingError
	if errors.As(err, &se) {
		return settingUsage(err)
	}
	return err
}

// checkFlags checks the values the libraries do not know about.
func (c *config) checkFlags() error {
	o := &c.Sparse.Objective
	switch {
	case c.graph != "" && c.split != "":
		return usagef("give either -graph or -split, not both")
	case c.Sparse.Dim < 2 || c.Sparse.Dim%2 != 0:
		return usagef("-dim %d must be even and at least 2 (d/2 per side of Y = [L | R])", c.Sparse.Dim)
	case o.C < 1:
		return usagef("-C %d: need at least one power of the transition matrix", o.C)
	case c.trainer != "sparse" && c.trainer != "dense":
		return usagef("-trainer %q: want sparse or dense", c.trainer)
	case !(c.testFraction >= 0 && c.testFraction < 1):
		return usagef("-test-fraction %v: want a fraction in [0, 1)", c.testFraction)
	case !(c.valFraction >= 0 && c.valFraction < 1):
		return usagef("-val-fraction %v: want a share of the test edges in [0, 1)", c.valFraction)
	case c.valFraction > 0 && c.split == "" && c.testFraction == 0:
		return usagef("-val-fraction takes its pairs from the held-out test edges: add -test-fraction (e.g. 0.5) or give -split")
	case c.progress != "text" && c.progress != "json" && c.progress != "none":
		return usagef("-progress %q: want text, json or none", c.progress)
	case !validIDMode(c.ids):
		return usagef("-ids %q: want auto, int or token", c.ids)
	case c.method != "wys" && !baseline.IsMethod(c.method):
		return usagef("-method %q: want wys, svd, eigenmaps, netmf, prone, wys-fixed-deepwalk or wys-fixed-glove", c.method)
	case c.fixedQ != "" && c.fixedQ != "deepwalk" && c.fixedQ != "glove":
		return usagef("-fixed-q %q: want deepwalk or glove", c.fixedQ)
	case c.fixedQ != "" && c.trainer == "dense":
		return usagef("%s is available with the sparse trainer only", c.fixedQFlag())
	case c.fixedQ != "" && (o.AdamicAdar || o.PPR != 0):
		return usagef("%s fixes the weights of the walk's powers and gives an extra context (-adamic-adar, -ppr) weight 0: drop one of them", c.fixedQFlag())
	case o.ExactLogs && o.Formulation == pipeline.FormulationPaper:
		return usagef("-exact-logs changes the code formulation's logs; the paper formulation's are exact already: drop it, or use -formulation code")
	case c.saveSplit != "" && c.testFraction == 0:
		return usagef("-save-split writes the edges -test-fraction holds out; add -test-fraction (a -split directory is already one)")
	case c.labelSplit != "" && c.labels == "":
		return usagef("-label-split needs -labels")
	case c.labels != "" && c.labelSplit == "":
		return usagef("-labels needs -label-split to know the train, validation and test nodes; to score random splits of the labelled nodes instead (the DeepWalk protocol, Micro- and Macro-F1), write the embeddings with -out FILE and run wys-sparse eval -emb FILE -labels LABELS")
	case c.resume && c.checkpoint == "":
		return usagef("-resume needs -checkpoint DIR (the directory the interrupted run saved to)")
	case c.checkpoint != "" && (c.trainer != "sparse" || c.method != "wys"):
		return usagef("-checkpoint works with the sparse WYS trainer only")
	case c.Sparse.CheckpointEvery <= 0:
		return usagef("-checkpoint-every %v: want a positive duration", c.Sparse.CheckpointEvery)
	}
	if err := outcheck.Format("-format", c.format); err != nil {
		return usage(err)
	}
	for _, f := range []struct {
		name string
		neg  bool
	}{
		{"epochs", c.Sparse.Epochs < 0}, {"lr", c.Sparse.LR < 0}, {"qlr", c.Sparse.QLR < 0},
		{"batch", c.Sparse.BatchWalks < 0}, {"negatives", c.Sparse.Negatives < 0},
		{"steps", c.Dense.Steps < 0},
		{"workers", c.Sparse.Workers < 0}, {"eval-every", c.Sparse.EvalEvery < 0}, {"patience", c.Sparse.Patience < 0},
		{"tol", c.Sparse.Tolerance < 0}, {"time", c.Sparse.TimeBudget < 0},
		{"refine", c.Refine.Steps < 0}, {"refine-lr", c.Refine.LR < 0},
	} {
		if f.neg {
			return usagef("-%s cannot be negative", f.name)
		}
	}
	if c.given["steps"] && c.Dense.Steps == 0 {
		return usagef("-steps 0: want at least one full-batch step")
	}
	if c.given["refine-lr"] && c.Refine.LR != 0 && c.Refine.Steps == 0 {
		return usagef("-refine-lr is the rate of -refine's exact steps; give -refine STEPS (at least 1) too")
	}
	return nil
}

// fixedQFlag names the flag that fixed Q as the user gave it: -method
// wys-fixed-NAME or -fixed-q NAME.
func (c *config) fixedQFlag() string {
	if c.given["fixed-q"] {
		return "-fixed-q " + c.fixedQ
	}
	return "-method wys-fixed-" + c.fixedQ
}

// probeLock takes and releases the lock of an existing -checkpoint
// directory: a *checkpointInUse when another run holds it. It creates
// no directory.
func (c *config) probeLock() error {
	if fi, err := os.Stat(c.checkpoint); err != nil || !fi.IsDir() {
		return nil
	}
	l, err := c.checkpointLock()
	if err == nil {
		l.Unlock()
	}
	return err
}

// checkOutputs checks that every output can be created, so that a long
// run does not fail at its end.
func (c *config) checkOutputs() error {
	if c.checkpoint != "" {
		// Neither overwrite a run's checkpoint unasked nor create an
		// empty directory for a -resume that has nothing to resume.
		path := train.CheckpointPath(c.checkpoint)
		_, err := os.Stat(path)
		var inUse *checkpointInUse
		switch {
		case (c.resume || err == nil) && errors.As(c.probeLock(), &inUse):
			// A run that has not saved yet, or one saving now.
			return inUse
		case c.resume && errors.Is(err, os.ErrNotExist):
			return usagef("-resume: no checkpoint in %s (no run has saved there yet; drop -resume to start a new run)", c.checkpoint)
		case !c.resume && err == nil:
			return usagef("-checkpoint %s already holds a run's checkpoint: add -resume to continue it, or delete %s (or give another directory) to start over", c.checkpoint, path)
		}
	}
	for _, p := range []string{c.out, c.qJSON, c.qPlot, c.report} {
		if c.inNewSaveSplit(p) {
			continue // the directory is made when the split is written, before the outputs
		}
		if err := checkOutputPath(p); err != nil {
			return err
		}
	}
	if fi, err := os.Stat(c.saveSplit); c.saveSplit != "" && err == nil && !fi.IsDir() {
		return usagef("-save-split %s is a file: give a directory (created if missing) for the split's files", c.saveSplit)
	}
	if c.out != "" {
		if err := outcheck.Embeddings("wys-sparse", c.out, c.format); err != nil {
			return usage(err)
		}
	}
	if c.qPlot != "" {
		if ext := strings.ToLower(filepath.Ext(c.qPlot)); ext != ".png" && ext != ".svg" {
			return usagef("-q-plot %s: use a .png or .svg file name", c.qPlot)
		}
	}
	return c.checkCollisions()
}

// inNewSaveSplit reports whether the output path p lies directly in the
// -save-split directory and that directory does not exist yet: the run
// creates it (with its parents) when it writes the split.
func (c *config) inNewSaveSplit(p string) bool {
	if p == "" || c.saveSplit == "" || filepath.Clean(filepath.Dir(p)) != filepath.Clean(c.saveSplit) {
		return false
	}
	_, err := os.Stat(c.saveSplit)
	return errors.Is(err, os.ErrNotExist)
}

// checkCollisions refuses an output that is not a regular file or that
// would replace an input or another output, the embeddings' .ids.txt and
// marker, the files of a -split or -save-split directory and the
// -checkpoint state and lock included (outcheck.Collisions).
func (c *config) checkCollisions() error {
	inputs := append([]outcheck.File{{Flag: "-graph", Path: c.graph}, {Flag: "-labels", Path: c.labels}, {Flag: "-label-split", Path: c.labelSplit}},
		outcheck.SplitFiles("-split", c.split)...)
	if c.checkpoint != "" { // the run's state and its lock: never replaced by an output
		inputs = append(inputs, outcheck.File{Flag: "-checkpoint", Path: train.CheckpointPath(c.checkpoint)},
			outcheck.File{Flag: "-checkpoint's lock", Path: lockPath(c.checkpoint)})
	}
	outs := append([]outcheck.File{{Flag: "-q-out", Path: c.qJSON}, {Flag: "-q-plot", Path: c.qPlot}, {Flag: "-report", Path: c.report}},
		outcheck.EmbeddingFiles(c.out, c.format)...)
	outs = append(outs, outcheck.SplitFiles("-save-split", c.saveSplit)...)
	return usage(outcheck.Collisions(inputs, outs))
}

// fixedQ returns the fixed context distribution named by name (deepwalk:
// 1 − (k−1)/C, glove: 1/k) over the C powers, with 0 for the extra context
// types.
func fixedQ(name string, obj pipeline.ObjectiveConfig) []float64 {
	obj = obj.Resolve()
	q := make([]float64, obj.Contexts())
	for k := range obj.C {
		switch name {
		case "deepwalk":
			q[k] = 1 - float64(k)/float64(obj.C)
		case "glove":
			q[k] = 1 / float64(k+1)
		}
	}
	return q
}

// trimPackage drops a library package's prefix from an error's text.
func trimPackage(msg string) string { return outcheck.TrimPackage(msg) }

// checkOutputPath refuses, as a usage error, an output path ("" is
// none) that is a directory or whose directory is missing or read-only.
func checkOutputPath(p string) error {
	if p == "" {
		return nil
	}
	return usage(atomicfile.Check(p))
}

// validIDMode reports whether s is a value of -ids.
func validIDMode(s string) bool {
	_, ok := graphio.ParseIDMode(s)
	return ok
}
