// Package qplot draws learned context distributions Q as in Figure 2a of
// the Watch Your Step paper. It is the only package of the library that
// depends on gonum/plot and its fonts, so that importing a trainer does not
// pull them in.
package qplot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/wys-project/wys/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// tickLabels returns the label of each bar (1..len(q), or names) and, for
// a name, its upper case ("ppr" is "PPR"), or, when longer than three
// letters and so too long to sit under a bar, the upper-case initials of
// its hyphenated parts ("adamic-adar" is "AA") with an entry in the axis
// legend ("AA: adamic-adar").
func tickLabels(q []float64, names []string) (labels, legend []string) {
	labels = make([]string, len(q))
	for k := range q {
		labels[k] = fmt.Sprint(k + 1)
		if names == nil || names[k] == labels[k] {
			continue
		}
		labels[k] = strings.ToUpper(names[k])
		if len(names[k]) <= 3 {
			continue
		}
		short := ""
		for _, part := range strings.Split(names[k], "-") {
			if part != "" {
				short += strings.ToUpper(part[:1])
			}
		}
		labels[k] = short
		legend = append(legend, short+": "+names[k])
	}
	return labels, legend
}

// Draw draws the learned context distribution as bars over k on a log
// scale, like Figure 2a of the paper, and saves it atomically as PNG or SVG
// (by the file extension). title names the graph; names labels each bar
// (pipeline.ObjectiveConfig.ContextNames: the powers, then the extra
// context types), and nil labels the bars 1..len(q).
func Draw(path, title string, q []float64, names []string) error {
	return DrawTitled(path, "Learned context distribution Q — "+title, q, names)
}

// DrawTitled is Draw with the whole title given: a fixed Q (-fixed-q) is
// not a learned one.
func DrawTitled(path, title string, q []float64, names []string) error {
	if names != nil && len(names) != len(q) {
		return fmt.Errorf("qplot: %s: %d names for %d entries of Q", path, len(names), len(q))
	}
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	if ext != "png" && ext != "svg" {
		return fmt.Errorf("qplot: %s: use a .png or .svg file name", path)
	}
	if len(q) == 0 {
		return fmt.Errorf("qplot: %s: no context distribution to draw", path)
	}
	if err := checkQ(q); err != nil {
		return fmt.Errorf("qplot: %s: %w", path, err)
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "k (power of the transition matrix)"
	labels, legend := tickLabels(q, names)
	if len(legend) > 0 {
		p.X.Label.Text = "context (k: power of the transition matrix; " + strings.Join(legend, ", ") + ")"
	}
	p.Y.Label.Text = "Q_k (log scale)"
	p.Y.Scale = plot.LogScale{}
	floor := math.Inf(1)
	for _, x := range q {
		if x > 0 {
			floor = math.Min(floor, x)
		}
	}
	// The axis starts at the power of ten strictly below the smallest bar
	// (so that every bar has a visible height, and Q = [1] still has an
	// axis), but not below 1e-8.
	floor = math.Max(1e-8, math.Pow(10, math.Floor(math.Log10(floor*0.99))))
	for k, x := range q {
		if !(x > floor) {
			continue
		}
		bar, err := plotter.NewLine(plotter.XYs{{X: float64(k + 1), Y: floor}, {X: float64(k + 1), Y: x}})
		if err != nil {
			return err
		}
		bar.LineStyle.Width = vg.Points(min(14, 260/float64(len(q)))) // many bars (-C 1000) may not overlap
		bar.LineStyle.Color = color.RGBA{R: 52, G: 101, B: 164, A: 255}
		p.Add(bar)
	}
	p.X.Min, p.X.Max = 0.3, float64(len(q))+0.7
	p.Y.Min, p.Y.Max = floor, 1
	p.Y.Tick.Marker = yTicks(floor)
	ticks, unlabelled := axisTicks(labels)
	if len(unlabelled) > 0 {
		p.X.Label.Text += fmt.Sprintf("; the last %d bars: %s", len(unlabelled), strings.Join(unlabelled, ", "))
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	wt, err := p.WriterTo(6*vg.Inch, 3.5*vg.Inch, ext)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := wt.WriteTo(w)
		return err
	})
}

// axisTicks returns the x-axis ticks of bars labelled labels (the powers
// "1".."C", then the extra contexts' names): every bar's up to 20 bars;
// beyond, the first and the last power and those at a round step (1, 2
// or 5 times a power of ten, for at most about ten labels), and no name,
// which it returns instead, in order, for the axis title (the bars are
// too narrow for names side by side).
func axisTicks(labels []string) (ticks []plot.Tick, unlabelled []string) {
	powers := 0
	for powers < len(labels) && labels[powers] == fmt.Sprint(powers+1) {
		powers++
	}
	if len(labels) <= 20 {
		for k, l := range labels {
			ticks = append(ticks, plot.Tick{Value: float64(k + 1), Label: l})
		}
		return ticks, nil
	}
	step := 1
	for _, m := range []int{1, 2, 5, 10, 20, 50, 100, 200, 500} {
		if step = m; (powers+m-1)/m <= 10 {
			break
		}
	}
	for k := 1; k <= powers; k++ {
		if k == 1 || k == powers || (k%step == 0 && powers-k >= step/2) { // no number crowding the last
			ticks = append(ticks, plot.Tick{Value: float64(k), Label: labels[k-1]})
		}
	}
	return ticks, labels[powers:]
}

// checkQ returns an error when q is not a distribution: an entry that is
// not a number in [0, 1] (logits, say, or a NaN of a diverged run), or
// entries that do not sum to 1 within 10⁻³.
func checkQ(q []float64) error {
	sum := 0.0
	for k, x := range q {
		if !(x >= 0 && x <= 1) {
			return fmt.Errorf("Q_%d = %v is not a probability (Q = softmax(q) has entries in [0, 1] summing to 1; draw Q, not its logits q)", k+1, x)
		}
		sum += x
	}
	if sum == 0 {
		return fmt.Errorf("Q has no positive entry")
	}
	if math.Abs(sum-1) > 1e-3 {
		return fmt.Errorf("Q sums to %.6g, not 1 (Q = softmax(q); draw Q, not its logits q)", sum)
	}
	return nil
}

// yTicks returns the ticks of a log axis from floor to 1: LogTicks, except
// over one decade (floor 0.1), where they would label only its top, so
// 0.1, 0.2, 0.5 and 1 are labelled.
func yTicks(floor float64) plot.Ticker {
	if floor < 0.1 {
		return plot.LogTicks{Prec: -1}
	}
	return plot.ConstantTicks([]plot.Tick{{Value: 0.1, Label: "0.1"}, {Value: 0.2, Label: "0.2"},
		{Value: 0.3}, {Value: 0.4}, {Value: 0.5, Label: "0.5"}, {Value: 0.6}, {Value: 0.7}, {Value: 0.8}, {Value: 0.9}, {Value: 1, Label: "1"}})
}
