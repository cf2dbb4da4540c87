package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wys-project/wys/internal/atomicfile"
	"github.com/wys-project/wys/internal/filelock"
	"github.com/wys-project/wys/internal/interrupt"
	"github.com/wys-project/wys/internal/outcheck"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/baseline"
	"github.com/wys-project/wys/pipeline/eval"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/reference"
	"github.com/wys-project/wys/pipeline/train"
	"github.com/wys-project/wys/viz/qplot"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// usageError is a bad flag or flag combination: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usage makes err, one of the messages of a shared check (outcheck,
// atomicfile.Check), a usage error; nil stays nil.
func usage(err error) error {
	if err == nil {
		return nil
	}
	return &usageError{msg: err.Error()}
}

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// limitProcs sets GOMAXPROCS to workers when it is positive, so that
// -workers N bounds every parallel step: the trainers take their workers
// from the flag, but the library's final scoring and text writing use
// GOMAXPROCS goroutines. It returns the function that restores the old
// value.
func limitProcs(workers int) (restore func()) {
	if workers <= 0 {
		return func() {}
	}
	old := setProcs(workers)
	return func() { setProcs(old) }
}

// setProcs is runtime.GOMAXPROCS; tests record its calls.
var setProcs = runtime.GOMAXPROCS

// help is "wys-sparse help [COMMAND]": the usage of the main command or
// of one of the others, on stdout.
func help(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stdout)
		return exitOK
	}
	if sc, ok := subcommands[args[0]]; ok && len(args) == 1 {
		return runSub(ctx, sc, []string{"-help"}, stdout, stderr)
	}
	if len(args) > 1 {
		fmt.Fprintf(stderr, "wys-sparse help: unexpected argument %q: give one command at most\n", args[1])
	} else {
		fmt.Fprintf(stderr, "wys-sparse help: no command %q: the commands are %s\n", args[0], strings.Join(commandNames()[1:], ", "))
	}
	return exitUsage
}

// asksJSON reports whether args give -progress json (or --progress,
// or =json), for a command line whose parsing stopped before reaching it:
// its error is then a JSON error event too.
func asksJSON(args []string) bool {
	for i, a := range args {
		switch name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"); {
		case a == "--":
			return false
		case name == "progress=json":
			return true
		case name == "progress" && i+1 < len(args) && args[i+1] == "json":
			return true
		}
	}
	return false
}

// run is the whole command: it parses args, does the work and returns the
// exit code. It never calls os.Exit, so tests drive it in-process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if sc, ok := subcommands[args[0]]; ok {
			return runSub(ctx, sc, args[1:], stdout, stderr)
		}
		if args[0] == "help" {
			return help(ctx, args[1:], stdout, stderr)
		}
	}
	c := config{args: args}
	var flagOut bytes.Buffer // the flag package's own message
	err := parseFlags(&c, args, &flagOut)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout)
		return exitOK
	}
	if err == nil && c.version {
		fmt.Fprintln(stdout, version())
		return exitOK
	}
	var ue *usageError
	if err != nil && !errors.As(err, &ue) {
		msg := durationHint(strings.TrimSpace(flagOut.String()))
		if c.progress == "json" || asksJSON(args) { // -progress json, before the bad flag or after it
			return failure(stderr, "json", exitUsage, msg+"; run 'wys-sparse -help' for the flags")
		}
		fmt.Fprintf(stderr, "wys-sparse: %s; run 'wys-sparse -help' for the flags\n", msg)
		return exitUsage
	}
	if c.quiet {
		stdout = io.Discard
	}
	if err == nil {
		err = c.validate()
	}
	if err == nil {
		defer limitProcs(c.Sparse.Workers)()
		err = job(ctx, &c, stdout, stderr)
	}
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		return failure(stderr, c.progress, exitUsage, err.Error())
	case errors.Is(err, pipeline.ErrTooLarge): // a method to change for this graph, as a rank above its nodes
		return failure(stderr, c.progress, exitUsage, trimPackage(err.Error()))
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return failure(stderr, c.progress, interrupt.Code(ctx), c.interrupted(interrupt.Word(ctx), err))
	default:
		return failure(stderr, c.progress, exitFailure, trimPackage(err.Error()))
	}
}

// durationHint adds to the flag package's message for a duration flag
// given a bare number (-time 5) the form it wants.
func durationHint(msg string) string {
	for _, name := range []string{"time", "checkpoint-every"} {
		if strings.HasSuffix(msg, "for flag -"+name+": parse error") {
			return msg + ": want a duration with its unit, e.g. 30s, 10m or 1h30m"
		}
	}
	return msg
}

// failure writes the line that ends a failed run and returns its exit
// code: "wys-sparse: msg", or under -progress json an event of kind
// "error" with the message and the code, so that every line a JSON
// consumer reads parses.
func failure(stderr io.Writer, progress string, code int, msg string) int {
	if progress != "json" {
		fmt.Fprintf(stderr, "wys-sparse: %s\n", msg)
		return code
	}
	b, _ := json.Marshal(jsonEvent{Time: time.Now().UTC().Format(time.RFC3339Nano), Kind: "error", Message: msg, ExitCode: &code})
	fmt.Fprintln(stderr, string(b))
	return code
}

// interrupted is the line of a run that a signal stopped (how: word)
// with err, saying what it leaves: with -checkpoint, the training state
// when its directory holds one (saved by this run, or by the run it
// resumes; an older one when the save at the interrupt failed), else
// nothing.
func (c *config) interrupted(word string, err error) string {
	if c.checkpoint == "" {
		return word + "; no output files were left half-written"
	}
	_, serr := os.Stat(train.CheckpointPath(c.checkpoint))
	if errors.Is(err, train.ErrNotSaved) {
		why := trimPackage(saveFailure(err).Error())
		if serr == nil {
			return word + "; " + why + ": " + c.checkpoint + " holds an earlier checkpoint, from which -resume continues (the batches after it are trained again)"
		}
		return word + "; " + why + ", and " + c.checkpoint + " holds no earlier one: run the command again as it was"
	}
	if serr == nil {
		return word + "; training state saved in " + c.checkpoint + ": run the same command with -resume to continue"
	}
	return word + " before the first checkpoint: " + c.checkpoint + " holds no training state (run the command again as it was); no output files were left half-written"
}

// saveFailure returns the error that err, train.Run's join of the
// context's error and a failed save's, holds for the save.
func saveFailure(err error) error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			if errors.Is(e, train.ErrNotSaved) {
				return e
			}
		}
	}
	return err
}

// input is what the load step produces: the training graph, the
// evaluation pairs, the ids to write and the labels to classify.
type input struct {
	g      *pipeline.Graph
	split  *pipeline.Split
	ids    *pipeline.NodeIDs
	labels *pipeline.Labels
	demo   bool
}

// job runs the steps of a run: load, train, summarise, write.
func job(ctx context.Context, c *config, stdout, stderr io.Writer) error {
	started := time.Now()
	if c.checkpoint != "" {
		lock, err := c.lockCheckpoint()
		if err != nil {
			return err
		}
		defer lock.Unlock()
	}
	if lim := pipeline.MemoryLimit(c.Sparse.MemoryLimit); c.method == "wys" && lim > 0 && os.Getenv("GOMEMLIMIT") == "" {
		// The pre-flight estimates the live data; the collector may let
		// the heap grow to twice that (a dense run on ego-Facebook: 0.68
		// GiB estimated, 1.18 GiB peak), unless told the limit too.
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(lim))
	}
	prog := newProgress(stderr, c.progress)
	if c.method == "wys" && c.trainer == "sparse" {
		prog.budget = c.Sparse.TimeBudget
	}
	rep := &report{Tool: "wys-sparse", Started: started.UTC().Format(time.RFC3339)}
	if c.graph != "" && c.out == "" && c.testFraction == 0 && c.labels == "" {
		// Embedding a whole graph measures nothing: without -out the
		// run's work is lost, which is better said before it starts.
		prog.dataNote(stdout, "load", "%s", outcheck.NoOut)
	}
	in, err := c.load(ctx, prog, stdout, rep)
	if err != nil {
		return err
	}
	if err := outcheck.IDs(c.out, c.format, in.ids); err != nil {
		return usage(err) // the format was checked with the flags, the ids only now
	}
	if c.saveSplit != "" {
		if err := c.checkBeforeWrites(in); err != nil {
			return err // refused, the run leaves no split behind
		}
		if err := c.writeSplit(ctx, stdout, in.split, rep); err != nil {
			return err
		}
	}
	t1 := time.Now()
	res, err := c.train(ctx, in, prog, rep)
	prog.done()
	if err == nil {
		err = res.CheckFinite() // every method: nothing non-finite is written
	}
	if err != nil {
		return err
	}
	c.summarise(stdout, res, in.split, time.Since(t1))
	if err := rep.setResult(ctx, res, in.split, c.report != ""); err != nil {
		return err
	}
	if in.labels != nil {
		if err := c.classify(ctx, stdout, res, in.labels, rep); err != nil {
			return err
		}
	}
	rep.Stages = prog.stages
	if err := c.write(ctx, stdout, res, in.ids, rep, started); err != nil {
		return err
	}
	if in.demo {
		fmt.Fprint(stdout, demoHint)
	}
	prog.finished(rep)
	return nil
}

// checkBeforeWrites runs the checks of the WYS trainers that come before
// their first step (settings, length, memory), for a run that writes files
// before it trains.
func (c *config) checkBeforeWrites(in *input) error {
	switch {
	case c.method != "wys" || c.resume:
		return nil
	case c.trainer == "dense":
		_, err := reference.CheckMemory(in.g.N(), c.Dense)
		return err
	}
	return settingErrUsage(train.Check(in.g, in.split, c.Sparse))
}

// writeSplit writes the pairs the run scores to -save-split DIR: with
// -val-fraction, the test pairs left after the validation pairs. A DIR
// that holds another split is refused, since embeddings may have been
// scored on its pairs; one that holds this very split is kept as it is.
// The files written go to the report's outputs.
func (c *config) writeSplit(ctx context.Context, stdout io.Writer, s *pipeline.Split, rep *report) error {
	verb := "wrote the split to"
	if old, err := graphio.LoadSplitDir(ctx, c.saveSplit, s.Directed); err == nil {
		if !sameSplit(old, s) {
			return usagef("-save-split %s already holds another split (%d nodes, %d test edges): embeddings may have been scored on its pairs; give another directory, or remove that one to replace it", c.saveSplit, old.N, len(old.Test))
		}
		verb = "the split is already in"
	} else if err := graphio.WriteSplitDir(ctx, c.saveSplit, s); err != nil {
		return fmt.Errorf("-save-split %s: %w", c.saveSplit, err)
	} else {
		if c.weighted {
			fmt.Fprintf(stdout, "note: a split directory holds pairs, not weights: -split %s trains on the training edges unweighted, and another tool scored on it should read the weights from -graph\n", c.saveSplit)
		}
		rep.Outputs = append(rep.Outputs, graphio.SplitDirFiles(c.saveSplit, s)...)
	}
	val := ""
	if len(s.Val) > 0 {
		val = fmt.Sprintf("; the %d validation edges and their non-edges are not in it", len(s.Val))
	}
	fmt.Fprintf(stdout, "%s %s (score any embedding of the graph on it with wys-sparse eval -split %s%s%s)\n", verb, c.saveSplit, c.saveSplit, map[bool]string{true: " -directed"}[s.Directed], val)
	return nil
}

// sameSplit reports whether a and b hold the same nodes and pairs.
func sameSplit(a, b *pipeline.Split) bool {
	if a.N != b.N || !slices.Equal(a.Train, b.Train) || !slices.Equal(a.Test, b.Test) || !slices.Equal(a.TrainNeg, b.TrainNeg) ||
		!slices.Equal(a.TestNeg, b.TestNeg) || !slices.Equal(a.TestDirectedNeg, b.TestDirectedNeg) {
		return false
	}
	for i := range a.N {
		if a.IDs.Name(i) != b.IDs.Name(i) {
			return false
		}
	}
	return true
}

// load reads the graph or split (or makes the demo graph), holds out the
// test edges, and reads the labels, so that every input error appears
// before training starts.
func (c *config) load(ctx context.Context, prog *progress, stdout io.Writer, rep *report) (*input, error) {
	in := &input{demo: c.graph == "" && c.split == ""}
	var g *pipeline.Graph
	switch {
	case c.split != "":
		prog.stage("load", "reading split "+c.split)
		t0 := time.Now()
		s, err := graphio.LoadSplitDir(ctx, c.split, c.directed)
		if err != nil {
			return nil, err
		}
		prog.end("load", time.Since(t0))
		in.split, in.ids = s, s.IDs
		fmt.Fprintln(stdout, splitLines(c.split, s))
		if s.Directed && len(s.TestDirectedNeg) == 0 {
			prog.dataNote(stdout, "load", "%s", noReversedArcs(c.split))
		}
		if g, err = s.TrainGraph(ctx); err != nil {
			return nil, err
		}
	case in.demo:
		var err error
		if g, err = pipeline.PlantedPartition(600, 6, 0.06, 0.003, 1); err != nil {
			return nil, err
		}
		fmt.Fprintf(stdout, "built-in demo graph: %d nodes in 6 planted communities, %d edges (no -graph given)\n", g.N(), g.Adj.NNZ()/2)
	default:
		var err error
		if g, err = c.loadGraph(ctx, prog, stdout, rep); err != nil {
			return nil, err
		}
	}
	if in.split == nil {
		in.ids = g.IDs
		if c.testFraction > 0 {
			prog.stage("split", fmt.Sprintf("holding out %.0f%% of the edges", 100*c.testFraction))
			t0 := time.Now()
			s, err := pipeline.SplitEdges(ctx, g, c.testFraction, c.Sparse.Seed)
			if err != nil {
				return nil, err
			}
			prog.end("split", time.Since(t0))
			fmt.Fprintf(stdout, "split: %d train / %d test edges (train graph keeps its connectivity), %d / %d sampled non-edges\n",
				len(s.Train), len(s.Test), len(s.TrainNeg), len(s.TestNeg))
			in.split = s
			tg, err := s.TrainGraph(ctx)
			if err != nil {
				return nil, err
			}
			if c.weighted {
				tg.WeightsFrom(g) // TrainGraph is unweighted
			}
			g = tg
		} else {
			in.split = &pipeline.Split{N: g.N(), IDs: g.IDs, Directed: g.Directed}
		}
	}
	if c.valFraction > 0 {
		if err := in.split.HoldOutValidation(c.valFraction, c.Sparse.Seed); err != nil {
			return nil, err
		}
		prog.val = in.split.HasValidation()
		fmt.Fprintf(stdout, "validation: %d of the test edges and %d of their non-edges select the model; the test AUC uses the other %d and %d\n",
			len(in.split.Val), len(in.split.ValNeg), len(in.split.Test), len(in.split.TestNeg))
	}
	in.g = g
	rep.Graph = graphStats{Nodes: g.N(), TrainArcs: g.Adj.NNZ(), Directed: g.Directed,
		TrainPairs: len(in.split.Train), TestPairs: len(in.split.Test), ValPairs: len(in.split.Val)}
	if c.labels != "" {
		lab, err := c.loadLabels(ctx, in.ids)
		if err != nil {
			return nil, err
		}
		in.labels = lab
	}
	if err := c.fitsMethod(prog, stdout, g); err != nil {
		return nil, err
	}
	return in, nil
}

// loadLabels reads -labels and -label-split for the nodes of ids.
func (c *config) loadLabels(ctx context.Context, ids *pipeline.NodeIDs) (*pipeline.Labels, error) {
	lab, err := graphio.LoadLabels(ctx, c.labels, c.labelSplit, ids)
	if c.lcc && errors.Is(err, pipeline.ErrUnknownNode) {
		return nil, fmt.Errorf("%w; -lcc kept only the largest connected component, whose embeddings cannot classify the nodes of the others: drop -lcc", err)
	}
	return lab, err
}

// fitsMethod refuses a rank above the training graph's nodes, and notes
// that Laplacian eigenmaps cannot place the nodes of a disconnected one.
func (c *config) fitsMethod(prog *progress, stdout io.Writer, g *pipeline.Graph) error {
	if half := c.Sparse.Dim / 2; half > g.N() {
		return usagef("rank %d (-dim %d) exceeds the %d nodes of the graph; use -rank %d (-dim %d) or less", half, c.Sparse.Dim, g.N(), g.N(), 2*g.N())
	}
	if c.method == "eigenmaps" {
		// The trivial eigenvector is dropped: d/2 + 1 of them are computed.
		if g.N() < 2 {
			return usagef("Laplacian eigenmaps drops the trivial eigenvector, which leaves none for a graph of %d node", g.N())
		}
		if half := c.Sparse.Dim / 2; half+1 > g.N() {
			return usagef("Laplacian eigenmaps computes d/2 + 1 = %d eigenvectors (the trivial one is dropped), more than the %d nodes of the graph; use -rank %d (-dim %d) or less", half+1, g.N(), g.N()-1, 2*(g.N()-1))
		}
		if k := pipeline.Components(g); k > 1 {
			fix := "; add -lcc to embed the largest one"
			if c.split != "" {
				fix = " (a split keeps every node: -lcc applies to -graph)"
			}
			if half := c.Sparse.Dim / 2; k-1 >= half {
				prog.dataNote(stdout, "load", "the training graph has %d connected components: Laplacian eigenmaps' smallest eigenvectors then mark the components instead of placing the nodes within them, all %d of those kept (scores near chance)%s", k, half, fix)
			} else {
				prog.dataNote(stdout, "load", "the training graph has %d connected components: %d of the %d eigenvectors Laplacian eigenmaps keeps mark them instead of placing the nodes within them%s", k, k-1, half, fix)
			}
		}
	}
	return nil
}

// stdin is what -graph - reads.
var stdin io.Reader = os.Stdin

// readGraph reads -graph (a file, or standard input for "-") once, hashing
// the bytes as they are read for the report: a pipe or /dev/stdin cannot
// be read a second time.
func (c *config) readGraph(ctx context.Context, opt graphio.LoadOptions, rep *report, prog *progress) (*pipeline.Graph, *graphio.LoadReport, error) {
	src, name := stdin, "standard input"
	if c.graph != "-" {
		f, err := graphio.OpenFile(c.graph)
		if errors.Is(err, graphio.ErrIsDir) {
			return nil, nil, fmt.Errorf("-graph %s is a directory: -graph reads an edge-list or .mat file (a directory holding a split is read with -split %[1]s)", c.graph)
		}
		if err != nil {
			return nil, nil, err
		}
		defer f.Close()
		src, name = withLoadProgress(f, prog), c.graph
	}
	h := sha256.New()
	n := &countingWriter{}
	tee := io.TeeReader(src, io.MultiWriter(h, n))
	var g *pipeline.Graph
	var lr *graphio.LoadReport
	var err error
	in, mat := io.Reader(tee), graphio.IsMATPath(c.graph)
	if c.graph == "-" {
		if in, mat, err = graphio.SniffMAT(tee, name); err != nil {
			return nil, nil, err
		}
	}
	if mat {
		var f *graphio.MATFile
		if f, err = graphio.ReadMAT(ctx, in, name); err == nil {
			g, lr, err = f.Network(ctx, opt) // its labels play no part in training
		}
	} else {
		g, lr, err = graphio.ReadEdgeList(ctx, in, name, opt)
	}
	if err != nil {
		return nil, nil, err
	}
	if _, err := io.Copy(io.Discard, tee); err != nil { // what follows the last edge (a gzip trailer)
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	rep.Inputs = append(rep.Inputs, inputFile{Path: c.graph, SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: n.n})
	return g, lr, nil
}

// countingWriter counts the bytes written to it.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// count is n followed by its unit, singular for 1: "1 edge", "2 edges".
// has is the verb of n things: "has" for one, else "have".
func has(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// repeats describes the edge lines (or, for a .mat file, the matrix
// entries) that named an edge already read: for an undirected graph mostly
// the second direction of each edge, as SNAP lists undirected graphs and
// a symmetric matrix stores them, which is expected, not a fault of the
// file.
func repeats(lr *graphio.LoadReport) string {
	if lr.Duplicates == 0 {
		return ""
	}
	unit, units, both, first := "line", "lines", "as when both u v and v u are listed", "the first line's weight"
	if lr.Format == "mat" {
		unit, units, both, first = "matrix entry", "matrix entries", "as the transposed entry of a symmetric matrix does", "the weight of the entry stored first"
	}
	lines := count(lr.Duplicates, unit, units)
	what := fmt.Sprintf(", %s repeated an arc already read (one arc kept", lines)
	if !lr.Directed {
		what = fmt.Sprintf(", %s named an edge already read, in either direction (%s; one edge kept", lines, both)
	}
	if lr.Weighted {
		what += ", with " + first
		if lr.OtherWeights > 0 {
			what += fmt.Sprintf("; %s gave it another weight, dropped", count(lr.OtherWeights, unit, units))
		}
	}
	return what + ")"
}

// numbersOnly reports whether every field of line (split at tabs, commas
// or spaces) is a number.
func numbersOnly(line string) bool {
	f := strings.FieldsFunc(line, func(r rune) bool { return r == '\t' || r == ',' || r == ' ' })
	for _, x := range f {
		if _, err := strconv.ParseFloat(x, 64); err != nil {
			return false
		}
	}
	return len(f) > 0
}

// partlyBothWays reports an edge list read as undirected whose repeated
// lines cover between 2% and 98% of its edges: an undirected list writes
// every edge once (SNAP's ego-Facebook) or every edge both ways (its
// CA-HepTh, Email-Enron), while a directed graph's reciprocated arcs are
// some of them (soc-Slashdot0902: 73%, web-NotreDame: 35%).
func partlyBothWays(lr *graphio.LoadReport) bool {
	edges := lr.UniqueEdges - lr.SelfLoops
	if lr.Directed || lr.Format == "mat" || edges <= 0 {
		return false
	}
	share := float64(lr.Duplicates) / float64(edges)
	return share > 0.02 && share < 0.98
}

// edgeCount returns the arcs of a directed graph, or the edges of an
// undirected one: its arcs with each u–v pair's two counted once and a
// self-loop (one arc) as one.
func edgeCount(g *pipeline.Graph) int {
	if g.Directed {
		return g.Adj.NNZ()
	}
	loops := 0
	for u := range g.N() {
		cols, _ := g.Adj.Row(u)
		if _, ok := slices.BinarySearch(cols, int32(u)); ok {
			loops++
		}
	}
	return (g.Adj.NNZ() + loops) / 2
}

// reciprocated counts the arcs of g whose reverse is an arc too.
func reciprocated(g *pipeline.Graph) int {
	n := 0
	for v := range g.N() {
		idx, _ := g.Adj.Row(v)
		for _, u := range idx {
			if g.Adj.Has(int(u), v) {
				n++
			}
		}
	}
	return n
}

// isolated counts the nodes of g with no arc in or out.
func isolated(g *pipeline.Graph) int {
	touched := make([]bool, g.N())
	for v := range g.N() {
		if g.Adj.RowNNZ(v) > 0 {
			touched[v] = true
		}
	}
	for _, u := range g.Adj.Indices {
		touched[u] = true
	}
	n := 0
	for _, t := range touched {
		if !t {
			n++
		}
	}
	return n
}

// loadGraph reads -graph with the reading flags and reports what the
// reader did.
func (c *config) loadGraph(ctx context.Context, prog *progress, stdout io.Writer, rep *report) (*pipeline.Graph, error) {
	t0 := time.Now()
	display := c.graph
	if display == "-" {
		display = "standard input"
	}
	prog.stage("load", "reading "+display)
	mode, _ := graphio.ParseIDMode(c.ids) // checked by validate
	g, lr, err := c.readGraph(ctx, graphio.LoadOptions{Directed: c.directed, Weighted: c.weighted, KeepSelfLoops: c.keepLoops, IDs: mode, Header: c.header}, rep, prog)
	if err != nil {
		return nil, err
	}
	rep.Load = lr
	// The count is of the edges the graph holds: lr.UniqueEdges also
	// counts the self-loops that were dropped.
	edges, loops := lr.UniqueEdges-lr.SelfLoops, count(lr.SelfLoops, "self-loop", "self-loops")+" dropped"
	if lr.KeptSelfLoops {
		edges, loops = lr.UniqueEdges, fmt.Sprintf("%d of them %s, kept", lr.SelfLoops, map[bool]string{true: "a self-loop", false: "self-loops"}[lr.SelfLoops == 1])
	}
	unit, units := "edge", "edges"
	if c.directed {
		unit, units = "arc", "arcs"
	}
	prog.end("load", time.Since(t0))
	fmt.Fprintf(stdout, "loaded %s: %s, %s (%s)%s (%.2fs)\n",
		display, count(lr.Nodes, "node", "nodes"), count(edges, unit, units), loops, repeats(lr), time.Since(t0).Seconds())
	if lr.Header != "" {
		fmt.Fprintf(stdout, "skipped the header line %q\n", lr.Header)
		if lr.NumericIDs && numbersOnly(lr.Header) {
			prog.dataNote(stdout, "load", "the line -header skipped holds only numbers, as an edge does (SNAP's \"# FromNodeId ToNodeId\" is a comment, skipped without -header): if it is an edge, drop -header")
		}
	}
	if lr.Format == "mtx" {
		fmt.Fprintln(stdout, "read as Matrix Market: its size line skipped and its entry count checked, each entry \"row column [value]\" an edge")
		if missing := lr.MTXNodes - uint64(lr.Nodes); missing > 0 {
			prog.dataNote(stdout, "load", "%d of the matrix's %d indices have no entry: they are not nodes of the graph and get no vector", missing, lr.MTXNodes)
		}
	}
	// Only a dropped self-loop leaves an edge list's node without arcs.
	if lr.SelfLoops > 0 && !lr.KeptSelfLoops && !c.lcc {
		if n := isolated(g); n > 0 {
			placed := "the vectors of such nodes are placed by negative pairs alone"
			if c.method != "wys" {
				placed = fmt.Sprintf("-method %s has no arc to place the vectors of such nodes by", c.method)
			}
			prog.dataNote(stdout, "load", "%s only a self-loop, which is dropped, and no other arc: %s (add -keep-self-loops, or leave them out)", count(n, "node has", "nodes have"), placed)
		}
	}
	if g.Directed && g.Adj.NNZ() > 0 && reciprocated(g) == g.Adj.NNZ() {
		prog.dataNote(stdout, "load", "every arc of the graph comes with its reverse, as in an undirected graph listed both ways: read it without -directed, unless the two directions are meant to differ (as it is, a held-out arc's reverse stays among the training arcs)")
	}
	idNotes(prog, stdout, lr)
	lineNotes(prog, stdout, lr)
	if c.lcc {
		before, edges := g.N(), edgeCount(g)
		g = pipeline.LargestComponent(g)
		unit := "edges"
		if g.Directed {
			unit = "arcs"
		}
		fmt.Fprintf(stdout, "largest connected component: %d of %d nodes, %d of %d %s\n", g.N(), before, edgeCount(g), edges, unit)
	}
	return g, nil
}

// lineNotes notes what the read left out or could not tell from the lines
// (or matrix entries) lr describes: repeats that suggest a directed graph,
// weights not read, ids holding spaces or written as floats, and lines
// wider than an edge.
func lineNotes(prog *progress, stdout io.Writer, lr *graphio.LoadReport) {
	if partlyBothWays(lr) {
		prog.dataNote(stdout, "load", "%d of the %d edges were listed twice (in both directions, or repeated), where an undirected edge list has every edge once or every edge both ways: the graph may be directed (as SNAP's soc-Slashdot0902 and web-NotreDame are), and read without -directed its arcs lose their direction; add -directed if they have one",
			lr.Duplicates, lr.UniqueEdges-lr.SelfLoops)
	}
	if lr.UnreadWeights > 0 {
		prog.dataNote(stdout, "load", "%d of the %d entries of the network hold a value other than 1, which is not read: add -weighted if the values are the edge weights",
			lr.UnreadWeights, lr.EdgesRead)
	}
	of := fmt.Sprintf("of the %d edge lines", lr.EdgesRead)
	if lr.ExtraColumns > 0 {
		prog.dataNote(stdout, "load", "%s", outcheck.ThirdColumnNote(lr.ExtraColumns, of))
	}
	if lr.SpacedIDLines > 0 {
		prog.dataNote(stdout, "load", "%d of the %d edge lines (the first: line %d) %s an id holding a space, read whole because a line with a tab is split at its tabs only, and one with a comma at its commas only: if the spaces separate columns, use one delimiter throughout",
			lr.SpacedIDLines, lr.EdgesRead, lr.SpacedIDLine, has(lr.SpacedIDLines))
	}
	if lr.FloatID != "" {
		whole, _, _ := strings.Cut(lr.FloatID, ".")
		prog.dataNote(stdout, "load", "id %s (line %d) is an integer written as a float, read as a token: it is not node %s; write the ids as integers (pandas: df[cols].astype(int))",
			lr.FloatID, lr.FloatIDLine, whole)
	}
	if lr.WideLines > 0 {
		prog.dataNote(stdout, "load", "%s", outcheck.WideLinesNote(lr.WideLines, of))
	}
}

// idNotes notes how the ids of the edge list lr describes were read:
// as tokens from a line with a leading zero or a non-integer spelling,
// or with a first line that looks like column names.
func idNotes(prog *progress, stdout io.Writer, lr *graphio.LoadReport) {
	if lr.LeadingZero != "" {
		prog.dataNote(stdout, "load", "%s", outcheck.LeadingZeroNote(fmt.Sprintf("line %d", lr.LeadingZeroLine), lr.LeadingZero))
	}
	if lr.TokenID != "" {
		prog.dataNote(stdout, "load", "%s", outcheck.TokenIDNote(fmt.Sprintf("line %d", lr.TokenIDLine), lr.TokenID))
	}
	if lr.LateComments > 0 {
		prog.dataNote(stdout, "load", "%s (starting with # or %%) after the first edge line, the first on line %d, skipped: an edge whose first id starts with # reads as a comment; if these are edges, rename such ids",
			count(lr.LateComments, "comment line", "comment lines"), lr.LateCommentLine)
	}
	if lr.IndexColumn {
		prog.dataNote(stdout, "load", "the first column is an integer that grows from line to line, as pandas' index does (to_csv without index=False; 0, 1, 2, …, with gaps where rows were filtered out), so it is read as the first node of every edge: if the edges are in the columns after it, write the file with index=False")
	}
	if lr.HeaderLike != "" {
		prog.dataNote(stdout, "load", "line %d (%q) is read as an edge between two nodes that appear on no other line: if it holds column names, skip it (-header)",
			lr.HeaderLikeLine, lr.HeaderLike)
	}
}

// train runs the chosen method on the training graph with its resolved
// configuration, which the report records.
func (c *config) train(ctx context.Context, in *input, prog *progress, rep *report) (*pipeline.Result, error) {
	rep.Settings = settings{Method: c.method, ValFraction: c.valFraction, LCC: c.lcc, Args: c.args}
	if c.split == "" {
		rep.Settings.TestFraction = c.testFraction
	}
	switch {
	case c.method != "wys":
		cfg := c.Baseline.Resolve()
		rep.Settings.Baseline = &cfg
		return baseline.Run(ctx, in.g, in.split, cfg, prog)
	case c.trainer == "dense":
		cfg := c.Dense.Resolve()
		rep.Settings.Trainer, rep.Settings.Dense = "dense", &cfg
		if err := c.checkRefine(in, cfg.Objective, rep); err != nil {
			return nil, err
		}
		res, err := reference.Run(ctx, in.g, in.split, cfg, prog)
		return c.refine(ctx, in, cfg.Objective, res, err, prog)
	}
	cfg := c.Sparse.Resolve(in.g.N(), in.g.Adj.NNZ())
	cfg.Inputs = c.inputs()
	rep.Settings.Trainer, rep.Settings.Sparse, rep.Settings.FixedQ = "sparse", &cfg, c.fixedQ
	if c.checkpoint != "" {
		if err := c.setCheckpoint(&cfg, rep); err != nil {
			return nil, err
		}
	}
	if err := c.checkRefine(in, cfg.Objective, rep); err != nil {
		return nil, err
	}
	res, err := train.Run(ctx, in.g, in.split, cfg, prog)
	err = settingErrUsage(err)
	var sm *train.SettingsMismatch
	switch {
	case errors.As(err, &sm) && len(sm.Diffs) > 0:
		// Flags that disagree with the checkpoint's: a usage error (exit
		// 2), as a -checkpoint DIR holding a run without -resume is.
		err = usage(fmt.Errorf("%s: it was written by another run: %s; resume with the flags and input of that run, or use another -checkpoint DIR", trimPackage(train.ErrCheckpoint.Error()), c.mismatchText(sm.Diffs)))
	case errors.Is(err, train.ErrCheckpoint):
		err = fmt.Errorf("%w; resume with the flags and input of that run, or use another -checkpoint DIR", err)
	}
	return c.refine(ctx, in, cfg.Objective, res, err, prog)
}

// checkRefine refuses -refine on a graph it cannot take, before the
// trainer runs, and records its resolved settings in the report.
func (c *config) checkRefine(in *input, obj pipeline.ObjectiveConfig, rep *report) error {
	if c.Refine.Steps == 0 {
		return nil
	}
	if err := train.CheckRefine(in.g, obj, c.Refine); errors.Is(err, pipeline.ErrTooLarge) {
		return usagef("-refine %d: %s", c.Refine.Steps, trimPackage(err.Error()))
	} else if err != nil {
		return fmt.Errorf("-refine %d: %s", c.Refine.Steps, trimPackage(err.Error()))
	}
	cfg := c.Refine.Resolve()
	rep.Settings.Refine = &cfg
	return nil
}

// refine takes -refine's exact steps on a trained result (err: the
// trainer's, passed through).
func (c *config) refine(ctx context.Context, in *input, obj pipeline.ObjectiveConfig, res *pipeline.Result, err error, prog *progress) (*pipeline.Result, error) {
	if err != nil || c.Refine.Steps == 0 {
		return res, err
	}
	return res, train.Refine(ctx, in.g, in.split, obj, res, c.Refine, prog)
}

// inputs returns the flags that shape the training graph and its
// evaluation pairs, for train.Config.Inputs: a resume with other values
// names them instead of only a changed graph.
func (c *config) inputs() map[string]string {
	in := map[string]string{"val_fraction": fmt.Sprint(c.valFraction)}
	if c.split == "" {
		in["test_fraction"], in["ids"] = fmt.Sprint(c.testFraction), c.ids
		in["weighted"], in["keep_self_loops"] = fmt.Sprint(c.weighted), fmt.Sprint(c.keepLoops)
		in["lcc"], in["header"] = fmt.Sprint(c.lcc), fmt.Sprint(c.header)
	}
	return in
}

// mismatchText names the settings in which a checkpoint's run differs
// from this one by their flags, those given on this command line first:
// the others follow from them or from the defaults (-eval-every from
// -epochs, the factored rank from -dim), or were given to the other run.
func (c *config) mismatchText(diffs []train.SettingDiff) string {
	var given, other []string
	flags := newFlagSet(&config{}, io.Discard)
	diffs, source := sourceDiffs(diffs)
	if source != "" {
		other = append(other, source)
	}
	var nodes, arcs train.SettingDiff
	for _, d := range diffs {
		switch d.Setting {
		case "graph.nodes":
			nodes = d
			continue
		case "graph.arcs":
			arcs = d
			continue
		case "graph.directed":
			d.Setting = "directed"
		}
		name := strings.TrimPrefix(strings.TrimPrefix(d.Setting, "objective."), "inputs.")
		flagName := outcheck.SettingFlag(name)
		if flagName == "" && flags.Lookup(strings.ReplaceAll(name, "_", "-")) != nil {
			flagName = strings.ReplaceAll(name, "_", "-")
		}
		text := fmt.Sprintf("%s %s (checkpoint: %s)", strings.ReplaceAll(d.Setting, "_", " "), d.Now, d.Saved)
		if flagName != "" {
			text = fmt.Sprintf("-%s %s (checkpoint: %s)", flagName, d.Now, d.Saved)
		}
		if flagName != "" && c.given[flagName] {
			given = append(given, text)
		} else {
			other = append(other, text)
		}
	}
	if nodes.Setting != "" || arcs.Setting != "" {
		other = append(other, graphSizeText(nodes, arcs))
	}
	switch {
	case len(given) == 0:
		return "settings that differ: " + strings.Join(other, ", ")
	case len(other) == 0:
		return "flags that differ: " + strings.Join(given, ", ")
	}
	return "flags that differ: " + strings.Join(given, ", ") + "; following from them or from the defaults: " + strings.Join(other, ", ")
}

// sourceDiffs takes out of diffs the inputs of -graph (graphOnly) that
// one of the two runs has and the other has not (one read -split), and returns the
// rest and a text that names the two sources ("" when both read the same
// kind).
func sourceDiffs(diffs []train.SettingDiff) ([]train.SettingDiff, string) {
	var rest []train.SettingDiff
	source := ""
	for _, d := range diffs {
		name, input := strings.CutPrefix(d.Setting, "inputs.")
		switch {
		case !input || !slices.Contains(graphOnly, strings.ReplaceAll(name, "_", "-")):
			rest = append(rest, d)
		case d.Now == "not set":
			source = "-split (checkpoint: a -graph run's)"
		case d.Saved == "not set":
			source = "-graph (checkpoint: a -split run's)"
		default:
			rest = append(rest, d)
		}
	}
	return rest, source
}

// graphSizeText names the graph's size in this run and in the
// checkpoint, from the diffs of graph.nodes and graph.arcs (a zero
// SettingDiff when that one is the same).
func graphSizeText(nodes, arcs train.SettingDiff) string {
	var now, saved []string
	for _, d := range []struct {
		diff train.SettingDiff
		unit string
	}{{nodes, "nodes"}, {arcs, "arcs"}} {
		if d.diff.Setting != "" {
			now, saved = append(now, d.diff.Now+" "+d.unit), append(saved, d.diff.Saved+" "+d.unit)
		}
	}
	return "the graph: " + strings.Join(now, " and ") + " (checkpoint: " + strings.Join(saved, " and ") + ")"
}

// lockCheckpoint creates the -checkpoint directory, checks that it takes
// files (a run must not find out at its first save), and locks it for
// the run: two runs saving to one directory would overwrite each other's
// state. Holding the lock, it removes the partial checkpoints that killed
// runs left (each as large as a checkpoint).
func (c *config) lockCheckpoint() (*filelock.Locked, error) {
	if err := os.MkdirAll(c.checkpoint, 0o755); err != nil {
		return nil, usagef("-checkpoint %s: cannot create the directory: %v", c.checkpoint, errors.Unwrap(err))
	}
	path := train.CheckpointPath(c.checkpoint)
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, usagef("-checkpoint %s: %s is a directory, where the checkpoint file goes: move it away", c.checkpoint, path)
	}
	if err := atomicfile.Check(path); err != nil {
		return nil, usagef("-checkpoint %s: %v; make the directory writable, or give another -checkpoint DIR (a saved state moves with its %s)", c.checkpoint, strings.TrimSuffix(err.Error(), "; choose another output path"), train.CheckpointFile)
	}
	lock, err := c.checkpointLock()
	if err != nil {
		return nil, err
	}
	if _, err := atomicfile.RemoveStale(path); err != nil {
		lock.Unlock()
		return nil, fmt.Errorf("-checkpoint %s: removing the partial checkpoints of a killed run: %w", c.checkpoint, err)
	}
	return lock, nil
}

// lockPath is the lock file of a -checkpoint directory.
func lockPath(dir string) string { return filepath.Join(dir, "wys.lock") }

// checkpointLock takes the lock of the -checkpoint directory
// (DIR/wys.lock); when another run holds it, the error is a
// *checkpointInUse.
func (c *config) checkpointLock() (*filelock.Locked, error) {
	path := lockPath(c.checkpoint)
	lock, err := filelock.Lock(path)
	switch {
	case errors.Is(err, filelock.ErrLocked):
		return nil, &checkpointInUse{dir: c.checkpoint, lock: path}
	case err != nil:
		return nil, fmt.Errorf("-checkpoint %s: %w", c.checkpoint, err)
	}
	return lock, nil
}

// checkpointInUse is the error for a -checkpoint directory whose lock
// another run holds.
type checkpointInUse struct{ dir, lock string }

func (e *checkpointInUse) Error() string {
	return fmt.Sprintf("-checkpoint %s is in use by another run (it holds the lock on %s); wait for that run, or give another directory", e.dir, e.lock)
}

// setCheckpoint saves the sparse trainer's state under -checkpoint and,
// with -resume, restores it.
func (c *config) setCheckpoint(cfg *train.Config, rep *report) error {
	path := train.CheckpointPath(c.checkpoint)
	cfg.Checkpoint = func(st *train.State) error { return train.WriteCheckpoint(path, st) }
	if !c.resume {
		return nil
	}
	st, err := train.ReadCheckpoint(path)
	if err != nil {
		return fmt.Errorf("%w (delete %s to start over)", err, path)
	}
	cfg.Resume = st
	rep.Settings.ResumedFromBatch = st.Batch
	return nil
}

// stoppedNote says, for the summary line, what ended a sparse run before
// its planned length, and at which epoch ("" for a run that ran it all).
func stoppedNote(res *pipeline.Result) string {
	why := map[string]string{"time": "the time budget (-time)", "converged": "the convergence rule (-converge)", "patience": "-patience"}[res.Stats.Stopped]
	if why == "" {
		return ""
	}
	epoch := ""
	if n := len(res.Curve); n > 0 {
		epoch = fmt.Sprintf(" at epoch %.4g", res.Curve[n-1].Epoch)
	}
	return "; stopped by " + why + epoch
}

// refinedNote is the summary's mention of -refine's steps after the
// selected model ("" without them).
func refinedNote(res *pipeline.Result) string {
	if k := res.Stats.RefineSteps; k > 0 {
		return ", then " + refineSteps(k)
	}
	return ""
}

// refineSteps names k of -refine's steps.
func refineSteps(k int) string {
	if k == 1 {
		return "1 exact full-batch step (-refine)"
	}
	return fmt.Sprintf("%d exact full-batch steps (-refine)", k)
}

// runCurve returns res's curve without the points of -refine's steps,
// which follow the run's last step (train.Refine numbers them on).
func runCurve(res *pipeline.Result) []pipeline.CurvePoint {
	n := len(res.Curve)
	if res.Stats.RefineSteps == 0 || n == 0 {
		return res.Curve
	}
	end := res.Curve[n-1].Step - res.Stats.RefineSteps
	for n > 0 && res.Curve[n-1].Step > end {
		n--
	}
	return res.Curve[:n]
}

// summarise prints what was trained, Q and the AUCs, the selection AUC
// named after split's selection pairs (train or validation).
func (c *config) summarise(stdout io.Writer, res *pipeline.Result, split *pipeline.Split, elapsed time.Duration) {
	obj := c.Sparse.Objective.Resolve()
	// -refine's steps are timed apart from the training they follow.
	refined := res.Stats.Stage("refine-setup") + res.Stats.Stage("refine")
	elapsed -= refined
	if c.method == "wys" {
		fmt.Fprintf(stdout, "trained %s (%s formulation, d = %d, C = %d) in %.1fs", res.Method, obj.Formulation, c.Sparse.Dim, obj.C, elapsed.Seconds())
	} else {
		fmt.Fprintf(stdout, "computed the %s baseline (d = %d) in %.1fs", res.Method, c.Sparse.Dim, elapsed.Seconds())
	}
	if res.Stats.PairsPerSecond > 0 {
		fmt.Fprintf(stdout, ", %.2fM positive pairs/s", res.Stats.PairsPerSecond/1e6)
	}
	if run := runCurve(res); c.resume && len(run) > 0 {
		// The time and rate are this process's; the curve's clock counts
		// the training before the resume too.
		fmt.Fprintf(stdout, " (this session, its setup included; resumed: the training steps of all sessions took %.1fs)", run[len(run)-1].Elapsed.Seconds())
	}
	if k := res.Stats.RefineSteps; k > 0 {
		fmt.Fprintf(stdout, "; %s in %.1fs", refineSteps(k), refined.Seconds())
	}
	fmt.Fprintln(stdout, stoppedNote(res))
	if res.Q != nil {
		how := "learned"
		if c.fixedQ != "" {
			how = "fixed (" + c.fixedQFlag() + ")"
		}
		if len(res.Q) > obj.C {
			extra := strings.Join(obj.ContextNames()[obj.C:], ", ")
			fmt.Fprintf(stdout, "%s context distribution Q (k = 1..%d, then %s):\n  %s\n", how, obj.C, extra, outcheck.FormatQ(res.Q, obj.C))
		} else {
			fmt.Fprintf(stdout, "%s context distribution Q (k = 1..%d):\n  %s\n", how, len(res.Q), outcheck.FormatQ(res.Q, obj.C))
		}
	}
	if !math.IsNaN(res.TestAUC) {
		sel := selectionName(split.HasValidation())
		fmt.Fprintf(stdout, "link prediction ROC-AUC: test %.4f, %s %.4f", res.TestAUC, sel, res.TrainAUC)
		if c.method == "wys" {
			averaged := ""
			if run := runCurve(res); c.trainer == "sparse" && c.Sparse.Average > 0 && len(run) > 0 && res.BestStep == run[len(run)-1].Step {
				averaged = fmt.Sprintf(": the mean of L and R over the run's last %g (-average)", c.Sparse.Average)
			}
			fmt.Fprintf(stdout, " (model selected at step %d by %s AUC%s%s)", res.BestStep, sel, averaged, refinedNote(res))
		}
		fmt.Fprintln(stdout)
	}
	if !math.IsNaN(res.TestDirectedAUC) {
		fmt.Fprintf(stdout, "  against reversed arcs and random non-edges: %.4f\n", res.TestDirectedAUC)
	}
	c.summaryNotes(stdout, res, split)
}

// summaryNotes prints the notes that end the summary: too few test
// pairs, the selected model's fit when no test pairs score it, a
// refinement that lowered the selection AUC, a fall of the test AUC the
// train AUC did not see, and a model that did not learn.
func (c *config) summaryNotes(stdout io.Writer, res *pipeline.Result, split *pipeline.Split) {
	run := runCurve(res) // the trainer's points, without -refine's
	if note := fewTestPairs(res.TestAUC, len(split.Test), len(split.TestNeg), c.moreTestPairs(split)); note != "" {
		fmt.Fprintln(stdout, note)
	}
	fit := selectedFit(res)
	if math.IsNaN(res.TestAUC) && math.IsNaN(res.TrainAUC) && !math.IsNaN(fit) {
		fmt.Fprintf(stdout, "fit to the graph's own arcs (a sample of them against random non-edges): ROC-AUC %.4f (model selected at step %d%s)\n", fit, res.BestStep, refinedNote(res))
	}
	if !math.IsNaN(res.TrainAUC) {
		fit = res.TrainAUC
	}
	if k := res.Stats.RefineSteps; k > 0 {
		what := selectionName(split.HasValidation()) + " AUC"
		if math.IsNaN(res.TrainAUC) {
			what = "fit to the graph's own arcs"
		}
		if note := train.LoweredNote(res.Curve[len(run):], res.Stats.RefineFromAUC, what); note != "" {
			fmt.Fprintf(stdout, "note: %s; see -refine-lr and -refine\n", note)
		}
	}
	if c.method == "wys" && c.trainer == "sparse" && !split.HasValidation() {
		if note := overfitNote(run, res.BestStep); note != "" {
			fmt.Fprintln(stdout, note)
		}
	}
	// A model that cannot tell its own training arcs from non-edges did
	// not learn (a diverging step size, an input read wrong).
	if c.method == "wys" && !split.HasValidation() {
		steps := int64(-1)
		if len(run) > 0 {
			steps = int64(run[len(run)-1].Step)
		}
		rate := "-lr"
		if res.Stats.RefineSteps > 0 {
			rate = "-refine-lr" // the refinement's LoweredNote says more
		}
		if note := outcheck.Unfit("the selected model", fit, steps, c.trainer == "dense", rate); note != "" {
			fmt.Fprintln(stdout, note)
		}
	}
}

// overfitDrop is the fall of the progress test AUC, from its peak to the
// model the train AUC selected, above which the summary notes it.
const overfitDrop = 0.005

// overfitNote returns, for a run selected on the train AUC whose curve
// (the training's evaluations) shows the test AUC at the selected step
// bestStep at least overfitDrop below its peak, a note that the train
// AUC did not tell the two models apart and how to select on held-out
// pairs; else "". The test AUC only informs the note: it selects nothing.
func overfitNote(curve []pipeline.CurvePoint, bestStep int) string {
	peak, at := math.Inf(-1), -1
	sel := -1
	for i, pt := range curve {
		if pt.TestAUC > peak {
			peak, at = pt.TestAUC, i
		}
		if pt.Step == bestStep {
			sel = i
		}
	}
	if at < 0 || sel < 0 || !(peak-curve[sel].TestAUC >= overfitDrop) {
		return ""
	}
	return fmt.Sprintf("note: the progress test AUC peaked at %.4f (epoch %.4g) and is %.4f at the selected model, whose train AUC %.4f did not tell them apart; -val-fraction 0.1 selects the model on held-out pairs instead, and -patience stops the run when they stop improving",
		peak, curve[at].Epoch, curve[sel].TestAUC, curve[sel].TrainAUC)
}

// moreTestPairs says how to score a run on more test pairs than split's.
func (c *config) moreTestPairs(split *pipeline.Split) string {
	fix := "hold out more edges (a larger -test-fraction)"
	if c.split != "" {
		fix = "score on a split with more test edges"
	}
	if split.HasValidation() {
		fix += ", or keep more of them for the test (a smaller -val-fraction)"
	}
	return fix
}

// fewPairsSE is the standard error a test AUC would have at chance
// (pipeline.AUCStdErr at 0.5) above which it gets a note that its pairs
// are too few: below about 67 test edges against as many non-edges.
const fewPairsSE = 0.05

// fewTestPairs returns the note for a test AUC measured on pos test edges
// against neg non-edges when they are too few to tell methods apart
// (the fix says how to get more), else "". A NaN AUC gets no note.
func fewTestPairs(auc float64, pos, neg int, fix string) string {
	se := pipeline.AUCStdErr(0.5, pos, neg)
	if math.IsNaN(auc) || !(se > fewPairsSE) {
		return ""
	}
	edges, nonEdges := "test edges", "non-edges"
	if pos == 1 {
		edges = "test edge"
	}
	if neg == 1 {
		nonEdges = "non-edge"
	}
	return fmt.Sprintf("note: the test AUC is measured on only %d %s against %d %s: at chance its standard error would be %.2f (Hanley and McNeil), too large to tell methods apart; %s", pos, edges, neg, nonEdges, se, fix)
}

// classify scores the embeddings with the paper's node classification
// rule and with a logistic regression on the [L | R] rows, or on the rows
// of L for a baseline whose R is L (ProNE, eigenmaps), whose [L | R]
// would repeat every column.
func (c *config) classify(ctx context.Context, stdout io.Writer, res *pipeline.Result, lab *pipeline.Labels, rep *report) error {
	cr, err := classify(ctx, stdout, res, lab, "")
	rep.Classify = cr
	if err != nil {
		return err
	}
	variant := eval.DefaultFeaturesOf(res)
	x, f, err := eval.Features(res, variant)
	if err != nil {
		return err
	}
	rep.ClassifyLogReg, err = classifyLogReg(ctx, stdout, x, res.N, f, lab, variant, 1, c.Sparse.Workers)
	return err
}

// classifyLogReg runs eval.ClassifyLogReg (C, workers) on the features x
// (n × f, described by what) and prints the test accuracy and Macro-F1.
func classifyLogReg(ctx context.Context, stdout io.Writer, x []float64, n, f int, lab *pipeline.Labels, what string, c float64, workers int) (*eval.LogRegClassifyResult, error) {
	lr, err := eval.ClassifyLogReg(ctx, x, n, f, lab, eval.MultiLabelConfig{LogReg: eval.LogRegConfig{C: c}, Workers: workers})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "  logistic regression (one-vs-rest, C = %g) on %d features (%s) of the %d train nodes: test accuracy %.1f%%, Macro-F1 %.4f\n",
		lr.C, lr.Features, what, lr.Train, 100*lr.TestAccuracy, lr.TestMacroF1)
	if lr.NotConverged > 0 {
		fmt.Fprintf(stdout, "  (%d of its %d fits stopped at the iteration limit)\n", lr.NotConverged, lr.Classes)
	}
	return lr, nil
}

// classify runs eval.Classify and prints the accuracies. For a single
// table (L = R = Y) the scores are named by what they are, single being
// the score of two rows ("Y·Y", or "cos(Y, Y)" for unit rows): LR and sym
// are both that, and dot is twice it, the same score on a doubled α grid.
// "" names [L | R]'s scores.
func classify(ctx context.Context, stdout io.Writer, res *pipeline.Result, lab *pipeline.Labels, single string) (*eval.ClassifyResult, error) {
	cr, err := eval.Classify(ctx, res, lab)
	if err != nil {
		return nil, err
	}
	name := func(score string) string { return score }
	if single != "" {
		name = func(score string) string {
			if n, ok := map[string]string{"LR": single, "sym": single, "dot": "2·" + single}[score]; ok {
				return n
			}
			return score
		}
	}
	why := ""
	if cr.TunedOn == "train" {
		why = "; the split has no validation nodes, so both were chosen on the train nodes"
	}
	tuned := len(lab.Val)
	if cr.TunedOn == "train" {
		tuned = len(lab.Train)
	}
	fmt.Fprintf(stdout, "node classification accuracy: test %.1f%% of %d nodes, %s %.1f%% of %d (α = %g, score %s%s)\n",
		100*cr.TestAccuracy, len(lab.Test), cr.TunedOn, 100*cr.ValAccuracy, tuned, cr.Alpha, name(cr.Score), why)
	fmt.Fprintf(stdout, "  best %s accuracy per score: %s\n", cr.TunedOn, bestPerScore(cr.Grid, name))
	if nodes, classes := untrainedClasses(lab); nodes > 0 {
		fmt.Fprintf(stdout, "  note: %d test nodes are of classes no train node has (%s), which no rule can predict\n", nodes, joinInts(classes))
	}
	return cr, nil
}

// untrainedClasses returns the number of test nodes of lab whose class no
// train node has, and those classes in increasing order.
func untrainedClasses(lab *pipeline.Labels) (nodes int, classes []int) {
	trained := map[int]bool{}
	for _, v := range lab.Train {
		trained[lab.Class[v]] = true
	}
	for _, v := range lab.Test {
		if c := lab.Class[v]; !trained[c] {
			nodes++
			classes = append(classes, c)
		}
	}
	slices.Sort(classes)
	return nodes, slices.Compact(classes)
}

// joinInts writes xs in decimal, separated by ", ".
func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// write writes the embeddings, Q, its picture and the report.
func (c *config) write(ctx context.Context, stdout io.Writer, res *pipeline.Result, ids *pipeline.NodeIDs, rep *report, started time.Time) error {
	obj := c.Sparse.Objective.Resolve()
	if c.out != "" {
		format, err := graphio.ResolveFormat(c.format, c.out)
		if err != nil {
			return err
		}
		if err := graphio.WriteEmbeddings(ctx, c.out, format, res, ids); err != nil {
			return err
		}
		rep.Outputs = append(rep.Outputs, c.out, graphio.MarkerPath(c.out))
		if format == graphio.FormatNPY {
			rep.Outputs = append(rep.Outputs, graphio.IDsPath(c.out))
		}
		fmt.Fprintln(stdout, outcheck.Wrote(res.N, 2*res.Half, c.out, format))
	}
	if c.qJSON != "" && res.Q != nil {
		if err := graphio.WriteJSON(c.qJSON, graphio.QReport{Q: res.Q, Logits: res.QLogits, Names: obj.ContextNames()}); err != nil {
			return err
		}
		rep.Outputs = append(rep.Outputs, c.qJSON)
		fmt.Fprintf(stdout, "wrote Q to %s\n", c.qJSON)
	}
	if c.qPlot != "" && res.Q != nil {
		draw, title := qplot.Draw, c.plotTitle() // titled as a learned Q
		if c.fixedQ != "" {
			draw, title = qplot.DrawTitled, "Fixed context distribution Q ("+c.fixedQ+") — "+title
		}
		if err := draw(c.qPlot, title, res.Q, obj.ContextNames()); err != nil {
			return err
		}
		rep.Outputs = append(rep.Outputs, c.qPlot)
		fmt.Fprintf(stdout, "drew Q to %s\n", c.qPlot)
	}
	if c.report != "" {
		if err := rep.write(c.report, started, c.split, c.labels, c.labelSplit); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote report to %s\n", c.report)
	}
	return nil
}

// plotTitle names the input in the Q picture.
func (c *config) plotTitle() string {
	src := c.graph + c.split
	if src == "" {
		return "demo graph"
	}
	title := filepath.Base(filepath.Clean(src))
	if title == "asymproj" { // a released split: name the dataset
		title = filepath.Base(filepath.Dir(filepath.Clean(src)))
	}
	return title
}

const demoHint = `
Next: embed your own graph (SNAP edge list or CSV, plain or .gz):
  wys-sparse -graph edges.txt -out emb.txt -q-plot q.png -report report.json
add -test-fraction 0.5 to hold out half of its edges and score link prediction,
or reproduce the paper on a released split:
  wys-sparse -split ../shared/datasets/ca-HepTh/asymproj
Run 'wys-sparse -help' for every flag.
`

// splitLines is the summary of the split s read from dir, with the notes
// on how its pairs are read (directedNote, loopsNote).
func splitLines(dir string, s *pipeline.Split) string {
	return graphio.SplitSummary(dir, s) + directedNote(s) + loopsNote(s) + indexNote(dir, s.N)
}

// indexNote says, on a line of its own, that the split in dir, of n
// nodes, has no index.tsv, so that its nodes are named by their rows; it
// is "" for a split with one.
func indexNote(dir string, n int) string {
	for _, name := range []string{"index.tsv", "index.tsv.gz"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return ""
		}
	}
	return fmt.Sprintf("\nnote: %s has no index.tsv, so its nodes are named by their rows in its .npy arrays, 0..%d, not by the ids of the graph it was cut from", dir, n-1)
}

// loopsNote says, on a line of its own, how many of the split's train and
// test pairs are self-loops, which a split keeps as released (-graph
// drops them), or is "" when none is.
func loopsNote(s *pipeline.Split) string {
	loops := func(pairs []pipeline.Pair) int {
		n := 0
		for _, p := range pairs {
			if p.U == p.V {
				n++
			}
		}
		return n
	}
	train, test := loops(s.Train), loops(s.Test)
	if train+test == 0 {
		return ""
	}
	return fmt.Sprintf("\nnote: %d of the %d train pairs and %d of the %d test pairs are self-loops (u u), kept as the split has them (-graph drops a graph's self-loops): training takes the train loops as edges, and each test loop is scored as the pair (u, u)",
		train, len(s.Train), test, len(s.Test))
}

// directedNote says how a released split's pairs are read: " (directed)",
// or, for a split read as undirected whose train pairs come both ways,
// how to read them as arcs.
func directedNote(s *pipeline.Split) string {
	if s.Directed {
		if ascending(s.Train) && ascending(s.Test) {
			return " (directed)\nnote: every train and test pair is written u < v, the layout of an undirected split (the paper's ca-HepTh, ego-Facebook and PPI): read as arcs, each edge keeps one direction, chosen by its ids; drop -directed unless the split is directed"
		}
		return " (directed)"
	}
	n := s.ReciprocalTrain()
	if n == 0 {
		return ""
	}
	note := fmt.Sprintf("\nnote: %d train pairs are listed both ways (u v and v u), as in a directed split, and are read as undirected edges", n)
	if r := s.ReversedTest(); r > 0 {
		note += fmt.Sprintf("; %d of the %d test pairs are the reverse of a train pair, and so are training edges too when read so", r, len(s.Test))
	}
	return note + ": add -directed to read them as arcs"
}

// noReversedArcs says that the directed split in dir has no reversed test
// arcs to score against.
func noReversedArcs(dir string) string {
	return dir + " has no test.directed.neg.txt.npy (reversed test arcs): the test AUC is against its random non-edges only"
}

// ascending reports whether every pair but self-loops has U < V, and
// some has.
func ascending(pairs []pipeline.Pair) bool {
	some := false
	for _, p := range pairs {
		if p.U > p.V {
			return false
		}
		some = some || p.U < p.V
	}
	return some
}

// bestPerScore formats the best validation accuracy of each pair score
// over the α grid, in the order tried.
func bestPerScore(grid []eval.ClassifyPoint, name func(string) string) string {
	var order []string
	best := map[string]eval.ClassifyPoint{}
	for _, p := range grid {
		s := name(p.Score)
		b, ok := best[s]
		if !ok {
			order = append(order, s)
		}
		if !ok || p.ValAccuracy > b.ValAccuracy {
			best[s] = p
		}
	}
	parts := make([]string, len(order))
	for i, s := range order {
		parts[i] = fmt.Sprintf("%s %.1f%% (α = %g)", s, 100*best[s].ValAccuracy, best[s].Alpha)
	}
	return strings.Join(parts, ", ")
}
