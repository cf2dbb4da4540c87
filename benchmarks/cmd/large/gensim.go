package main

import (
	"context"
	"fmt"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/pipeline"
)

// gensimEpochsHelp says why the large graphs get one pass by default.
const gensimEpochsHelp = "gensim's own default is 5; one pass over 10 walks of 80 per node takes longer than wys's whole default run here"

// runGensim runs DeepWalk on the training graph and scores the embeddings
// after each epoch by Y·Y and by Y·Y′.
func runGensim(ctx context.Context, h *benchmarks.Harness, o benchmarks.Gensim, tg *pipeline.Graph, split *pipeline.Split) ([]curve, error) {
	yy, yyc := curve{name: "gensim Y·Y"}, curve{name: "gensim Y·Y′"}
	err := benchmarks.RunDeepWalk(ctx, o, tg.Adj, func(ep benchmarks.GensimEpoch) error {
		a := pipeline.PairAUC(ep.Y, ep.Y, o.Dim, split.Test, split.TestNeg)
		b := pipeline.PairAUC(ep.Y, ep.YC, o.Dim, split.Test, split.TestNeg)
		fmt.Fprintf(h.Stderr, "  gensim epoch %d  %.0fs  test AUC Y·Y %.4f  Y·Y′ %.4f\n", ep.Epoch, ep.Elapsed, a, b)
		yy.points = append(yy.points, point{ep.Elapsed, a})
		yyc.points = append(yyc.points, point{ep.Elapsed, b})
		return nil
	})
	if err != nil {
		return nil, err
	}
	yy.final, yyc.final = yy.points[len(yy.points)-1].auc, yyc.points[len(yyc.points)-1].auc
	return []curve{yy, yyc}, nil
}
