package main

import (
	"testing"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/benchmarks/internal/smoke"
)

var command = smoke.Bind(benchmarks.Run, "bucketed", run)

// TestSmoke trains ca-HepTh's split for a fraction of an epoch with the
// trainer and P = 2.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("loads ca-HepTh's split (over 1 s); skipped under -short")
	}
	data := smoke.Data(t, "ca-HepTh/asymproj/index.tsv.gz")
	smoke.Run(t, command, []string{"-data", data, "-epochs", "0.5", "-dim", "8", "-partitions", "2"},
		"# The bucketed schedule against the single-machine trainer\n", "\n| trainer | ", "\n| P = 2 | ")
	smoke.Run(t, command, []string{"-data", data, "-epochs", "0.5", "-dim", "8", "-partitions", "2", "-optimizer", "rmsprop"},
		"rmsprop with negatives pair by pair", "\n| trainer | ", "\n| P = 2 | ")
	// More partitions than nodes are refused before the trainer's row.
	smoke.Exit(t, command, []string{"-data", data, "-epochs", "50", "-dim", "8", "-partitions", "2,20000"}, 2, "20000")
}

// TestUsage refuses a bad number of partitions before reading any data.
func TestUsage(t *testing.T) {
	smoke.Exit(t, command, []string{"-partitions", "0", "-data", t.TempDir()}, 2, "-partitions")
}
