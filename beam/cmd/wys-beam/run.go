package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/gcpopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/wys-project/wys/beam/internal/beamrun"
	"github.com/wys-project/wys/beam/wysbeam"
	"github.com/wys-project/wys/internal/atomicfile"
	"github.com/wys-project/wys/internal/outcheck"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/train"
)

// execute runs p on the runner of the command line (beamx.Run) inside
// beamrun.PrivateTemp, so that the launcher leaves no file behind, and
// beamrun.HoldErrors, so that below -log-level info a failure is said
// once, by the error's last line, without the runner's records of it.
func execute(ctx context.Context, p *beam.Pipeline) error {
	restore, err := beamrun.PrivateTemp()
	if err != nil {
		return err
	}
	defer restore()
	done := beamrun.HoldErrors()
	err = beamx.Run(ctx, p)
	done(err != nil)
	return err
}

// load reads -split in the driver, or preprocesses -graph with the Beam
// pipeline of wysbeam.BuildPrep under dir, and returns the training
// graph, the evaluation pairs with the node ids, and the path of the
// training graph's file for the workers ("" when the driver must write
// it).
func (c *config) load(ctx context.Context, dir string, stdout io.Writer) (*pipeline.Graph, *pipeline.Split, string, error) {
	if c.split != "" { // checkFlags saw to one input
		s, err := graphio.LoadSplitDir(ctx, c.split, c.directed)
		if err != nil {
			return nil, nil, "", err
		}
		g, err := s.TrainGraph(ctx)
		fmt.Fprintln(stdout, graphio.SplitSummary(c.split, s))
		if err == nil {
			err = c.checkIDs(s.IDs)
		}
		return g, s, "", err
	}
	if c.out == "" && c.testFraction == 0 {
		fmt.Fprintln(stdout, "note:", outcheck.NoOut) // as wys-sparse, before the work
	}
	p := wysbeam.Prep{Input: c.graph, Load: c.loadOptions(), Dir: dir + "/prep", TestFraction: c.testFraction, Seed: c.Sparse.Seed}
	ranges, err := wysbeam.PlanRanges(ctx, p)
	var head wysbeam.Head
	if err == nil {
		head, err = wysbeam.ReadHead(ctx, p, ranges) // a bad line near the top, before a launch
	}
	if err != nil {
		return nil, nil, "", err
	}
	headNotes(stdout, head)
	pl, scope := beam.NewPipelineWithRoot()
	wysbeam.BuildPrep(scope, p, ranges)
	t0 := time.Now()
	if err := execute(ctx, pl); err != nil {
		return nil, nil, "", fmt.Errorf("preprocessing pipeline: %s", outcheck.TrimPackage(lastLine(err)))
	}
	s, err := wysbeam.ReadPrep(ctx, p)
	if err != nil {
		return nil, nil, "", err
	}
	g, err := wysbeam.ReadGraph(ctx, p.GraphPath())
	if err != nil {
		return nil, nil, "", err
	}
	fmt.Fprintf(stdout, "graph %s: %d nodes, %d training arcs, %d test edges (preprocessed in %s from %d byte range(s) of the input)\n",
		c.graph, g.N(), g.Adj.NNZ(), len(s.Test), time.Since(t0).Round(time.Millisecond), len(ranges))
	notes, err := wysbeam.ReadNotes(ctx, p)
	if err != nil { // advisory: the run goes on
		notes = []string{"the preprocessing's notes could not be read: " + outcheck.TrimPackage(err.Error())}
	}
	for _, n := range notes {
		fmt.Fprintf(stdout, "note: %s\n", n) // as wys-sparse's load notes
	}
	return g, s, p.GraphPath(), c.checkIDs(cmp.Or(s.IDs, g.IDs))
}

// headNotes says, as wys-sparse's load notes do, when the edge lines read
// before the launch (the first 64 KiB of each file, or all of them) hold
// a third column that is not read or more than three columns.
func headNotes(stdout io.Writer, h wysbeam.Head) {
	of := fmt.Sprintf("of the %d edge lines", h.Lines)
	if !h.All {
		of = fmt.Sprintf("of the first %d edge lines (the first 64 KiB of each file)", h.Lines)
	}
	if h.Extra > 0 {
		fmt.Fprintf(stdout, "note: %s\n", outcheck.ThirdColumnNote(h.Extra, of))
	}
	if h.Wide > 0 {
		fmt.Fprintf(stdout, "note: %s\n", outcheck.WideLinesNote(h.Wide, of))
	}
}

// lastLine returns the last line of a pipeline's error: the error of the
// failed step (such as the file and line of a bad edge line), which the
// runners print after the plan of the failed stage.
func lastLine(err error) string {
	msg := strings.TrimRight(err.Error(), "\n")
	return msg[strings.LastIndexByte(msg, '\n')+1:]
}

// report is the JSON report of a run.
type report struct {
	Tool    string `json:"tool"`
	Started string `json:"started"`
	Input   string `json:"input"`
	// Load and TestFraction are how -graph was read and split (absent
	// with -split).
	Load         *graphio.LoadOptions `json:"load,omitempty"`
	TestFraction float64              `json:"test_fraction,omitempty"`
	Nodes        int                  `json:"nodes"`
	TrainArcs    int                  `json:"train_arcs"`
	Settings     bucketSettings       `json:"settings"`
	Partitions   int                  `json:"partitions"`
	RoundBatches int                  `json:"round_batches"`
	Runner       string               `json:"runner"`
	Rounds       int64                `json:"rounds"`
	Steps        int64                `json:"steps"`
	// BlockBytesPerEpoch is what the bucket steps of P rounds read and
	// write of parameter blocks (each round reads and writes every block
	// once).
	BlockBytesPerEpoch int64    `json:"block_bytes_per_epoch"`
	TrainAUC           *float64 `json:"train_auc"`
	TestAUC            *float64 `json:"test_auc"`
	// TestDirectedAUC scores a directed split's test arcs against its
	// reversed arcs and random non-edges, as wys-sparse's report does.
	TestDirectedAUC *float64  `json:"test_directed_auc,omitempty"`
	Q               []float64 `json:"Q"`
	QLogits         []float64 `json:"q_logits"`
	Seconds         float64   `json:"seconds"`
	SecondsPerRound float64   `json:"seconds_per_round"`
	Dir             string    `json:"blocks_dir,omitempty"` // with -keep-temp
	// Version is the build's (module, commit, Go, Beam SDK; wys-sparse's
	// report has it under settings), and Outputs the files written
	// besides the report, as wys-sparse's report lists them.
	Version string   `json:"version"`
	Outputs []string `json:"outputs"`
}

// bucketSettings are the resolved settings of train.Config that a
// wys-beam run reads (its flags, and the sample that scores a whole
// graph's fit), by train.Config's JSON names: the report lists no setting
// the run ignored (convergence, evaluation cadence, memory limit,
// negative blocks).
type bucketSettings struct {
	Objective  pipeline.ObjectiveConfig `json:"objective"`
	Dim        int                      `json:"dim"`
	Epochs     float64                  `json:"epochs"`
	BatchWalks int                      `json:"batch_walks"`
	Negatives  int                      `json:"negatives"`
	Optimizer  string                   `json:"optimizer"`
	LR         float64                  `json:"lr"`
	QLR        float64                  `json:"qlr"`
	Seed       uint64                   `json:"seed"`
	Workers    int                      `json:"workers"`
	Start      string                   `json:"start"`
	EvalPairs  int                      `json:"eval_pairs"` // the fit's sample of a whole graph's arcs
}

// settingsOf returns the settings of cfg that the bucketed schedule reads.
func settingsOf(cfg train.Config) bucketSettings {
	return bucketSettings{Objective: cfg.Objective, Dim: cfg.Dim, Epochs: cfg.Epochs, BatchWalks: cfg.BatchWalks,
		Negatives: cfg.Negatives, Optimizer: cfg.Optimizer, LR: cfg.LR, QLR: cfg.QLR, Seed: cfg.Seed, Workers: cfg.Workers, Start: cfg.Start,
		EvalPairs: cfg.EvalPairs}
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// checkOut refuses, before any work, an output file that cannot be
// written on the driver, and an -out that the embeddings cannot be
// written under in -format, as wys-sparse refuses them
// (outcheck.Embeddings: an unknown format, a name that promises a
// format wys does not write, a -format the name contradicts, a .npy.gz).
func (c *config) checkOut() error {
	for _, o := range [][2]string{{"-out", c.out}, {"-q-out", c.qOut}, {"-report", c.report}} {
		if err := checkLocalOutput(o[0], o[1]); err != nil {
			return err
		}
	}
	if err := checkTempRoot(tempRoot()); err != nil {
		return err
	}
	if c.out != "" {
		if err := outcheck.Embeddings("wys-beam", c.out, c.format); err != nil {
			return err
		}
	}
	outs := append([]outcheck.File{{Flag: "-q-out", Path: c.qOut}, {Flag: "-report", Path: c.report}}, outcheck.EmbeddingFiles(c.out, c.format)...)
	if err := c.outsOutsideGlob(outs); err != nil {
		return err
	}
	// -graph may be a glob of several files; one that is an output's very
	// name is caught, as wys-sparse catches it.
	return outcheck.Collisions(append([]outcheck.File{{Flag: "-graph", Path: c.graph}}, outcheck.SplitFiles("-split", c.split)...), outs)
}

// outsOutsideGlob refuses an output of outs that the -graph glob names:
// it would replace one of the input files, or be read as one by the next
// run.
func (c *config) outsOutsideGlob(outs []outcheck.File) error {
	if !strings.ContainsAny(c.graph, "*?[") || strings.Contains(c.graph, "://") {
		return nil
	}
	pattern, err := filepath.Abs(c.graph)
	if err != nil {
		return nil
	}
	for _, o := range outs {
		if o.Path == "" {
			continue
		}
		p, err := filepath.Abs(o.Path)
		if err != nil {
			continue
		}
		if ok, _ := filepath.Match(pattern, p); ok {
			return fmt.Errorf("%s %s matches the -graph glob %s: writing it would replace an input file, or add one to the next run's; give the output a name outside the glob", o.Flag, o.Path, c.graph)
		}
	}
	return nil
}

// checkTempRoot refuses a local -temp_location, root, that cannot hold
// the run's directory: a file, or a path through one. A missing
// directory is created by the run; a URL is the runner's to check.
func checkTempRoot(root string) error {
	if strings.Contains(root, "://") {
		return nil
	}
	for p := filepath.Clean(root); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.IsDir():
			// The run's directory is made in it: try (root passes an
			// access check where a mkdir fails, as in /proc).
			d, err := os.MkdirTemp(p, ".wys-beam-check-")
			if err != nil {
				var pe *os.PathError
				if errors.As(err, &pe) {
					err = pe.Err
				}
				return fmt.Errorf("-temp_location %s: cannot make a directory in %s (%v); give a directory this user can write", root, p, err)
			}
			return os.Remove(d)
		case err == nil:
			return fmt.Errorf("-temp_location %s: %s is a file, not a directory; give a directory (a missing one is created)", root, p)
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return fmt.Errorf("-temp_location %s: %v", root, err)
		case filepath.Dir(p) == p:
			return nil
		}
	}
}

// checkLocalOutput refuses an output path ("" is none) that the driver
// cannot write: a URL (outputs go to the driver's file system), or what
// atomicfile.Check refuses.
func checkLocalOutput(flagName, p string) error {
	switch {
	case p == "":
		return nil
	case strings.Contains(p, "://"):
		return fmt.Errorf("%s %s: the outputs are written on the driver's file system; give a local path (the cluster's files go under -temp_location)", flagName, p)
	}
	if err := atomicfile.Check(p); err != nil {
		return fmt.Errorf("%s: %v", flagName, err)
	}
	return nil
}

// explicitValues checks the flags given on the command line whose zero
// the libraries read as "the default" or refuse only after the
// preprocessing: -partitions 0, -round-batches 0, -negatives 0, -dim 0
// and -C 0 are refused, as wys-sparse refuses its own, and -beta 0 turns the
// regulariser off (the library's −1) instead of meaning 0.5.
func (c *config) explicitValues(set map[string]bool) error {
	sp := &c.Sparse
	switch b := sp.Objective.Beta; {
	case set["partitions"] && c.partitions < 1:
		return fmt.Errorf("-partitions %d: want at least 1", c.partitions)
	case set["round-batches"] && c.perRnd < 1:
		return fmt.Errorf("-round-batches %d: want at least 1", c.perRnd)
	case set["negatives"] && sp.Negatives == 0:
		return errors.New("-negatives 0: want at least 1 non-edge pair per positive pair (the model needs the non-edges)")
	case set["qlr"] && sp.QLR == 0:
		return errors.New("-qlr 0: want a positive rate for the attention logits (drop -qlr for the default 0.005)")
	case set["dim"] && (sp.Dim < 2 || sp.Dim%2 != 0):
		return fmt.Errorf("-dim %d must be even and at least 2 (d/2 per side of Y = [L | R])", sp.Dim)
	case set["C"] && sp.Objective.C < 1:
		return fmt.Errorf("-C %d: need at least one power of the transition matrix", sp.Objective.C)
	case set["beta"] && !(b >= 0 && !math.IsInf(b, 1)):
		return fmt.Errorf("-beta %v: want a non-negative weight (0 turns the regulariser off)", b)
	case set["walks-per-node"] && !(sp.Objective.WalksPerNode > 0 && sp.Objective.WalksPerNode <= pipeline.MaxWalksPerNode):
		return fmt.Errorf("-walks-per-node %v: %s", sp.Objective.WalksPerNode, pipeline.WalksPerNodeWant)
	case set["format"] && c.out == "":
		return errors.New("-format is the format of -out; add -out FILE, or drop -format")
	case set["beta"] && b == 0:
		sp.Objective.Beta = -1 // off; 0 is the library's default
	}
	return nil
}

// checkFlags refuses, before any work, settings that cannot run or that
// the run would ignore.
func (c *config) checkFlags() error {
	_, ok := c.idMode()
	switch {
	case !(c.testFraction >= 0 && c.testFraction < 1):
		return fmt.Errorf("-test-fraction %v: want a fraction in [0, 1)", c.testFraction)
	case c.split != "" && (c.testFraction > 0 || c.weighted || c.header || c.keepLoops || cmp.Or(c.ids, "auto") != "auto"):
		return errors.New("-test-fraction, -weighted, -header, -ids and -keep-self-loops are settings of reading -graph; a released split (-split) fixes the graph and its test edges")
	case (c.graph == "") == (c.split == ""):
		return errors.New("give one input: -graph FILE or -split DIR")
	case c.graph == "-":
		return errors.New("-graph -: wys-beam reads the graph in byte ranges on its workers, not from standard input; write the edges to a file and give -graph FILE")
	case graphio.IsMATPath(c.graph):
		return matError(c.graph)
	case runnerKind(runnerName()) == "":
		return fmt.Errorf("-runner %s: not a runner the Beam SDK has; want prism (the default), direct, dataflow, flink, spark or universal", runnerName())
	case needsEndpoint(runnerName()) && flagLookup("endpoint") == "":
		return fmt.Errorf("-runner %s submits the job to a job server: give its address with -endpoint HOST:PORT (the README's Flink example starts one for Flink)", runnerName())
	case !ok:
		return fmt.Errorf("-ids %q: want auto, int or token", c.ids)
	case c.partitions < 0:
		return fmt.Errorf("-partitions %d: want at least 1", c.partitions)
	case c.perRnd < 0:
		return fmt.Errorf("-round-batches %d: want at least 1", c.perRnd)
	case !slices.Contains([]string{"", train.OptAdam, train.OptRMSProp, train.OptSGD, train.OptRowRMS, train.OptPercentDelta}, c.Sparse.Optimizer):
		// (the trainer's other two are refused by CheckBucketed, which says why)
		return fmt.Errorf("-optimizer %q: want adam, rmsprop or sgd (the optimizers of the bucketed schedule)", c.Sparse.Optimizer)
	}
	if err := c.checkGraphFiles(); err != nil {
		return err
	}
	err := c.Sparse.Objective.Validate()
	if err == nil {
		err = train.CheckBucketed(c.Sparse)
	}
	if err != nil {
		return errors.New(outcheck.SettingText(err)) // under the flag that set it
	}
	return nil
}

// checkGraphFiles refuses a local -graph (or a file its glob matches)
// that is a named pipe, a device or a socket, as <(…) and mkfifo make:
// the driver reads the graph once to plan its byte ranges and the
// workers read those ranges again, which a stream cannot give (one ran
// on an emptied stream, "graph has no edges"; another hung).
func (c *config) checkGraphFiles() error {
	if c.graph == "" || strings.Contains(c.graph, "://") {
		return nil
	}
	files, err := filepath.Glob(c.graph)
	if err != nil || len(files) == 0 {
		files = []string{c.graph} // the loader says what is wrong with it
	}
	for _, f := range files {
		st, err := os.Stat(f)
		if err == nil && !st.Mode().IsRegular() && !st.IsDir() {
			return fmt.Errorf("-graph %s: %s is not a regular file (a pipe, device or socket, as <(…) and mkfifo make): wys-beam reads the graph in byte ranges, twice; write the edges to a file and give -graph FILE", c.graph, f)
		}
	}
	return nil
}

// matError refuses a .mat -graph with the line that writes its edges as
// text.
func matError(name string) error {
	open := fmt.Sprintf("'%s'", name)
	if strings.HasSuffix(strings.ToLower(name), ".gz") {
		open = fmt.Sprintf("gzip.open('%s')", name)
	}
	return fmt.Errorf("-graph %s: wys-beam reads edge lists (SNAP text, CSV or Matrix Market .mtx) in byte ranges, not MATLAB .mat files; embed it with wys-sparse -graph %s, or write its edges as text: /usr/bin/python3 -c \"import gzip, scipy.io; m = scipy.io.loadmat(%s)['network'].tocoo(); open('edges.txt', 'w').writelines('%%d %%d\\n' %% e for e in zip(m.row, m.col) if e[0] <= e[1])\"", name, name, open)
}

// runnerKind returns the runner that the Beam SDK (v2.77) registers
// under name, by its short name, or "" for none: the SDK would log that
// it is not registered and exit the process, leaving the run's files.
func runnerKind(name string) string {
	switch name {
	case "prism", "PrismRunner":
		return "prism"
	case "direct", "DirectRunner":
		return "direct"
	case "dataflow", "DataflowRunner":
		return "dataflow"
	case "flink", "FlinkRunner":
		return "flink"
	case "spark", "SparkRunner":
		return "spark"
	case "universal", "portable", "PortableRunner":
		return "universal"
	case "dot", "vet":
		return name
	}
	return ""
}

// dataflowReady refuses, before any work, a Dataflow launch without
// what the SDK's Dataflow runner needs and would refuse only after the
// preprocessing pipeline: a project (-project, or the one of the
// application default credentials), a region (-region,
// $CLOUDSDK_COMPUTE_REGION or gcloud's compute/region), found as the
// runner finds them (within 10 s), and a gs:// -staging_location; and a
// gs:// -temp_location, where the workers read and write the parameter
// blocks (the default, the local temporary directory, is out of their
// reach).
func dataflowReady() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var missing []string
	project, region := gcpopts.GetProjectFromFlagOrEnvironment(ctx), gcpopts.GetRegion(ctx)
	late := ""
	if ctx.Err() != nil {
		late = " (looking up a default took over 10 s)"
	}
	if project == "" {
		missing = append(missing, "-project PROJECT"+late)
	}
	if region == "" {
		missing = append(missing, "-region REGION"+late)
	}
	if !strings.HasPrefix(flagLookup("staging_location"), "gs://") {
		missing = append(missing, "-staging_location gs://BUCKET/PATH")
	}
	if !strings.HasPrefix(flagLookup("temp_location"), "gs://") {
		missing = append(missing, "-temp_location gs://BUCKET/PATH (the workers' blocks)")
	}
	if len(missing) == 0 {
		return nil
	}
	list := strings.Join(missing, ", ")
	if n := len(missing); n > 1 {
		list = strings.Join(missing[:n-1], ", ") + " and " + missing[n-1]
	}
	return fmt.Errorf("-runner dataflow submits the job to Google Cloud Dataflow: give %s", list)
}

// needsEndpoint reports whether the Beam runner submits jobs to a job
// server that -endpoint names (the SDK fails at launch without it).
func needsEndpoint(runner string) bool {
	switch runnerKind(runner) {
	case "flink", "spark", "universal":
		return true
	}
	return false
}

// loadOptions are how -graph is read.
func (c *config) loadOptions() graphio.LoadOptions {
	mode, _ := c.idMode() // checked by checkFlags
	return graphio.LoadOptions{Directed: c.directed, Weighted: c.weighted, Header: c.header, KeepSelfLoops: c.keepLoops, IDs: mode}
}

// idMode is the mode -ids names ("" is its default, auto).
func (c *config) idMode() (graphio.IDMode, bool) {
	return graphio.ParseIDMode(cmp.Or(c.ids, "auto"))
}

// schedule checks the settings against the loaded graph g (preflight)
// and returns job's schedule within MaxRounds rounds (capRounds).
func (c *config) schedule(ctx context.Context, job *wysbeam.Job, g *pipeline.Graph, split *pipeline.Split, stdout io.Writer) (*train.Schedule, error) {
	if err := c.preflight(g, split); err != nil {
		return nil, err
	}
	s, err := job.Schedule(ctx)
	var se *pipeline.SettingError
	if errors.As(err, &se) {
		return nil, usageError{errors.New(outcheck.SettingText(err))} // under the flag that set it
	}
	if err != nil {
		return nil, err
	}
	return c.capRounds(ctx, job, s, stdout)
}

// preflight refuses, once the graph g is loaded and before any training,
// a rank above its nodes (a usage error, as in wys-sparse) and, on the
// runners that train on this machine (prism and direct), settings whose
// memory estimate (train.Config.EstimateMemory of the schedule's
// configuration, train.BucketedConfig: the single-machine trainer's,
// which the workers' blocks and the driver's gathered model come near)
// exceeds what is available here.
func (c *config) preflight(g *pipeline.Graph, split *pipeline.Split) error {
	if c.partitions > g.N() {
		return usageError{fmt.Errorf("-partitions %d: more than the graph's %d nodes; want 1 to %d", c.partitions, g.N(), g.N())}
	}
	if half := c.Sparse.Dim / 2; half > g.N() {
		return usageError{fmt.Errorf("-dim %d: d/2 = %d exceeds the %d nodes of the graph; use -dim %d or less", c.Sparse.Dim, half, g.N(), 2*g.N())}
	}
	if k := runnerKind(runnerName()); k != "prism" && k != "direct" {
		return nil
	}
	sched := train.BucketedConfig(c.Sparse) // the schedule's defaults: random start, negatives pair by pair
	cfg := sched.Resolve(g.N(), g.Adj.NNZ())
	need := sched.EstimateMemory(g.N(), g.Adj.NNZ(), split.PairCount())
	what := fmt.Sprintf("%d nodes at d = %d with batches of %d walks", g.N(), cfg.Dim, cfg.BatchWalks)
	fix, limit := "lower the dimension (-dim) or the walks per batch (-batch)", pipeline.MemoryLimit(0)
	if limit > 0 && need > limit {
		fix = train.DimAdvice(sched, g.N(), g.Adj.NNZ(), split.PairCount(), limit) // as wys-sparse's
	}
	_, err := pipeline.CheckMemory(need, limit, what, fix)
	return err
}

// usageError is an error of the command line, found once the input is
// read; wys-beam exits 2 on it, as on the flags' errors.
type usageError struct{ error }

// checkIDs refuses, before training, ids that the -out format cannot
// carry (white space in word2vec text), as wys-sparse does.
func (c *config) checkIDs(ids *pipeline.NodeIDs) error {
	if err := outcheck.IDs(c.out, c.format, ids); err != nil {
		return usageError{err}
	}
	return nil
}

// joinDir appends elem to a -temp_location, a local directory or a URL
// (gs://bucket/dir): path.Join would turn "gs://" into "gs:/".
func joinDir(root, elem string) string {
	return strings.TrimRight(root, "/") + "/" + elem
}

// planNotes prints the training pipeline's plan: its rounds, buckets,
// steps and where the blocks go, after a note when there are fewer
// rounds than parts.
func (c *config) planNotes(stdout io.Writer, job wysbeam.Job, s *train.Schedule) {
	rounds := s.Rounds()
	if rounds < int64(c.partitions) {
		// A round trains the buckets of one offset between the parts;
		// with fewer rounds than P some pairs of parts are never trained.
		fix := "give more -epochs or fewer -partitions" // -round-batches is at its least, 1
		if job.RoundBatches > 1 {
			fix = "lower -round-batches or give more -epochs"
		}
		fmt.Fprintf(stdout, "note: %s, fewer than the %d (one per offset between the P parts) that train every pair of parts once: the pairs at the other offsets are not trained; %s\n", count(rounds, "round"), c.partitions, fix)
	}
	kept := " (removed at the end; -keep-temp keeps them)"
	if c.keepTemp {
		kept = ""
	}
	fmt.Fprintf(stdout, "%s of %s (%s), blocks under %s%s\n", count(rounds, "round"), count(int64(c.partitions), "bucket"), count(s.Steps(), "minibatch step"), job.Dir, kept)
}

// run loads the input, runs the pipeline on the chosen runner, gathers
// the blocks and writes the outputs.
func run(ctx context.Context, c *config, stdout io.Writer) error {
	if err := c.checkFlags(); err != nil {
		return err
	}
	if err := c.checkOut(); err != nil {
		return err
	}
	started := time.Now()
	dir := joinDir(tempRoot(), fmt.Sprintf("wys-beam-%d", started.UnixNano()))
	if !c.keepTemp {
		defer func() {
			if err := wysbeam.RemoveRun(context.WithoutCancel(ctx), dir); err != nil {
				fmt.Fprintf(stdout, "note: the run's files under %s were not all removed: %v\n", dir, err)
			}
		}()
	}
	g, split, graphPath, err := c.load(ctx, dir, stdout)
	if err != nil {
		return err
	}
	cj, err := json.Marshal(c.Sparse)
	if err != nil {
		return err
	}
	job := wysbeam.Job{Graph: graphPath, Config: string(cj), Partitions: c.partitions, RoundBatches: c.perRnd, Dir: dir + "/blocks"}
	if graphPath == "" {
		job.Graph = dir + "/graph.csr"
		if err := wysbeam.WriteGraph(ctx, job.Graph, g); err != nil {
			return err
		}
	}
	s, err := c.schedule(ctx, &job, g, split, stdout)
	if err != nil {
		return err
	}
	rounds := s.Rounds()
	c.planNotes(stdout, job, s)
	p, scope := beam.NewPipelineWithRoot()
	wysbeam.Build(scope, job, rounds)
	t0 := time.Now()
	progress := c.progress
	if progress == nil {
		progress = io.Discard
	}
	if err := executeWatched(ctx, p, job, rounds, progress); err != nil {
		return fmt.Errorf("training pipeline: %s", outcheck.TrimPackage(lastLine(err)))
	}
	elapsed := time.Since(t0)
	m, err := wysbeam.Gather(ctx, job, s, rounds)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "trained in %s (%.3f s per round); ", elapsed.Round(time.Millisecond), elapsed.Seconds()/float64(rounds))
	res, err := score(ctx, stdout, s, m, g, split)
	if err != nil {
		return err
	}
	if len(res.Q) > 0 { // as wys-sparse's summary
		fmt.Fprintf(stdout, "learned context distribution Q (k = 1..%d):\n  %s\n", len(res.Q), outcheck.FormatQ(res.Q, len(res.Q)))
	}
	rep := &report{Tool: "wys-beam", Started: started.UTC().Format(time.RFC3339), Input: c.graph + c.split,
		Nodes: g.N(), TrainArcs: g.Adj.NNZ(), Settings: settingsOf(s.Config()), Partitions: c.partitions, RoundBatches: c.perRnd,
		Runner: runnerName(), Rounds: rounds, Steps: s.Steps(), BlockBytesPerEpoch: blockBytesPerEpoch(s, m),
		TrainAUC: finite(res.TrainAUC), TestAUC: finite(res.TestAUC), TestDirectedAUC: finite(res.TestDirectedAUC), Q: res.Q, QLogits: res.QLogits,
		Seconds: elapsed.Seconds(), SecondsPerRound: elapsed.Seconds() / float64(rounds)}
	if c.keepTemp {
		rep.Dir = job.Dir
	}
	if c.graph != "" {
		load := c.loadOptions()
		rep.Load, rep.TestFraction = &load, c.testFraction
	}
	return c.write(ctx, stdout, res, split.IDs, g, rep)
}

// score returns the trained model m as a result scored on split and
// prints its AUCs; a whole-graph run (no split) gets its fit to a sample
// of g's own arcs, on the pairs wys-sparse's whole-graph runs score. A
// model that does not fit its training arcs gets outcheck.Unfit's note.
func score(ctx context.Context, stdout io.Writer, s *train.Schedule, m *train.Model, g *pipeline.Graph, split *pipeline.Split) (*pipeline.Result, error) {
	res, err := s.Result(ctx, m, split)
	if err != nil {
		return nil, err
	}
	if math.IsNaN(res.TrainAUC) && math.IsNaN(res.TestAUC) {
		pos, neg := train.FitPairs(g, s.Config().EvalPairs, s.Config().Seed)
		res.TrainAUC = pipeline.PairAUC(res.L, res.R, res.Half, pos, neg)
		fmt.Fprintf(stdout, "fit to the graph's own arcs (a sample of them against random non-edges): ROC-AUC %.4f\n", res.TrainAUC)
	} else {
		fmt.Fprintf(stdout, "train AUC %.4f, test AUC %.4f\n", res.TrainAUC, res.TestAUC)
		if !math.IsNaN(res.TestDirectedAUC) {
			fmt.Fprintf(stdout, "  against reversed arcs and random non-edges: %.4f\n", res.TestDirectedAUC)
		}
	}
	if note := outcheck.Unfit("the trained model", res.TrainAUC, s.Steps(), false, "-lr"); note != "" {
		fmt.Fprintln(stdout, note)
	}
	return res, nil
}

// MaxRounds is the most rounds one training pipeline takes. Build lays
// out three transforms per round, and the runner holds the whole graph:
// on Prism, 1,350 rounds took 0.48 GB before the first round ran, 2,700
// took 1.8 GB, and 13,497 (ca-HepTh's directed split at -round-batches 1)
// were killed at 24 GB. The direct runner, which runs the transforms in
// this process as it meets them (148 MB at 2,700 rounds), takes any
// number.
const MaxRounds = 2000

// capRounds returns the schedule of job within MaxRounds rounds: without
// -round-batches, the least number of steps per round that fits (said in
// a note); a -round-batches that leaves more rounds is refused.
func (c *config) capRounds(ctx context.Context, job *wysbeam.Job, s *train.Schedule, stdout io.Writer) (*train.Schedule, error) {
	if s.Rounds() <= MaxRounds || runnerKind(runnerName()) == "direct" {
		return s, nil
	}
	per := int((s.Steps() + MaxRounds - 1) / MaxRounds)
	if c.roundBatchesSet {
		return nil, usageError{fmt.Errorf("-round-batches %d: %d rounds, more than the %d one training pipeline holds (the runner keeps every round's transforms in memory); give -round-batches %d or more, or fewer -epochs", c.perRnd, s.Rounds(), MaxRounds, per)}
	}
	c.perRnd, job.RoundBatches = per, per
	fmt.Fprintf(stdout, "note: the trainer's schedule is %d rounds, more than the %d one training pipeline holds: each round takes %d minibatch steps of each bucket (-round-batches %d; q moves once an epoch of P rounds, so it moves less per walk: raise -qlr with it)\n", s.Rounds(), MaxRounds, per, per)
	return job.Schedule(ctx)
}

// blockBytesPerEpoch is the block bytes read and written by P rounds.
func blockBytesPerEpoch(s *train.Schedule, m *train.Model) int64 {
	var per int64
	for i := range m.L {
		for _, b := range []train.Block{m.L[i], m.R[i]} {
			per += int64(4 * (len(b.X) + len(b.M) + len(b.V)))
		}
	}
	return 2 * per * int64(s.Partition().P())
}

// runnerName is the Beam flag -runner (prism when empty).
func runnerName() string {
	if f := flagLookup("runner"); f != "" {
		return f
	}
	return "prism"
}

// write writes the embeddings, Q and the report that were asked for.
func (c *config) write(ctx context.Context, stdout io.Writer, res *pipeline.Result, ids *pipeline.NodeIDs, g *pipeline.Graph, rep *report) error {
	if ids == nil {
		ids = g.IDs
	}
	rep.Version, rep.Outputs = version(), []string{} // [] when none, as wys-sparse's
	if c.out != "" {
		if err := graphio.WriteEmbeddings(ctx, c.out, c.format, res, ids); err != nil {
			return err
		}
		fmt.Fprintln(stdout, outcheck.Wrote(res.N, 2*res.Half, c.out, c.format))
		rep.Outputs = append(rep.Outputs, c.out, graphio.MarkerPath(c.out))
		if f, _ := graphio.ResolveFormat(c.format, c.out); f == graphio.FormatNPY { // checked before the run
			rep.Outputs = append(rep.Outputs, graphio.IDsPath(c.out))
		}
	}
	if c.qOut != "" {
		obj := c.Sparse.Objective.Resolve()
		if err := graphio.WriteJSON(c.qOut, graphio.QReport{Q: res.Q, Logits: res.QLogits, Names: obj.ContextNames()}); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote Q to %s\n", c.qOut)
		rep.Outputs = append(rep.Outputs, c.qOut)
	}
	if c.report != "" {
		if err := graphio.WriteJSON(c.report, rep); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote report to %s\n", c.report)
	}
	return nil
}

// count returns "1 round" or "n rounds".
func count(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
