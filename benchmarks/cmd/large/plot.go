package main

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/wys-project/wys/benchmarks"
)

// plotCurves draws test AUC (points) against seconds, one line per curve,
// to path as a PNG.
func plotCurves(path, title string, curves []curve) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "seconds from the training graph"
	p.Y.Label.Text = "test ROC-AUC (points)"
	p.X.Min = 0
	p.Legend.Top = true
	p.Legend.XOffs = -10
	for i, c := range curves {
		xy := make(plotter.XYs, 0, len(c.points)+1)
		for _, pt := range c.points {
			xy = append(xy, plotter.XY{X: pt.seconds, Y: 100 * pt.auc})
		}
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		col := benchmarks.Palette[i%len(benchmarks.Palette)]
		line.Color, points.Color = col, col
		points.Shape = draw.CircleGlyph{}
		points.Radius = vg.Points(2)
		p.Add(line, points)
		p.Legend.Add(c.name, line, points)
	}
	p.Add(plotter.NewGrid())
	return benchmarks.SavePNG(path, p, 7*vg.Inch, 4.5*vg.Inch)
}
