package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/benchmarks/internal/smoke"
)

var command = smoke.Bind(benchmarks.Run, "kernels", run)

// TestSmoke measures every kernel once on ca-HepTh (the SNAP graph for
// SpMM and a rank-8 factorization, a fifth of an epoch of the trainer on
// the released split, and on an R-MAT graph of 2^8 nodes), without gensim.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("factors and trains on ca-HepTh (about 1 s)")
	}
	data := smoke.Data(t, "ca-HepTh/CA-HepTh.txt.gz", "ca-HepTh/asymproj")
	args := []string{"-data", data, "-spmm-graph", "ca-HepTh/CA-HepTh.txt.gz", "-cols", "8", "-rank", "8", "-repeats", "1", "-epochs", "0.2", "-python", "", "-rmat", "8", "-rmat-epochs", "0.2"}
	smoke.Run(t, command, args, "# Kernels with 1 and 2 workers\n", "./benchmarks/cmd/kernels -data ", " -python '' -rmat 8 -rmat-epochs 0.2`", "gensim: not measured (no -python)",
		"\n| SpMM (CSR x dense, float32) | ca-HepTh: ", "\n| factorization (randomized SVD of T, C = 10 cores) | ca-HepTh, rank 8 | s |",
		"\n| sparse trainer (d = 128, C = 10) | ca-HepTh, 5 negative(s)", "\n| sparse trainer (d = 128, C = 10) | R-MAT scale 8 (256 nodes, ")
}

// TestGensimMedian runs a stand-in for python3 that reports n² million
// pairs per second at its n-th call (so a mean would differ from the
// median), and checks that gensim is run once per worker count after each
// of three trainer rounds and reported by its median and range.
func TestGensimMedian(t *testing.T) {
	if testing.Short() {
		t.Skip("trains on ca-HepTh three times (about 1 s)")
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "python3")
	script := "#!/bin/sh\nn=$(cat \"$0.count\" 2>/dev/null || echo 0)\nn=$((n+1))\necho $n > \"$0.count\"\necho \"{\\\"gensim\\\": \\\"fake\\\", \\\"pairs_per_s\\\": $((n*n))000000}\"\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	data := smoke.Data(t, "ca-HepTh/CA-HepTh.txt.gz", "ca-HepTh/asymproj")
	args := []string{"-data", data, "-spmm-graph", "ca-HepTh/CA-HepTh.txt.gz", "-cols", "8", "-rank", "8", "-repeats", "1", "-epochs", "0.05", "-trainer-runs", "3", "-python", fake}
	smoke.Run(t, command, args, "gensim fake: ", "the median of 3 runs per worker count (range 1 worker(s) 1.00M–25.00M, 2 worker(s) 4.00M–36.00M)",
		"\n| gensim word2vec skip-gram | ca-HepTh, 5 negatives per positive pair | positive pairs/s | 9.00M | 16.00M | 1.78× |\n")
}

// TestParseSettings checks -settings against settings written out by
// hand, and that each malformed or invalid field is refused by name.
func TestParseSettings(t *testing.T) {
	got, err := parseSettings(defaultSettings)
	if err != nil {
		t.Fatal(err)
	}
	want := []setting{{1, 0, ""}, {5, 0, ""}, {5, 8, ""}, {5, 16, ""}, {1, 0, "rowrms"}, {5, 8, "rowrms"}}
	if !slices.Equal(got, want) {
		t.Errorf("parseSettings(%q) = %v, want %v", defaultSettings, got, want)
	}
	for _, bad := range []string{"", "0", "x16", "1x", "1x0", "1x-2", "5x16/adamw", "1,,5", "1x999"} {
		if _, err := parseSettings(bad); err == nil {
			t.Errorf("parseSettings(%q) succeeded, want an error", bad)
		}
	}
}

// TestRMATOnly measures only the R-MAT graph, with two settings of its
// own: no SpMM, factorization, split or gensim line.
func TestRMATOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("trains on an R-MAT graph of 2^8 nodes")
	}
	args := []string{"-data", t.TempDir(), "-spmm-graph", "", "-split", "", "-rmat", "8", "-rmat-epochs", "0.2", "-settings", "1,1x4"}
	out := smoke.Run(t, command, args, "gensim: not measured (no -split)",
		"\n| sparse trainer (d = 128, C = 10) | R-MAT scale 8 (256 nodes, ", " 1 negative(s) per positive pair in blocks of 4 x 4, optimizer adam |")
	if n := strings.Count(out, "\n| sparse trainer"); n != 2 || strings.Contains(out, "SpMM") || strings.Contains(out, "gensim word2vec") {
		t.Errorf("want exactly the two R-MAT lines, got %d trainer lines in\n%s", n, out)
	}
}

// TestNothingToMeasure checks that a run with every part skipped is a
// usage error instead of a results file with an empty table.
func TestNothingToMeasure(t *testing.T) {
	smoke.Exit(t, command, []string{"-data", t.TempDir(), "-spmm-graph", "", "-split", "", "-rmat", "0"}, 2, "nothing to measure")
}
