package main

import (
	"context"
	"fmt"
	"time"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/internal/sysmem"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/baseline"
)

// runProNE embeds the training graph with ProNE (pipeline/baseline, its
// authors' settings) at d columns, gensim's width, and records its one
// point: the whole computation's time and its test AUC.
func runProNE(ctx context.Context, h *benchmarks.Harness, d int, seed uint64, tg *pipeline.Graph, split *pipeline.Split) (curve, error) {
	start := time.Now()
	res, err := baseline.Run(ctx, tg, split, baseline.Config{Method: baseline.MethodProNE, Dim: 2 * d, Seed: seed}, nil)
	if err != nil {
		return curve{}, err
	}
	s := time.Since(start).Seconds()
	fmt.Fprintf(h.Stderr, "  prone  %.0fs  test AUC %.4f\n", s, res.TestAUC)
	return curve{name: "ProNE", points: []point{{s, res.TestAUC}}, final: res.TestAUC,
		note: fmt.Sprintf("%d columns, peak RSS %s", d, sysmem.FormatBytes(res.Stats.PeakRSS))}, nil
}
