package main

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/wys-project/wys/benchmarks"
)

// plotF1 draws Macro-F1 (solid) and Micro-F1 (dashed) against the
// training ratio, one colour per method, and the published Macro-F1 at
// 50% as crosses, to path as a PNG.
func plotF1(path, name string, rows []row, pub []struct {
	method string
	macro  float64
}) error {
	p := plot.New()
	p.Title.Text = name + ": multi-label classification, mean over splits"
	p.X.Label.Text = "labelled nodes used for training (%)"
	p.Y.Label.Text = "F1 (solid Macro, dashed Micro)"
	p.Y.Min = 0
	p.Legend.Top = true
	p.Legend.Left = true
	// The legend (one line per method and published number, about 4.5%
	// of the height each) goes above the highest point.
	top := 0.0
	for _, r := range rows {
		for _, s := range r.res.Ratios {
			top = max(top, s.MicroMean, s.MacroMean)
		}
	}
	for _, q := range pub {
		top = max(top, q.macro)
	}
	entries := float64(len(rows) + len(pub))
	p.Y.Max = top / (1 - min(0.6, 0.045*entries))
	for i, r := range rows {
		col := benchmarks.Palette[i%len(benchmarks.Palette)]
		for _, micro := range []bool{false, true} {
			xy := make(plotter.XYs, 0, len(r.res.Ratios))
			for _, s := range r.res.Ratios {
				v := s.MacroMean
				if micro {
					v = s.MicroMean
				}
				xy = append(xy, plotter.XY{X: 100 * s.Ratio, Y: v})
			}
			line, points, err := plotter.NewLinePoints(xy)
			if err != nil {
				return err
			}
			line.Color, points.Color = col, col
			points.Shape, points.Radius = draw.CircleGlyph{}, vg.Points(2)
			if micro {
				line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			} else {
				p.Legend.Add(r.name, line, points)
			}
			p.Add(line, points)
		}
	}
	for i, q := range pub {
		s, err := plotter.NewScatter(plotter.XYs{{X: 50, Y: q.macro}})
		if err != nil {
			return err
		}
		s.Shape, s.Radius = draw.CrossGlyph{}, vg.Points(5)
		s.Color = benchmarks.Palette[(len(rows)+i)%len(benchmarks.Palette)]
		p.Add(s)
		p.Legend.Add(q.method+", Macro at 50%", s)
	}
	p.Add(plotter.NewGrid())
	return benchmarks.SavePNG(path, p, 7*vg.Inch, 5.5*vg.Inch)
}
