package main

import (
	"bytes"
	"context"
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
	// 32 and 64 ids hold at least the rank 4 of d = 8: the default start
	// is spectral, and its factorization is timed.
	if !regexp.MustCompile(`\n\| 5 \| [0-9]+ \| [0-9]+ \|( [0-9.]+ s \|){4} spectral \| [0-9.]+ s \| adam \| pair by pair \| 1 \|`).MatchString(out) {
		t.Errorf("want scale 5's row to name the spectral start and its time:\n%s", out)
	}
	for _, f := range []string{plot + "-time.png", plot + "-memory.png"} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
}

// TestStarts runs each of -starts at each scale, one row each, in the
// order given, with the dense reference (at scale 5) for the first only.
func TestStarts(t *testing.T) {
	smoke.Children(t, "scale")
	args := []string{"-min", "5", "-max", "6", "-step", "1", "-epochs", "1", "-dim", "8", "-dense-max", "5", "-rank", "0", "-starts", "random,spectral"}
	out := smoke.Run(t, command, args, "# Scaling on R-MAT graphs\n")
	rows := regexp.MustCompile(`\n\| ([56]) \|.*?\| (random|spectral) \| (—|[0-9.]+ s) \|`).FindAllStringSubmatch(out, -1)
	var got []string
	for _, m := range rows {
		got = append(got, m[1]+" "+m[2])
		if (m[2] == "random") != (m[3] == "—") {
			t.Errorf("scale %s, %s start: start time %s; want a dash for the random start (no factorization) and seconds for the spectral", m[1], m[2], m[3])
		}
	}
	if want := "5 random,5 spectral,6 random,6 spectral"; strings.Join(got, ",") != want {
		t.Errorf("rows %q, want %q:\n%s", strings.Join(got, ","), want, out)
	}
	if strings.Count(out, "| — | — |\n") != 3 {
		t.Errorf("want the dense reference at scale 5 with the first start only:\n%s", out)
	}
	var stdout, stderr bytes.Buffer
	if code := command(context.Background(), []string{"-starts", "random,warm"}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "-starts") {
		t.Errorf("-starts random,warm: exit status %d, stderr %q; want a usage error naming -starts", code, stderr.String())
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

// TestNegativeBlock runs scale 5 with the row-wise optimiser and negative
// blocks, which the header names, and refuses a block over the bound.
func TestNegativeBlock(t *testing.T) {
	smoke.Children(t, "scale")
	args := []string{"-min", "5", "-max", "5", "-epochs", "1", "-dim", "8", "-dense-max", "0", "-rank", "0", "-optimizer", "rowrms", "-negative-block", "4"}
	smoke.Run(t, command, args, "sparse trainer with default settings but the optimizer rowrms and negatives in blocks of 4 x 4 pairs, d = 8", "\n| 5 | ")
	smoke.Exit(t, command, []string{"-negative-block", "999", "-data", t.TempDir()}, 2, "-negative-block: train: negative_block = 999")
}

// TestScaleRange refuses scales R-MAT cannot generate (a negative one would
// also start the children in the parent's mode), an odd -dim and a
// negative -rank before any child runs, and a -plot PREFIX that could not
// be written (the plots come at the end, and their failure took the
// results file with it).
func TestScaleRange(t *testing.T) {
	smoke.Children(t, "scale") // should a child start after all
	for _, args := range [][]string{{"-min", "0", "-max", "2"}, {"-min", "-1", "-max", "1"}, {"-min", "10", "-max", "8"}, {"-min", "31", "-max", "31"}} {
		smoke.Exit(t, command, append(args, "-data", t.TempDir()), 2, "want R-MAT scales 1 <= -min <= -max <= 30")
	}
	smoke.Exit(t, command, []string{"-dim", "3"}, 2, "-dim 3")
	smoke.Exit(t, command, []string{"-rank", "-1"}, 2, "-rank -1")
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	smoke.Exit(t, command, []string{"-min", "5", "-max", "5", "-plot", filepath.Join(file, "scaling")}, 2, "-plot: cannot write")
}

// TestFailedScale makes the child of scale 5 fail (gensim's stand-in
// passes the check of -python, then fails on the script) and checks that
// the command exits 1 naming the scale, and that the results file it
// writes says where the run stopped.
func TestFailedScale(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process; skipped under -short")
	}
	smoke.Children(t, "scale")
	dir := t.TempDir()
	fake := filepath.Join(dir, "python3")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n[ \"$1\" = -c ] && exit 0\necho 'RuntimeError: boom' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "scaling.md")
	args := []string{"-min", "5", "-max", "6", "-step", "1", "-epochs", "1", "-dim", "8", "-dense-max", "0", "-rank", "4",
		"-gensim-max", "6", "-python", fake, "-script", fake, "-out", out, "-allow-dirty"}
	var stdout, stderr bytes.Buffer
	if code := command(context.Background(), args, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "scale: scale 5 failed: exit status 1") {
		t.Errorf("exit %d, stderr %q; want 1 and the failed scale", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\n**Scale 5 failed** (exit status 1): the run stopped there.\n") || strings.Contains(string(b), "\n| 5 |") {
		t.Errorf("results file:\n%s\nwant no row and the failed scale", b)
	}
}
