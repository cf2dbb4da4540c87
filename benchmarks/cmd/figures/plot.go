package main

import (
	"context"
	"fmt"
	"image/color"
	"io"
	"math"

	"github.com/wys-project/wys/internal/atomicfile"
	"github.com/wys-project/wys/viz/qplot"
	"github.com/wys-project/wys/viz/tsne"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Figure sizes: inches at dpi dots per inch. PlotQ (q-<dataset>.png)
// keeps pipeline's own size, 6 x 3.5 in at gonum's 96 dpi.
const (
	dpi                = 100
	scatterW, scatterH = 8 * vg.Inch, 8 * vg.Inch   // 800 x 800 px
	seriesW, seriesH   = 8 * vg.Inch, 4.5 * vg.Inch // 800 x 450 px
	qPlotWPx, qPlotHPx = 576, 336                   // pipeline.PlotQ, in pixels
)

// palette is Tableau 10, a qualitative palette whose first colours stay
// distinct for the colour-blind.
var palette = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255},
	{188, 189, 34, 255}, {23, 190, 207, 255},
}

// unlabelled is the colour of points whose class is −1.
var unlabelled = color.RGBA{190, 190, 190, 255}

// savePNG draws p on a w x h canvas at dpi and writes it atomically.
func savePNG(path string, p *plot.Plot, w, h vg.Length) error {
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
	p.Draw(draw.New(c))
	return atomicfile.Write(path, func(out io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(out)
		return err
	})
}

// dot is a legend thumbnail: a filled circle larger than the scatter's
// points, so that the colours can be told apart.
type dot struct{ c color.Color }

func (d dot) Thumbnail(c *draw.Canvas) {
	mid := vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: (c.Min.Y + c.Max.Y) / 2}
	c.DrawGlyph(draw.GlyphStyle{Color: d.c, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}, mid)
}

// writeScatter draws the n x 2 points xy coloured by labels (class −1 is
// grey, "unlabelled"), with a legend naming class k names[k], and saves
// an 800 x 800 PNG.
func writeScatter(path, title string, xy *mat.Dense, labels []int, names []string) error {
	n, c := xy.Dims()
	if c != 2 || len(labels) != n {
		return fmt.Errorf("figures: scatter of %d x %d points with %d labels", n, c, len(labels))
	}
	classes := 0
	for _, l := range labels {
		classes = max(classes, l+1)
	}
	if classes > len(palette) {
		return fmt.Errorf("figures: %d classes, more than the palette's %d colours", classes, len(palette))
	}
	byClass := make([]plotter.XYs, classes+1) // last: unlabelled
	minX, maxX := math.Inf(1), math.Inf(-1)
	for i, l := range labels {
		if l < 0 {
			l = classes
		}
		x, y := xy.At(i, 0), xy.At(i, 1)
		byClass[l] = append(byClass[l], plotter.XY{X: x, Y: y})
		minX, maxX = math.Min(minX, x), math.Max(maxX, x)
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "t-SNE 1"
	p.Y.Label.Text = "t-SNE 2"
	// Unlabelled points first, underneath.
	order := append([]int{classes}, make([]int, classes)...)
	for k := range classes {
		order[k+1] = k
	}
	for _, k := range order {
		pts := byClass[k]
		if len(pts) == 0 {
			continue
		}
		col, name := unlabelled, "unlabelled"
		if k < classes {
			col = palette[k]
			name = fmt.Sprintf("class %d (%d)", k, len(pts))
			if k < len(names) && names[k] != "" {
				name = fmt.Sprintf("%s (%d)", names[k], len(pts))
			}
		}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return fmt.Errorf("figures: %w", err)
		}
		s.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}}
		p.Add(s)
		p.Legend.Add(name, dot{col})
	}
	// Room on the right for the legend.
	span := maxX - minX
	if !(span > 0) {
		span = 1
	}
	p.X.Min, p.X.Max = minX-0.02*span, maxX+0.32*span
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(11)
	return savePNG(path, p, scatterW, scatterH)
}

// writeTSNEScatter embeds the rows of x with t-SNE (cfg), draws them with
// writeScatter and returns the N x 2 embedding.
func writeTSNEScatter(ctx context.Context, path, title string, x *mat.Dense, labels []int, names []string, cfg tsne.Config) (*mat.Dense, error) {
	y, err := tsne.Embed(ctx, x, cfg)
	if err != nil {
		return nil, err
	}
	return y, writeScatter(path, title, y, labels, names)
}

// nnAgreement returns the fraction of labelled rows of x whose nearest
// other labelled row (Euclidean) has the same label; rows labelled −1 are
// left out. Cost O(N²·d).
func nnAgreement(x *mat.Dense, labels []int) float64 {
	n, _ := x.Dims()
	agree, total := 0, 0
	for i := range n {
		if labels[i] < 0 {
			continue
		}
		xi := x.RawRowView(i)
		best, bj := math.Inf(1), -1
		for j := range n {
			if j == i || labels[j] < 0 {
				continue
			}
			var d float64
			for k, v := range x.RawRowView(j) {
				t := xi[k] - v
				d += t * t
			}
			if d < best {
				best, bj = d, j
			}
		}
		if bj >= 0 {
			total++
			if labels[bj] == labels[i] {
				agree++
			}
		}
	}
	if total == 0 {
		return math.NaN()
	}
	return float64(agree) / float64(total)
}

// qSeries is one learned context distribution of a multi-series chart.
type qSeries struct {
	Name string
	Q    []float64
}

// markers cycle through glyph shapes so that the series differ in more
// than colour.
var markers = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.CrossGlyph{}}

// writeQSeries draws several learned Q over k = 1..C as lines with markers
// on a log scale (Figure 2b of the paper) and saves an 800 x 450 PNG.
func writeQSeries(path, title string, series []qSeries) error {
	if len(series) == 0 {
		return fmt.Errorf("figures: %s: no series to draw", path)
	}
	if len(series) > len(palette) {
		return fmt.Errorf("figures: %s: %d series, more than the palette's %d colours", path, len(series), len(palette))
	}
	c := len(series[0].Q)
	floor := math.Inf(1)
	for _, s := range series {
		if len(s.Q) != c || c == 0 {
			return fmt.Errorf("figures: %s: series %q has %d entries, want %d (> 0)", path, s.Name, len(s.Q), c)
		}
		for _, q := range s.Q {
			if !(q > 0) || q > 1 {
				return fmt.Errorf("figures: %s: series %q has Q entry %v outside (0, 1]", path, s.Name, q)
			}
			floor = math.Min(floor, q)
		}
	}
	// The axis runs from the power of ten below the smallest entry to 1.
	floor = math.Pow(10, math.Floor(math.Log10(floor*0.99)))
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "k (power of the transition matrix)"
	p.Y.Label.Text = "Q_k (log scale)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = floor, 1
	p.X.Min, p.X.Max = 0.5, float64(c)+0.5
	ticks := make([]plot.Tick, c)
	for k := range c {
		ticks[k] = plot.Tick{Value: float64(k + 1), Label: fmt.Sprint(k + 1)}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Add(plotter.NewGrid())
	for i, s := range series {
		pts := make(plotter.XYs, c)
		for k, q := range s.Q {
			pts[k] = plotter.XY{X: float64(k + 1), Y: q}
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return fmt.Errorf("figures: %w", err)
		}
		l.LineStyle.Color = palette[i]
		l.LineStyle.Width = vg.Points(1.5)
		sc.GlyphStyle = draw.GlyphStyle{Color: palette[i], Radius: vg.Points(3.5), Shape: markers[i%len(markers)]}
		p.Add(l, sc)
		p.Legend.Add(s.Name, l, sc)
	}
	p.Legend.Top = true
	return savePNG(path, p, seriesW, seriesH)
}

// writeQ draws one learned Q as bars (Figure 2a of the paper) with
// pipeline.PlotQ: a 576 x 336 PNG.
func writeQ(path, title string, q []float64) error {
	return qplot.Draw(path, title, q, nil)
}
