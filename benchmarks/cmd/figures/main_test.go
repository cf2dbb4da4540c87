package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/viz/tsne"
	"gonum.org/v1/gonum/mat"
)

// checkPNG fails unless path is a PNG of w x h pixels and no temporary
// file is left beside it.
func checkPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, format, err := image.DecodeConfig(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if format != "png" || cfg.Width != w || cfg.Height != h {
		t.Errorf("%s: %s %d x %d, want png %d x %d", path, format, cfg.Width, cfg.Height, w, h)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file %s left in %s", e.Name(), filepath.Dir(path))
		}
	}
}

// syntheticQ returns a decaying distribution over c contexts.
func syntheticQ(c int, decay float64) []float64 {
	q := make([]float64, c)
	var s float64
	for k := range q {
		q[k] = math.Pow(decay, float64(k))
		s += q[k]
	}
	for k := range q {
		q[k] /= s
	}
	return q
}

func TestFigureKinds(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	xy := mat.NewDense(300, 2, nil)
	labels := make([]int, 300)
	for i := range 300 {
		labels[i] = i%8 - 1 // classes 0..6 and some unlabelled
		xy.Set(i, 0, rng.NormFloat64()+3*float64(labels[i]))
		xy.Set(i, 1, rng.NormFloat64())
	}
	for _, tc := range []struct {
		name string
		draw func(path string) error
		w, h int
	}{
		{"scatter", func(p string) error { return writeScatter(p, "synthetic scatter", xy, labels, nil) }, 800, 800},
		{"scatter-named", func(p string) error {
			return writeScatter(p, "named", xy, labels, []string{"a", "b", "c", "d", "e", "f", "g"})
		}, 800, 800},
		{"q", func(p string) error { return writeQ(p, "synthetic (400 epochs)", syntheticQ(10, 0.3)) }, qPlotWPx, qPlotHPx},
		{"q-beta", func(p string) error {
			var s []qSeries
			for i, b := range betas {
				s = append(s, qSeries{Name: fmt.Sprintf("β = %g", b), Q: syntheticQ(10, 0.2+0.2*float64(i))})
			}
			return writeQSeries(p, "synthetic β", s)
		}, 800, 450},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), tc.name+".png")
			if err := tc.draw(path); err != nil {
				t.Fatal(err)
			}
			checkPNG(t, path, tc.w, tc.h)
		})
	}
}

func TestFigureErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := writeQSeries(filepath.Join(dir, "a.png"), "x", nil); err == nil {
		t.Error("writeQSeries with no series: no error")
	}
	if err := writeQSeries(filepath.Join(dir, "b.png"), "x", []qSeries{{"a", []float64{0.5, 0.5}}, {"b", []float64{1}}}); err == nil {
		t.Error("writeQSeries with series of different lengths: no error")
	}
	if err := writeQSeries(filepath.Join(dir, "c.png"), "x", []qSeries{{"a", []float64{1, 0}}}); err == nil {
		t.Error("writeQSeries with a zero entry on a log scale: no error")
	}
	if err := writeScatter(filepath.Join(dir, "d.png"), "x", mat.NewDense(3, 2, nil), []int{0, 1}, nil); err == nil {
		t.Error("writeScatter with too few labels: no error")
	}
	if err := writeScatter(filepath.Join(dir, "e.png"), "x", mat.NewDense(3, 2, nil), []int{0, 1, 20}, nil); err == nil {
		t.Error("writeScatter with more classes than colours: no error")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("failed figures left %d files", len(entries))
	}
}

func TestTSNEScatterTiny(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	x := mat.NewDense(30, 5, nil)
	labels := make([]int, 30)
	for i := range 30 {
		labels[i] = i / 10
		for k := range 5 {
			v := rng.NormFloat64()
			if k == labels[i] {
				v += 8
			}
			x.Set(i, k, v)
		}
	}
	path := filepath.Join(t.TempDir(), "tsne.png")
	y, err := writeTSNEScatter(context.Background(), path, "tiny", x, labels, nil, tsne.Config{Perplexity: 5, Iterations: 300, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, path, 800, 800)
	if a := nnAgreement(y, labels); a < 0.9 {
		t.Errorf("three separated clusters: nearest-neighbour agreement %.2f in the picture", a)
	}
	// Bad input reaches the caller as an error, and no file.
	bad := filepath.Join(t.TempDir(), "bad.png")
	if _, err := writeTSNEScatter(context.Background(), bad, "bad", x, labels, nil, tsne.Config{Perplexity: 40}); err == nil {
		t.Error("perplexity 40 on 30 points: no error")
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("a failed t-SNE still wrote its figure")
	}
}

func TestNNAgreement(t *testing.T) {
	t.Parallel()
	// On a line: 0 and 1 are each other's neighbours (same class), 5's
	// nearest labelled neighbour is 1 (other class, the unlabelled 4.9 is
	// skipped), 10's is 5.
	x := mat.NewDense(5, 1, []float64{0, 1, 5, 4.9, 10})
	labels := []int{0, 0, 1, -1, 1}
	if got := nnAgreement(x, labels); got != 0.75 {
		t.Errorf("nnAgreement = %v, want 0.75", got)
	}
	if got := nnAgreement(x, []int{-1, -1, -1, -1, -1}); !math.IsNaN(got) {
		t.Errorf("nnAgreement without labels = %v, want NaN", got)
	}
}

func TestConcatLR(t *testing.T) {
	t.Parallel()
	res := &pipeline.Result{N: 2, Half: 2, L: []float32{1, 2, 3, 4}, R: []float32{5, 6, 7, 8}}
	want := mat.NewDense(2, 4, []float64{1, 2, 5, 6, 3, 4, 7, 8})
	if got := concatLR(res); !mat.Equal(got, want) {
		t.Errorf("concatLR = %v, want %v", mat.Formatted(got), mat.Formatted(want))
	}
}

// runFigures runs the command through the harness as main does, with
// -allow-dirty since the tests write to their own folders from a working
// tree that may have uncommitted changes.
func runFigures(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return benchmarks.Run(ctx, "figures", append(args, "-allow-dirty"), stdout, stderr, run)
}

func TestRunUsageAndMissingData(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "nowhere")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-only", "q-nothing"}, 2, `unknown figure "q-nothing"`},
		{[]string{"-epochs", "-1"}, 2, "-epochs"},
		{[]string{"extra"}, 2, "unexpected argument"},
		{[]string{"-bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"-data", missing, "-only", "q-PPI.png"}, 1, filepath.Join(missing, "PPI", "asymproj")},
		{[]string{"-data", missing, "-only", "q-beta-ca-HepTh"}, 1, filepath.Join(missing, "ca-HepTh", "asymproj")},
		{[]string{"-data", missing, "-only", "tsne-cora"}, 1, filepath.Join(missing, "Cora", "cora.edges.tsv.gz")},
	} {
		var stderr bytes.Buffer
		out := t.TempDir()
		code := runFigures(context.Background(), append([]string{"-out", out}, tc.args...), io.Discard, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("figures %q: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr.String(), tc.code, tc.want)
		}
	}
}

// writeSyntheticData writes, under dir, small stand-ins of every dataset
// the command reads: a planted-partition graph's split for each
// link-prediction dataset and its edges and communities as Cora.
func writeSyntheticData(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	g, err := pipeline.PlantedPartition(140, 7, 0.3, 0.01, 1)
	if err != nil {
		t.Fatal(err)
	}
	split, err := pipeline.SplitEdges(ctx, g, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, ds := range qDatasets {
		if err := graphio.WriteSplitDir(ctx, filepath.Join(dir, ds, "asymproj"), split); err != nil {
			t.Fatal(err)
		}
	}
	var edges, labels, sets strings.Builder
	n := g.N()
	for u := range n {
		cols, _ := g.Adj.Row(u)
		for _, v := range cols {
			if int(v) > u {
				fmt.Fprintf(&edges, "%d\t%d\n", u, v)
			}
		}
		fmt.Fprintf(&labels, "%d\t%d\n", u, u*7/n)
		set := "train"
		if u%2 == 1 {
			set = "test"
		}
		fmt.Fprintf(&sets, "%d\t%s\n", u, set)
	}
	cora := filepath.Join(dir, "Cora")
	if err := os.MkdirAll(cora, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"cora.edges.tsv": edges.String(), "cora.labels.tsv": labels.String(), "cora.split.tsv": sets.String()} {
		if err := os.WriteFile(filepath.Join(cora, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRunSynthetic runs the whole command on small synthetic stand-ins of
// the datasets and checks every figure and the README.
func TestRunSynthetic(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 11 small models (a few seconds)")
	}
	data, out := t.TempDir(), t.TempDir()
	writeSyntheticData(t, data)
	var stdout, stderr bytes.Buffer
	if code := runFigures(context.Background(), []string{"-data", data, "-out", out, "-epochs", "4", "-seed", "2"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	sizes := map[string][2]int{"tsne-cora": {800, 800}}
	for _, ds := range qDatasets {
		sizes["q-"+ds] = [2]int{qPlotWPx, qPlotHPx}
	}
	for _, ds := range betaDatasets {
		sizes["q-beta-"+ds] = [2]int{800, 450}
	}
	if len(sizes) != len(figureNames()) {
		t.Fatalf("the test knows %d figures, the command %d", len(sizes), len(figureNames()))
	}
	for name, wh := range sizes {
		checkPNG(t, filepath.Join(out, name+".png"), wh[0], wh[1])
	}
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(readme) != stdout.String() {
		t.Errorf("README.md differs from stdout:\n%s\n---\n%s", readme, stdout.String())
	}
	for _, want := range []string{"# Figures\n\nMeasured ", "\n\nCommand: `go run ", "./benchmarks/cmd/figures -data " + data + " -out " + out + " -epochs 4 -seed 2 -allow-dirty`\n\n"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md lacks %q:\n%s", want, readme)
		}
	}
	for _, name := range figureNames() {
		if !strings.Contains(string(readme), "("+name+".png)") {
			t.Errorf("README.md has no caption for %s:\n%s", name, readme)
		}
	}
	// β = 0.5 runs are shared between Figure 2a and 2b: 1 + 4 + 3 + 3 runs.
	if got := strings.Count(stderr.String(), "figures: trained "); got != 11 {
		t.Errorf("%d training runs, want 11:\n%s", got, stderr.String())
	}
	// -only makes just the figures named and leaves the README alone.
	out2 := t.TempDir()
	stdout.Reset()
	stderr.Reset()
	if code := runFigures(context.Background(), []string{"-data", data, "-out", out2, "-epochs", "2", "-only", "q-PPI"}, &stdout, &stderr); code != 0 {
		t.Fatalf("-only: exit %d, stderr:\n%s", code, stderr.String())
	}
	entries, _ := os.ReadDir(out2)
	if len(entries) != 1 || entries[0].Name() != "q-PPI.png" || stdout.Len() > 0 {
		t.Errorf("-only q-PPI wrote %v and printed %q", entries, stdout.String())
	}
}

func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	writeSyntheticData(t, data)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stderr bytes.Buffer
	if code := runFigures(ctx, []string{"-data", data, "-out", t.TempDir(), "-only", "q-PPI"}, io.Discard, &stderr); code != 130 {
		t.Errorf("cancelled run: exit %d, want 130; stderr %q", code, stderr.String())
	}
}

func TestDescribeQ(t *testing.T) {
	for _, c := range []struct {
		q    []float64
		want string
	}{
		{[]float64{0.828, 0.1, 0.072}, "k = 1 carries most of Q (Q_1 = 0.828); Q = (0.828, 0.100, 0.072)"},
		// Largest last but below one half: not "most" (soc-Epinions1's case).
		{[]float64{0.3, 0.2, 0.1, 0.4}, "no k carries most of Q: Q_4 = 0.400 is the largest, Q_3 = 0.100 the smallest (uniform: 0.250); Q = (0.300, 0.200, 0.100, 0.400)"},
		{[]float64{0.5, 0.5}, "no k carries most of Q: Q_1 = 0.500 is the largest, Q_1 = 0.500 the smallest (uniform: 0.500); Q = (0.500, 0.500)"},
		{[]float64{1}, "k = 1 carries most of Q (Q_1 = 1.000); Q = (1.000)"},
		{nil, "no context"},
	} {
		if got := describeQ(c.q); got != c.want {
			t.Errorf("describeQ(%v)\n got %s\nwant %s", c.q, got, c.want)
		}
	}
}
