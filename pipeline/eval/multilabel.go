package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// MultiLabelRatios are the training shares of the DeepWalk/node2vec
// protocol: 10%, 20%, …, 90% of the labelled nodes.
var MultiLabelRatios = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}

// streamSplit is the random stream purpose of the multi-label splits.
const streamSplit uint64 = 0x6d6c7370 // "mlsp"

// LabelSplit is one random split of the labelled rows.
type LabelSplit struct {
	Ratio  float64 // the training share it was drawn for
	Repeat int     // 0-based index among the splits of its ratio
	// Train and Test are disjoint lists of rows, in shuffled order.
	Train, Test []int
}

// MultiLabelSplits draws repeats random splits of rows for each ratio:
// a shuffle of rows, the first int(ratio·len(rows)) of it for training
// (DeepWalk's scoring.py truncates the same way) and the rest for testing.
// Split s of a ratio comes from the stream (seed, "mlsp", splitStream(ratio,
// s)), so a ratio's splits depend on the seed and the ratio only: asking
// for 50% alone, or with fewer repeats, gives the same splits (the first
// ones) as the whole 10%…90% protocol. rows is not modified.
func MultiLabelSplits(rows []int, ratios []float64, repeats int, seed uint64) ([]LabelSplit, error) {
	if repeats < 1 || repeats > maxRepeats {
		return nil, fmt.Errorf("eval: %d repeats per ratio; want 1 to %d", repeats, maxRepeats)
	}
	var out []LabelSplit
	for i, ratio := range ratios {
		if slices.Contains(ratios[:i], ratio) {
			return nil, fmt.Errorf("eval: training ratio %v listed twice (its splits would be drawn twice, the same; more splits: repeats)", ratio)
		}
		nTrain := int(ratio * float64(len(rows)))
		if !(ratio > 0 && ratio < 1) || nTrain < 1 || nTrain >= len(rows) {
			return nil, fmt.Errorf("eval: training ratio %v of %d labelled nodes leaves an empty train or test set", ratio, len(rows))
		}
		for s := range repeats {
			perm := slices.Clone(rows)
			rng := pipeline.Stream(seed, streamSplit, splitStream(ratio, s))
			rng.Shuffle(len(perm), func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
			out = append(out, LabelSplit{Ratio: ratio, Repeat: s, Train: perm[:nTrain], Test: perm[nTrain:]})
		}
	}
	return out, nil
}

// maxRepeats bounds the splits per ratio, so that splitStream's ids stay
// distinct.
const maxRepeats = 1 << 20

// splitStream is the stream id of split s of a training ratio in (0, 1):
// the ratio in millionths above s. Ratios closer than a millionth share
// their splits.
func splitStream(ratio float64, s int) uint64 {
	return uint64(math.Round(ratio*1e6))<<20 | uint64(s)
}

// MultiLabelConfig sets up MultiLabel. The zero value means the defaults.
type MultiLabelConfig struct {
	LogReg LogRegConfig
	// Workers fits labels in parallel; 0 means GOMAXPROCS. The result does
	// not depend on it.
	Workers int
	// presentMacro averages the Macro-F1 over the labels true or
	// predicted in a test set only, as scikit-learn's f1_score does on
	// class vectors (ClassifyLogReg), rather than over all lab.Count.
	presentMacro bool
}

// MultiLabelResult is the Micro- and Macro-F1 of the protocol per
// training ratio.
type MultiLabelResult struct {
	Nodes    int     `json:"nodes"`    // labelled rows
	Labels   int     `json:"labels"`   // label count
	Features int     `json:"features"` // columns of the feature matrix
	C        float64 `json:"c"`        // the logistic regression's C
	// Ratios holds one entry per training ratio, in the order of the splits.
	Ratios []RatioF1 `json:"ratios"`
	// NotConverged counts the binary fits that hit LogRegConfig.MaxIter
	// (their parameters are used, as scikit-learn does).
	NotConverged int `json:"not_converged"`
}

// RatioF1 holds the scores of every split of one training ratio.
type RatioF1 struct {
	Ratio float64 `json:"ratio"`
	// Micro and Macro hold one F1 per split; the means and the sample
	// standard deviations summarise them.
	Micro     []float64 `json:"micro"`
	Macro     []float64 `json:"macro"`
	MicroMean float64   `json:"micro_mean"`
	MicroStd  float64   `json:"micro_std"`
	MacroMean float64   `json:"macro_mean"`
	MacroStd  float64   `json:"macro_std"`
}

// At returns the scores of the given training ratio, or nil.
func (r *MultiLabelResult) At(ratio float64) *RatioF1 {
	for i := range r.Ratios {
		if math.Abs(r.Ratios[i].Ratio-ratio) < 1e-9 {
			return &r.Ratios[i]
		}
	}
	return nil
}

// Table formats the result as a Markdown table: one row per ratio with
// Micro- and Macro-F1 as mean ± standard deviation over the splits (the
// value alone for a single split).
func (r *MultiLabelResult) Table() string {
	var b strings.Builder
	b.WriteString("| labelled nodes for training | Micro-F1 | Macro-F1 |\n|---|---|---|\n")
	for _, s := range r.Ratios {
		if len(s.Micro) == 1 { // one split: no spread to give
			fmt.Fprintf(&b, "| %s | %.4f | %.4f |\n", Percent(s.Ratio), s.MicroMean, s.MacroMean)
			continue
		}
		fmt.Fprintf(&b, "| %s | %.4f ± %.4f | %.4f ± %.4f |\n", Percent(s.Ratio), s.MicroMean, s.MicroStd, s.MacroMean, s.MacroStd)
	}
	return b.String()
}

// MultiLabel scores features on multi-label node classification with the
// DeepWalk/node2vec protocol: for each split, one-vs-rest L2-regularised
// logistic regression (scikit-learn's LogisticRegression objective, see
// LogRegConfig) fitted per label on the training rows, then each test row
// gets the k labels of highest score where k is its true number of labels
// (ties go to the smaller label), and Micro- and Macro-F1 are computed
// over all lab.Count labels as scikit-learn's f1_score does (a label
// never true nor predicted in a test set counts as F1 = 0 in the macro
// average). A label that is constant on the training rows gets a constant
// prediction, as OneVsRestClassifier does.
//
// x is a dense row-major n × f feature matrix (see Features); it is not
// modified. Labels are fitted in parallel; the result depends on the
// inputs only. It checks ctx between labels and after every evaluation
// of a fit's objective.
func MultiLabel(ctx context.Context, x []float64, n, f int, lab *pipeline.MultiLabels, splits []LabelSplit, cfg MultiLabelConfig) (*MultiLabelResult, error) {
	lr := cfg.LogReg.resolve()
	if err := lr.validate(); err != nil {
		return nil, err
	}
	if len(x) != n*f || f < 1 {
		return nil, fmt.Errorf("eval: feature matrix of %d values for %d x %d", len(x), n, f)
	}
	if lab == nil {
		return nil, errors.New("eval: no labels (nil; graphio.LoadMAT returns none for a .mat without a group)")
	}
	if len(lab.Of) != n {
		return nil, fmt.Errorf("eval: labels for %d nodes, features for %d", len(lab.Of), n)
	}
	if err := checkSplits(lab, splits); err != nil {
		return nil, err
	}
	res := &MultiLabelResult{Nodes: len(lab.Labelled()), Labels: lab.Count, Features: f, C: lr.C}
	for _, sp := range splits {
		micro, macro, notConv, err := scoreSplit(ctx, x, f, lab, sp, lr, cfg)
		if err != nil {
			return nil, err
		}
		res.NotConverged += notConv
		if len(res.Ratios) == 0 || res.Ratios[len(res.Ratios)-1].Ratio != sp.Ratio {
			res.Ratios = append(res.Ratios, RatioF1{Ratio: sp.Ratio})
		}
		r := &res.Ratios[len(res.Ratios)-1]
		r.Micro, r.Macro = append(r.Micro, micro), append(r.Macro, macro)
	}
	for i := range res.Ratios {
		r := &res.Ratios[i]
		r.MicroMean, r.MicroStd = MeanStd(r.Micro)
		r.MacroMean, r.MacroStd = MeanStd(r.Macro)
	}
	return res, nil
}

// checkSplits reports a split with a row out of range, unlabelled, or in
// both of its sets.
func checkSplits(lab *pipeline.MultiLabels, splits []LabelSplit) error {
	if len(splits) == 0 {
		return errors.New("eval: no splits to score")
	}
	seen := make([]int, len(lab.Of))
	for i, sp := range splits {
		if len(sp.Train) == 0 || len(sp.Test) == 0 {
			return fmt.Errorf("eval: split %d has an empty train or test set", i)
		}
		for _, set := range [][]int{sp.Train, sp.Test} {
			for _, v := range set {
				if v < 0 || v >= len(lab.Of) || len(lab.Of[v]) == 0 {
					return fmt.Errorf("eval: split %d: row %d is not a labelled node", i, v)
				}
				if seen[v] == i+1 {
					return fmt.Errorf("eval: split %d: row %d is listed twice", i, v)
				}
				seen[v] = i + 1
			}
		}
	}
	for v, ls := range lab.Of {
		for _, l := range ls {
			if l < 0 || int(l) >= lab.Count {
				return fmt.Errorf("eval: row %d has label %d outside [0, %d)", v, l, lab.Count)
			}
		}
	}
	return nil
}

// MeanStd returns the mean and the sample standard deviation of xs (0 for
// one value, NaN for none).
func MeanStd(xs []float64) (mean, std float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, v := range xs {
		mean += v
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	for _, v := range xs {
		std += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(std / float64(len(xs)-1))
}

// scoreSplit fits every label on sp.Train and returns the Micro- and
// Macro-F1 of the top-k rule on sp.Test and the number of fits that did
// not converge.
func scoreSplit(ctx context.Context, x []float64, f int, lab *pipeline.MultiLabels, sp LabelSplit, lr LogRegConfig, cfg MultiLabelConfig) (micro, macro float64, notConv int, err error) {
	xt := gatherRows(x, f, sp.Train)
	has := make([]bool, len(sp.Train)*lab.Count) // has[i·Count + l]: train row i carries l
	for i, v := range sp.Train {
		for _, l := range lab.Of[v] {
			has[i*lab.Count+int(l)] = true
		}
	}
	params := make([][]float64, lab.Count) // [w | b] per label; nil: constant
	constant := make([]float64, lab.Count) // ±Inf for a constant label
	failed := make([]error, lab.Count)
	err = sparse.ParallelFor(ctx, lab.Count, cfg.Workers, func(l int) {
		y := make([]float64, len(sp.Train))
		pos := 0
		for i := range y {
			y[i] = -1
			if has[i*lab.Count+l] {
				y[i], pos = 1, pos+1
			}
		}
		switch pos {
		case 0:
			constant[l] = math.Inf(-1)
		case len(y):
			constant[l] = math.Inf(1)
		default:
			params[l], failed[l] = fitLogReg(ctx, newLogReg(xt, len(y), f, y, lr.C), lr)
		}
	})
	if err != nil {
		return 0, 0, 0, err
	}
	for l, e := range failed {
		switch {
		case errors.Is(e, errNotConverged):
			notConv++
		case e != nil:
			return 0, 0, 0, fmt.Errorf("%w (label %d, ratio %v, split %d)", e, l, sp.Ratio, sp.Repeat)
		}
	}
	pred := predictTopK(x, f, lab, sp.Test, params, constant)
	micro, macro = f1Scores(lab, sp.Test, pred, cfg.presentMacro)
	return micro, macro, notConv, nil
}

// gatherRows returns the rows of the row-major matrix x (f columns) in
// the given order, as a new matrix.
func gatherRows(x []float64, f int, rows []int) []float64 {
	out := make([]float64, 0, len(rows)*f)
	for _, v := range rows {
		out = append(out, x[v*f:(v+1)*f]...)
	}
	return out
}

// Percent writes a share as a percentage with as many digits as it needs,
// up to four: 0.1 is "10%", 0.9999 "99.99%" (not "100%").
func Percent(share float64) string {
	return strconv.FormatFloat(100*share, 'g', 4, 64) + "%"
}
