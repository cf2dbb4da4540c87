package eval

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/multilabel: the fixture, and scikit-learn's scores by benchmarks/sklearn/multilabel.py")

// fixtureDir holds a small multi-label problem and scikit-learn's scores
// on it: x.npy … ratio.npy written by ExportMultiLabel, sklearn.json by
// benchmarks/sklearn/multilabel.py (go test -run TestMultiLabelSklearn
// -update rewrites both; it needs /usr/bin/python3 with scikit-learn).
const fixtureDir = "testdata/multilabel"

// sklearnScores is what multilabel.py prints.
type sklearnScores struct {
	Version string  `json:"sklearn"`
	C       float64 `json:"C"`
	Splits  []struct {
		Ratio float64 `json:"ratio"`
		Micro float64 `json:"micro"`
		Macro float64 `json:"macro"`
	} `json:"splits"`
}

// TestMultiLabelSklearn checks MultiLabel against scikit-learn's
// OneVsRestClassifier(LogisticRegression(C=1)) with the top-k rule on the
// same features and splits (the fixture: 240 rows of 10 features, 6
// labels, the last rare, 3 splits per ratio): the mean Micro- and Macro-F1 per ratio within
// 0.01 (the bar), and every split within 0.02 (a few test rows of
// 24..216 may flip where two labels score almost alike).
func TestMultiLabelSklearn(t *testing.T) {
	x, lab := syntheticMultiLabel(42, 240, 10, 6)
	splits, err := MultiLabelSplits(lab.Labelled(), MultiLabelRatios, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := ExportMultiLabel(fixtureDir, x, 240, 10, lab, splits); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("/usr/bin/python3", "../../benchmarks/sklearn/multilabel.py", fixtureDir).Output()
		if err != nil {
			t.Fatalf("multilabel.py: %v", err)
		}
		if err := os.WriteFile(filepath.Join(fixtureDir, "sklearn.json"), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join(fixtureDir, "sklearn.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want sklearnScores
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	got, err := MultiLabel(context.Background(), x, 240, 10, lab, splits, MultiLabelConfig{LogReg: LogRegConfig{C: want.C}})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Splits) != len(splits) {
		t.Fatalf("sklearn.json has %d splits, want %d (run with -update)", len(want.Splits), len(splits))
	}
	for i, r := range got.Ratios {
		var micro, macro []float64
		for s, w := range want.Splits[i*3 : i*3+3] {
			if math.Abs(r.Micro[s]-w.Micro) > 0.02 || math.Abs(r.Macro[s]-w.Macro) > 0.02 {
				t.Errorf("ratio %v split %d: Go micro %.4f macro %.4f, scikit-learn %.4f %.4f", r.Ratio, s, r.Micro[s], r.Macro[s], w.Micro, w.Macro)
			}
			micro, macro = append(micro, w.Micro), append(macro, w.Macro)
		}
		wMicro, _ := MeanStd(micro)
		wMacro, _ := MeanStd(macro)
		t.Logf("ratio %.1f: Go micro %.4f macro %.4f, scikit-learn %s %.4f %.4f", r.Ratio, r.MicroMean, r.MacroMean, want.Version, wMicro, wMacro)
		if math.Abs(r.MicroMean-wMicro) > 0.01 || math.Abs(r.MacroMean-wMacro) > 0.01 {
			t.Errorf("ratio %v: Go mean micro %.4f macro %.4f, scikit-learn %.4f %.4f", r.Ratio, r.MicroMean, r.MacroMean, wMicro, wMacro)
		}
	}
}
