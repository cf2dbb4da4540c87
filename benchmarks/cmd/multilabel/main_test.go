package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/benchmarks/internal/smoke"
)

var command = smoke.Bind(benchmarks.Run, "multilabel", run)

// TestSmoke trains two wys variants for two epochs at d = 8 on POS (the
// second on its weights), scores two feature variants of each on one
// split at 50%, and draws the picture.
func TestSmoke(t *testing.T) {
	data := smoke.Data(t, "POS/POS.mat.gz")
	prefix := filepath.Join(t.TempDir(), "ml")
	smoke.Run(t, command, []string{"-data", data, "-datasets", "POS", "-methods", "wys", "-epochs", "2", "-dim", "8",
		"-splits", "1", "-ratios", "0.5", "-features", "LR+norm,L", "-variants", "default,paper+weighted+lr=0.005", "-plot", prefix},
		"## POS\n", "4777 nodes", "40 labels", "| wys LR+norm | 0.", "| wys L | 0.",
		"| wys [paper, weighted, lr=0.005] LR+norm | 0.", "| wys [paper, weighted, lr=0.005] L | 0.", "| node2vec (node2vec Table 2) | 0.1552 |")
	if _, err := os.Stat(prefix + "-POS.png"); err != nil {
		t.Error(err)
	}
}

// TestOracles runs the scikit-learn check and a short gensim DeepWalk
// when python3 has scikit-learn and gensim.
func TestOracles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs python3 (over 1 s); skipped under -short")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import gensim, sklearn, numpy").Run(); err != nil {
		t.Skip("python3 with gensim, scikit-learn and numpy is not installed (apt-get install python3-gensim python3-sklearn)")
	}
	data := smoke.Data(t, "PPI/Homo_sapiens.mat.gz")
	smoke.Run(t, command, []string{"-data", data, "-datasets", "PPI", "-epochs", "2", "-dim", "8", "-splits", "1", "-ratios", "0.5",
		"-sklearn", "../../sklearn/multilabel.py", "-script", "../../gensim/deepwalk.py",
		"-gensim-walks", "1", "-gensim-length", "10", "-gensim-window", "2", "-gensim-epochs", "1"},
		"| gensim DeepWalk | 0.", "largest difference of a mean F1 per ratio 0.00")
}

// TestUsage refuses an unknown dataset or variant before reading any data.
func TestUsage(t *testing.T) {
	smoke.Exit(t, command, []string{"-datasets", "BlogCatalog", "-data", t.TempDir()}, 2, "unknown dataset")
	smoke.Exit(t, command, []string{"-features", "LR,Y+norm", "-data", t.TempDir()}, 2, `-features: unknown variant "Y+norm"`)
	smoke.Exit(t, command, []string{"-variants", "paper+weighed", "-data", t.TempDir()}, 2, `unknown setting "weighed"`)
	smoke.Exit(t, command, []string{"-variants", "lr=-1", "-data", t.TempDir()}, 2, "not a positive number")
	smoke.Exit(t, command, []string{"-variants", "batch=2.5", "-data", t.TempDir()}, 2, "whole number of walks")
	smoke.Exit(t, command, []string{"-variants", "average=2", "-data", t.TempDir()}, 2, "average = 2")
}
