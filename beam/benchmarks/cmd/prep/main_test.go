package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wys-project/wys/beam/internal/beamtest"
	"github.com/wys-project/wys/benchmarks"
)

func TestMain(m *testing.M) {
	os.Exit(beamtest.Main(m))
}

// TestSmoke preprocesses ca-HepTh's edge list in 256 KiB ranges and
// checks that the command finds the pipeline's outputs equal to the
// loader's.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("reads ca-HepTh and runs Prism (over 1 s); skipped under -short")
	}
	data := filepath.Join("..", "..", "..", "..", "..", "shared", "datasets")
	if _, err := os.Stat(filepath.Join(data, "ca-HepTh", "CA-HepTh.txt.gz")); err != nil {
		t.Skip("shared/datasets/ca-HepTh not found beside the repository; CI provides it")
	}
	var stdout, stderr bytes.Buffer
	code := benchmarks.Run(context.Background(), "prep", []string{"-data", data, "-range-bytes", "262144", "-shards", "3"}, &stdout, &stderr, run)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "\n| CA-HepTh.txt.gz | ") || !strings.Contains(stdout.String(), "| true |") {
		t.Errorf("no equal row for CA-HepTh.txt.gz in\n%s", stdout.String())
	}
}
