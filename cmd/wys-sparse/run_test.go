package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	_ "image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wys-project/wys/internal/datasets"
	"github.com/wys-project/wys/internal/filelock"
	"github.com/wys-project/wys/internal/interrupt"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/train"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// runCLI runs the command in-process and returns its exit code, stdout and
// stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func sharedDatasets(t *testing.T) string {
	t.Helper()
	ds := datasets.Dir()
	if ds == "" {
		t.Skip("shared/datasets not found beside the repository; CI provides it")
	}
	return ds
}

// TestErrorsGolden runs every user-facing failure and compares the exit
// code and stderr with testdata/errors/NAME.golden (temporary paths are
// written as TMP).
func TestErrorsGolden(t *testing.T) {
	write := tempWriter(t)
	tmp := filepath.Dir(write("good.txt", goodEdges))
	malformed := write("malformed.txt", "# a comment\n1 2\n3\n")
	negWeight := write("negweight.txt", "1 2 0.5\n2 3 -1\n")
	hugeWeights := write("hugeweights.txt", "1 2 3e38\n2 3 3e38\n3 1 3e38\n3 4 1\n")
	dictWeights := write("networkx.txt", "0 1 {'weight': 4}\n1 2 {'weight': 1}\n")
	emptyThird := write("empty.csv", "1,2,,5\n2,3,1,1\n")
	empty := write("empty.txt", "# nothing here\n")
	headed := write("headed.csv", "source,target\n1,2\n2,3\n")
	good := write("good.txt", goodEdges)
	labels := write("labels.tsv", "1\t0\n99\t1\n")
	twoParts := write("twoparts.txt", "1 2\n2 3\n3 1\n3 4\n4 5\n5 1\n8 9\n")
	partLabels := write("partlabels.tsv", "1\t0\n2\t1\n8\t0\n")
	partSplit := write("partsplit.tsv", "1\ttrain\n2\ttest\n8\ttest\n")
	named := write("names.tsv", "Smith, J.\tDoe, A.\nDoe, A.\tLee\nLee\tSmith, J.\n")
	// A checkpoint of a one-epoch run on good.txt, and a truncated copy.
	ck, short := filepath.Join(tmp, "ck"), filepath.Join(tmp, "short")
	if code, _, stderr := runCLI(t, "-graph", good, "-test-fraction", "0", "-epochs", "1", "-dim", "4", "-checkpoint", ck, "-quiet"); code != 0 {
		t.Fatal(stderr)
	}
	b, err := os.ReadFile(train.CheckpointPath(ck))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(short, 0o755)
	// Cut inside the arrays that follow the header, whatever its size.
	cut := len(b) - 16
	write(filepath.Join("short", train.CheckpointFile), string(b[:cut]))
	// A released split whose pairs name row 3 while its index lists rows 0..2.
	ckDir := filepath.Join(tmp, "ckdir", "wys.ckpt") // a directory where the checkpoint goes
	if err := os.MkdirAll(ckDir, 0o755); err != nil {
		t.Fatal(err)
	}
	goodSplit := filepath.Join(tmp, "goodsplit")
	writeSplit(t, goodSplit, false)
	splitDir := filepath.Join(tmp, "split")
	pairs := []pipeline.Pair{{U: 0, V: 1}, {U: 1, V: 3}}
	if err := graphio.WriteSplitDir(context.Background(), splitDir, &pipeline.Split{N: 4, IDs: pipeline.NewStringIDs([]string{"a", "b", "c", "d"}),
		Train: pairs, Test: pairs, TrainNeg: pairs, TestNeg: pairs}); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join("split", "index.tsv"), "a\t0\nb\t1\nc\t2\n")
	cases := []struct {
		name string
		args []string
	}{
		{"unknown-flag", []string{"-nope"}},
		{"extra-argument", []string{"edges.txt"}},
		{"argument-is-file", []string{"-dim", "8", good}},
		{"argument-is-dir", []string{short}},
		{"argument-near-command", []string{"neighbours", "-emb", good}},
		{"output-is-checkpoint", []string{"-graph", good, "-checkpoint", ck, "-resume", "-report", filepath.Join(ck, "wys.ckpt")}},
		{"checkpoint-dir-not-writable", []string{"-checkpoint", "/sys", "-epochs", "1"}},
		{"checkpoint-file-is-dir", []string{"-checkpoint", filepath.Dir(ckDir), "-resume", "-epochs", "1"}},
		{"tol-above-one", []string{"-converge", "-tol", "2"}},
		{"time-without-unit", []string{"-time", "5"}},
		{"fixed-q-with-adamic-adar", []string{"-fixed-q", "glove", "-adamic-adar"}},
		{"exact-logs-paper", []string{"-formulation", "paper", "-exact-logs"}},
		{"steps-zero", []string{"-trainer", "dense", "-steps", "0"}},
		{"steps-with-baseline", []string{"-method", "svd", "-steps", "5"}},
		{"help-after-flags", []string{"-quiet", "help"}},
		{"command-after-flags", []string{"-quiet", "eval", "-emb", good}},
		{"help-no-command", []string{"help", "train"}},
		{"help-two-commands", []string{"help", "eval", "neighbors"}},
		{"odd-dim", []string{"-dim", "5"}},
		{"seed-negative", []string{"-seed", "-1"}},
		{"zero-C", []string{"-C", "0"}},
		{"bad-ppr", []string{"-ppr", "1"}},
		{"bad-source", []string{"-source", "svd"}},
		{"bad-formulation", []string{"-formulation", "book"}},
		{"bad-optimizer", []string{"-optimizer", "adagrad"}},
		{"dense-bad-optimizer", []string{"-trainer", "dense", "-optimizer", "rowrms"}},
		{"bad-negative-block", []string{"-negative-block", "99999"}},
		{"average-with-time", []string{"-average", "0.5", "-time", "1m"}},
		{"average-with-converge-and-time", []string{"-average", "0.5", "-converge", "-time", "1m"}},
		{"C-too-large", []string{"-C", "2000"}},
		{"bad-test-fraction", []string{"-test-fraction", "1.5"}},
		{"graph-and-split", []string{"-graph", good, "-split", tmp}},
		{"missing-file", []string{"-graph", filepath.Join(tmp, "absent.txt")}},
		{"graph-is-dir", []string{"-graph", short}},
		{"split-holds-no-split", []string{"-split", short}},
		{"malformed-line", []string{"-graph", malformed}},
		{"negative-weight", []string{"-graph", negWeight, "-weighted"}},
		{"weights-beyond-float32", []string{"-graph", hugeWeights, "-weighted"}},
		{"weight-dictionary", []string{"-graph", dictWeights, "-weighted"}},
		{"empty-third-column", []string{"-graph", emptyThird}},
		{"checkpoint-not-writable", []string{"-graph", good, "-checkpoint", "/sys/wys-checkpoint"}},
		{"quiet-and-progress", []string{"-quiet", "-progress", "text"}},
		{"empty-graph", []string{"-graph", empty}},
		{"header-as-edge", []string{"-graph", headed}},
		{"header-mat", []string{"-graph", filepath.Join(tmp, "g.mat"), "-header"}},
		{"out-dir-missing", []string{"-graph", good, "-out", filepath.Join(tmp, "no", "such", "dir", "emb.txt")}},
		{"out-dir-not-writable", []string{"-graph", good, "-out", "/sys/wys-emb.txt"}},
		{"out-is-dir", []string{"-graph", good, "-out", tmp}},
		{"out-dash", []string{"-graph", good, "-out", "-"}},
		{"negatives-zero", []string{"-graph", good, "-negatives", "0"}},
		{"qlr-zero", []string{"-graph", good, "-qlr", "0"}},
		{"negatives-too-many", []string{"-graph", good, "-negatives", "1001"}},
		{"batch-too-large", []string{"-batch", "100000000", "-max-memory", "1", "-progress", "none"}},
		{"checkpoint-exists", []string{"-graph", good, "-test-fraction", "0", "-epochs", "1", "-dim", "4", "-checkpoint", ck, "-progress", "none"}},
		{"dense-ignores-epochs", []string{"-trainer", "dense", "-epochs", "3"}},
		{"dense-ignores-start", []string{"-trainer", "dense", "-start", "random"}},
		{"bad-start", []string{"-start", "zeros"}},
		{"baseline-ignores-negatives", []string{"-method", "svd", "-negatives", "5"}},
		{"baseline-ignores-exact-logs", []string{"-method", "prone", "-exact-logs"}},
		{"baseline-ignores-q-out", []string{"-method", "eigenmaps", "-q-out", "q.json"}},
		{"baseline-ignores-C", []string{"-method", "svd", "-C", "5"}},
		{"baseline-ignores-max-memory", []string{"-method", "prone", "-max-memory", "0.05"}},
		{"prone-ignores-weighted", []string{"-method", "prone", "-graph", good, "-weighted"}},
		{"val-fraction-without-test", []string{"-graph", good, "-val-fraction", "0.1"}},
		{"bad-val-fraction", []string{"-val-fraction", "1"}},
		{"baseline-ignores-val-fraction", []string{"-method", "prone", "-val-fraction", "0.1"}},
		{"steps-without-dense", []string{"-steps", "50"}},
		{"split-ignores-lcc", []string{"-split", splitDir, "-lcc"}},
		{"walks-per-node-zero", []string{"-walks-per-node", "0"}},
		{"walks-per-node-huge", []string{"-walks-per-node", "1e40"}},
		{"test-fraction-nan", []string{"-graph", good, "-test-fraction", "NaN"}},
		{"max-memory-nan", []string{"-max-memory", "NaN"}},
		{"beta-negative", []string{"-beta", "-0.5"}},
		{"out-npy-gz", []string{"-graph", good, "-out", filepath.Join(tmp, "emb.npy.gz")}},
		{"plot-extension", []string{"-graph", good, "-q-plot", filepath.Join(tmp, "q.jpg")}},
		{"out-format-name", []string{"-graph", good, "-out", filepath.Join(tmp, "emb.parquet")}},
		{"out-w2v-spaced-id", []string{"-graph", named, "-dim", "2", "-out", filepath.Join(tmp, "names.txt"), "-progress", "none"}},
		{"out-binary-word2vec", []string{"-graph", good, "-out", filepath.Join(tmp, "emb.bin")}},
		{"save-split-without-test", []string{"-graph", good, "-save-split", filepath.Join(tmp, "s")}},
		{"tol-without-converge", []string{"-graph", good, "-tol", "0.01"}},
		{"checkpoint-every-alone", []string{"-graph", good, "-checkpoint-every", "1s"}},
		{"format-without-out", []string{"-graph", good, "-format", "npy"}},
		{"warm-start-and-start", []string{"-graph", good, "-warm-start=false", "-start", "spectral"}},
		{"fixed-q-with-qlr", []string{"-graph", good, "-fixed-q", "deepwalk", "-qlr", "0.1"}},
		{"fixed-method-with-beta", []string{"-graph", good, "-method", "wys-fixed-glove", "-beta", "0.7"}},
		{"out-is-graph", []string{"-graph", good, "-out", good}},
		{"out-is-split-index", []string{"-split", splitDir, "-out", filepath.Join(splitDir, "index.tsv")}},
		{"out-is-save-split-file", []string{"-graph", good, "-test-fraction", "0.5", "-save-split", tmp, "-out", filepath.Join(tmp, "train.txt.npy")}},
		{"save-split-is-file", []string{"-graph", good, "-test-fraction", "0.5", "-save-split", good}},
		{"report-is-out", []string{"-graph", good, "-out", filepath.Join(tmp, "same.txt"), "-report", filepath.Join(tmp, "same.txt")}},
		{"q-out-is-ids", []string{"-graph", good, "-out", filepath.Join(tmp, "e.npy"), "-q-out", filepath.Join(tmp, "e.ids.txt")}},
		{"format-against-npy-name", []string{"-graph", good, "-format", "tsv", "-out", filepath.Join(tmp, "e.npy")}},
		{"format-against-txt-name", []string{"-graph", good, "-format", "csv", "-out", filepath.Join(tmp, "e.txt")}},
		// The fix drops the .gz that numpy.load cannot read.
		{"format-against-gz-name", []string{"-graph", good, "-format", "npy", "-out", filepath.Join(tmp, "e.txt.gz")}},
		{"dense-too-large", []string{"-trainer", "dense", "-max-memory", "0.0001", "-progress", "none"}},
		{"split-not-a-dir", []string{"-split", good}},
		{"unknown-label-node", []string{"-graph", good, "-test-fraction", "0", "-epochs", "1", "-dim", "4", "-labels", labels, "-label-split", labels, "-progress", "none"}},
		{"label-split-alone", []string{"-label-split", labels}},
		{"labels-alone", []string{"-labels", labels}},
		{"labels-outside-lcc", []string{"-graph", twoParts, "-lcc", "-labels", partLabels, "-label-split", partSplit, "-dim", "4", "-progress", "none"}},
		{"split-unknown-node", []string{"-split", splitDir, "-progress", "none"}},
		{"bad-method", []string{"-method", "pca"}},
		{"bad-fixed-method", []string{"-method", "wys-fixed-node2vec"}},
		{"method-and-fixed-q", []string{"-method", "wys-fixed-glove", "-fixed-q", "deepwalk"}},
		{"rank-above-nodes", []string{"-graph", good, "-method", "svd", "-dim", "64", "-test-fraction", "0", "-progress", "none"}},
		{"epochs-beyond-counters", []string{"-graph", good, "-epochs", "1e18", "-time", "2s", "-test-fraction", "0", "-dim", "4", "-progress", "none"}},
		{"rank-above-nodes-eigenmaps", []string{"-graph", good, "-method", "eigenmaps", "-dim", "10", "-test-fraction", "0", "-progress", "none"}},
		{"rank-above-nodes-wys", []string{"-graph", good, "-rank", "6", "-test-fraction", "0", "-progress", "none"}},
		{"rank-and-dim", []string{"-rank", "32", "-dim", "128"}},
		{"negative-rank", []string{"-rank", "-3"}},
		{"resume-without-checkpoint", []string{"-resume"}},
		{"checkpoint-dense", []string{"-checkpoint", ck, "-trainer", "dense"}},
		{"resume-nothing-saved", []string{"-graph", good, "-test-fraction", "0", "-dim", "4", "-checkpoint", filepath.Join(tmp, "empty-ck"), "-resume", "-progress", "none"}},
		{"resume-other-run", []string{"-graph", good, "-test-fraction", "0", "-epochs", "1", "-dim", "4", "-seed", "2", "-checkpoint", ck, "-resume", "-progress", "none"}},
		// -eval-every follows from -epochs: listed apart from the flag given.
		{"resume-other-length", []string{"-graph", good, "-test-fraction", "0", "-epochs", "2", "-dim", "4", "-checkpoint", ck, "-resume", "-progress", "none"}},
		// No flag given differs: the defaults do.
		{"resume-other-defaults", []string{"-graph", good, "-test-fraction", "0", "-dim", "4", "-checkpoint", ck, "-resume", "-progress", "none"}},
		// The graph read otherwise: the flag and the size it gives, by name.
		{"resume-other-directed", []string{"-graph", good, "-test-fraction", "0", "-epochs", "1", "-dim", "4", "-directed", "-checkpoint", ck, "-resume", "-progress", "none"}},
		{"resume-other-source", []string{"-split", goodSplit, "-epochs", "1", "-dim", "4", "-checkpoint", ck, "-resume", "-progress", "none"}},
		{"resume-truncated", []string{"-graph", good, "-test-fraction", "0", "-epochs", "1", "-dim", "4", "-checkpoint", short, "-resume", "-progress", "none"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, c.args...)
			got := "exit " + strconv.Itoa(code) + "\n" + strings.ReplaceAll(stderr, tmp, "TMP")
			if c.name == "resume-truncated" {
				// The checkpoint's size varies with the run's timings (gob
				// varints): the message must name exactly the truncated
				// and the full size, which the golden file spells out.
				got = strings.Replace(got, fmt.Sprintf("file has %d bytes, its header describes %d ", cut, len(b)),
					"file has HALF bytes, its header describes FULL ", 1)
			}
			if strings.HasPrefix(c.name, "unknown-flag") {
				// The flag package prints the whole usage; keep its first line.
				got = strings.SplitN(got, "\n", 3)[0] + "\n" + strings.SplitN(got, "\n", 3)[1] + "\n"
			}
			checkErrorGolden(t, c.name, got, code, stderr, c.name != "unknown-flag")
		})
	}
}

// checkErrorGolden compares got with testdata/errors/NAME.golden (or
// rewrites it under -update) and checks that the run failed with exit 1
// or 2 and, when oneLine, at most one line besides a progress line.
func checkErrorGolden(t *testing.T, name, got string, code int, stderr string, oneLine bool) {
	t.Helper()
	golden := filepath.Join("testdata", "errors", name+".golden")
	if *update {
		os.MkdirAll(filepath.Dir(golden), 0o755)
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if code != 1 && code != 2 {
		t.Errorf("exit code %d, want 1 or 2", code)
	}
	if n := strings.Count(strings.TrimSpace(stderr), "\n"); n > 1 && oneLine {
		t.Errorf("error is %d lines, want one clear line", n+1)
	}
}

// TestDemoRun runs the no-argument demo (shortened) with every output and
// checks what a newcomer sees and what the files hold.
func TestDemoRun(t *testing.T) {
	tmp := t.TempDir()
	emb := filepath.Join(tmp, "emb.txt")
	npy := filepath.Join(tmp, "emb.npy")
	qjson := filepath.Join(tmp, "q.json")
	qpng := filepath.Join(tmp, "q.png")
	rep := filepath.Join(tmp, "report.json")
	code, stdout, stderr := runCLI(t, "-epochs", "20", "-dim", "16", "-out", emb, "-q-out", qjson, "-q-plot", qpng, "-report", rep, "-progress", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		`(?m)^built-in demo graph: 600 nodes in 6 planted communities, \d+ edges`,
		`(?m)^split: \d+ train / \d+ test edges`,
		`(?m)^learned context distribution Q \(k = 1\.\.10\):\n  (0\.\d{3} ){9}0\.\d{3}$`,
		`(?m)^link prediction ROC-AUC: test 0\.\d{4}, train 0\.\d{4}`,
		`(?m)^wrote 600 x 16 embeddings \[L \| R\] to `,
		`(?m)^Next: embed your own graph`,
	} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("stdout lacks %s:\n%s", want, stdout)
		}
	}
	// Progress is JSON lines.
	sc := bufio.NewScanner(strings.NewReader(stderr))
	evals := 0
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("progress line is not JSON: %q", sc.Text())
		}
		if ev["kind"] == "eval" {
			evals++
		}
	}
	if evals == 0 {
		t.Error("no eval events in JSON progress")
	}
	// word2vec text: header, then 600 rows of id + 16 numbers.
	b, err := os.ReadFile(emb)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "600 16" || len(lines) != 601 || len(strings.Fields(lines[1])) != 17 {
		t.Errorf("word2vec file: header %q, %d lines, %d fields", lines[0], len(lines), len(strings.Fields(lines[1])))
	}
	// Q as JSON sums to 1.
	var q struct{ Q []float64 }
	b, _ = os.ReadFile(qjson)
	if err := json.Unmarshal(b, &q); err != nil || len(q.Q) != 10 {
		t.Fatalf("Q json: %v %v", err, q)
	}
	var s float64
	for _, x := range q.Q {
		s += x
	}
	if s < 0.999 || s > 1.001 {
		t.Errorf("Q sums to %v", s)
	}
	// The plot is a valid PNG of the expected size (6 x 3.5 in at 96 dpi).
	f, err := os.Open(qpng)
	if err != nil {
		t.Fatal(err)
	}
	cfg, format, err := image.DecodeConfig(f)
	f.Close()
	if err != nil || format != "png" || cfg.Width != 576 || cfg.Height != 336 {
		t.Errorf("plot: %v %s %dx%d", err, format, cfg.Width, cfg.Height)
	}
	// The report holds the settings, curve and metrics.
	var r map[string]any
	b, _ = os.ReadFile(rep)
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r["curve"] == nil || r["settings"] == nil || r["result"].(map[string]any)["test_auc"] == nil {
		t.Errorf("report lacks fields: %v", r)
	}
	// No temporary files are left beside the outputs.
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		if strings.Contains(e.Name(), "partial") {
			t.Errorf("left a temporary file %s", e.Name())
		}
	}
	// The .npy writer: 600 x 16 float32 plus the ids file.
	code, _, stderr = runCLI(t, "-epochs", "2", "-dim", "16", "-out", npy, "-progress", "none")
	if code != 0 {
		t.Fatal(stderr)
	}
	b, _ = os.ReadFile(npy)
	if !bytes.HasPrefix(b, []byte("\x93NUMPY")) || !bytes.Contains(b[:128], []byte("'shape': (600, 16)")) || len(b) != 128+600*16*4 {
		t.Errorf("npy file: %d bytes, header %q", len(b), b[:min(len(b), 128)])
	}
	if ids, err := os.ReadFile(filepath.Join(tmp, "emb.ids.txt")); err != nil || strings.Count(string(ids), "\n") != 600 {
		t.Errorf("ids file: %v", err)
	}
}

// TestSameSeedSameOutput checks that two runs with the same seed, on
// different worker counts, write identical embeddings.
func TestSameSeedSameOutput(t *testing.T) {
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a.tsv"), filepath.Join(tmp, "b.tsv")
	if code, _, stderr := runCLI(t, "-epochs", "10", "-dim", "8", "-workers", "1", "-out", a, "-quiet"); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := runCLI(t, "-epochs", "10", "-dim", "8", "-workers", "2", "-out", b, "-quiet"); code != 0 {
		t.Fatal(stderr)
	}
	x, _ := os.ReadFile(a)
	y, _ := os.ReadFile(b)
	if !bytes.Equal(x, y) || len(x) == 0 {
		t.Error("workers=1 and workers=2 wrote different embeddings")
	}
}

// TestCoraClassification runs node classification on Cora with the
// Planetoid split (a short run: the full result is in the README).
func TestCoraClassification(t *testing.T) {
	if testing.Short() {
		t.Skip("trains on Cora; skipped under -short")
	}
	ds := sharedDatasets(t)
	code, stdout, stderr := runCLI(t, "-graph", filepath.Join(ds, "Cora", "cora.edges.tsv.gz"), "-test-fraction", "0",
		"-epochs", "30", "-dim", "32", "-labels", filepath.Join(ds, "Cora", "cora.labels.tsv.gz"),
		"-label-split", filepath.Join(ds, "Cora", "cora.split.tsv.gz"), "-progress", "none")
	if code != 0 {
		t.Fatal(stderr)
	}
	m := regexp.MustCompile(`node classification accuracy: test (\d+\.\d)%`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no accuracy line:\n%s", stdout)
	}
	// Chance is about 14% (7 classes); even a short run is far above it.
	if acc, _ := strconv.ParseFloat(m[1], 64); acc < 40 {
		t.Errorf("Cora test accuracy %s%% after a short run", m[1])
	}
}

// TestGraphMAT reads -graph from a .mat.gz file (PPI, whose counts
// scipy.io.loadmat gives: 3,890 nodes, 76,584 stored entries of which 894
// are on the diagonal, so (76,584 − 894)/2 = 37,845 edges once the
// self-loops are dropped, each stored twice) and from a .mat file that is
// not one, which fails with one line naming it.
func TestGraphMAT(t *testing.T) {
	ds := sharedDatasets(t)
	code, stdout, stderr := runCLI(t, "-graph", filepath.Join(ds, "PPI", "Homo_sapiens.mat.gz"), "-method", "svd", "-dim", "8", "-progress", "none")
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stdout, "Homo_sapiens.mat.gz: 3890 nodes, 37845 edges (894 self-loops dropped), 37845 matrix entries named an edge already read") {
		t.Errorf("unexpected load line:\n%s", stdout)
	}
	code, _, stderr = runCLI(t, "-graph", filepath.Join(ds, "PPI", "Homo_sapiens.mat.gz"), "-ids", "int")
	if code != 2 || !strings.Contains(stderr, "-ids is a setting of reading an edge list") {
		t.Errorf("-ids with a .mat file: exit %d, stderr %q", code, stderr)
	}
	bad := filepath.Join(t.TempDir(), "edges.mat")
	if err := os.WriteFile(bad, []byte(goodEdges), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "-graph", bad, "-progress", "none")
	if code != 1 || !strings.Contains(stderr, "edges.mat: ") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestBaselineMethods runs the spectral baselines on the demo graph.
func TestBaselineMethods(t *testing.T) {
	for _, m := range []string{"svd", "eigenmaps", "netmf", "prone"} {
		code, stdout, stderr := runCLI(t, "-method", m, "-dim", "16", "-progress", "none")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", m, code, stderr)
		}
		if !strings.Contains(stdout, "computed the "+m+" baseline (d = 16)") || !strings.Contains(stdout, "link prediction ROC-AUC: test 0.") {
			t.Errorf("%s: unexpected output:\n%s", m, stdout)
		}
	}
	if code, _, _ := runCLI(t, "-method", "pca"); code != 2 {
		t.Errorf("unknown method: exit %d, want 2", code)
	}
}

// TestCheckpointResume interrupts nothing but resumes from the final
// checkpoint of a run, and from a checkpoint of a shorter run with the
// same settings, and checks the output against the uninterrupted run.
func TestCheckpointResume(t *testing.T) {
	tmp := t.TempDir()
	ck := filepath.Join(tmp, "ck")
	a, b := filepath.Join(tmp, "a.tsv"), filepath.Join(tmp, "b.tsv")
	args := []string{"-epochs", "6", "-dim", "8", "-quiet", "-checkpoint", ck, "-checkpoint-every", "1ns"}
	if code, _, stderr := runCLI(t, append(args, "-out", a)...); code != 0 {
		t.Fatal(stderr)
	}
	if _, err := os.Stat(filepath.Join(ck, "wys.ckpt")); err != nil {
		t.Fatalf("no checkpoint written: %v", err)
	}
	// The partial checkpoint a killed run left (kill -9 mid-save) is
	// removed when the next run takes the directory.
	stale := filepath.Join(ck, ".wys.ckpt.partial-4242")
	if err := os.WriteFile(stale, make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	// Resuming a finished run reproduces its output.
	if code, _, stderr := runCLI(t, append(args, "-resume", "-out", b)...); code != 0 {
		t.Fatal(stderr)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale partial checkpoint is still there: %v", err)
	}
	x, _ := os.ReadFile(a)
	y, _ := os.ReadFile(b)
	if !bytes.Equal(x, y) {
		t.Error("resumed run wrote different embeddings")
	}
	// A checkpoint of another run (other flags) is a usage error, exit 2.
	code, _, stderr := runCLI(t, "-epochs", "6", "-dim", "8", "-seed", "9", "-quiet", "-checkpoint", ck, "-resume")
	if code != 2 || !strings.Contains(stderr, "checkpoint") {
		t.Errorf("foreign checkpoint: exit %d, %q", code, stderr)
	}
	// Another held-out share changes the graph and the pairs, not a
	// trainer setting: the refusal names the flag all the same.
	code, _, stderr = runCLI(t, append(args, "-resume", "-test-fraction", "0.4")...)
	if want := "-test-fraction 0.4 (checkpoint: 0.5)"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("other -test-fraction: exit %d, %q, want %q", code, stderr, want)
	}
	if code, _, _ := runCLI(t, "-resume"); code != 2 {
		t.Errorf("-resume without -checkpoint: exit %d, want 2", code)
	}
}

// cancelOn is a stderr that cancels the run when a line containing
// marker is written: an interrupt at a point reached by the run itself.
type cancelOn struct {
	bytes.Buffer
	marker string
	cancel context.CancelFunc
}

func (w *cancelOn) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.marker) {
		w.cancel()
	}
	return w.Buffer.Write(p)
}

// TestInterruptResume interrupts a checkpointed run in the middle (as
// SIGINT does, by cancelling its context), checks exit 130, the message
// and that no output file was written, then resumes it and compares the
// embeddings with those of an uninterrupted run.
func TestInterruptResume(t *testing.T) {
	tmp := t.TempDir()
	ck := filepath.Join(tmp, "ck")
	whole, resumed := filepath.Join(tmp, "whole.tsv"), filepath.Join(tmp, "resumed.tsv")
	args := []string{"-epochs", "8", "-eval-every", "1", "-dim", "8", "-checkpoint", ck, "-checkpoint-every", "1h", "-progress", "text"}
	if code, _, stderr := runCLI(t, append(args, "-out", whole, "-checkpoint", filepath.Join(tmp, "ck-whole"))...); code != 0 {
		t.Fatal(stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errw := &cancelOn{marker: "epoch 3.", cancel: cancel}
	var out bytes.Buffer
	code := run(ctx, append(args, "-out", resumed), &out, errw)
	if code != interrupt.CodeInterrupted {
		t.Fatalf("interrupted run: exit %d, want 130\n%s", code, errw.String())
	}
	if !strings.Contains(errw.String(), "interrupted; training state saved in "+ck+": run the same command with -resume") {
		t.Errorf("interrupted run's message:\n%s", errw.String())
	}
	if _, err := os.Stat(resumed); !os.IsNotExist(err) {
		t.Errorf("the interrupted run wrote %s", resumed)
	}
	st, err := train.ReadCheckpoint(train.CheckpointPath(ck))
	if err != nil {
		t.Fatal(err)
	}
	if st.Batch == 0 || len(st.Curve) < 3 || len(st.Curve) > 4 {
		t.Errorf("checkpoint at batch %d with %d evaluations, want the point of the interrupt (3 evaluations)", st.Batch, len(st.Curve))
	}
	code, stdout, stderr := runCLI(t, append(args, "-resume", "-out", resumed)...)
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stderr, fmt.Sprintf("resumed at batch %d", st.Batch)) {
		t.Errorf("resumed run does not say where it resumed:\n%s", stderr)
	}
	x, _ := os.ReadFile(whole)
	y, _ := os.ReadFile(resumed)
	if len(x) == 0 || !bytes.Equal(x, y) {
		t.Errorf("interrupted and resumed run wrote other embeddings than the uninterrupted one\n%s", stdout)
	}
}

// TestRankFlag runs the command line of the issue, with GNU-style double
// dashes: --rank r gives embeddings of width 2r ([L | R], r per side).
func TestRankFlag(t *testing.T) {
	emb := filepath.Join(t.TempDir(), "emb.txt")
	code, _, stderr := runCLI(t, "--rank", "4", "--epochs", "2", "--out", emb, "--quiet")
	if code != 0 {
		t.Fatal(stderr)
	}
	b, err := os.ReadFile(emb)
	if err != nil {
		t.Fatal(err)
	}
	if header, _, _ := strings.Cut(string(b), "\n"); header != "600 8" {
		t.Errorf("header %q, want \"600 8\"", header)
	}
}

// TestFixedMethodAlias checks that -method wys-fixed-glove is -fixed-q
// glove: the same embeddings.
func TestFixedMethodAlias(t *testing.T) {
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a.tsv"), filepath.Join(tmp, "b.tsv")
	for _, args := range [][]string{{"-method", "wys-fixed-glove", "-out", a}, {"-fixed-q", "glove", "-out", b}} {
		if code, _, stderr := runCLI(t, append(args, "-epochs", "2", "-dim", "8", "-quiet")...); code != 0 {
			t.Fatal(stderr)
		}
	}
	x, _ := os.ReadFile(a)
	y, _ := os.ReadFile(b)
	if len(x) == 0 || !bytes.Equal(x, y) {
		t.Error("-method wys-fixed-glove and -fixed-q glove differ")
	}
}

// TestLabelsCheckedBeforeTraining: a -labels file naming a node the graph
// does not have fails before the trainer starts (it used to fail after
// training, losing the embeddings), with the one-line error of the
// unknown-label-node golden file.
func TestLabelsCheckedBeforeTraining(t *testing.T) {
	tmp := t.TempDir()
	good := filepath.Join(tmp, "good.txt")
	labels := filepath.Join(tmp, "labels.tsv")
	os.WriteFile(good, []byte(goodEdges), 0o644)
	os.WriteFile(labels, []byte("1\t0\n99\t1\n"), 0o644)
	code, _, stderr := runCLI(t, "-graph", good, "-test-fraction", "0", "-epochs", "1", "-dim", "4",
		"-labels", labels, "-label-split", labels, "-progress", "json")
	if code != exitFailure {
		t.Fatalf("exit %d, want %d\n%s", code, exitFailure, stderr)
	}
	var ev map[string]any
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		ev = nil
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("progress line is not JSON: %q", l)
		}
		if ev["stage"] == "train" {
			t.Errorf("training started before the label error: %s", l)
		}
	}
	want, err := os.ReadFile(filepath.Join("testdata", "errors", "unknown-label-node.golden"))
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := ev["message"].(string)
	got := "exit 1\nwys-sparse: " + strings.ReplaceAll(msg, tmp, "TMP") + "\n"
	if got != string(want) {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestReportSettingsResolved: the report records the resolved sparse
// configuration itself (testdata/report-settings.golden), so its epochs
// are the epochs trained (the curve's last point, up to the rounding of
// the last batch) and not the library's zero or a stale default.
func TestReportSettingsResolved(t *testing.T) {
	if testing.Short() {
		t.Skip("a demo run at the default length (over 1 s); skipped under -short")
	}
	rep := filepath.Join(t.TempDir(), "report.json")
	code, _, stderr := runCLI(t, "-dim", "16", "-workers", "2", "-report", rep, "-progress", "none")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Graph      struct{ Nodes int }
		WorkingDir string `json:"working_dir"`
		Inputs     []any
		Outputs    []string
		Settings   struct {
			Sparse       json.RawMessage
			Args         []string
			TestFraction float64 `json:"test_fraction"`
			Version      string
		}
		Curve []struct {
			Epoch float64 `json:"epoch"`
		}
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	// The demo reads and writes no file: empty lists, not null; the
	// command line, its split and the build are recorded.
	if wd, _ := os.Getwd(); r.WorkingDir != wd || wd == "" {
		t.Errorf("working_dir %q, want %q", r.WorkingDir, wd)
	}
	if r.Inputs == nil || r.Outputs == nil || !slices.Equal(r.Settings.Args, []string{"-dim", "16", "-workers", "2", "-report", rep, "-progress", "none"}) ||
		r.Settings.TestFraction != 0.5 || !strings.HasPrefix(r.Settings.Version, "wys-sparse ") {
		t.Errorf("inputs %v, outputs %v, settings %+v", r.Inputs, r.Outputs, r.Settings)
	}
	var cfg train.Config
	if err := json.Unmarshal(r.Settings.Sparse, &cfg); err != nil {
		t.Fatal(err)
	}
	// The demo's training graph: 600 nodes, 1114 train edges (2228 arcs).
	if want := math.Max(400, math.Ceil(150*2228/600.0)); cfg.Epochs != want {
		t.Errorf("report says %v epochs, want %v (max(400, 150 walks per arc))", cfg.Epochs, want)
	}
	last := r.Curve[len(r.Curve)-1].Epoch
	if oneBatch := float64(cfg.BatchWalks) / float64(r.Graph.Nodes); last < cfg.Epochs || last >= cfg.Epochs+oneBatch {
		t.Errorf("curve ends at epoch %v, report says %v epochs", last, cfg.Epochs)
	}
	var pretty bytes.Buffer
	json.Indent(&pretty, r.Settings.Sparse, "", "  ")
	pretty.WriteByte('\n')
	golden := filepath.Join("testdata", "report-settings.golden")
	if *update {
		os.WriteFile(golden, pretty.Bytes(), 0o644)
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if pretty.String() != string(want) {
		t.Errorf("settings.sparse:\n%s\nwant:\n%s", pretty.String(), want)
	}
}

// TestReportStages: the report's stages are those -progress json ends,
// in order, and the total; its result gives the memory limit used.
func TestReportStages(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	graph, rep := writeGoodGraph(t, tmp), filepath.Join(tmp, "r.json")
	code, _, stderr := runCLI(t, "-graph", graph, "-test-fraction", "0.3", "-epochs", "2", "-dim", "4", "-report", rep, "-progress", "json", "-max-memory", "3")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var want []string
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var ev struct{ Kind, Stage string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Kind == "stage-end" {
			want = append(want, ev.Stage)
		}
	}
	var r struct {
		Stages []struct{ Name string }
		Result struct {
			MemoryLimit int64 `json:"memory_limit_bytes"`
		}
	}
	readJSON(t, rep, &r)
	if r.Result.MemoryLimit != 3<<30 {
		t.Errorf("result.memory_limit_bytes %d, want -max-memory 3 GiB", r.Result.MemoryLimit)
	}
	var got []string
	for _, st := range r.Stages {
		got = append(got, st.Name)
	}
	if want = append(want, "total"); !slices.Equal(got, want) || !slices.Contains(got, "split") {
		t.Errorf("report stages %q, want %q (with split)", got, want)
	}
}

// TestReportWithoutEvaluation writes the report of a run with nothing held
// out: the test AUCs are null, in the result and on the curve (before, the
// NaN AUCs failed the JSON encoding after training and lost the report).
func TestReportWithoutEvaluation(t *testing.T) {
	tmp := t.TempDir()
	graph, rep := writeGoodGraph(t, tmp), filepath.Join(tmp, "r.json")
	code, stdout, stderr := runCLI(t, "-graph", graph, "-test-fraction", "0", "-epochs", "2", "-dim", "4", "-report", rep, "-progress", "none")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Result struct {
			TestAUC  *float64 `json:"test_auc"`
			TrainAUC *float64 `json:"train_auc"`
			BestStep int      `json:"best_step"`
		}
		Curve []struct {
			Step     int      `json:"step"`
			TrainAUC *float64 `json:"train_auc"`
			TestAUC  *float64 `json:"test_auc"`
		}
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Result.TestAUC != nil || len(r.Curve) == 0 {
		t.Fatalf("result test AUC %v, %d curve points; want null and a curve", r.Result.TestAUC, len(r.Curve))
	}
	selected := false
	for i, p := range r.Curve {
		if p.TestAUC != nil || p.TrainAUC == nil {
			t.Fatalf("curve point %d: test AUC %v, train AUC %v; want null and the fit to the graph's own arcs", i, p.TestAUC, p.TrainAUC)
		}
		// The result's train AUC is the fit at the selected step, and
		// stdout gives it.
		if p.Step == r.Result.BestStep {
			selected = true
			line := fmt.Sprintf("fit to the graph's own arcs (a sample of them against random non-edges): ROC-AUC %.4f (model selected at step %d)", *p.TrainAUC, p.Step)
			if r.Result.TrainAUC == nil || *r.Result.TrainAUC != *p.TrainAUC || !strings.Contains(stdout, line) {
				t.Errorf("result train AUC %v, curve %v at step %d; stdout:\n%s", r.Result.TrainAUC, *p.TrainAUC, p.Step, stdout)
			}
		}
	}
	if !selected {
		t.Errorf("no curve point at the selected step %d", r.Result.BestStep)
	}
}

// TestValidationFraction: -val-fraction moves that share of the demo's
// test edges to validation pairs, which the run, its progress and its
// report name as the selection AUC.
func TestValidationFraction(t *testing.T) {
	rep := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runCLI(t, "-epochs", "4", "-dim", "8", "-val-fraction", "0.2", "-report", rep, "-progress", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var split, val, rest, valNeg, restNeg int
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "split: ") {
			fmt.Sscanf(line, "split: %d train / %d test", new(int), &split)
		}
		if strings.HasPrefix(line, "validation: ") {
			fmt.Sscanf(line, "validation: %d of the test edges and %d of their non-edges select the model; the test AUC uses the other %d and %d", &val, &valNeg, &rest, &restNeg)
		}
	}
	if want := int(math.Round(0.2 * float64(split))); split == 0 || val != want || valNeg != want || rest != split-want || restNeg != split-want {
		t.Fatalf("%d test edges: %d/%d validation, %d/%d test pairs; want %d and %d\n%s", split, val, valNeg, rest, restNeg, want, split-want, stdout)
	}
	if !strings.Contains(stdout, "by validation AUC)") || !strings.Contains(stderr, `"validation_auc":`) {
		t.Errorf("the selection AUC is not named validation:\n%s\n%s", stdout, stderr)
	}
	// The evaluations measure no train AUC; the done event gives the
	// selected model's, as the report's result does.
	var done string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, `"kind":"eval"`) && strings.Contains(line, `"train_auc":`) {
			t.Errorf("an evaluation with a train AUC: %s", line)
		}
		if strings.Contains(line, `"kind":"done"`) {
			done = line
		}
	}
	var doneEv struct {
		TrainAUC *float64 `json:"train_auc"`
	}
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Graph struct {
			TestPairs       int `json:"test_pairs"`
			ValidationPairs int `json:"validation_pairs"`
		}
		Result struct {
			TrainAUC *float64 `json:"train_auc"`
			ValAUC   *float64 `json:"validation_auc"`
		}
		Curve []struct {
			TrainAUC *float64 `json:"train_auc"`
			ValAUC   *float64 `json:"validation_auc"`
		}
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Graph.TestPairs != rest || r.Graph.ValidationPairs != val || r.Result.TrainAUC == nil || r.Result.ValAUC == nil || len(r.Curve) == 0 {
		t.Fatalf("report: %+v, train AUC %v, validation AUC %v, %d curve points", r.Graph, r.Result.TrainAUC, r.Result.ValAUC, len(r.Curve))
	}
	for i, p := range r.Curve {
		if p.TrainAUC != nil || p.ValAUC == nil {
			t.Errorf("curve point %d: train AUC %v, validation AUC %v; want null and a value", i, p.TrainAUC, p.ValAUC)
		}
	}
	if err := json.Unmarshal([]byte(done), &doneEv); err != nil || doneEv.TrainAUC == nil || *doneEv.TrainAUC != *r.Result.TrainAUC {
		t.Errorf("done event %s (%v): want the report's train AUC %v", done, err, *r.Result.TrainAUC)
	}
}

// TestSplitReadAsUndirectedNote: a split with reversed-arc negatives is
// refused without -directed, by training and eval alike. Without them, a
// split whose train pairs come both ways, read without -directed, gets a
// note with their number (counted here over every two pairs); with
// -directed, or an undirected split, it does not. An undirected split read
// with -directed gets a note that its pairs are all written u < v.
func TestSplitReadAsUndirectedNote(t *testing.T) {
	tmp := t.TempDir()
	directed, undirected := filepath.Join(tmp, "d"), filepath.Join(tmp, "u")
	writeSplit(t, directed, true)
	writeSplit(t, undirected, false)
	s, err := graphio.LoadSplitDir(context.Background(), directed, true)
	if err != nil {
		t.Fatal(err)
	}
	both := 0
	for i, p := range s.Train {
		for j, q := range s.Train {
			if i != j && p.U != p.V && p.U == q.V && p.V == q.U {
				both++
			}
		}
	}
	if both == 0 {
		t.Fatal("the directed test split has no pair listed both ways")
	}
	note := fmt.Sprintf("note: %d train pairs are listed both ways", both)
	emb := map[string]string{}
	// Read with -directed, the undirected split (its pairs written u < v)
	// gets a note, and the directed one does not.
	const ascending = "every train and test pair is written u < v"
	for _, dir := range []string{directed, undirected} {
		emb[dir] = dir + ".npy"
		code, stdout, stderr := runCLI(t, "-split", dir, "-directed", "-epochs", "1", "-dim", "4", "-out", emb[dir], "-progress", "none")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		if strings.Contains(stdout, ascending) != (dir == undirected) {
			t.Errorf("%s -directed: the u < v note printed %v:\n%s", dir, strings.Contains(stdout, ascending), stdout)
		}
	}
	reversed := filepath.Join(directed, "test.directed.neg.txt.npy")
	for _, args := range [][]string{{"-split", directed, "-epochs", "1", "-dim", "4", "-progress", "none"}, {"eval", "-emb", emb[directed], "-split", directed}} {
		if code, _, stderr := runCLI(t, args...); code != 1 || !strings.Contains(stderr, reversed+": the reversed-arc non-edges of a directed split") || !strings.Contains(stderr, "(-directed)") {
			t.Errorf("%v: exit %d, %q; want the directed split refused", args, code, stderr)
		}
	}
	if err := os.Remove(reversed); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir   string
		flags []string
		want  bool
	}{
		{directed, nil, true},
		{directed, []string{"-directed"}, false},
		{undirected, nil, false},
	} {
		train := append([]string{"-split", c.dir, "-epochs", "1", "-dim", "4", "-progress", "none"}, c.flags...)
		eval := append([]string{"eval", "-emb", emb[c.dir], "-split", c.dir}, c.flags...)
		for _, args := range [][]string{train, eval} {
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d\n%s", args, code, stderr)
			}
			if got := strings.Contains(stdout, note); got != c.want {
				t.Errorf("%v: note %q printed %v, want %v:\n%s", args, note, got, c.want, stdout)
			}
			// Training, as eval, says that a directed split without its
			// reversed arcs is scored against random non-edges only.
			const noReversed = "has no test.directed.neg.txt.npy (reversed test arcs)"
			if got := strings.Contains(stdout, noReversed); got != (len(c.flags) > 0) {
				t.Errorf("%v: note %q printed %v:\n%s", args, noReversed, got, stdout)
			}
		}
	}
}

// TestHelpAndVersion: -help prints the usage with every flag on stdout and
// exits 0 (so that -help | less works); -version prints one line; an
// unknown flag gets one line and a pointer to -help, not the whole usage.
func TestHelpAndVersion(t *testing.T) {
	code, stdout, stderr := runCLI(t, "-help")
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "wys-sparse learns node embeddings") || !strings.Contains(stdout, "\n  -epochs float\n") {
		t.Errorf("-help: exit %d, stderr %q, stdout starts %.80q", code, stderr, stdout)
	}
	for _, l := range strings.Split(stdout, "\n") {
		if len(l) > 80 {
			t.Errorf("-help line of %d bytes: %q", len(l), l)
		}
	}
	code, stdout, _ = runCLI(t, "-version")
	if code != 0 || !strings.HasPrefix(stdout, "wys-sparse ") || strings.Count(stdout, "\n") != 1 {
		t.Errorf("-version: exit %d, stdout %q", code, stdout)
	}
	code, _, stderr = runCLI(t, "-nope")
	if want := "wys-sparse: flag provided but not defined: -nope; run 'wys-sparse -help' for the flags\n"; code != 2 || stderr != want {
		t.Errorf("unknown flag: exit %d, stderr %q; want %q", code, stderr, want)
	}
}

// TestLoadLineCountsKeptEdges checks that the load line counts the edges
// the graph holds: goodEdges' 6 edges plus two self-loops and a repeated
// edge are 6 edges with the loops dropped and 8 with them kept, and a
// single one of each is named in the singular.
func TestLoadLineCountsKeptEdges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loops.txt")
	if err := os.WriteFile(path, []byte(goodEdges+"1 1\n4 4\n2 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flag, want string
	}{
		{"-keep-self-loops=false", "5 nodes, 6 edges (2 self-loops dropped), 1 line named an edge already read"},
		{"-keep-self-loops", "5 nodes, 8 edges (2 of them self-loops, kept), 1 line named an edge already read"},
	} {
		code, stdout, stderr := runCLI(t, "-graph", path, c.flag, "-method", "svd", "-dim", "4", "-progress", "none")
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", c.flag, code, stderr)
		}
		if !strings.Contains(stdout, c.want) {
			t.Errorf("%s: want %q in\n%s", c.flag, c.want, stdout)
		}
	}
	// One of each is singular.
	one := filepath.Join(t.TempDir(), "one.txt")
	if err := os.WriteFile(one, []byte("1 2\n2 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for flag, want := range map[string]string{
		"-keep-self-loops=false": "2 nodes, 1 edge (1 self-loop dropped)",
		"-keep-self-loops":       "2 nodes, 2 edges (1 of them a self-loop, kept)",
		"-directed":              "2 nodes, 1 arc (1 self-loop dropped)",
	} {
		code, stdout, stderr := runCLI(t, "-graph", one, flag, "-method", "svd", "-dim", "2", "-progress", "none")
		if !strings.Contains(stdout, want) {
			t.Errorf("%s: exit %d, want %q in\n%s%s", flag, code, want, stdout, stderr)
		}
	}
}

// TestGraphFromStdin reads -graph - from standard input once and records
// the checksum and size of exactly the bytes read.
func TestGraphFromStdin(t *testing.T) {
	edges := "# a triangle and a tail\n" + goodEdges
	old := stdin
	stdin = strings.NewReader(edges)
	defer func() { stdin = old }()
	rep := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runCLI(t, "-graph", "-", "-test-fraction", "0", "-epochs", "1", "-dim", "4", "-report", rep, "-progress", "none")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "loaded standard input: 5 nodes, 6 edges") {
		t.Errorf("stdout:\n%s", stdout)
	}
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Inputs []struct {
			Path   string `json:"path"`
			SHA256 string `json:"sha256"`
			Bytes  int64  `json:"bytes"`
		}
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(edges))
	if len(r.Inputs) != 1 || r.Inputs[0].Path != "-" || r.Inputs[0].SHA256 != hex.EncodeToString(sum[:]) || r.Inputs[0].Bytes != int64(len(edges)) {
		t.Errorf("inputs %+v, want one for - with sha256 %x and %d bytes", r.Inputs, sum, len(edges))
	}
	// Truncated gzip on standard input is named as such, as from a file.
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(strings.Repeat(goodEdges, 200)))
	zw.Close()
	stdin = bytes.NewReader(zb.Bytes()[:zb.Len()/2])
	code, _, stderr = runCLI(t, "-graph", "-", "-progress", "none")
	if code != 1 || !strings.Contains(stderr, "unreadable gzip data (unexpected EOF): the file is truncated or corrupt") {
		t.Errorf("truncated gzip on stdin: exit %d\n%s", code, stderr)
	}
}

// TestGraphEmbedsWholeByDefault: -graph without -test-fraction trains on
// every edge (nothing held out), as other embedding tools do; the demo
// still holds out half to show link prediction.
func TestGraphEmbedsWholeByDefault(t *testing.T) {
	graph := writeGoodGraph(t, t.TempDir())
	code, stdout, stderr := runCLI(t, "-graph", graph, "-epochs", "1", "-dim", "4", "-progress", "none")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if strings.Contains(stdout, "split:") || !strings.Contains(stdout, "6 edges") {
		t.Errorf("edges were held out:\n%s", stdout)
	}
	if !strings.HasPrefix(stdout, "note: no -out FILE: the embeddings will not be written") {
		t.Errorf("a whole-graph run without -out is not told first that nothing will be written:\n%s", stdout)
	}
	code, stdout, _ = runCLI(t, "-epochs", "1", "-dim", "4", "-progress", "none")
	if code != 0 || !strings.Contains(stdout, "split: ") {
		t.Errorf("the demo held nothing out (exit %d):\n%s", code, stdout)
	}
}

// TestResumeNothingLeavesNoDirectory: -resume with an empty checkpoint
// path fails before any work and creates nothing.
func TestResumeNothingLeavesNoDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	if code, _, _ := runCLI(t, "-epochs", "1", "-dim", "4", "-checkpoint", dir, "-resume", "-progress", "none"); code == 0 {
		t.Fatal("-resume without a checkpoint succeeded")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s exists after the failed -resume (%v)", dir, err)
	}
}

// goodEdges is a small valid edge list: a triangle and a tail, 5 nodes and
// 6 edges.
const goodEdges = "1 2\n2 3\n3 1\n3 4\n4 5\n5 3\n"

// writeGoodGraph writes goodEdges to g.txt in dir and returns its path.
func writeGoodGraph(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "g.txt")
	if err := os.WriteFile(path, []byte(goodEdges), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGraphMATFromStdin: a .mat file on standard input, plain or
// gzip-compressed, is recognised by its first bytes and read as the same
// path would be, and the report records the bytes as given.
func TestGraphMATFromStdin(t *testing.T) {
	path := filepath.Join("..", "..", "pipeline", "graphio", "testdata", "mat", "sparse.mat")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	args := []string{"-test-fraction", "0", "-epochs", "1", "-dim", "4", "-progress", "none"}
	code, want, stderr := runCLI(t, append([]string{"-graph", path}, args...)...)
	if code != 0 {
		t.Fatal(stderr)
	}
	want, _, _ = strings.Cut(want, "\n")
	want = strings.Replace(want, path, "standard input", 1)
	old := stdin
	defer func() { stdin = old }()
	for name, in := range map[string][]byte{"plain": raw, "gzip": z.Bytes()} {
		stdin = bytes.NewReader(in)
		rep := filepath.Join(t.TempDir(), "r.json")
		code, stdout, stderr := runCLI(t, append([]string{"-graph", "-", "-report", rep}, args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, code, stderr)
		}
		got, _, _ := strings.Cut(stdout, "\n")
		if trim := regexp.MustCompile(` \([0-9.]+s\)$`); trim.ReplaceAllString(got, "") != trim.ReplaceAllString(want, "") {
			t.Errorf("%s: load line\n%s\nwant\n%s", name, got, want)
		}
		var r struct{ Inputs []struct{ SHA256 string } }
		readJSON(t, rep, &r)
		if sum := sha256.Sum256(in); len(r.Inputs) != 1 || r.Inputs[0].SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: inputs %+v, want sha256 %x", name, r.Inputs, sum)
		}
	}
}

// TestGraphCSVHeader reads a CSV edge list whose first line names the
// columns, with -header, and says which line it skipped.
func TestGraphCSVHeader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "edges.csv")
	csv := "source,target\n" + strings.ReplaceAll(strings.ReplaceAll(goodEdges, " ", ","), "\t", ",")
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "-graph", path, "-header", "-test-fraction", "0", "-epochs", "1", "-dim", "4", "-progress", "none")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "edges.csv: 5 nodes, 6 edges") || !strings.Contains(stdout, `skipped the header line "source,target"`) {
		t.Errorf("stdout:\n%s", stdout)
	}
}

// TestReadmeQuickStart runs the README's first quick-start command (the
// demo with no arguments) and compares what it prints with the README's
// copy of that output, line by line up to the README's "...": only the
// training time and rate may differ. A change to the demo's output or to
// its defaults then shows here instead of leaving the README stale.
func TestReadmeQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("a demo run at the default length; skipped under -short")
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	const intro = "The first command prints the following."
	i := strings.Index(readme, intro)
	if i < 0 {
		t.Fatalf("README.md has no line %q", intro)
	}
	block := readme[i:]
	start := strings.Index(block, "```\n")
	end := strings.Index(block[start+4:], "```")
	if start < 0 || end < 0 {
		t.Fatalf("README.md: no fenced block after %q", intro)
	}
	want := strings.Split(strings.TrimSuffix(block[start+4:start+4+end], "\n"), "\n")
	code, stdout, stderr := runCLI(t, "-progress", "none")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	got := strings.Split(stdout, "\n")
	rate := regexp.MustCompile(`in [0-9.]+s, [0-9.]+M positive pairs/s`)
	for j, w := range want {
		if w == "..." {
			return
		}
		if j >= len(got) {
			t.Fatalf("README line %d %q: the demo printed only %d lines:\n%s", j+1, w, len(got), stdout)
		}
		if !sameOutputLine(rate.ReplaceAllString(w, "in T"), rate.ReplaceAllString(got[j], "in T")) {
			t.Errorf("README's quick-start output, line %d:\n  README: %s\n  demo:   %s", j+1, w, got[j])
		}
	}
}

// decimal matches the fractional numbers of an output line (AUCs, Q).
var decimal = regexp.MustCompile(`\d+\.\d+`)

// sameOutputLine reports whether the demo printed line got where the
// README shows want: the same text, and fractional numbers within 0.005
// of the README's. The figures are bitwise reproducible on one kind of
// machine, but the kernels round differently without AVX2 (FMA), which
// may move the last printed digit.
func sameOutputLine(want, got string) bool {
	if decimal.ReplaceAllString(want, "#") != decimal.ReplaceAllString(got, "#") {
		return false
	}
	wn, gn := decimal.FindAllString(want, -1), decimal.FindAllString(got, -1)
	for i := range wn {
		a, _ := strconv.ParseFloat(wn[i], 64)
		b, _ := strconv.ParseFloat(gn[i], 64)
		if math.Abs(a-b) > 0.005 {
			return false
		}
	}
	return true
}

// TestExtraColumnNote: an edge list with a third column read without
// -weighted says that the column is not read; with -weighted it is the
// weight and nothing is said.
func TestExtraColumnNote(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "%d %d %d\n", i, (i+1)%40, 1+i%3)
	}
	path := filepath.Join(t.TempDir(), "w.txt")
	if err := os.WriteFile(path, []byte(b.String()+"0 20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "-graph", path, "-dim", "4", "-epochs", "1", "-progress", "json")
	msg := "40 of the 41 edge lines have a third column, which is not read: add -weighted if it holds the edge weights"
	if code != 0 || !strings.Contains(stdout, "note: "+msg+"\n") {
		t.Errorf("unweighted: exit %d\n%s%s", code, stdout, stderr)
	}
	// -progress json carries it too.
	if !strings.Contains(stderr, `"kind":"note","stage":"load","message":"`+msg+`"`) {
		t.Errorf("no JSON note:\n%s", stderr)
	}
	if err := os.WriteFile(path, []byte(b.String()+"0 20 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, "-graph", path, "-weighted", "-dim", "4", "-epochs", "1", "-progress", "none")
	if code != 0 || strings.Contains(stdout, "third column") {
		t.Errorf("weighted: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestSaveSplit: -save-split writes the pairs the run scores, so that
// eval -split on the written embeddings gives the test AUC training
// reported, undirected and directed, with validation pairs held out; an
// -out in the directory -save-split is to make is taken.
func TestSaveSplit(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	var b strings.Builder
	for v := range 60 {
		fmt.Fprintf(&b, "%d %d\n%d %d\n", v, (v+1)%60, v, (v+7)%60)
	}
	graph := filepath.Join(tmp, "g.txt")
	if err := os.WriteFile(graph, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, extra := range [][]string{nil, {"-directed", "-val-fraction", "0.2"}} {
		dir, emb, rep := filepath.Join(tmp, fmt.Sprint("split", i)), filepath.Join(tmp, fmt.Sprint("e", i, ".npy")), filepath.Join(tmp, fmt.Sprint("r", i, ".json"))
		if i == 1 {
			emb = filepath.Join(dir, "e.npy") // in the directory -save-split makes
		}
		args := append([]string{"-graph", graph, "-test-fraction", "0.4", "-dim", "4", "-epochs", "3", "-progress", "none",
			"-save-split", dir, "-out", emb, "-report", rep}, extra...)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 || !strings.Contains(stdout, "wrote the split to "+dir) {
			t.Fatalf("%v: exit %d\n%s%s", extra, code, stdout, stderr)
		}
		var trained struct {
			Result struct {
				TestAUC  float64 `json:"test_auc"`
				TrainAUC float64 `json:"train_auc"`
			}
			Outputs []string
		}
		readJSON(t, rep, &trained)
		// The split's files are outputs too, each of them there.
		var inDir []string
		for _, p := range trained.Outputs {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%v: output %s: %v", extra, p, err)
			}
			if filepath.Dir(p) == dir && !strings.HasPrefix(filepath.Base(p), "e.") {
				inDir = append(inDir, filepath.Base(p))
			}
		}
		if want := []string{"index.tsv", "test.neg.txt.npy", "test.txt.npy", "train.neg.txt.npy", "train.txt.npy"}; len(extra) == 0 && !slices.Equal(slices.Sorted(slices.Values(inDir)), want) {
			t.Errorf("the report's outputs in %s: %q, want %q", dir, inDir, want)
		}
		evalArgs := []string{"eval", "-emb", emb, "-split", dir, "-report", rep}
		if len(extra) > 0 {
			evalArgs = append(evalArgs, "-directed")
		}
		if code, _, stderr := runCLI(t, evalArgs...); code != 0 {
			t.Fatal(stderr)
		}
		var scored struct {
			LinkPrediction struct {
				TestAUC  float64 `json:"test_auc"`
				TrainAUC float64 `json:"train_auc"`
			} `json:"link_prediction"`
		}
		readJSON(t, rep, &scored)
		if got, want := scored.LinkPrediction.TestAUC, trained.Result.TestAUC; got != want || want == 0 {
			t.Errorf("%v: eval on the saved split gives test AUC %v, training reported %v", extra, got, want)
		}
		// With validation pairs the report's train AUC is still that of
		// the train pairs.
		if got, want := scored.LinkPrediction.TrainAUC, trained.Result.TrainAUC; got != want || want == 0 {
			t.Errorf("%v: eval on the saved split gives train AUC %v, training reported %v", extra, got, want)
		}
	}
	// The same split again is kept; another (seed 2) is refused, and the
	// files stay as they were.
	dir := filepath.Join(tmp, "split0")
	before, err := os.ReadFile(filepath.Join(dir, "test.txt.npy"))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-graph", graph, "-test-fraction", "0.4", "-dim", "4", "-epochs", "1", "-progress", "none", "-save-split", dir}
	if code, stdout, stderr := runCLI(t, args...); code != 0 || !strings.Contains(stdout, "the split is already in "+dir) {
		t.Errorf("the same split again: exit %d\n%s%s", code, stdout, stderr)
	}
	code, _, stderr := runCLI(t, append(args, "-seed", "2")...)
	if want := "-save-split " + dir + " already holds another split (60 nodes, 48 test edges)"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("another split: exit %d, %q; want exit 2 and %q", code, stderr, want)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "test.txt.npy")); !bytes.Equal(before, after) {
		t.Error("the refused run changed the saved split")
	}
}

// TestLeadingZeroNote: ids read as tokens because of a leading zero say
// so, since "01" and "1" then are two nodes; so do ids read as tokens
// because of a later id not written as an integer, such as "+1".
func TestLeadingZeroNote(t *testing.T) {
	t.Parallel()
	for text, note := range map[string]string{
		"1 2\n2 3\n3 4\n4 007\n007 1\n": "note: the ids are read as tokens from line 4, whose id 007 has a leading zero, so 007 and 7 are two nodes; add -ids int to read every id as a number\n",
		"1 2\n2 3\n+1 3\n3 4\n":         "note: the ids are read as tokens from line 3, whose id \"+1\" is not written as an integer while every id before it was",
	} {
		path := filepath.Join(t.TempDir(), "g.txt")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCLI(t, "-graph", path, "-dim", "4", "-epochs", "1", "-progress", "none")
		if code != 0 || !strings.Contains(stdout, note) || strings.Count(stdout, "note: the ids") != 1 {
			t.Errorf("exit %d\n%s%s", code, stdout, stderr)
		}
	}
}

// TestHeaderLikeNote: a token graph's first line whose ids appear on no
// other line (column names read as an edge) gets a note suggesting
// -header, which silences it; a first edge joined to the rest does not.
func TestHeaderLikeNote(t *testing.T) {
	t.Parallel()
	note := "note: line 1 (\"from\\tto\") is read as an edge between two nodes that appear on no other line: if it holds column names, skip it (-header)\n"
	for _, c := range []struct {
		text   string
		header bool
		want   bool
	}{
		{"from\tto\nA\tB\nB\tC\nC\tA\n", false, true},
		{"from\tto\nA\tB\nB\tC\nC\tA\n", true, false},
		{"from\tto\nA\tfrom\nB\tC\nC\tA\n", false, false},
	} {
		path := filepath.Join(t.TempDir(), "g.tsv")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"-graph", path, "-dim", "2", "-epochs", "1", "-progress", "none"}
		if c.header {
			args = append(args, "-header")
		}
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 || strings.Contains(stdout, note) != c.want {
			t.Errorf("%q header %v: exit %d, want the note %v\n%s%s", c.text, c.header, code, c.want, stdout, stderr)
		}
	}
}

// TestIndexColumnNote: an edge list whose first column counts its lines,
// as pandas' index written with header=False, gets a note, also with
// gaps where rows were filtered out; a weighted edge list sorted by its
// first node, which repeats, does not.
func TestIndexColumnNote(t *testing.T) {
	t.Parallel()
	const note = "note: the first column is an integer that grows from line to line, as pandas' index does"
	checkLoadNotes(t, "g.csv", note, map[string]bool{
		"0,10,20\n1,20,30\n2,30,10\n3,10,40\n": true,
		"0,10,20\n2,20,30\n5,30,10\n9,10,40\n": true,
		"1,10,20\n1,20,30\n2,30,10\n3,10,40\n": false,
		"0,10,20\n2,20,30\n1,30,10\n3,10,40\n": false,
	})
}

// checkLoadNotes trains briefly on each text, written to a file of the
// given name, and checks that stdout holds note exactly where want says.
func checkLoadNotes(t *testing.T, name, note string, want map[string]bool) {
	t.Helper()
	for text, want := range want {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCLI(t, "-graph", path, "-dim", "2", "-epochs", "1", "-progress", "none")
		if code != 0 || strings.Contains(stdout, note) != want {
			t.Errorf("%q: exit %d, want the note %v\n%s%s", text, code, want, stdout, stderr)
		}
	}
}

// TestLateCommentNote: a comment line after the first edge line (an edge
// whose first id starts with #) is noted; comments before it, as SNAP's
// header, are not.
func TestLateCommentNote(t *testing.T) {
	t.Parallel()
	note := "note: 1 comment line (starting with # or %) after the first edge line, the first on line 3, skipped"
	checkLoadNotes(t, "g.tsv", note, map[string]bool{
		"# SNAP header\na\t#go\n#go\tb\nb\ta\n": true,
		"# SNAP header\na\tgo\ngo\tb\nb\ta\n":   false,
	})
}

// TestEigenmapsComponentsNote: Laplacian eigenmaps on a graph of two
// components gets a note suggesting -lcc; with -lcc, or another method,
// it does not.
func TestEigenmapsComponentsNote(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for v := range 12 {
		fmt.Fprintf(&b, "%d %d\n%d %d\n", v, (v+1)%12, v, (v+5)%12)
		fmt.Fprintf(&b, "%d %d\n", 100+v, 100+(v+1)%12)
	}
	path := filepath.Join(t.TempDir(), "g.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	note := "note: the training graph has 2 connected components: "
	for _, extra := range [][]string{{"-method", "eigenmaps"}, {"-method", "eigenmaps", "-lcc"}, {"-method", "svd"}} {
		args := append([]string{"-graph", path, "-dim", "4", "-progress", "none"}, extra...)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 || strings.Contains(stdout, note) != (len(extra) == 2 && extra[1] == "eigenmaps") {
			t.Errorf("%v: exit %d\n%s%s", extra, code, stdout, stderr)
		}
		if len(extra) == 2 && extra[1] == "eigenmaps" && !strings.Contains(stdout, note+"1 of the 2 eigenvectors Laplacian eigenmaps keeps mark them") {
			t.Errorf("d = 4: one of the two eigenvectors marks the components\n%s", stdout)
		}
	}
	// At d = 2 the one eigenvector kept marks them: scores near chance.
	_, stdout, _ := runCLI(t, "-graph", path, "-dim", "2", "-method", "eigenmaps", "-progress", "none")
	if !strings.Contains(stdout, note+"Laplacian eigenmaps' smallest eigenvectors then mark the components instead of placing the nodes within them, all 1 of those kept (scores near chance); add -lcc") {
		t.Errorf("d = 2:\n%s", stdout)
	}
}

// TestSelfLoopOnlyNote: nodes whose only arc is a dropped self-loop are
// counted in a note, which -keep-self-loops and -lcc make moot.
func TestSelfLoopOnlyNote(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "g.txt")
	if err := os.WriteFile(path, []byte("1 2\n2 3\n3 4\n4 1\n5 5\n6 6\n2 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	note := "note: 2 nodes have only a self-loop, which is dropped, and no other arc"
	for _, extra := range [][]string{nil, {"-keep-self-loops"}, {"-lcc"}} {
		args := append([]string{"-graph", path, "-dim", "4", "-epochs", "1", "-progress", "none"}, extra...)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 || strings.Contains(stdout, note) != (extra == nil) || extra == nil && !strings.Contains(stdout, "placed by negative pairs alone") {
			t.Errorf("%v: exit %d\n%s%s", extra, code, stdout, stderr)
		}
	}
	// A baseline has no negative pairs: the note says what it lacks.
	code, stdout, stderr := runCLI(t, "-graph", path, "-dim", "2", "-method", "svd", "-progress", "none")
	if code != 0 || !strings.Contains(stdout, note+": -method svd has no arc to place the vectors of such nodes by") {
		t.Errorf("-method svd: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestTooLargeForDenseMethods: a graph above the size of the methods
// that hold dense N x N matrices (email-Enron's 36,692 nodes) is a usage
// error, exit 2, as a rank above the graph's nodes is, naming what to use.
func TestTooLargeForDenseMethods(t *testing.T) {
	enron := filepath.Join(sharedDatasets(t), "email-Enron", "Email-Enron.txt.gz")
	for _, c := range []struct{ flags, want string }{
		{"-method netmf", "(use -method wys or svd)"},
		{"-start log-svd", "(use -start spectral)"},
		{"-refine 3", "(drop the refinement steps)"},
	} {
		code, _, stderr := runCLI(t, append([]string{"-graph", enron, "-progress", "none"}, strings.Fields(c.flags)...)...)
		if code != 2 || !strings.Contains(stderr, "it takes graphs of at most 32768 nodes "+c.want) {
			t.Errorf("%s: exit %d, %q", c.flags, code, stderr)
		}
	}
}

// TestSaveSplitRefused: a run that the trainer's checks refuse (memory,
// sparse or dense; a length beyond what a run can plan) writes no
// -save-split directory (it used to write the split, then refuse).
func TestSaveSplitRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-max-memory", "1e-6"}, 1, "not enough memory"},
		{[]string{"-trainer", "dense", "-max-memory", "1e-6"}, 1, "not enough memory: the dense matrices"},
		{[]string{"-epochs", "1e13"}, 2, "-epochs 1e+13: "},
	} {
		dir := filepath.Join(t.TempDir(), "split")
		code, _, stderr := runCLI(t, append(c.args, "-save-split", dir, "-progress", "none")...)
		if _, err := os.Stat(dir); code != c.code || !strings.Contains(stderr, c.want) || !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v: exit %d, %q, split directory: %v", c.args, code, stderr, err)
		}
	}
}

// TestOverfitNote: the note comes when the selected model's progress test
// AUC is half a point or more below the curve's peak, names both, and not
// when it is less, or when the curve has no test AUC.
func TestOverfitNote(t *testing.T) {
	nan := math.NaN()
	curve := []pipeline.CurvePoint{
		{Step: 10, Epoch: 1, TrainAUC: 0.99, TestAUC: 0.95},
		{Step: 20, Epoch: 2, TrainAUC: 0.9996, TestAUC: 0.9769},
		{Step: 30, Epoch: 3, TrainAUC: 0.9997, TestAUC: 0.9681},
	}
	want := "note: the progress test AUC peaked at 0.9769 (epoch 2) and is 0.9681 at the selected model, whose train AUC 0.9997 did not tell them apart; -val-fraction 0.1 selects"
	if got := overfitNote(curve, 30); !strings.HasPrefix(got, want) {
		t.Errorf("a fall of 0.0088: %q", got)
	}
	if got := overfitNote(curve, 20); got != "" {
		t.Errorf("the peak selected: %q", got)
	}
	curve[2].TestAUC = 0.9720 // a fall of 0.0049
	if got := overfitNote(curve, 30); got != "" {
		t.Errorf("a fall of 0.0049: %q", got)
	}
	for i := range curve {
		curve[i].TestAUC = nan
	}
	if got := overfitNote(curve, 30); got != "" {
		t.Errorf("no test AUC: %q", got)
	}
}

// TestUnfitNote: a run whose selected model scores its own training arcs
// near chance (here a diverging learning rate) says so; a normal run does
// not; a run of very few steps is told to run longer.
func TestUnfitNote(t *testing.T) {
	t.Parallel()
	note := "training did not fit the graph; check the learning rate (-lr)"
	for _, lr := range []string{"1e6", "0.02"} {
		code, stdout, stderr := runCLI(t, "-epochs", "20", "-lr", lr, "-progress", "none")
		if code != 0 || strings.Contains(stdout, note) != (lr == "1e6") {
			t.Errorf("-lr %s: exit %d\n%s%s", lr, code, stdout, stderr)
		}
	}
	// A six-node graph gets 10 steps at the default length (an epoch is
	// six walks): the note also says the run may be too short, and more
	// epochs fit it.
	tiny := filepath.Join(t.TempDir(), "tiny.txt")
	if err := os.WriteFile(tiny, []byte("1 2\n2 3\n3 4\n4 1\n1 5\n5 6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	short := "; the run took only 10 minibatch steps (an epoch is N walks, so a small graph gets few): it may be too short (more -epochs)"
	for _, epochs := range []string{"0", "20000"} {
		code, stdout, stderr := runCLI(t, "-graph", tiny, "-dim", "4", "-test-fraction", "0", "-seed", "5", "-epochs", epochs, "-progress", "none")
		if code != 0 || strings.Contains(stdout, short) != (epochs == "0") || strings.Contains(stdout, "did not fit") != (epochs == "0") {
			t.Errorf("six nodes, -epochs %s: exit %d\n%s%s", epochs, code, stdout, stderr)
		}
	}
}

// TestWeightedSplitKeepsWeights: with -weighted and -test-fraction the
// training graph keeps the file's weights (its split used to drop them:
// the embeddings were those of the unweighted run): weights of 1 give
// the unweighted run's bytes, other weights do not.
func TestWeightedSplitKeepsWeights(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, weight func(i int) int) string {
		var b strings.Builder
		for i := range 80 {
			fmt.Fprintf(&b, "%d,%d,%d\n", i, (i+1)%80, weight(i))
			fmt.Fprintf(&b, "%d,%d,%d\n", i, (i+9)%80, weight(i+80))
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	skew := func(i int) int { return 1 + i%7 }
	embed := func(graph string, extra ...string) []byte {
		out := filepath.Join(dir, filepath.Base(graph)+strings.Join(extra, "")+".npy")
		args := append([]string{"-graph", graph, "-test-fraction", "0.3", "-epochs", "3", "-dim", "4", "-progress", "none", "-out", out}, extra...)
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatal(stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	skewed := embed(write("skew.csv", skew), "-weighted")
	flat := embed(write("flat.csv", func(int) int { return 1 }), "-weighted")
	unweighted := embed(write("skew2.csv", skew))
	if bytes.Equal(skewed, flat) || bytes.Equal(skewed, unweighted) {
		t.Error("the weights did not reach training: the weighted run equals an unweighted one")
	}
	if !bytes.Equal(flat, unweighted) {
		t.Error("weights of 1 differ from no weights")
	}
}

// TestMatrixMarketNote: a Matrix Market graph says it was read as one,
// and counts the indices of its matrix without an entry.
func TestMatrixMarketNote(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "g.mtx")
	if err := os.WriteFile(path, []byte("%%MatrixMarket matrix coordinate pattern symmetric\n% 40 nodes, 3 with edges\n40 40 3\n2 1\n3 2\n3 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "-graph", path, "-dim", "2", "-epochs", "1", "-progress", "none")
	for _, want := range []string{"3 nodes, 3 edges", "read as Matrix Market", "note: 37 of the matrix's 40 indices have no entry"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("exit %d, want %q in\n%s%s", code, want, stdout, stderr)
		}
	}
}

// TestTerminatedBeforeCheckpoint: a run that SIGTERM stops before its
// first checkpoint exits 143, its JSON error event says 143 too, and it
// says that the directory holds nothing to resume.
func TestTerminatedBeforeCheckpoint(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "ck")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&interrupt.Stopped{Signal: syscall.SIGTERM})
	var out, errb bytes.Buffer
	code := run(ctx, []string{"-epochs", "2", "-dim", "8", "-checkpoint", ck, "-progress", "json"}, &out, &errb)
	lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	var ev struct {
		Kind     string
		Message  string
		ExitCode int `json:"exit_code"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &ev); err != nil {
		t.Fatal(err, errb.String())
	}
	if code != interrupt.CodeTerminated || ev.Kind != "error" || ev.ExitCode != code {
		t.Errorf("exit %d, last event %+v", code, ev)
	}
	if !strings.HasPrefix(ev.Message, "terminated before the first checkpoint: "+ck+" holds no training state") {
		t.Errorf("message %q", ev.Message)
	}
}

// TestInterruptedSaveFailed: when the save at an interrupt fails (the
// error train.Run returns then), the last line says so, and what the
// directory holds, rather than that the state was saved.
func TestInterruptedSaveFailed(t *testing.T) {
	ck := t.TempDir()
	c := &config{checkpoint: ck}
	// The error of a run whose save at the interrupt (here at its first
	// evaluation) fails.
	g, err := pipeline.PlantedPartition(120, 4, 0.2, 0.01, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := train.Config{Dim: 8, Epochs: 20, Seed: 1, Workers: 1, CheckpointEvery: time.Hour,
		Checkpoint: func(*train.State) error { return errors.New("write: no space left on device") }}
	var batch int
	_, err = train.Run(ctx, g, nil, cfg, pipeline.RecordFunc(func(e pipeline.Event) {
		if e.Kind == pipeline.Eval && batch == 0 {
			batch = e.Point.Step
			cancel()
		}
	}))
	if !errors.Is(err, context.Canceled) || !errors.Is(err, train.ErrNotSaved) {
		t.Fatalf("train.Run: %v", err)
	}
	at := fmt.Sprintf("interrupted; checkpoint not saved at batch %d: write: no space left on device", batch)
	want := at + ", and " + ck + " holds no earlier one: run the command again as it was"
	if got := c.interrupted("interrupted", err); got != want {
		t.Errorf("no earlier checkpoint:\n got %q\nwant %q", got, want)
	}
	if err := os.WriteFile(train.CheckpointPath(ck), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	want = at + ": " + ck + " holds an earlier checkpoint, from which -resume continues (the batches after it are trained again)"
	if got := c.interrupted("interrupted", err); got != want {
		t.Errorf("an earlier checkpoint:\n got %q\nwant %q", got, want)
	}
	if got := c.interrupted("interrupted", context.Canceled); !strings.HasPrefix(got, "interrupted; training state saved in "+ck) {
		t.Errorf("saved: %q", got)
	}
}

// TestCheckpointLocked: a run whose -checkpoint directory another run
// holds (its lock taken here) fails at once and says so.
func TestCheckpointLocked(t *testing.T) {
	ck := t.TempDir()
	l, err := filelock.Lock(filepath.Join(ck, "wys.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	code, _, stderr := runCLI(t, "-epochs", "2", "-dim", "8", "-checkpoint", ck, "-progress", "none")
	if code != 1 || !strings.Contains(stderr, "is in use by another run") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	l.Unlock()
	if code, _, stderr := runCLI(t, "-epochs", "2", "-dim", "8", "-checkpoint", ck, "-progress", "none"); code != 0 {
		t.Errorf("after the lock is released: exit %d\n%s", code, stderr)
	}
	// A running run that has not saved yet: -resume is told of the lock,
	// not that nothing was saved.
	ck2 := t.TempDir()
	l2, err := filelock.Lock(filepath.Join(ck2, "wys.lock"))
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "-epochs", "2", "-dim", "8", "-checkpoint", ck2, "-resume", "-progress", "none")
	if code != 1 || !strings.Contains(stderr, "is in use by another run") {
		t.Errorf("-resume, lock without checkpoint: exit %d\n%s", code, stderr)
	}
	l2.Unlock()
	// A directory that holds a checkpoint and a running run's lock: the
	// lock is what a second run is told of, not -resume.
	if l, err = filelock.Lock(filepath.Join(ck, "wys.lock")); err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	code, _, stderr = runCLI(t, "-epochs", "2", "-dim", "8", "-checkpoint", ck, "-progress", "none")
	if code != 1 || !strings.Contains(stderr, "is in use by another run") {
		t.Errorf("checkpoint and lock: exit %d\n%s", code, stderr)
	}
}

// TestFewTestPairsNote: a test AUC measured on a handful of held-out
// edges is printed with a note giving its standard error at chance, by
// Hanley and McNeil's formula written out here: SE² = (1/4 + (p+n−2)/12)
// / (p·n) at AUC 1/2, 0.25 for 3 edges against 3 non-edges; a split with
// enough test edges gets no note, in training and in eval.
func TestFewTestPairsNote(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 40 { // a ring of 40 nodes with chords: 80 edges
		fmt.Fprintf(&b, "%d %d\n%d %d\n", i, (i+1)%40, i, (i+7)%40)
	}
	graph := filepath.Join(dir, "g.txt")
	if err := os.WriteFile(graph, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p, n := 3.0, 3.0
	want := fmt.Sprintf("note: the test AUC is measured on only 3 test edges against 3 non-edges: at chance its standard error would be %.2f", math.Sqrt((0.25+(p+n-2)/12)/(p*n)))
	split, emb := filepath.Join(dir, "split"), filepath.Join(dir, "emb.txt")
	code, stdout, stderr := runCLI(t, "-graph", graph, "-test-fraction", "0.0375", "-dim", "4", "-epochs", "2", "-save-split", split, "-out", emb, "-progress", "none")
	if code != 0 || !strings.Contains(stdout, "split: 77 train / 3 test edges") || !strings.Contains(stdout, want) {
		t.Fatalf("3 test edges: exit %d, stdout:\n%s\nstderr:\n%s\nwant the note %q", code, stdout, stderr, want)
	}
	if code, stdout, stderr = runCLI(t, "eval", "-emb", emb, "-split", split); code != 0 || !strings.Contains(stdout, want) {
		t.Fatalf("eval of 3 test edges: exit %d, stdout:\n%s\nstderr:\n%s\nwant the note %q", code, stdout, stderr, want)
	}
	// Training on the saved split with half its 3 test edges for
	// validation leaves 1 for the test (2 select the model): SE² = 1/4.
	p, n = 1, 1
	want = fmt.Sprintf("note: the test AUC is measured on only 1 test edge against 1 non-edge: at chance its standard error would be %.2f (Hanley and McNeil), too large to tell methods apart; score on a split with more test edges, or keep more of them for the test (a smaller -val-fraction)", math.Sqrt((0.25+(p+n-2)/12)/(p*n)))
	if code, stdout, stderr = runCLI(t, "-split", split, "-val-fraction", "0.5", "-dim", "4", "-epochs", "2", "-progress", "none"); code != 0 || !strings.Contains(stdout, want) {
		t.Fatalf("split with validation: exit %d, stdout:\n%s\nstderr:\n%s\nwant the note %q", code, stdout, stderr, want)
	}
	// 70 test edges against 70 non-edges: SE at chance 0.049.
	var big strings.Builder
	for i := range 200 {
		fmt.Fprintf(&big, "%d %d\n%d %d\n", i, (i+1)%200, i, (i+7)%200)
	}
	if err := os.WriteFile(graph, []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, "-graph", graph, "-test-fraction", "0.175", "-dim", "4", "-epochs", "2", "-progress", "none")
	if code != 0 || !strings.Contains(stdout, "/ 70 test edges") || strings.Contains(stdout, "note: the test AUC") {
		t.Fatalf("70 test edges: exit %d, stdout:\n%s\nstderr:\n%s\nwant no note", code, stdout, stderr)
	}
}

// TestRanksOnlyForReport checks that the ranking measures (every pair
// scored again, the lists sorted) are taken when -report asks for them and
// only then, and that the report then holds them.
func TestRanksOnlyForReport(t *testing.T) {
	calls := 0
	old := rankSplit
	rankSplit = func(ctx context.Context, res *pipeline.Result, split *pipeline.Split) (*pipeline.Ranking, *pipeline.Ranking, error) {
		calls++
		return old(ctx, res, split)
	}
	defer func() { rankSplit = old }()
	dir := t.TempDir()
	args := []string{"-graph", filepath.Join("testdata", "evalcheck", "train.edges.txt"), "-dim", "4", "-epochs", "2", "-test-fraction", "0.3", "-quiet"}
	if code, _, stderr := runCLI(t, args...); code != 0 || calls != 0 {
		t.Fatalf("without -report: exit %d, %d rankings, %s", code, calls, stderr)
	}
	rep := filepath.Join(dir, "r.json")
	if code, _, stderr := runCLI(t, append(args, "-report", rep)...); code != 0 || calls != 1 {
		t.Fatalf("with -report: exit %d, %d rankings, %s", code, calls, stderr)
	}
	var r struct {
		Result struct {
			TestAP   *float64           `json:"test_ap"`
			TestHits map[string]float64 `json:"test_hits"`
		} `json:"result"`
	}
	b, err := os.ReadFile(rep)
	if err == nil {
		err = json.Unmarshal(b, &r)
	}
	if err != nil || r.Result.TestAP == nil || len(r.Result.TestHits) != 3 {
		t.Errorf("report: %v, test AP %v, hits %v", err, r.Result.TestAP, r.Result.TestHits)
	}
}

// TestSummaryStoppedEarly: a run ended by -time says so on the summary
// line, where a run of its planned length says nothing.
func TestSummaryStoppedEarly(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"-time", "1ms"}, true},
		{[]string{"-epochs", "2"}, false},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"-dim", "8", "-progress", "none"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", c.args, code, stderr)
		}
		if got := strings.Contains(stdout, "; stopped by the time budget (-time) at epoch "); got != c.want {
			t.Errorf("%v: summary names the time budget %v, want %v:\n%s", c.args, got, c.want, stdout)
		}
		if !c.want && strings.Contains(stdout, "stopped by") {
			t.Errorf("%v: a full-length run says it was stopped:\n%s", c.args, stdout)
		}
	}
}

// TestSummaryAveraged: with -average, the summary says the selected model
// is the tail's mean exactly when the selection kept the last evaluation
// (where the mean is scored); without -average it never says so.
func TestSummaryAveraged(t *testing.T) {
	phrase := ": the mean of L and R over the run's last 0.5 (-average)"
	for _, avg := range []bool{true, false} {
		rep := filepath.Join(t.TempDir(), "r.json")
		args := []string{"-dim", "8", "-epochs", "4", "-progress", "none", "-report", rep}
		if avg {
			args = append(args, "-average", "0.5")
		}
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		var r struct {
			Result struct {
				BestStep int `json:"best_step"`
			}
			Curve []struct {
				Step int `json:"step"`
			}
		}
		readJSON(t, rep, &r)
		if len(r.Curve) == 0 {
			t.Fatalf("%v: no curve in the report", args)
		}
		want := avg && r.Result.BestStep == r.Curve[len(r.Curve)-1].Step
		if got := strings.Contains(stdout, phrase); got != want {
			t.Errorf("%v: best step %d, last %d: summary names the mean %v, want %v\n%s", args, r.Result.BestStep, r.Curve[len(r.Curve)-1].Step, got, want, stdout)
		}
	}
}

// TestDirectedBothWaysNote: a graph read with -directed whose every arc
// has its reverse gets a note (an undirected edge list listed both ways,
// as SNAP's CA-HepTh); one with an arc without its reverse does not. A
// weighted run's -save-split says that the split holds no weights; an
// edge list read as undirected with some but not all edges both ways gets
// a note that it may be directed.
func TestDirectedBothWaysNote(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	writeFile := func(t *testing.T, dir, name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	both := writeFile(t, tmp, "both.txt", "1 2\n2 1\n2 3\n3 2\n3 1\n1 3\n3 4\n4 3\n")
	oneWay := writeFile(t, tmp, "one.txt", "1 2\n2 1\n2 3\n3 2\n3 1\n1 3\n3 4\n")
	const note = "every arc of the graph comes with its reverse"
	for path, want := range map[string]bool{both: true, oneWay: false} {
		code, stdout, stderr := runCLI(t, "-graph", path, "-directed", "-dim", "2", "-epochs", "1", "-progress", "none")
		if code != 0 || strings.Contains(stdout, note) != want {
			t.Errorf("%s: exit %d, note %v, want %v\n%s%s", path, code, strings.Contains(stdout, note), want, stdout, stderr)
		}
	}
	// Read without -directed: a list with some edges both ways (3 of 4)
	// looks directed; all or none both ways is an undirected list.
	const partly = "of the 4 edges were listed twice"
	once := writeFile(t, tmp, "once.txt", "1 2\n2 3\n3 1\n3 4\n")
	for path, want := range map[string]bool{both: false, oneWay: true, once: false} {
		code, stdout, stderr := runCLI(t, "-graph", path, "-dim", "2", "-epochs", "1", "-progress", "none")
		if code != 0 || strings.Contains(stdout, partly) != want {
			t.Errorf("%s undirected: exit %d, note %v, want %v\n%s%s", path, code, strings.Contains(stdout, partly), want, stdout, stderr)
		}
	}
	weighted := writeFile(t, tmp, "w.txt", "1 2 3\n2 3 1\n3 1 2\n3 4 1\n4 5 2\n5 1 1\n")
	code, stdout, stderr := runCLI(t, "-graph", weighted, "-weighted", "-test-fraction", "0.3", "-save-split", filepath.Join(tmp, "s"), "-dim", "2", "-epochs", "1", "-progress", "none")
	if code != 0 || !strings.Contains(stdout, "note: a split directory holds pairs, not weights") {
		t.Errorf("weighted -save-split: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestHeaderThatIsAnEdge: -header on a file whose first line is an edge
// (SNAP's, whose column names are a comment) skips that edge, and a note
// says so; a line of names skipped by -header gets no such note.
func TestHeaderThatIsAnEdge(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	const note = "the line -header skipped holds only numbers"
	for text, want := range map[string]bool{
		"# FromNodeId\tToNodeId\n0\t1\n1\t2\n2\t0\n2\t3\n": true,
		"from,to\n0,1\n1,2\n2,0\n2,3\n":                    false,
	} {
		path := filepath.Join(tmp, fmt.Sprint(want, ".txt"))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCLI(t, "-graph", path, "-header", "-test-fraction", "0", "-dim", "2", "-epochs", "1", "-progress", "none")
		if code != 0 || strings.Contains(stdout, note) != want {
			t.Errorf("%q: exit %d, note %v, want %v\n%s%s", text, code, strings.Contains(stdout, note), want, stdout, stderr)
		}
	}
}

// trainAndEvalSplit trains one epoch on the split in dir, writes the
// embeddings to emb, scores them with eval, and returns what each of the
// two commands printed on standard output.
func trainAndEvalSplit(t *testing.T, dir, emb string) [2]string {
	t.Helper()
	code, stdout, stderr := runCLI(t, "-split", dir, "-epochs", "1", "-dim", "4", "-out", emb, "-progress", "none")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	code, evalOut, stderr := runCLI(t, "eval", "-emb", emb, "-split", dir)
	if code != 0 {
		t.Fatalf("eval: exit %d\n%s", code, stderr)
	}
	return [2]string{stdout, evalOut}
}

// TestSplitSelfLoopsNote: a split whose train and test pairs hold
// self-loops says how many, in training and in eval, and trains on a
// graph that keeps the train loops; a split without any says nothing.
func TestSplitSelfLoopsNote(t *testing.T) {
	tmp := t.TempDir()
	plain, loops := filepath.Join(tmp, "plain"), filepath.Join(tmp, "loops")
	writeSplit(t, plain, false)
	s, err := graphio.LoadSplitDir(context.Background(), plain, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(slices.Clone(s.Train), s.Test...) {
		if p.U == p.V {
			t.Fatalf("the test split already has self-loop %v", p)
		}
	}
	s.Train = append(s.Train, pipeline.Pair{U: 1, V: 1}, pipeline.Pair{U: 5, V: 5}, pipeline.Pair{U: 9, V: 9})
	s.Test = append(s.Test, pipeline.Pair{U: 2, V: 2}, pipeline.Pair{U: 7, V: 7})
	if err := graphio.WriteSplitDir(context.Background(), loops, s); err != nil {
		t.Fatal(err)
	}
	read, err := graphio.LoadSplitDir(context.Background(), loops, false)
	if err != nil {
		t.Fatal(err)
	}
	g, err := read.TrainGraph(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	diag := 0
	for v := range g.N() {
		if g.Adj.Has(v, v) {
			diag++
		}
	}
	if diag != 3 {
		t.Errorf("the train graph has %d self-loops, want the split's 3", diag)
	}
	note := fmt.Sprintf("note: 3 of the %d train pairs and 2 of the %d test pairs are self-loops", len(s.Train), len(s.Test))
	for _, dir := range []string{plain, loops} {
		for _, out := range trainAndEvalSplit(t, dir, dir+".npy") {
			if got, want := strings.Contains(out, note), dir == loops; got != want {
				t.Errorf("%s: the self-loop note %q printed %v, want %v:\n%s", dir, note, got, want, out)
			}
			if dir == plain && strings.Contains(out, "self-loops (u u)") {
				t.Errorf("%s: a split without self-loops got a note:\n%s", dir, out)
			}
		}
	}
}

// TestSplitWithoutIndexNote: a split without index.tsv says that its
// nodes are named by their rows, in training and in eval; one with it
// does not.
func TestSplitWithoutIndexNote(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "split")
	writeSplit(t, dir, false)
	const note = "has no index.tsv, so its nodes are named by their rows in its .npy arrays"
	for _, indexed := range []bool{true, false} {
		if !indexed {
			removed := 0
			for _, name := range []string{"index.tsv", "index.tsv.gz"} {
				if os.Remove(filepath.Join(dir, name)) == nil {
					removed++
				}
			}
			if removed != 1 {
				t.Fatalf("removed %d index files from the test split, want 1", removed)
			}
		}
		for _, out := range trainAndEvalSplit(t, dir, filepath.Join(t.TempDir(), "e.npy")) {
			if strings.Contains(out, note) == indexed {
				t.Errorf("index.tsv %v: the note printed %v:\n%s", indexed, !indexed, out)
			}
		}
	}
}
