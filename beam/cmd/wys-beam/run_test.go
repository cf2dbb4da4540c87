package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wys-project/wys/beam/internal/beamtest"
	"github.com/wys-project/wys/beam/wysbeam"
	"github.com/wys-project/wys/internal/outcheck"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/train"
)

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		main() // a child of runMain: the command itself
		os.Exit(0)
	}
	os.Exit(beamtest.Main(m))
}

// TestRun runs the command on a small edge list with P = 3 on Prism and
// checks its report's q against the plain loop of the same schedule, on
// the graph as the command's reader loads it, and that the runs leave
// nothing in the temporary directory.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp") // the process's temporary directory
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for range 400 {
		fmt.Fprintf(&b, "%d %d\n", rng.IntN(100), rng.IntN(100))
	}
	graph := filepath.Join(dir, "g.txt")
	if err := os.WriteFile(graph, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &config{graph: graph, partitions: 3, perRnd: 2, out: filepath.Join(dir, "e.tsv"), report: filepath.Join(dir, "r.json"),
		Sparse: train.Config{Dim: 8, Epochs: 12, Seed: 4}}
	var stdout bytes.Buffer
	if err := run(context.Background(), c, &stdout); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(c.report)
	if err != nil {
		t.Fatal(err)
	}
	var rep report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	g, _, err := graphio.LoadEdgeList(context.Background(), graph, graphio.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := train.NewSchedule(g, c.Sparse, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Train(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.QLogits, m.Q.Logits) || rep.Rounds != s.Rounds() {
		t.Fatalf("report: q %v after %d rounds, plain loop %v after %d", rep.QLogits, rep.Rounds, m.Q.Logits, s.Rounds())
	}
	if _, err := os.Stat(c.out); err != nil {
		t.Fatalf("no embeddings: %v (stdout %s)", err, stdout.String())
	}
	if want := fmt.Sprintf("learned context distribution Q (k = 1..%d):\n  %s\n", len(rep.Q), outcheck.FormatQ(rep.Q, len(rep.Q))); len(rep.Q) != 10 || !strings.Contains(stdout.String(), want) {
		t.Errorf("the summary does not show the report's Q %v:\n%s", rep.Q, stdout.String())
	}
	if rep.Load == nil || rep.Load.Weighted || rep.TestFraction != 0 {
		t.Errorf("report's reading of -graph: %+v, test fraction %v", rep.Load, rep.TestFraction)
	}
	// The report names the build and every file written besides itself:
	// the .tsv and its marker.
	if want := []string{c.out, graphio.MarkerPath(c.out)}; !strings.HasPrefix(rep.Version, "wys-beam ") || !slices.Equal(rep.Outputs, want) {
		t.Errorf("report: version %q, outputs %q; want %q", rep.Version, rep.Outputs, want)
	}
	for _, p := range rep.Outputs {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("report output %s: %v", p, err)
		}
	}
	// The run's files are removed, unless -keep-temp.
	for _, keep := range []bool{false, true} {
		c.keepTemp = keep
		stdout.Reset()
		if err := run(context.Background(), c, &stdout); err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`blocks under (\S+)[ \n]`).FindStringSubmatch(stdout.String())
		if m == nil {
			t.Fatalf("no blocks directory in %s", stdout.String())
		}
		runDir := filepath.Dir(m[1])
		_, err := os.Stat(runDir)
		raw, _ := os.ReadFile(c.report)
		if keep != (err == nil) || keep != bytes.Contains(raw, []byte(`"blocks_dir"`)) {
			t.Errorf("-keep-temp %v: %s stat %v; report %s", keep, runDir, err, raw)
		}
		os.RemoveAll(runDir)
	}
	// The launcher's beamloopbackworker-* files went to a directory that
	// the run removed (beamrun.PrivateTemp).
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
		t.Errorf("the runs left %q in the temporary directory", left)
	}
}

// TestRunNeedsOneInput refuses a run without -graph or -split.
func TestRunNeedsOneInput(t *testing.T) {
	err := run(context.Background(), &config{partitions: 2}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "-graph FILE or -split DIR") {
		t.Fatalf("error %v, want one naming the inputs", err)
	}
}

// TestRunRefusesOutFormat refuses an -out the command cannot write
// before it reads any input (absent.txt is never opened).
func TestRunRefusesOutFormat(t *testing.T) {
	for _, c := range []*config{{graph: "absent.txt", out: "emb.parquet"}, {graph: "absent.txt", out: "emb.txt", format: "hdf5"}} {
		err := run(context.Background(), c, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "parquet") && !strings.Contains(err.Error(), "hdf5") || strings.Contains(err.Error(), "-graph FILE") {
			t.Errorf("-out %s -format %q: %v, want a refusal of the format before the input", c.out, c.format, err)
		}
	}
}

// TestRunGraphMatchesDriverLoad runs the command with -graph and a test
// fraction on Prism, so that the input goes through the Beam
// preprocessing, and checks its .npy embeddings byte for byte against
// the driver-side loading it replaced: graphio.LoadEdgeList,
// pipeline.SplitEdges with the same seed and the plain loop of the same
// schedule on the training graph, written by graphio.WriteEmbeddings.
func TestRunGraphMatchesDriverLoad(t *testing.T) {
	dir := t.TempDir()
	graph := writeStringIDGraph(t, dir)
	c := &config{graph: graph, testFraction: 0.25, partitions: 3, perRnd: 2, out: filepath.Join(dir, "e.npy"),
		Sparse: train.Config{Dim: 8, Epochs: 6, Seed: 9}}
	if err := run(context.Background(), c, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(c.out)
	if err != nil {
		t.Fatal(err)
	}
	if want := driverEmbeddings(t, c, filepath.Join(dir, "want.npy")); !bytes.Equal(got, want) {
		t.Fatalf("embeddings after the Beam preprocessing (%d bytes) differ from the driver-side loading's (%d bytes)", len(got), len(want))
	}
}

// TestRunExactLogs: -exact-logs reaches the bucket steps: the command's
// output equals the plain loop's with ObjectiveConfig.ExactLogs, and not
// the plain loop's with the authors' ε.
func TestRunExactLogs(t *testing.T) {
	dir := t.TempDir()
	graph := writeStringIDGraph(t, dir)
	fs := flag.NewFlagSet("wys-beam", flag.ContinueOnError)
	c := bindFlags(fs)
	err := fs.Parse([]string{"-graph", graph, "-test-fraction", "0.25", "-partitions", "2", "-dim", "8", "-epochs", "4",
		"-lr", "0.2", "-exact-logs", "-out", filepath.Join(dir, "e.npy")})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Sparse.Objective.ExactLogs {
		t.Fatal("-exact-logs did not set ObjectiveConfig.ExactLogs")
	}
	if err := run(context.Background(), c, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(c.out)
	if err != nil {
		t.Fatal(err)
	}
	if want := driverEmbeddings(t, c, filepath.Join(dir, "want.npy")); !bytes.Equal(got, want) {
		t.Fatal("embeddings with -exact-logs differ from the plain loop's with exact logs")
	}
	eps := *c
	eps.Sparse.Objective.ExactLogs = false
	if bytes.Equal(got, driverEmbeddings(t, &eps, filepath.Join(dir, "eps.npy"))) {
		t.Fatal("embeddings with -exact-logs equal the plain loop's with ε: the check cannot tell them apart")
	}
}

// writeStringIDGraph writes an edge list with string ids, duplicates and
// self-loops to dir and returns its path.
func writeStringIDGraph(t *testing.T, dir string) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString("# string ids, duplicates and self-loops\n")
	for range 500 {
		fmt.Fprintf(&b, "n%d n%d\n", rng.IntN(90), rng.IntN(90))
	}
	graph := filepath.Join(dir, "g.txt")
	if err := os.WriteFile(graph, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return graph
}

// scheduleResult trains c's schedule by the plain Go loop on split's
// training graph and returns its result scored on split.
func scheduleResult(t *testing.T, c *config, split *pipeline.Split) *pipeline.Result {
	t.Helper()
	ctx := context.Background()
	tg, err := split.TrainGraph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := train.NewSchedule(tg, c.Sparse, c.partitions, c.perRnd)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Train(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Result(ctx, m, split)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// driverEmbeddings returns the bytes of the embeddings that the plain Go
// loop of c's schedule writes to path, on c's graph loaded and split in
// the driver (graphio.LoadEdgeList, pipeline.SplitEdges).
func driverEmbeddings(t *testing.T, c *config, path string) []byte {
	t.Helper()
	ctx := context.Background()
	g, _, err := graphio.LoadEdgeList(ctx, c.graph, graphio.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	split, err := pipeline.SplitEdges(ctx, g, c.testFraction, c.Sparse.Seed)
	if err != nil {
		t.Fatal(err)
	}
	res := scheduleResult(t, c, split)
	if err := graphio.WriteEmbeddings(context.Background(), path, "", res, split.IDs); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRunBadLine checks that a bad edge line fails the command with the
// loader's own error line: near the top of the file, found before the
// pipeline (wysbeam.CheckHead); further on, or column names read as an
// edge (the header rule needs every line), after the pipeline's prefix.
func TestRunBadLine(t *testing.T) {
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil))) // Prism logs the failed bundle
	var long strings.Builder
	for i := 0; long.Len() < 1<<17; i++ {
		fmt.Fprintf(&long, "%d %d\n", i, i+1)
	}
	for text, prefix := range map[string]string{
		"1 2\n2 3\n3\n":       "",
		long.String() + "3\n": "preprocessing pipeline: ",
		"from,to\n1,2\n2,3\n": "preprocessing pipeline: ",
	} {
		graph := filepath.Join(t.TempDir(), "bad.txt")
		if err := os.WriteFile(graph, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, want := graphio.LoadEdgeList(context.Background(), graph, graphio.LoadOptions{})
		err := run(context.Background(), &config{graph: graph, partitions: 2, Sparse: train.Config{Dim: 8}}, &bytes.Buffer{})
		if err == nil || want == nil || err.Error() != prefix+want.Error() {
			t.Fatalf("error %v, want the loader's %v after %q", err, want, prefix)
		}
	}
}

// TestRunRefusesEarly: settings that cannot run, or that the run would
// ignore, and outputs the driver cannot write are refused before any
// pipeline runs; a -temp_location URL keeps its "//".
func TestRunRefusesEarly(t *testing.T) {
	dir := t.TempDir()
	graph := filepath.Join(dir, "g.txt")
	if err := os.WriteFile(graph, []byte("1 2\n2 3\n3 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		c    config
		want string
	}{
		{config{graph: graph, testFraction: 1.5}, "-test-fraction 1.5: want a fraction in [0, 1)"},
		{config{graph: graph, testFraction: -0.3}, "-test-fraction -0.3: want a fraction in [0, 1)"},
		{config{split: dir, weighted: true}, "a released split (-split) fixes the graph"},
		{config{split: dir, ids: "token"}, "a released split (-split) fixes the graph"},
		{config{graph: graph, ids: "words"}, `-ids "words": want auto, int or token`},
		{config{graph: graph, out: "gs://bucket/e.npy"}, "-out gs://bucket/e.npy: the outputs are written on the driver's file system"},
		{config{graph: graph, report: dir}, "-report: cannot write " + dir + ": it is a directory"},
		{config{graph: graph, out: "-"}, `-out: cannot write to "-": outputs are files`},
		{config{graph: graph, qOut: filepath.Join(dir, "no", "q.json")}, "does not exist"},
	}
	for _, tc := range cases {
		var out bytes.Buffer
		err := run(context.Background(), &tc.c, &out)
		if err == nil || !strings.Contains(err.Error(), tc.want) || out.Len() > 0 {
			t.Errorf("%+v: error %v, output %q; want %q before any work", tc.c, err, out.String(), tc.want)
		}
	}
	if got := joinDir("gs://bucket/tmp/", "wys-beam-1"); got != "gs://bucket/tmp/wys-beam-1" {
		t.Errorf("joinDir: %s", got)
	}
}

// TestExplicitValues: -dim 0, -C 0, a negative -beta and -walks-per-node 0
// (or above 1e6)
// given on the command line are refused (the libraries would read the
// zeros as their defaults), -beta 0 turns the regulariser off, and flags
// left out keep their defaults.
func TestExplicitValues(t *testing.T) {
	for args, want := range map[string]string{
		"-dim 0":               "-dim 0 must be even",
		"-partitions 0":        "-partitions 0: want at least 1",
		"-round-batches 0":     "-round-batches 0: want at least 1",
		"-negatives 0":         "-negatives 0: want at least 1 non-edge pair",
		"-dim 7":               "-dim 7 must be even",
		"-C 0":                 "-C 0: need at least one power",
		"-beta -1":             "-beta -1: want a non-negative weight",
		"-walks-per-node 0":    "-walks-per-node 0: want a positive number",
		"-walks-per-node 1e40": "-walks-per-node 1e+40: want a positive number of walks per node (the starting mass P0 of E[D]), at most 1e+06",
		"-beta 0":              "",
		"-dim 16":              "",
	} {
		fs := flag.NewFlagSet("wys-beam", flag.ContinueOnError)
		c := bindFlags(fs)
		if err := fs.Parse(strings.Fields(args)); err != nil {
			t.Fatal(err)
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		err := c.explicitValues(set)
		if (want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
		if args == "-beta 0" && c.Sparse.Objective.Resolve().BetaWeight() != 0 {
			t.Errorf("-beta 0 resolves to the weight β = %v, want 0", c.Sparse.Objective.Resolve().BetaWeight())
		}
		if args == "-dim 16" && (c.Sparse.Dim != 16 || c.Sparse.Objective.Resolve().Beta != pipeline.DefaultBeta) {
			t.Errorf("-dim 16: dim %d, β %v", c.Sparse.Dim, c.Sparse.Objective.Resolve().Beta)
		}
	}
}

// TestPrintUsage: the usage lists wys-beam's flags with their defaults
// and only names the Beam SDK's, which -help-beam lists after them.
func TestPrintUsage(t *testing.T) {
	fs := flag.NewFlagSet("wys-beam", flag.ContinueOnError)
	fs.String("runner", "", "Pipeline runner.")
	sdk := map[string]bool{"runner": true}
	bindFlags(fs)
	for _, all := range []bool{false, true} {
		var b strings.Builder
		printUsage(&b, fs, sdk, all)
		out := b.String()
		if !strings.Contains(out, "  -dim int\n    \tembedding width d of Y = [L | R], d/2 per side (even) (default 128)\n") {
			t.Errorf("all %v: no -dim line:\n%s", all, out)
		}
		if got := strings.Contains(out, "  -runner string\n"); got != all {
			t.Errorf("all %v: -runner listed %v:\n%s", all, got, out)
		}
		if all && strings.Index(out, "  -runner") < strings.Index(out, "  -dim") {
			t.Errorf("the SDK's flags come before wys-beam's:\n%s", out)
		}
	}
}

// TestCapRounds: a schedule of more than MaxRounds rounds at
// -round-batches 1 (the default) gets the least steps per round that
// fit, with a note; the same given as -round-batches is refused before
// the pipeline; a schedule that fits is kept.
func TestCapRounds(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	g, _, err := graphio.ReadEdgeList(ctx, strings.NewReader("1 2\n2 3\n3 1\n3 4\n4 5\n5 1\n"), "g", graphio.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "graph.csr")
	if err := wysbeam.WriteGraph(ctx, path, g); err != nil {
		t.Fatal(err)
	}
	for _, epochs := range []float64{100, 5000} {
		for _, given := range []bool{false, true} {
			c := &config{perRnd: 1, partitions: 2, roundBatchesSet: given, Sparse: train.Config{Dim: 4, Epochs: epochs, BatchWalks: 1}}
			cj, _ := json.Marshal(c.Sparse)
			job := wysbeam.Job{Graph: path, Config: string(cj), Partitions: 2, RoundBatches: 1, Dir: dir}
			s, err := job.Schedule(ctx)
			if err != nil {
				t.Fatal(err)
			}
			steps := s.Steps()
			var out bytes.Buffer
			capped, err := c.capRounds(ctx, &job, s, &out)
			var ue usageError
			switch {
			case steps <= MaxRounds:
				if err != nil || capped.Rounds() != steps || out.Len() > 0 {
					t.Errorf("%d steps: %v, %d rounds, %q; want them kept", steps, err, capped.Rounds(), out.String())
				}
			case given:
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), fmt.Sprintf("give -round-batches %d or more", (steps+MaxRounds-1)/MaxRounds)) {
					t.Errorf("%d steps, -round-batches 1 given: %v", steps, err)
				}
			default:
				if err != nil || capped.Rounds() > MaxRounds || int64(c.perRnd) != (steps+MaxRounds-1)/MaxRounds || capped.Steps() != steps || !strings.Contains(out.String(), "note: the trainer's schedule is") {
					t.Errorf("%d steps: %v, %d rounds of %d steps, %q", steps, err, capped.Rounds(), c.perRnd, out.String())
				}
			}
		}
	}
}

// TestRunDirectedSplitAUC: a directed split with reversed-arc negatives
// gets, as in wys-sparse, its test AUC against them on stdout and in the
// report, equal to the schedule's own result on the same split.
func TestRunDirectedSplitAUC(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for range 600 {
		fmt.Fprintf(&b, "%d %d\n", rng.IntN(120), rng.IntN(120))
	}
	ctx := context.Background()
	g, _, err := graphio.ReadEdgeList(ctx, strings.NewReader(b.String()), "arcs", graphio.LoadOptions{Directed: true})
	if err != nil {
		t.Fatal(err)
	}
	split, err := pipeline.SplitEdges(ctx, g, 0.3, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(split.TestDirectedNeg) == 0 {
		t.Fatal("the test split has no reversed-arc negatives")
	}
	splitDir := filepath.Join(dir, "split")
	if err := graphio.WriteSplitDir(ctx, splitDir, split); err != nil {
		t.Fatal(err)
	}
	c := &config{split: splitDir, directed: true, partitions: 1, perRnd: 1, report: filepath.Join(dir, "r.json"),
		Sparse: train.Config{Dim: 8, Epochs: 3, Seed: 2}}
	var stdout bytes.Buffer
	if err := run(ctx, c, &stdout); err != nil {
		t.Fatal(err)
	}
	read, err := graphio.LoadSplitDir(ctx, splitDir, true)
	if err != nil {
		t.Fatal(err)
	}
	res := scheduleResult(t, c, read)
	var rep report
	raw, _ := os.ReadFile(c.report)
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("  against reversed arcs and random non-edges: %.4f\n", res.TestDirectedAUC)
	if rep.TestDirectedAUC == nil || *rep.TestDirectedAUC != res.TestDirectedAUC || !strings.Contains(stdout.String(), line) {
		t.Errorf("report %v, stdout %q; want %v and %q", rep.TestDirectedAUC, stdout.String(), res.TestDirectedAUC, line)
	}
}

// TestRunFewRounds: a run of fewer rounds than parts says that some
// pairs of parts go untrained, and names the fix that applies:
// -round-batches when it is above 1, otherwise -epochs or -partitions.
func TestRunFewRounds(t *testing.T) {
	dir := t.TempDir()
	graph := filepath.Join(dir, "g.txt")
	if err := os.WriteFile(graph, []byte("1 2\n2 3\n3 4\n4 5\n5 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for per, fix := range map[int]string{1: "give more -epochs or fewer -partitions", 2: "lower -round-batches or give more -epochs"} {
		c := &config{graph: graph, partitions: 4, perRnd: per, out: filepath.Join(dir, "e.tsv"), Sparse: train.Config{Dim: 2, Epochs: 2, Seed: 1}}
		var stdout bytes.Buffer
		if err := run(context.Background(), c, &stdout); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stdout.String(), "1 round, fewer than the 4") || !strings.Contains(stdout.String(), fix) {
			t.Errorf("-round-batches %d: want the note with %q:\n%s", per, fix, stdout.String())
		}
	}
}
