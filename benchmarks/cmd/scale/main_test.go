package main

import (
	"os"
	"path/filepath"
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
