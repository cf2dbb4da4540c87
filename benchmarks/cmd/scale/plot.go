package main

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/wys-project/wys/benchmarks"
)

// Plot size in inches at plotDPI: plotW x plotH pixels.
const (
	plotDPI = 96
	plotW   = 7 * plotDPI
	plotH   = 4.5 * plotDPI
)

var palette = []color.RGBA{
	{R: 52, G: 101, B: 164, A: 255}, {R: 204, G: 0, B: 0, A: 255}, {R: 78, G: 154, B: 6, A: 255},
	{R: 245, G: 121, B: 0, A: 255}, {R: 117, G: 80, B: 123, A: 255}, {R: 85, G: 87, B: 83, A: 255},
}

// series is one line of a log-log plot; points with y <= 0 are skipped.
type series struct {
	name string
	y    func(row) float64
}

// plotScaling writes prefix-time.png (seconds per stage against nodes)
// and prefix-memory.png (peak RSS, the sparse estimate and the dense
// reference's need, in GiB), both log-log.
func plotScaling(prefix string, rows []row) error {
	err := logLog(prefix+"-time.png", "R-MAT scaling: time per stage", "seconds", rows, []series{
		{"generate", func(r row) float64 { return r.GenSeconds }},
		{"load (parse edge list)", func(r row) float64 { return r.LoadSeconds }},
		{"split", func(r row) float64 { return r.SplitSeconds }},
		{"factorize", func(r row) float64 { return r.FactorSecs }},
		{"one epoch", func(r row) float64 { return r.EpochSeconds }},
		{"evaluate", func(r row) float64 { return r.EvalSeconds }},
	})
	if err != nil {
		return err
	}
	gib := func(b int64) float64 { return float64(b) / (1 << 30) }
	return logLog(prefix+"-memory.png", "R-MAT scaling: memory", "GiB", rows, []series{
		{"peak RSS (sparse)", func(r row) float64 { return gib(r.PeakRSS) }},
		{"sparse estimate", func(r row) float64 { return gib(r.Estimated) }},
		{"dense reference need", func(r row) float64 { return gib(r.DenseBytes) }},
	})
}

func logLog(path, title, ylabel string, rows []row, ss []series) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "nodes"
	p.Y.Label.Text = ylabel + " (log scale)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	for i, s := range ss {
		var xy plotter.XYs
		for _, r := range rows {
			if y := s.y(r); y > 0 && r.Nodes > 0 {
				xy = append(xy, plotter.XY{X: float64(r.Nodes), Y: y})
			}
		}
		if len(xy) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		c := palette[i%len(palette)]
		line.Color, points.Color = c, c
		points.Shape = draw.CircleGlyph{}
		p.Add(line, points)
		p.Legend.Add(s.name, line, points)
	}
	return benchmarks.SavePNG(path, p, vg.Length(plotW)*vg.Inch/plotDPI, vg.Length(plotH)*vg.Inch/plotDPI)
}
