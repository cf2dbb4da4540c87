package qplot

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func TestPlotQ(t *testing.T) {
	dir := t.TempDir()
	q := []float64{0.5, 0.3, 0.15, 0.04, 0.01, 0, 1e-4} // a zero bar is left out, not log(0)
	pngPath := filepath.Join(dir, "q.png")
	if err := Draw(pngPath, "test graph", q, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if sz := img.Bounds().Size(); sz != (image.Point{576, 336}) {
		t.Errorf("PNG is %v, want 576x336 (6 x 3.5 in at 96 dpi)", sz)
	}
	// The bars are drawn: some pixels have the bar colour.
	bars := 0
	for y := 0; y < 336; y++ {
		for x := 0; x < 576; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 == 52 && g>>8 == 101 && bl>>8 == 164 {
				bars++
			}
		}
	}
	if bars < 1000 {
		t.Errorf("%d bar-coloured pixels, want the bars drawn", bars)
	}

	svgPath := filepath.Join(dir, "q.SVG")
	if err := Draw(svgPath, "test graph", q, nil); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(svgPath)
	if !bytes.Contains(b, []byte("<svg")) || !bytes.Contains(b, []byte("test graph")) {
		t.Errorf("SVG lacks the drawing or its title: %.200s", b)
	}
	// Q concentrated on one power, or on k = 1 only (C = 1), still draws.
	for i, q := range [][]float64{{1, 0, 0}, {1}, {0.01, 0.99}} {
		if err := Draw(filepath.Join(dir, "edge.svg"), "g", q, nil); err != nil {
			t.Errorf("case %d %v: %v", i, q, err)
		}
	}
	os.Remove(filepath.Join(dir, "edge.svg"))
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("directory holds %d files, want 2 (no temporary files)", len(entries))
	}
}

func TestPlotQErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		path, want string
		q          []float64
	}{
		{"q.jpg", "use a .png or .svg", []float64{1}},
		{"q.png", "no context distribution", nil},
		{filepath.Join("absent", "q.png"), "cannot write", []float64{1}},
		{"zero.png", "no positive entry", []float64{0, 0}},
		{"nan.png", "Q_2 = NaN is not a probability", []float64{0.5, math.NaN(), 0.5}},
		{"logits.png", "Q_4 = -1 is not a probability", []float64{0.3, 0.2, 0.5, -1}},
		{"big.png", "Q_1 = 3 is not a probability", []float64{3, 2, 0.5}},
		{"inf.png", "Q_1 = +Inf is not a probability", []float64{math.Inf(1)}},
		{"sum.png", "Q sums to 0.5, not 1", []float64{0.25, 0.25}},
	} {
		err := Draw(filepath.Join(dir, c.path), "g", c.q, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.path, err, c.want)
		}
	}
}

// TestTickLabels: the powers keep their numbers, short names are upper
// case, long names become initials explained in the axis legend.
func TestTickLabels(t *testing.T) {
	labels, legend := tickLabels(make([]float64, 4), []string{"1", "2", "ppr", "adamic-adar"})
	if want := []string{"1", "2", "PPR", "AA"}; !slices.Equal(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
	if want := []string{"AA: adamic-adar"}; !slices.Equal(legend, want) {
		t.Errorf("legend %q, want %q", legend, want)
	}
	if labels, legend := tickLabels(make([]float64, 3), nil); !slices.Equal(labels, []string{"1", "2", "3"}) || legend != nil {
		t.Errorf("no names: labels %q, legend %q", labels, legend)
	}
}

// TestYTicks: the labels of the Q axis, one decade (every Q_k above 0.1)
// or three: every power of ten is labelled, and over one decade 0.2 and
// 0.5 as well (LogTicks alone labels only 1 there).
func TestYTicks(t *testing.T) {
	labels := func(floor float64) []string {
		var out []string
		for _, tk := range yTicks(floor).Ticks(floor, 1) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	if got, want := labels(0.1), []string{"0.1", "0.2", "0.5", "1"}; !slices.Equal(got, want) {
		t.Errorf("one decade: labels %q, want %q", got, want)
	}
	if got := labels(0.001); !slices.Contains(got, "0.001") || !slices.Contains(got, "0.01") || !slices.Contains(got, "0.1") || !slices.Contains(got, "1") {
		t.Errorf("three decades: labels %q, want every power of ten", got)
	}
}

// TestAxisTicks: up to 20 bars each is labelled; beyond, the first and
// last powers and those at a round step, at most about ten, and the
// extra contexts' names go to the axis title instead of under bars too
// narrow for them.
func TestAxisTicks(t *testing.T) {
	powers := func(c int, extra ...string) []string {
		l := make([]string, c)
		for k := range l {
			l[k] = fmt.Sprint(k + 1)
		}
		return append(l, extra...)
	}
	label := func(ticks []plot.Tick) string {
		var s []string
		for _, tk := range ticks {
			s = append(s, tk.Label)
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct {
		labels     []string
		want, rest string
	}{
		{powers(10, "AA"), "1 2 3 4 5 6 7 8 9 10 AA", ""},
		{powers(25), "1 5 10 15 20 25", ""},
		{powers(1000), "1 100 200 300 400 500 600 700 800 900 1000", ""},
		{powers(1000, "PPR", "AA"), "1 100 200 300 400 500 600 700 800 900 1000", "PPR AA"},
		{powers(21), "1 5 10 15 21", ""},
	} {
		ticks, rest := axisTicks(c.labels)
		if got := label(ticks); got != c.want || strings.Join(rest, " ") != c.rest {
			t.Errorf("%d bars: ticks %q, rest %q; want %q and %q", len(c.labels), got, rest, c.want, c.rest)
		}
	}
}
