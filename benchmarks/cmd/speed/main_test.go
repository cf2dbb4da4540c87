package main

import (
	"strings"
	"testing"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/benchmarks/internal/smoke"
	"github.com/wys-project/wys/pipeline/train"
)

var command = smoke.Bind(benchmarks.Run, "speed", run)

// TestSmoke runs the command on ca-HepTh's released split with two sparse
// variants of a fifth of an epoch at two widths and a given target (no
// dense reference).
func TestSmoke(t *testing.T) {
	data := smoke.Data(t, "ca-HepTh/asymproj")
	smoke.Run(t, command, []string{"-data", data, "-dense=false", "-target", "50", "-variants", "walk,walk:batch=64:lr=0.03:average=0.5", "-epochs", "0.2", "-dims", "16,8"},
		"# Time to a target test AUC on ca-HepTh (d = 16, 8)\n", "Command: `go run ", "./benchmarks/cmd/speed -data ",
		"## ca-HepTh, d = 16 (target 50.00)", "## ca-HepTh, d = 8 (target 50.00)", "\n| sparse walk | ", "\n| sparse walk:batch=64:lr=0.03:average=0.5 | ")
}

// TestNoTarget refuses a run without the dense reference and -target
// before reading any data.
func TestNoTarget(t *testing.T) {
	smoke.Exit(t, command, []string{"-dense=false", "-data", t.TempDir()}, 2, "no target")
}

// TestBadSettings refuses the trainers' bad settings before reading any
// data, and so before the dense reference runs.
func TestBadSettings(t *testing.T) {
	smoke.Exit(t, command, []string{"-steps", "0", "-data", t.TempDir()}, 2, "-steps 0")
	smoke.Exit(t, command, []string{"-epochs", "-1", "-data", t.TempDir()}, 2, "epochs = -1")
}

// TestBadVariant refuses a variant it cannot read before reading any data.
func TestBadVariant(t *testing.T) {
	for _, v := range []string{"walks", "walk:batch", "walk:batch=x", "walk:momentum=0.9", "walk:lr=-1", "walk+warm:optimizer=adamw"} {
		smoke.Exit(t, command, []string{"-target", "50", "-data", t.TempDir(), "-variants", v}, 2, "-variants")
	}
}

// TestParseVariant checks that every setting reaches its train.Config
// field and that the start follows +warm.
func TestParseVariant(t *testing.T) {
	v, err := parseVariant("factored+warm:batch=4096:lr=0.05:qlr=0.01:epochs=600:average=0.5:optimizer=rmsprop:negative-block=16")
	if err != nil {
		t.Fatal(err)
	}
	want := train.Config{Source: train.SourceFactored, Start: train.StartSpectral, BatchWalks: 4096, LR: 0.05, QLR: 0.01,
		Epochs: 600, Average: 0.5, Optimizer: train.OptRMSProp, NegativeBlock: 16}
	if v.cfg.Source != want.Source || v.cfg.Start != want.Start || v.cfg.BatchWalks != want.BatchWalks || v.cfg.LR != want.LR ||
		v.cfg.QLR != want.QLR || v.cfg.Epochs != want.Epochs || v.cfg.Average != want.Average || v.cfg.Optimizer != want.Optimizer ||
		v.cfg.NegativeBlock != want.NegativeBlock {
		t.Errorf("parseVariant = %+v, want %+v", v.cfg, want)
	}
	if v, err := parseVariant("walk:start=log-svd"); err != nil || v.cfg.Start != train.StartLogSVD {
		t.Errorf("parseVariant(walk:start=log-svd) = %+v, %v; want the log-SVD start", v.cfg, err)
	}
	if v, err := parseVariant("walk"); err != nil || v.cfg.Start != train.StartRandom || v.cfg.Source != train.SourceWalk {
		t.Errorf("parseVariant(walk) = %+v, %v; want the walk source from the random start", v.cfg, err)
	}
	if _, err := parseVariant("walk:lr=0.1:bogus=1"); err == nil || !strings.Contains(err.Error(), `unknown setting "bogus"`) {
		t.Errorf("parseVariant with an unknown setting: %v", err)
	}
}
