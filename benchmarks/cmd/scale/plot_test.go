package main

import (
	"image"
	_ "image/png"
	"os"
	"path/filepath"
	"testing"
)

// TestPlotScaling draws both plots from made-up rows and checks that each
// file is a PNG of the documented size.
func TestPlotScaling(t *testing.T) {
	var rows []row
	for s := 10; s <= 16; s += 2 {
		n := 1 << s
		rows = append(rows, row{Scale: s, Nodes: n, GenSeconds: 1e-6 * float64(n), LoadSeconds: 2e-6 * float64(n),
			SplitSeconds: 5e-7 * float64(n), FactorSecs: 3e-6 * float64(n), EpochSeconds: 4e-5 * float64(n), EvalSeconds: 1e-5 * float64(n),
			PeakRSS: int64(4000 * n), Estimated: int64(3000 * n), DenseBytes: int64(44 * n * n)})
	}
	prefix := filepath.Join(t.TempDir(), "scaling")
	if err := plotScaling(prefix, rows); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{prefix + "-time.png", prefix + "-memory.png"} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		cfg, format, err := image.DecodeConfig(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if format != "png" || cfg.Width != plotW || cfg.Height != plotH {
			t.Errorf("%s: %s %dx%d, want png %dx%d", p, format, cfg.Width, cfg.Height, int(plotW), int(plotH))
		}
	}
}
