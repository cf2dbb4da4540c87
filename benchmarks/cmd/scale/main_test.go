package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/benchmarks/internal/smoke"
)

var command = smoke.Bind(benchmarks.Run, "scale", run)

// TestMain lets the command start the test binary as its child processes
// (-one).
func TestMain(m *testing.M) {
	smoke.Main(m, benchmarks.Main, "scale", run)
}

// TestSmoke measures scales 5 and 6 (32 and 64 ids), the dense reference
// at scale 5 only, each in a child process, and draws the plots.
func TestSmoke(t *testing.T) {
	smoke.Children(t, "scale")
	plot := filepath.Join(t.TempDir(), "scaling")
	args := []string{"-min", "5", "-max", "6", "-step", "1", "-epochs", "1", "-dim", "8", "-dense-max", "5", "-rank", "4", "-plot", plot}
	out := smoke.Run(t, command, args, "# Scaling on R-MAT graphs\n", "./benchmarks/cmd/scale -min 5 -max 6 ", "\n| 5 | ", "\n| 6 | ",
		"[time per stage](scaling-time.png)")
	if strings.Count(out, "| — | — |\n") != 1 {
		t.Errorf("want the dense reference's time and AUC at scale 5 only:\n%s", out)
	}
	for _, f := range []string{plot + "-time.png", plot + "-memory.png"} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
}

// TestGensim runs the DeepWalk script at scale 5 only, when python3 with
// gensim is installed, and checks that its columns are filled there and
// dashed at scale 6.
func TestGensim(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gensim (over 1 s); skipped under -short")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import gensim, numpy").Run(); err != nil {
		t.Skip("python3 with gensim and numpy is not installed (apt-get install python3-gensim)")
	}
	smoke.Children(t, "scale")
	args := []string{"-min", "5", "-max", "6", "-step", "1", "-epochs", "1", "-dim", "8", "-dense-max", "0", "-rank", "0",
		"-gensim-max", "5", "-script", "../../gensim/deepwalk.py", "-gensim-walks", "1", "-gensim-length", "10", "-gensim-window", "2"}
	out := smoke.Run(t, command, args, "| gensim Y·Y | gensim Y·Y′ | gensim time |", "gensim (up to scale 5")
	row5 := regexp.MustCompile(`\n\| 5 \|.*\| [0-9.]+ \| [01]\.[0-9]{4} \| [01]\.[0-9]{4} \| [0-9.]+ s \|`)
	row6 := regexp.MustCompile(`\n\| 6 \|.*\| [0-9.]+ \| — \| — \| — \|`)
	if !row5.MatchString(out) || !row6.MatchString(out) {
		t.Errorf("want gensim's AUCs and time at scale 5 only:\n%s", out)
	}
}
