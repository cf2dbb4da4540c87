// Command wys-beam trains Watch Your Step embeddings with the bucketed
// schedule of the sparse trainer on Apache Beam: Prism in-process by
// default, or Flink, Spark or Dataflow with -runner. Its flags are
// wys-sparse's where they apply, plus -partitions (P), -round-batches and
// -temp_location (where the preprocessing's outputs, the training graph
// and the versioned parameter blocks live: a local directory for Prism,
// gs:// or s3:// on a cluster); -graph goes through the preprocessing
// pipeline (wysbeam.BuildPrep) on the same runner before the training;
// the Beam SDK's own flags (-runner, -endpoint, -environment_type,
// -project, -region, …) pass through. It writes the same embeddings,
// Q and report files as wys-sparse. The same seed, P and -round-batches
// give the same embeddings on any runner, with any number of workers.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx" // runners, local and gs:// filesystems

	"github.com/wys-project/wys/beam/internal/beamrun"
	"github.com/wys-project/wys/internal/buildinfo"
	"github.com/wys-project/wys/internal/interrupt"
	"github.com/wys-project/wys/internal/outcheck"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/train"
)

// config is one run's settings.
type config struct {
	// progress receives the training rounds' progress lines (stderr, as
	// wys-sparse's; nil: none), so that stdout holds what the run read
	// and wrote.
	progress           io.Writer
	roundBatchesSet    bool // -round-batches was given (else MaxRounds may raise it)
	graph, split       string
	directed, weighted bool
	header, keepLoops  bool
	keepTemp           bool
	ids                string
	testFraction       float64
	partitions, perRnd int
	out, format        string
	qOut, report       string
	Sparse             train.Config
}

func bindFlags(fs *flag.FlagSet) *config {
	c := &config{}
	sp := &c.Sparse
	fs.StringVar(&c.graph, "graph", "", "edge list `FILE` to embed (SNAP text, CSV or Matrix Market .mtx, plain or .gz), or a glob of files read as their concatenation in name order")
	fs.StringVar(&c.split, "split", "", "released split `DIR` (train/test .npy arrays and index.tsv) instead of -graph")
	fs.BoolVar(&c.directed, "directed", false, "treat edges as arcs (default: undirected, both arcs stored)")
	fs.BoolVar(&c.weighted, "weighted", false, "read the third column of -graph as an edge weight")
	fs.BoolVar(&c.header, "header", false, "skip the first line of each -graph file that is not blank or a comment (column names)")
	fs.StringVar(&c.ids, "ids", "auto", "node ids of -graph: auto, int or token (as wys-sparse -ids)")
	fs.BoolVar(&c.keepLoops, "keep-self-loops", false, "keep u→u edges of -graph (default: dropped)")
	fs.Float64Var(&c.testFraction, "test-fraction", 0, "with -graph: fraction of edges held out to evaluate link prediction (0: embed the whole graph)")
	fs.IntVar(&c.partitions, "partitions", 4, "P: node partitions; each round trains P buckets of P x P in parallel (1: one bucket, the steps of wys-sparse with -start random and -negative-block 0, the schedule's defaults, when a round is one step)")
	fs.IntVar(&c.perRnd, "round-batches", 1, "minibatch steps of each bucket per round (1: the trainer's schedule; more: fewer, longer rounds, other bytes). Unset, a run of more than 2000 rounds on a runner other than direct takes the least number that keeps it within them, and says so")
	fs.IntVar(&sp.Dim, "dim", 128, "embedding width d of Y = [L | R], d/2 per side (even)")
	fs.IntVar(&sp.Objective.C, "C", pipeline.DefaultC, "number of transition-matrix powers k = 1..C")
	fs.Float64Var(&sp.Objective.Beta, "beta", pipeline.DefaultBeta, "weight of the attention regulariser on q (0: off)")
	fs.Float64Var(&sp.Objective.WalksPerNode, "walks-per-node", pipeline.DefaultWalksPerNode, "starting mass P0 of E[D] (walks per node)")
	fs.StringVar((*string)(&sp.Objective.Formulation), "formulation", string(pipeline.FormulationCode), "E[D] weighting and loss: code or paper")
	fs.BoolVar(&sp.Objective.ExactLogs, "exact-logs", false, "code formulation: exact log σ and log(1−σ), without the authors' ε = 1e-5 inside them (as wys-sparse -exact-logs)")
	fs.StringVar(&sp.Optimizer, "optimizer", "", "adam, rmsprop (Adam without momentum: per-element second moments only) or sgd (default adam below 100,000 nodes, rmsprop from there, as wys-sparse)")
	fs.Float64Var(&sp.LR, "lr", 0, "learning rate (0: 0.02 with adam and rmsprop, 0.2 with sgd)")
	fs.Float64Var(&sp.QLR, "qlr", 0.005, "learning rate of the attention logits q")
	fs.Float64Var(&sp.Epochs, "epochs", 0, "epochs, each N walks of length C (0: the trainer's default)")
	fs.IntVar(&sp.BatchWalks, "batch", 0, "walks per minibatch step (0: the trainer's default)")
	fs.IntVar(&sp.Negatives, "negatives", 1, "non-edge pairs per positive pair")
	sp.Seed = 1
	fs.Var(seedFlag{&sp.Seed}, "seed", "`SEED` of every random choice (same seed, P and -round-batches: same output on any runner; with -round-batches unset, it may differ between direct and the others on long runs)")
	fs.IntVar(&sp.Workers, "workers", 0, "goroutines per bucket step (0: all cores); the output does not depend on it")
	fs.StringVar(&c.out, "out", "", "write embeddings to `FILE` (.npy, .tsv, .csv, else word2vec text; text may end in .gz)")
	fs.StringVar(&c.format, "format", "", "embedding format: w2v, npy, tsv or csv (default: from the -out extension)")
	fs.StringVar(&c.qOut, "q-out", "", "write the learned Q and q as JSON to `FILE`")
	fs.BoolVar(&c.keepTemp, "keep-temp", false, "keep the run's files under -temp_location (preprocessing, training graph, parameter blocks) when it ends; by default they are removed")
	fs.StringVar(&c.report, "report", "", "write a JSON report (settings, AUCs, Q, rounds, bytes moved, timings) to `FILE`")
	return c
}

func main() {
	sdk := map[string]bool{} // the Beam SDK's flags, registered by its packages
	flag.VisitAll(func(f *flag.Flag) { sdk[f.Name] = true })
	c := bindFlags(flag.CommandLine)
	helpBeam := flag.Bool("help-beam", false, "list the Beam SDK's flags too")
	showVersion := flag.Bool("version", false, "print the version (module, commit, Go, Beam SDK) and exit")
	logLevel := flag.String("log-level", "", "`LEVEL` of the Beam SDK's and the runner's log lines on standard error: "+strings.Join(beamrun.LogLevels, ", ")+" (default: warn on Prism, whose info lines are a dozen per pipeline; info on the other runners, whose info lines name the submitted job and its console; below info a failed pipeline's records are left out, its error being the last line)")
	// -h and -help list the flags on standard output, as wys-sparse -help
	// does; a bad flag gets its error (the flag package's) on one line
	// that points to -help, as wys-sparse's does.
	flag.CommandLine.Init(os.Args[0], flag.ContinueOnError)
	flag.CommandLine.SetOutput(io.Discard) // its error is printed below, on one line
	flag.Usage = func() {}
	if err := flag.CommandLine.Parse(os.Args[1:]); errors.Is(err, flag.ErrHelp) {
		printUsage(os.Stdout, flag.CommandLine, sdk, *helpBeam)
		os.Exit(0)
	} else if err != nil {
		fmt.Fprintf(os.Stderr, "wys-beam: %v; run 'wys-beam -help' for the flags\n", err)
		os.Exit(2)
	}
	if *helpBeam {
		printUsage(os.Stdout, flag.CommandLine, sdk, true)
		os.Exit(0)
	}
	if *showVersion {
		fmt.Println(version())
		os.Exit(0)
	}
	if *logLevel == "" {
		*logLevel = "info"
		if r := strings.ToLower(flagLookup("runner")); r == "" || r == "prism" || r == "direct" {
			*logLevel = "warn"
		}
	}
	if err := beamrun.SetLogLevel(*logLevel); err != nil {
		fmt.Fprintln(os.Stderr, "wys-beam: -log-level", err)
		os.Exit(2)
	}
	beam.Init() // a worker process runs its bundles here and never returns
	if *logLevel == "warn" || *logLevel == "error" {
		beamrun.QuietFailures() // a failed pipeline's records: its error's last line says it
	}
	if flag.NArg() > 0 {
		// A flag after it would be dropped without a word: an unquoted
		// glob expands to several arguments.
		fmt.Fprintf(os.Stderr, "wys-beam: unexpected argument %q: give the graph with -graph FILE, and quote a glob (-graph 'parts/*.txt')\n", flag.Arg(0))
		os.Exit(2)
	}
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := c.check(set); err != nil {
		fmt.Fprintln(os.Stderr, "wys-beam:", err)
		os.Exit(2)
	}
	// SIGINT or SIGTERM cancels the run: the runner stops the pipeline
	// (Prism within milliseconds), no output is written, and the run's
	// files under -temp_location are removed (unless -keep-temp).
	ctx, sigs := interrupt.Notify(context.Background())
	c.progress = os.Stderr
	// A run's outputs are files and its stdout a summary: a closed stdout
	// or stderr (… | head) must not kill it and leave its files under
	// -temp_location, so its writes just fail, as wys-sparse's do.
	signal.Ignore(syscall.SIGPIPE)
	err := run(ctx, c, os.Stdout)
	sigs.Stop()
	var ue usageError
	switch {
	case err == nil:
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "wys-beam:", err)
		os.Exit(2)
	case ctx.Err() != nil:
		fmt.Fprintf(os.Stderr, "wys-beam: %s; no output files were written\n", interrupt.Word(ctx))
		os.Exit(interrupt.Code(ctx))
	default:
		// The command's name stands for its own package's.
		fmt.Fprintln(os.Stderr, "wys-beam:", strings.TrimPrefix(err.Error(), "wysbeam: "))
		os.Exit(1)
	}
}

// check refuses, as usage errors before any pipeline runs, the values
// of the flags set on the command line and the settings and outputs that
// cannot work (run checks the last two again).
func (c *config) check(set map[string]bool) error {
	c.roundBatchesSet = set["round-batches"]
	if err := c.explicitValues(set); err != nil {
		return err
	}
	if err := c.checkFlags(); err != nil {
		return err
	}
	if runnerKind(runnerName()) == "dataflow" {
		if err := dataflowReady(); err != nil {
			return err
		}
	}
	if needsEndpoint(runnerName()) {
		if err := endpointReachable(flagLookup("endpoint"), 5*time.Second); err != nil {
			return err
		}
	}
	return c.checkOut()
}

// endpointReachable refuses a job server address (-endpoint, a gRPC
// target: HOST:PORT, or dns:/// or passthrough:/// before it) that takes
// no connection within timeout: the SDK would wait on it without a word,
// after the graph was read. A target of another scheme (unix:, or one the
// SDK resolves otherwise) is left to the SDK.
func endpointReachable(endpoint string, timeout time.Duration) error {
	addr := endpoint
	for _, scheme := range []string{"dns:///", "passthrough:///"} {
		addr = strings.TrimPrefix(addr, scheme)
	}
	if strings.Contains(addr, ":/") {
		return nil
	}
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return fmt.Errorf("-endpoint %s: no job server answers there (%v); start it, or give its HOST:PORT", endpoint, err)
	}
	return conn.Close()
}

// tempRoot is the Beam flag -temp_location (a directory of any Beam
// filesystem for the training graph and the parameter blocks), else the
// system's temporary directory.
func tempRoot() string {
	if d := flagLookup("temp_location"); d != "" {
		return d
	}
	return os.TempDir()
}

// flagLookup returns the value of a command-line flag, "" when unset or
// not defined.
func flagLookup(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// printUsage lists wys-beam's own flags (those not in sdk) and, with all,
// the Beam SDK's after them; without it, it says how to list those.
func printUsage(w io.Writer, fs *flag.FlagSet, sdk map[string]bool, all bool) {
	fmt.Fprintf(w, "Usage: wys-beam (-graph FILE | -split DIR) [flags]\n\nFlags of wys-beam:\n")
	list := func(beam bool) {
		fs.VisitAll(func(f *flag.Flag) {
			if sdk[f.Name] != beam {
				return
			}
			name, text := flag.UnquoteUsage(f)
			if name != "" {
				name = " " + name // a bool flag has none: no trailing space
			}
			fmt.Fprintf(w, "  -%s%s\n    \t%s", f.Name, name, strings.ReplaceAll(text, "\n", "\n    \t"))
			if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
				fmt.Fprintf(w, " (default %s)", f.DefValue)
			}
			fmt.Fprintln(w)
		})
	}
	list(false)
	if !all {
		fmt.Fprintln(w, "\nThe Beam SDK's flags (-runner, -endpoint, -environment_type, -temp_location, -project, -region, …) pass through; wys-beam -help-beam lists them.")
		return
	}
	fmt.Fprintln(w, "\nFlags of the Beam SDK:")
	list(true)
}

// seedFlag is -seed: a whole number in [0, 2^64), refused otherwise in
// wys-sparse's words (outcheck.ParseUint64).
type seedFlag struct{ p *uint64 }

func (f seedFlag) String() string {
	if f.p == nil {
		return "0"
	}
	return strconv.FormatUint(*f.p, 10)
}

func (f seedFlag) Set(s string) error {
	x, err := outcheck.ParseUint64(s)
	if err != nil {
		return err
	}
	*f.p = x
	return nil
}

// version is -version's line: the build's, and the Beam SDK's release.
func version() string {
	v := buildinfo.Version("wys-beam")
	if sdk := buildinfo.Dependency("github.com/apache/beam/sdks/v2"); sdk != "" {
		v += ", Beam SDK " + sdk
	}
	return v
}
