package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/benchmarks/internal/smoke"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
)

var command = smoke.Bind(benchmarks.Run, "table1", run)

// TestSmoke runs the sparse trainer for a fifth of an epoch on ca-HepTh's
// released split with two context variants, writes -out and compares it
// with stdout.
func TestSmoke(t *testing.T) {
	data := smoke.Data(t, "ca-HepTh/asymproj")
	out := filepath.Join(t.TempDir(), "table1.md")
	args := []string{"-data", data, "-datasets", "ca-HepTh", "-trainers", "sparse", "-dims", "16", "-epochs", "0.2",
		"-contexts", "none,ppr", "-out", out, "-allow-dirty"}
	text := smoke.Run(t, command, args, "# Table 1 (link prediction, test ROC-AUC)\n", "./benchmarks/cmd/table1 -data ",
		"\n| ca-HepTh | 16 | sparse | none | — | ", "\n| ca-HepTh | 16 | sparse | ppr | ppr 0.")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != text {
		t.Errorf("-out holds\n%s\nstdout\n%s", b, text)
	}
}

// TestBaselines runs SVD on ca-HepTh's released split (a row with the
// paper's number at d = 64, none at d = 16), and eigenmaps on the smaller
// PPI split. NetMF takes the same path (pipeline/baseline tests it; under
// -race its dense matrix takes most of a minute here).
func TestBaselines(t *testing.T) {
	data := smoke.Data(t, "ca-HepTh/asymproj")
	args := []string{"-data", data, "-datasets", "ca-HepTh", "-trainers", "svd", "-dims", "64,16", "-allow-dirty"}
	smoke.Run(t, command, args, "\nBaselines (pipeline/baseline)", "\n| ca-HepTh | 64 | svd | 79.", " | 79.3 | — | ",
		"\n| ca-HepTh | 16 | svd | ", " | — | — | ")
	data = smoke.Data(t, "PPI/asymproj")
	smoke.Run(t, command, []string{"-data", data, "-datasets", "PPI", "-trainers", "eigenmaps", "-dims", "16", "-allow-dirty"},
		"\n| PPI | 16 | eigenmaps | ", " | — | — | ")
}

// TestUsage refuses bad lists before reading any data.
func TestUsage(t *testing.T) {
	for _, tc := range [][]string{{"-trainers", "gpu", "unknown trainer"}, {"-contexts", "pagerank", "want none, ppr"}, {"-dims", "x", `-dims: "x" is not an even width`}, {"-dims", "128,63", `"63" is not an even width`}, {"-seeds", "0", "at least 1"}, {"-trainers", "svd", "no context types", "-contexts", "ppr"},
		// the trainers' settings, checked before the dense reference runs
		{"-opt", "bogus", `optimizer = "bogus"`}, {"-formulation", "pape", `formulation = "pape"`}, {"-steps", "0", "-steps 0"}, {"-epochs", "-1", "epochs = -1"},
		{"-contexts", "none,ppr", "-ppr-alpha 0: want a restart probability", "-ppr-alpha", "0"}} {
		smoke.Exit(t, command, append([]string{tc[0], tc[1], "-data", t.TempDir()}, tc[3:]...), 2, tc[2])
	}
}

// TestObjective trains both trainers on a small planted-partition split
// written to a data directory of its own, and checks the exact-objective
// table: one row per trainer, each J the sum of its three terms, and each
// model's J at the other trainer's q.
func TestObjective(t *testing.T) {
	g, err := pipeline.PlantedPartition(120, 4, 0.15, 0.01, 1)
	if err != nil {
		t.Fatal(err)
	}
	split, err := pipeline.SplitEdges(context.Background(), g, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	if err := graphio.WriteSplitDir(context.Background(), filepath.Join(data, "planted", "asymproj"), split); err != nil {
		t.Fatal(err)
	}
	args := []string{"-data", data, "-datasets", "planted", "-trainers", "dense,sparse", "-dims", "8", "-steps", "20",
		"-epochs", "20", "-objective"}
	text := smoke.Run(t, command, args, "\n## The exact objective of each seed-1 model\n")
	rows := 0
	for _, line := range strings.Split(text[strings.Index(text, "## The exact objective"):], "\n") {
		if !strings.HasPrefix(line, "| planted | 8 | ") {
			continue
		}
		rows++
		f := strings.Split(line, " | ")
		// | planted | 8 | trainer | AUC | J | positive | negative | regulariser | cross |
		var v [4]float64
		for i := range v {
			if v[i], err = strconv.ParseFloat(f[4+i], 64); err != nil {
				t.Fatalf("column %d of %q: %v", 4+i, line, err)
			}
		}
		if math.Abs(v[0]-(v[1]+v[2]+v[3])) > 2e-4 {
			t.Errorf("%q: J %v is not positive + negative + regulariser = %v", line, v[0], v[1]+v[2]+v[3])
		}
		if !strings.Contains(f[8], "(positive ") {
			t.Errorf("%q: no objective at the other trainer's q", line)
		}
	}
	if rows != 2 {
		t.Errorf("%d objective rows, want 2 (dense and sparse):\n%s", rows, text)
	}
}
