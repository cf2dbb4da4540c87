package main

import (
	"testing"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/benchmarks/internal/smoke"
)

var command = smoke.Bind(benchmarks.Run, "sensitivity", run)

// TestSmoke runs one (C, β) cell and the two fixed-Q baselines for a fifth
// of an epoch on ca-HepTh's released split.
func TestSmoke(t *testing.T) {
	data := smoke.Data(t, "ca-HepTh/asymproj")
	smoke.Run(t, command, []string{"-data", data, "-datasets", "ca-HepTh", "-C", "5", "-beta", "0.5", "-epochs", "0.2", "-dim", "16"},
		"# Sensitivity to C and β (the paper's Figure 4)\n", "./benchmarks/cmd/sensitivity -data ", "## ca-HepTh\n", "\n| 5 | ", "\n| deepwalk | ", "\n| glove | ")
}

// TestObjective checks that each cell's objective resolves to the C and
// the weight β its row and column name, β = 0 included (pipeline reads a
// zero Beta as the default 0.5, and a negative one as off).
func TestObjective(t *testing.T) {
	for _, beta := range []float64{0, 0.3, 0.5, 2} {
		if got := objective(20, beta).Resolve(); got.BetaWeight() != beta || got.C != 20 {
			t.Errorf("objective(20, %g) resolves to C = %d, β = %g", beta, got.C, got.BetaWeight())
		}
	}
}

// TestUsage refuses a bad list of numbers before reading any data.
func TestUsage(t *testing.T) {
	smoke.Exit(t, command, []string{"-C", "5,ten", "-data", t.TempDir()}, 2, `-C: "ten" is not a number of powers`)
	smoke.Exit(t, command, []string{"-C", "5,2.5", "-data", t.TempDir()}, 2, `-C: "2.5" is not a number of powers`)
}
