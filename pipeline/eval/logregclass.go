package eval

import (
	"context"
	"fmt"
	"slices"

	"github.com/wys-project/wys/pipeline"
)

// LogRegClassifyResult is node classification of a fixed split (Planetoid's,
// say) by logistic regression on node features.
type LogRegClassifyResult struct {
	Train    int     `json:"train"`    // rows fitted on
	Test     int     `json:"test"`     // rows scored
	Classes  int     `json:"classes"`  // classes fitted: those of some labelled row
	Features int     `json:"features"` // columns of the feature matrix
	C        float64 `json:"c"`        // the logistic regression's C
	// TestAccuracy is the share of test rows whose predicted class is
	// theirs; TestMacroF1 the mean of each class's F1 on the test rows
	// over the classes true or predicted there (scikit-learn's f1_score,
	// average="macro", on class vectors).
	TestAccuracy float64 `json:"test_accuracy"`
	TestMacroF1  float64 `json:"test_macro_f1"`
	// NotConverged counts the binary fits that hit LogRegConfig.MaxIter.
	NotConverged int `json:"not_converged"`
}

// ClassifyLogReg classifies the test rows of lab by one-vs-rest
// logistic regression fitted on its train rows (the validation rows are
// not used): one binary fit per class, as MultiLabel makes them, and each
// test row gets the class of highest score (ties go to the smaller
// class). This is scikit-learn's OneVsRestClassifier(LogisticRegression)
// and the protocol most papers use to compare embeddings on Planetoid
// splits; the paper's own rule is Classify.
//
// Classes are fitted in increasing order of their numbers, those of no
// labelled row left out: class numbers 1..K or with gaps give the scores
// of 0..K−1.
//
// x is a dense row-major n × f feature matrix (see Features); it is not
// modified. The result depends on the inputs only, not on cfg.Workers.
func ClassifyLogReg(ctx context.Context, x []float64, n, f int, lab *pipeline.Labels, cfg MultiLabelConfig) (*LogRegClassifyResult, error) {
	if len(lab.Class) != n {
		return nil, fmt.Errorf("eval: classes for %d nodes, features for %d", len(lab.Class), n)
	}
	if len(lab.Train) == 0 || len(lab.Test) == 0 {
		return nil, fmt.Errorf("eval: classification needs train and test nodes")
	}
	var classes []int // those of some labelled row, increasing
	for _, c := range lab.Class {
		if c >= 0 {
			classes = append(classes, c)
		}
	}
	slices.Sort(classes)
	classes = slices.Compact(classes)
	multi := &pipeline.MultiLabels{Of: make([][]int32, n), Count: len(classes)}
	for i, c := range lab.Class {
		if c >= 0 {
			k, _ := slices.BinarySearch(classes, c)
			multi.Of[i] = []int32{int32(k)}
		}
	}
	cfg.presentMacro = true
	sp := LabelSplit{Ratio: float64(len(lab.Train)) / float64(len(lab.Train)+len(lab.Test)), Train: lab.Train, Test: lab.Test}
	res, err := MultiLabel(ctx, x, n, f, multi, []LabelSplit{sp}, cfg)
	if err != nil {
		return nil, err
	}
	// Every test row has one class and gets one prediction, so precision
	// and recall over all predictions are both the accuracy, and so is
	// their harmonic mean, the Micro-F1.
	r := res.Ratios[0]
	return &LogRegClassifyResult{Train: len(lab.Train), Test: len(lab.Test), Classes: len(classes), Features: f,
		C: res.C, TestAccuracy: r.Micro[0], TestMacroF1: r.Macro[0], NotConverged: res.NotConverged}, nil
}
