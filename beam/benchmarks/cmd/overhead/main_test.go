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

// TestSmoke runs a fifth of an epoch of ca-HepTh's split at d = 8 and
// checks that Prism's embeddings equal the plain loop's.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("loads ca-HepTh's split and runs Prism (over 1 s); skipped under -short")
	}
	data := filepath.Join("..", "..", "..", "..", "..", "shared", "datasets")
	if _, err := os.Stat(filepath.Join(data, "ca-HepTh", "asymproj", "index.tsv.gz")); err != nil {
		t.Skip("shared/datasets/ca-HepTh/asymproj not found beside the repository; CI provides it")
	}
	var stdout, stderr bytes.Buffer
	code := benchmarks.Run(context.Background(), "overhead", []string{"-data", data, "-epochs", "0.2", "-dim", "8", "-round-batches", "1,3"},
		&stdout, &stderr, run)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"\n| 1 | ", "\n| 3 | "} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("no row %q in\n%s", want, stdout.String())
		}
	}
	if strings.Contains(stdout.String(), "| false |") {
		t.Errorf("Prism differs from the plain loop:\n%s", stdout.String())
	}
}
