package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
)

// loadDataset reads a dataset's .mat file undirected without self-loops,
// weighted or not, with its labels.
func loadDataset(ctx context.Context, h *benchmarks.Harness, name string, weighted bool) (*pipeline.Graph, *pipeline.MultiLabels, error) {
	g, lab, _, err := graphio.LoadMAT(ctx, filepath.Join(h.Data, datasets[name]), graphio.LoadOptions{Weighted: weighted})
	if err != nil {
		return nil, nil, err
	}
	if lab == nil {
		return nil, nil, fmt.Errorf("%s has no labels (variable group)", datasets[name])
	}
	return g, lab, nil
}
