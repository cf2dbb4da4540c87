package main

import (
	"testing"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/benchmarks/internal/smoke"
)

var command = smoke.Bind(benchmarks.Run, "lowrank", run)

// TestMain lets -mode timing start the test binary as its child processes.
func TestMain(m *testing.M) {
	smoke.Main(m, benchmarks.Main, "lowrank", run)
}

// TestSmokeTiming times a rank-4 factorization of a scale-8 R-MAT graph
// in a child process and checks the table.
func TestSmokeTiming(t *testing.T) {
	smoke.Children(t, "lowrank")
	smoke.Run(t, command, []string{"-mode", "timing", "-graphs", "rmat8", "-ranks", "4"}, "# Factorization time and memory\n",
		"./benchmarks/cmd/lowrank -mode timing -graphs rmat8 -ranks 4`", "BLAS: "+blasName+".", "\n| rmat8 | 256 | ")
}

// TestUsage refuses a bad mode, rank or child specification, and fails on
// an unknown graph.
func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-mode", "speed"}, 2, "want accuracy or timing"},
		{[]string{"-ranks", "16,x"}, 2, `-ranks: "x" is not a positive rank`},
		{[]string{"-ranks", "16,0"}, 2, `-ranks: "0" is not a positive rank`},
		{[]string{"-one", "rmat8"}, 2, "want graph:rank"},
		{[]string{"-one", "nograph:4"}, 1, `unknown graph "nograph"`},
		{[]string{"-mode", "timing", "-graphs", "rmat8,nograph"}, 2, `-graphs: unknown graph "nograph"`},
		{[]string{"-mode", "timing", "-graphs", "rmat40"}, 2, `-graphs: unknown graph "rmat40"`},
	} {
		smoke.Exit(t, command, tc.args, tc.code, tc.want)
	}
}
