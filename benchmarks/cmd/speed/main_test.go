package main

import (
	"testing"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/benchmarks/internal/smoke"
)

var command = smoke.Bind(benchmarks.Run, "speed", run)

// TestSmoke runs the command on ca-HepTh's released split with one sparse
// variant of a fifth of an epoch and a given target (no dense reference).
func TestSmoke(t *testing.T) {
	data := smoke.Data(t, "ca-HepTh/asymproj")
	smoke.Run(t, command, []string{"-data", data, "-dense=false", "-target", "50", "-variants", "walk", "-epochs", "0.2", "-dim", "16"},
		"# Time to a target test AUC on ca-HepTh (d = 16)\n", "Command: `go run ", "./benchmarks/cmd/speed -data ", "\n| sparse walk | ")
}

// TestNoTarget refuses a run without the dense reference and -target
// before reading any data.
func TestNoTarget(t *testing.T) {
	smoke.Exit(t, command, []string{"-dense=false", "-data", t.TempDir()}, 2, "no target")
}
