package eval

import (
	"math"
	"slices"

	"github.com/wys-project/wys/pipeline"
)

// predictTopK returns, for each row of test, the labels of its k highest
// scores w_l·x + b_l (constant[l] for a label without params), k being the
// row's true number of labels; equal scores go to the smaller label. The
// ranking by margin is the ranking by probability σ(margin) that
// scikit-learn's predict_proba gives.
func predictTopK(x []float64, f int, lab *pipeline.MultiLabels, test []int, params [][]float64, constant []float64) [][]int32 {
	pred := make([][]int32, len(test))
	score := make([]float64, lab.Count)
	order := make([]int32, lab.Count)
	for i, v := range test {
		row := x[v*f : (v+1)*f]
		for l, p := range params {
			if p == nil {
				score[l] = constant[l]
				continue
			}
			s := p[f]
			for j, xv := range row {
				s += p[j] * xv
			}
			score[l] = s
		}
		pred[i] = topK(order, score, len(lab.Of[v]))
	}
	return pred
}

// topK returns the indices of the k largest scores in increasing order of
// index; equal scores go to the smaller index. order is work space of
// len(score).
func topK(order []int32, score []float64, k int) []int32 {
	for l := range order {
		order[l] = int32(l)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		sa, sb := score[a], score[b]
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	top := slices.Clone(order[:k])
	slices.Sort(top)
	return top
}

// f1Scores returns Micro- and Macro-F1 of pred against the true labels of
// the test rows, over all lab.Count labels as scikit-learn's
// f1_score(average='micro'|'macro') on indicator matrices: micro is
// 2·TP/(2·TP + FP + FN) pooled over labels, macro the plain mean of the
// per-label 2·tp/(2·tp + fp + fn), a label with no true and no predicted
// test row counting 0 (scikit-learn's zero_division default), or, with
// present, the mean over the labels true or predicted in some test row
// only (f1_score on class vectors, whose labels are those of y_true and
// y_pred).
func f1Scores(lab *pipeline.MultiLabels, test []int, pred [][]int32, present bool) (micro, macro float64) {
	tp := make([]int, lab.Count)
	fp := make([]int, lab.Count)
	fn := make([]int, lab.Count)
	for i, v := range test {
		truth := lab.Of[v]
		for _, l := range pred[i] {
			if _, ok := slices.BinarySearch(truth, l); ok {
				tp[l]++
			} else {
				fp[l]++
			}
		}
		for _, l := range truth {
			if _, ok := slices.BinarySearch(pred[i], l); !ok {
				fn[l]++
			}
		}
	}
	var TP, FP, FN int
	labels := lab.Count
	if present {
		labels = 0
	}
	for l := range tp {
		TP, FP, FN = TP+tp[l], FP+fp[l], FN+fn[l]
		if d := 2*tp[l] + fp[l] + fn[l]; d > 0 {
			macro += 2 * float64(tp[l]) / float64(d)
			if present {
				labels++
			}
		}
	}
	macro /= float64(labels)
	if d := 2*TP + FP + FN; d > 0 {
		micro = 2 * float64(TP) / float64(d)
	}
	if math.IsNaN(macro) {
		macro = 0
	}
	return micro, macro
}
