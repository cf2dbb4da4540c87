package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/eval"
)

// sklearnOut is what benchmarks/sklearn/multilabel.py prints.
type sklearnOut struct {
	Version string `json:"sklearn"`
	Splits  []struct {
		Micro float64 `json:"micro"`
		Macro float64 `json:"macro"`
	} `json:"splits"`
}

// checkPython fails, before any work, when -python cannot run gensim
// DeepWalk (with -methods gensim) or the -sklearn script.
func checkPython(ctx context.Context, h *benchmarks.Harness, o *options) error {
	if err := o.gensim.CheckMethods(ctx, h, o.methods); err != nil {
		return err
	}
	if o.sklearn == "" {
		return nil
	}
	if _, err := os.Stat(o.sklearn); err != nil {
		return fmt.Errorf("-sklearn %s: %w (run from the repository's root, or give the script's path)", o.sklearn, err)
	}
	return benchmarks.CheckPython(ctx, "-python", o.gensim.Python, benchmarks.NumPy, benchmarks.Sklearn)
}

// compareSklearn scores x with scikit-learn on the same splits and returns
// a note with the largest differences from m, per ratio (the means) and
// per split.
func compareSklearn(ctx context.Context, o *options, x []float64, n, f int, lab *pipeline.MultiLabels, splits []eval.LabelSplit, m *eval.MultiLabelResult) (string, error) {
	dir, err := os.MkdirTemp("", "wys-multilabel-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	if err := eval.ExportMultiLabel(dir, x, n, f, lab, splits); err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, o.gensim.Python, o.sklearn, dir, "--C", fmt.Sprint(o.c))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.WaitDelay = benchmarks.WaitDelay
	text, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("scikit-learn: %s: %v: %s", o.sklearn, err, benchmarks.LastLine(stderr.String()))
	}
	var out sklearnOut
	if err := json.Unmarshal(text, &out); err != nil {
		return "", fmt.Errorf("scikit-learn: %v", err)
	}
	if len(out.Splits) != len(splits) {
		return "", fmt.Errorf("scikit-learn scored %d splits, want %d", len(out.Splits), len(splits))
	}
	var meanDiff, splitDiff float64
	k := 0
	for _, r := range m.Ratios {
		var micro, macro []float64
		for s := range r.Micro {
			w := out.Splits[k]
			k++
			micro, macro = append(micro, w.Micro), append(macro, w.Macro)
			splitDiff = max(splitDiff, math.Abs(r.Micro[s]-w.Micro), math.Abs(r.Macro[s]-w.Macro))
		}
		mi, _ := eval.MeanStd(micro)
		ma, _ := eval.MeanStd(macro)
		meanDiff = max(meanDiff, math.Abs(r.MicroMean-mi), math.Abs(r.MacroMean-ma))
	}
	return fmt.Sprintf("scikit-learn %s on the same features and splits (OneVsRestClassifier(LogisticRegression(C=%g)), top-k; benchmarks/sklearn/multilabel.py): largest difference of a mean F1 per ratio %.4f, of one split's F1 %.4f.",
		out.Version, o.c, meanDiff, splitDiff), nil
}
