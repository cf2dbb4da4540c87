package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wys-project/wys/internal/outcheck"
	"github.com/wys-project/wys/pipeline/graphio"
)

// mainEnv, set to 1, makes the test binary run main: runMain's child.
const mainEnv = "WYS_BEAM_TEST_MAIN"

// runMain runs the command with args in a child process of the test
// binary, in dir, and returns its exit code, standard output and
// standard error.
func runMain(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), mainEnv+"=1", "TMPDIR="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// writeFile writes text to the file name in dir and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMainRefusesOutLikeWysSparse: an -out or -format that wys-sparse
// refuses is refused before any pipeline runs, with exit code 2 and
// wys-sparse's message (its golden file, the command's name aside).
func TestMainRefusesOutLikeWysSparse(t *testing.T) {
	tmp := t.TempDir()
	graph := writeFile(t, tmp, "g.txt", "1 2\n2 3\n3 1\n")
	for golden, args := range map[string][]string{
		"out-npy-gz":              {"-out", filepath.Join(tmp, "emb.npy.gz")},
		"out-format-name":         {"-out", filepath.Join(tmp, "emb.parquet")},
		"out-binary-word2vec":     {"-out", filepath.Join(tmp, "emb.bin")},
		"format-against-npy-name": {"-format", "tsv", "-out", filepath.Join(tmp, "e.npy")},
		"format-against-txt-name": {"-format", "csv", "-out", filepath.Join(tmp, "e.txt")},
		"format-against-gz-name":  {"-format", "npy", "-out", filepath.Join(tmp, "e.txt.gz")},
		"format-without-out":      {"-format", "npy"},
		"report-is-out":           {"-out", filepath.Join(tmp, "same.txt"), "-report", filepath.Join(tmp, "same.txt")},
		"q-out-is-ids":            {"-out", filepath.Join(tmp, "e.npy"), "-q-out", filepath.Join(tmp, "e.ids.txt")},
	} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "..", "cmd", "wys-sparse", "testdata", "errors", golden+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		want := strings.ReplaceAll(strings.ReplaceAll(string(raw), "wys-sparse", "wys-beam"), "TMP", tmp)
		code, stdout, stderr := runMain(t, tmp, append([]string{"-graph", graph, "-epochs", "1", "-partitions", "2"}, args...)...)
		if got := "exit " + strconv.Itoa(code) + "\n" + stderr; got != want || stdout != "" {
			t.Errorf("%s: %q, output %q; want %q before any pipeline", golden, got, stdout, want)
		}
	}
	// An output that is the input, as wys-sparse refuses it.
	good := writeFile(t, tmp, "good.txt", "1 2\n2 3\n3 1\n")
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "cmd", "wys-sparse", "testdata", "errors", "out-is-graph.golden"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(strings.ReplaceAll(string(raw), "wys-sparse", "wys-beam"), "TMP", tmp)
	if code, _, stderr := runMain(t, tmp, "-graph", good, "-out", good); "exit "+strconv.Itoa(code)+"\n"+stderr != want {
		t.Errorf("out-is-graph: exit %d, %q; want %q", code, stderr, want)
	}
	// A -report that is a file of the -split directory.
	split := filepath.Join(tmp, "split")
	if err := os.Mkdir(split, 0o755); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(split, "index.tsv")
	want = "exit 2\nwys-beam: -report " + index + " is the input -split: writing it would replace it; give the output another name\n"
	if code, _, stderr := runMain(t, tmp, "-split", split, "-report", index); "exit "+strconv.Itoa(code)+"\n"+stderr != want {
		t.Errorf("report-is-split-index: exit %d, %q; want %q", code, stderr, want)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "e*")); len(left) > 0 {
		t.Errorf("refused runs wrote %q", left)
	}
}

// TestMainRefusesSpacedIDs: ids with spaces (a TSV edge list) and a
// word2vec -out are refused once the input is read, before training,
// with exit code 2 and wys-sparse's message.
func TestMainRefusesSpacedIDs(t *testing.T) {
	tmp := t.TempDir()
	graph := writeFile(t, tmp, "names.tsv", "Smith, J.\tDoe, A.\nDoe, A.\tLee\nLee\tSmith, J.\n")
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "cmd", "wys-sparse", "testdata", "errors", "out-w2v-spaced-id.golden"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(strings.ReplaceAll(string(raw), "wys-sparse", "wys-beam"), "TMP", tmp)
	out := filepath.Join(tmp, "names.txt")
	code, stdout, stderr := runMain(t, tmp, "-graph", graph, "-dim", "2", "-epochs", "1", "-partitions", "1", "-out", out)
	if got := "exit " + strconv.Itoa(code) + "\n" + stderr; got != want || strings.Contains(stdout, "rounds") {
		t.Errorf("%q, output %q; want %q before training", got, stdout, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("the refused run wrote %s", out)
	}
}

// TestMainStdinAndNotes: -graph - (standard input, which wys-sparse
// reads) is a usage error that says what to do; a run on the whole graph
// without -out says, before it starts, that the embeddings will not be
// written, and -q-out says where Q went, as wys-sparse says both.
func TestMainStdinAndNotes(t *testing.T) {
	tmp := t.TempDir()
	code, stdout, stderr := runMain(t, tmp, "-graph", "-", "-out", "e.npy")
	want := "wys-beam: -graph -: wys-beam reads the graph in byte ranges on its workers, not from standard input; write the edges to a file and give -graph FILE\n"
	if code != 2 || stderr != want || stdout != "" {
		t.Errorf("-graph -: exit %d, stderr %q, stdout %q; want exit 2 and %q", code, stderr, stdout, want)
	}
	// A runner the SDK does not have, which it would exit on.
	code, stdout, stderr = runMain(t, tmp, "-runner", "bogus", "-graph", "g.txt", "-out", "e.npy")
	if code != 2 || !strings.Contains(stderr, "-runner bogus: not a runner the Beam SDK has") || stdout != "" {
		t.Errorf("-runner bogus: exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	// A runner that submits to a job server, without its address.
	code, stdout, stderr = runMain(t, tmp, "-runner", "flink", "-graph", "g.txt", "-out", "e.npy")
	if code != 2 || !strings.Contains(stderr, "-runner flink submits the job to a job server: give its address with -endpoint HOST:PORT") || stdout != "" {
		t.Errorf("-runner flink without -endpoint: exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	// A .mat file, which wys-sparse reads: refused before it is opened,
	// with the line that writes its edges as text.
	code, stdout, stderr = runMain(t, tmp, "-graph", "ppi.mat.gz", "-out", "e.npy")
	if code != 2 || !strings.Contains(stderr, "not MATLAB .mat files; embed it with wys-sparse -graph ppi.mat.gz") ||
		!strings.Contains(stderr, "scipy.io.loadmat(gzip.open('ppi.mat.gz'))") || stdout != "" {
		t.Errorf("-graph ppi.mat.gz: exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	graph := writeFile(t, tmp, "g.txt", "1 2\n2 3\n3 1\n3 4\n")
	q := filepath.Join(tmp, "q.json")
	code, stdout, stderr = runMain(t, tmp, "-graph", graph, "-dim", "4", "-epochs", "2", "-partitions", "2", "-q-out", q)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "note: "+outcheck.NoOut+"\n") || !strings.Contains(stdout, "\nwrote Q to "+q+"\n") {
		t.Errorf("output %q: want the note on -out first and the line on -q-out", stdout)
	}
}

// TestMainInputErrorIsOneLine: at the default -log-level a bad input
// fails with the loader's error on one line: found in the driver (a bad
// line near the top, an empty file, a .mat file, -directed with a
// symmetric .mtx), or by the pipeline, without Prism's records of the
// failed bundle (kilobytes of stage plans); -log-level info still shows
// them.
func TestMainInputErrorIsOneLine(t *testing.T) {
	tmp := t.TempDir()
	write := func(name, text string) string { return writeFile(t, tmp, name, text) }
	var long strings.Builder
	for i := 0; long.Len() < 1<<17; i++ {
		fmt.Fprintf(&long, "%d %d\n", i, i+1)
	}
	late := write("late.txt", long.String()+"foo\n")
	const pipe = "preprocessing pipeline: "
	cases := []struct {
		graph, prefix string
		directed      bool
	}{
		{write("bad.txt", "1 2\n2 3\nfoo\n"), "", false},
		{write("empty.txt", ""), "", false},
		{write("g.dat", "MATLAB 5.0 MAT-file\x00\x00\x01\x00IM\n"), "", false},
		{write("sym.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n"), "", true},
		{late, pipe, false},
		{write("names.csv", "from,to\n1,2\n2,3\n"), pipe, false},
	}
	for _, c := range cases {
		_, _, want := graphio.LoadEdgeList(context.Background(), c.graph, graphio.LoadOptions{Directed: c.directed})
		if want == nil {
			t.Fatalf("%s: the loader reads it", c.graph)
		}
		args := []string{"-graph", c.graph, "-partitions", "2", "-out", filepath.Join(tmp, "e.npy")}
		if c.directed {
			args = append(args, "-directed")
		}
		code, _, stderr := runMain(t, tmp, args...)
		if want := "wys-beam: " + c.prefix + want.Error() + "\n"; code != 1 || stderr != want {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q alone", c.graph, code, stderr, want)
		}
	}
	code, _, stderr := runMain(t, tmp, "-graph", late, "-partitions", "2", "-log-level", "info")
	if code != 1 || !strings.Contains(stderr, "level=ERROR") {
		t.Errorf("-log-level info: exit %d, stderr %q; want the runner's error records", code, stderr)
	}
}

// TestMainHelpOnStdout: -h and -help list wys-beam's flags on standard
// output and exit 0, as wys-sparse -help does, so that the list can be
// paged or searched; -version prints the build there too; a bad flag gets its error and a pointer to -help
// on standard error and exit code 2.
func TestMainHelpOnStdout(t *testing.T) {
	tmp := t.TempDir()
	for _, arg := range []string{"-h", "-help"} {
		code, stdout, stderr := runMain(t, tmp, arg)
		if code != 0 || !strings.Contains(stdout, "Flags of wys-beam:") || !strings.Contains(stdout, "-partitions") || stderr != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 0 and the flags on stdout only", arg, code, stdout, stderr)
		}
		if strings.Contains(stdout, "-temp_location string") {
			t.Errorf("%s lists the SDK's flags; only -help-beam should", arg)
		}
	}
	code, stdout, stderr := runMain(t, tmp, "-version")
	if code != 0 || !strings.HasPrefix(stdout, "wys-beam ") || !strings.Contains(stdout, "Beam SDK v2.") || stderr != "" {
		t.Errorf("-version: exit %d, stdout %q, stderr %q; want 0 and the build with the Beam SDK's release", code, stdout, stderr)
	}
	code, stdout, stderr = runMain(t, tmp, "-nosuch")
	if want := "wys-beam: flag provided but not defined: -nosuch; run 'wys-beam -help' for the flags\n"; code != 2 || stdout != "" || stderr != want {
		t.Errorf("-nosuch: exit %d, stdout %q, stderr %q; want 2 and %q on stderr (as wys-sparse: two lines, not the flag list)", code, stdout, stderr, want)
	}
}

// TestMainRefusesBeforeWork: settings the bucketed schedule cannot use
// or the trainer refuses (named by their flags, as wys-sparse names them),
// a second input, a -graph that is a named pipe and a -temp_location
// that is a file (or a path through one) are usage errors (exit 2) before the preprocessing
// pipeline runs, whose summary line would be on stdout.
func TestMainRefusesBeforeWork(t *testing.T) {
	tmp := t.TempDir()
	graph := writeFile(t, tmp, "g.txt", "1 2\n2 3\n3 1\n")
	fifo := filepath.Join(tmp, "edges.fifo") // never opened: refused before
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-graph", graph, "-optimizer", "rowrms"}, "wys-beam: the bucketed schedule supports the adam, rmsprop and sgd optimizers, not rowrms"},
		{[]string{"-graph", graph, "-split", tmp}, "wys-beam: give one input: -graph FILE or -split DIR"},
		{[]string{"-epochs", "1"}, "wys-beam: give one input: -graph FILE or -split DIR"},
		{[]string{"-graph", graph, "-optimizer", "bogus"}, "wys-beam: -optimizer \"bogus\": want adam, rmsprop or sgd (the optimizers of the bucketed schedule)"},
		{[]string{"-graph", graph, "-seed", "-1"}, "wys-beam: invalid value \"-1\" for flag -seed: want a whole number from 0 to 18446744073709551615 (2^64 − 1)"},
		{[]string{"-graph", graph, "-epochs", "-1"}, "wys-beam: -epochs -1: want a positive number (0: the default length)"},
		{[]string{"-graph", graph, "-formulation", "bogus"}, "wys-beam: -formulation \"bogus\": want code"},
		{[]string{"-graph", fifo}, "wys-beam: -graph " + fifo + ": " + fifo + " is not a regular file (a pipe, device or socket"},
		{[]string{"-graph", graph, "-temp_location", graph}, "wys-beam: -temp_location " + graph + ": " + graph + " is a file, not a directory; give a directory"},
		{[]string{"-graph", graph, "-temp_location", filepath.Join(graph, "runs")}, "wys-beam: -temp_location " + filepath.Join(graph, "runs") + ": " + graph + " is a file"},
	} {
		code, stdout, stderr := runMain(t, tmp, c.args...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// TestMainNamesIDsFile: a .npy -out names its ids file, as wys-sparse's
// line does; a text -out holds its ids and names none.
func TestMainNamesIDsFile(t *testing.T) {
	tmp := t.TempDir()
	graph := writeFile(t, tmp, "g.txt", "1 2\n2 3\n3 1\n3 4\n")
	for out, want := range map[string]string{"e.npy": " (ids in " + filepath.Join(tmp, "e.ids.txt") + "); score of arc", "e.txt": " to " + filepath.Join(tmp, "e.txt") + "; score of arc"} {
		code, stdout, stderr := runMain(t, tmp, "-graph", graph, "-epochs", "1", "-dim", "4", "-partitions", "2", "-out", filepath.Join(tmp, out))
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("-out %s: exit %d, want %q in\n%s%s", out, code, want, stdout, stderr)
		}
	}
}

// TestMainRefusesOutInGlob: an output that the -graph glob names (an
// input file, or one the next run would read) is refused before any
// pipeline; one outside the glob is not.
func TestMainRefusesOutInGlob(t *testing.T) {
	tmp := t.TempDir()
	parts := filepath.Join(tmp, "parts")
	if err := os.Mkdir(parts, 0o755); err != nil {
		t.Fatal(err)
	}
	a := writeFile(t, parts, "a.txt", "1 2\n2 3\n")
	writeFile(t, parts, "b.txt", "3 1\n")
	glob := filepath.Join(parts, "*.txt")
	for _, args := range [][]string{{"-out", filepath.Join(parts, "b.txt")}, {"-report", filepath.Join(parts, "r.txt")}, {"-out", filepath.Join(parts, "e.npy")}} {
		code, stdout, stderr := runMain(t, tmp, append([]string{"-graph", glob}, args...)...)
		if code != 2 || !strings.Contains(stderr, "matches the -graph glob") || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", args, code, stderr, stdout)
		}
	}
	if b, err := os.ReadFile(a); err != nil || string(b) != "1 2\n2 3\n" {
		t.Errorf("the input changed: %q, %v", b, err)
	}
}

// TestMainUnfitNote: as in wys-sparse, a run whose model scores its own
// training arcs near chance (here a diverging learning rate) says so,
// and that a run of so few steps may be too short; the same graph at the
// default rate and more epochs fits, and gets no note.
func TestMainUnfitNote(t *testing.T) {
	tmp := t.TempDir()
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "%d %d\n%d %d\n", i, (i+1)%60, i, (i+7)%60)
	}
	graph := writeFile(t, tmp, "ring.txt", b.String())
	const note = "tells its own training arcs from non-edges at AUC"
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"-lr", "1e6", "-epochs", "2"}, true},
		{[]string{"-epochs", "200"}, false},
	} {
		args := append([]string{"-graph", graph, "-dim", "8", "-partitions", "2", "-seed", "3"}, c.args...)
		code, stdout, stderr := runMain(t, tmp, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		fit := regexp.MustCompile(`ROC-AUC (0\.\d+)`).FindStringSubmatch(stdout)
		if fit == nil {
			t.Fatalf("%v: no fit AUC in %q", c.args, stdout)
		}
		if auc, _ := strconv.ParseFloat(fit[1], 64); (auc < outcheck.UnfitAUC) != c.want {
			t.Fatalf("%v: fit %v does not make the case this test wants (unfit: %v)", c.args, auc, c.want)
		}
		if got := strings.Contains(stdout, "note: the trained model "+note); got != c.want {
			t.Errorf("%v: note printed %v, want %v:\n%s", c.args, got, c.want, stdout)
		}
		if got := strings.Contains(stdout, "it may be too short (more -epochs)"); got != c.want {
			t.Errorf("%v: too-short hint printed %v, want %v:\n%s", c.args, got, c.want, stdout)
		}
	}
}

// TestMainPreflight: once the graph is read and before training, a rank
// or a partition count above its nodes is a usage error and a batch whose memory estimate is
// far above any machine's is refused, as wys-sparse refuses both (a
// -dim of 10^8 grew past 14 GB).
func TestMainPreflight(t *testing.T) {
	tmp := t.TempDir()
	graph := writeFile(t, tmp, "g.txt", "1 2\n2 3\n3 1\n")
	code, _, stderr := runMain(t, tmp, "-graph", graph, "-partitions", "1", "-epochs", "1", "-dim", "100000000")
	if want := "wys-beam: -dim 100000000: d/2 = 50000000 exceeds the 3 nodes of the graph; use -dim 6 or less\n"; code != 2 || stderr != want {
		t.Errorf("-dim 1e8: exit %d, %q; want 2, %q", code, stderr, want)
	}
	code, _, stderr = runMain(t, tmp, "-graph", graph, "-partitions", "4", "-epochs", "1", "-dim", "4")
	if want := "wys-beam: -partitions 4: more than the graph's 3 nodes; want 1 to 3\n"; code != 2 || stderr != want {
		t.Errorf("-partitions 4: exit %d, %q; want 2, %q", code, stderr, want)
	}
	// A length the schedule refuses is named by its flag, a usage error.
	code, _, stderr = runMain(t, tmp, "-graph", graph, "-partitions", "1", "-epochs", "1e15", "-dim", "4")
	if code != 2 || !strings.HasPrefix(stderr, "wys-beam: -epochs 1e+15: 3e+15 walks on 3 nodes") || strings.Contains(stderr, "time budget") {
		t.Errorf("-epochs 1e15: exit %d, %q; want 2 and the flag", code, stderr)
	}
	code, _, stderr = runMain(t, tmp, "-graph", graph, "-partitions", "1", "-epochs", "1", "-dim", "4", "-batch", "100000000000")
	if code != 1 || !strings.Contains(stderr, "wys-beam: not enough memory: 3 nodes at d = 4 with batches of 100000000000 walks need about") {
		t.Errorf("-batch 1e11: exit %d, %q; want the memory refusal", code, stderr)
	}
}

// TestMainColumnNotes: as wys-sparse notes them, edge lines with a third
// column read without -weighted, and lines of more than three columns,
// are noted from the lines the driver reads before the launch: all of a
// small file, the first 64 KiB of a large one (said so).
func TestMainColumnNotes(t *testing.T) {
	tmp := t.TempDir()
	small := writeFile(t, tmp, "w.txt", "1 2 0.5\n2 3 1.5\n3 1 2\n3 4 1 9\n")
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "%d %d 1\n", i%500, (i*7+1)%500)
	}
	large := writeFile(t, tmp, "large.txt", b.String())
	mtx := writeFile(t, tmp, "m.mtx", "%%MatrixMarket matrix coordinate real general\n4 4 4\n1 2 1\n2 3 1\n3 4 1\n4 1 1\n")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"-graph", small}, []string{"note: 4 of the 4 edge lines have a third column, which is not read: add -weighted", "note: 1 of the 4 edge lines has more than three columns"}},
		{[]string{"-graph", small, "-weighted"}, []string{"note: 1 of the 4 edge lines has more than three columns"}},
		{[]string{"-graph", large}, []string{"edge lines (the first 64 KiB of each file) have a third column"}},
		{[]string{"-graph", mtx}, []string{"note: 4 of the 4 edge lines have a third column"}}, // read whole, as wys-sparse says
	} {
		args := append(c.args, "-partitions", "1", "-epochs", "1", "-dim", "4")
		code, stdout, stderr := runMain(t, tmp, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%v: no %q in\n%s", c.args, w, stdout)
			}
		}
		if got := strings.Count(stdout, "third column"); got != strings.Count(strings.Join(c.want, "\n"), "third column") {
			t.Errorf("%v: %d third-column notes in\n%s", c.args, got, stdout)
		}
	}
}

// TestMainDataflowNeeds: -runner dataflow without a project (none from
// the flag or from credentials: GOOGLE_APPLICATION_CREDENTIALS names no
// file), a staging location or a remote -temp_location is a usage error
// before any work, naming what is missing, as the SDK's runner (or its
// workers) would only after preprocessing.
func TestMainDataflowNeeds(t *testing.T) {
	tmp := t.TempDir()
	graph := writeFile(t, tmp, "g.txt", "1 2\n2 3\n3 1\n")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(tmp, "none.json"))
	code, stdout, stderr := runMain(t, tmp, "-runner", "dataflow", "-region", "europe-west1", "-graph", graph, "-out", filepath.Join(tmp, "e.tsv"))
	want := "wys-beam: -runner dataflow submits the job to Google Cloud Dataflow: give -project PROJECT, -staging_location gs://BUCKET/PATH and -temp_location gs://BUCKET/PATH (the workers' blocks)\n"
	if code != 2 || stdout != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, want)
	}
	// With all of it given, the other checks still run.
	code, _, stderr = runMain(t, tmp, "-runner", "dataflow", "-project", "p", "-region", "europe-west1", "-staging_location", "gs://b/s",
		"-temp_location", "gs://b/t", "-ids", "bogus", "-graph", graph, "-out", filepath.Join(tmp, "e.tsv"))
	if want := `wys-beam: -ids "bogus": want auto, int or token` + "\n"; code != 2 || stderr != want {
		t.Errorf("dataflow, -ids bogus: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}

// TestEndpointReachable: a job server address that takes a connection
// passes (a listener here, as HOST:PORT and as the gRPC targets dns:///
// and passthrough:///), one that refuses it is an error naming it, and a
// target of another scheme is left to the SDK.
func TestEndpointReachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	targets := []string{addr, "dns:///" + addr, "passthrough:///" + addr}
	for _, ep := range targets {
		if err := endpointReachable(ep, time.Second); err != nil {
			t.Errorf("%s: %v", ep, err)
		}
	}
	ln.Close()
	for _, ep := range targets {
		if err := endpointReachable(ep, time.Second); err == nil || !strings.Contains(err.Error(), "-endpoint "+ep+": no job server answers there") {
			t.Errorf("closed %s: %v", ep, err)
		}
	}
	if err := endpointReachable("unix:///nonexistent.sock", time.Second); err != nil {
		t.Errorf("unix target: %v", err)
	}
}
