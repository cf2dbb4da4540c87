package train_test

import (
	"context"
	"errors"
	"testing"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/baseline"
	"github.com/wys-project/wys/pipeline/reference"
	"github.com/wys-project/wys/pipeline/train"
)

// TestRunSplitOfAnotherGraph: a split drawn from a larger graph, given
// with a smaller training graph, names rows the graph does not have.
// Every method returns an error wrapping pipeline.ErrUnknownNode before
// any work (each panicked with an index out of range when it scored the
// pairs); given with the whole graph it was drawn from, one wrapping
// pipeline.ErrBadGraph.
func TestRunSplitOfAnotherGraph(t *testing.T) {
	ctx := context.Background()
	big, err := pipeline.PlantedPartition(60, 3, 0.3, 0.02, 1)
	if err != nil {
		t.Fatal(err)
	}
	split, err := pipeline.SplitEdges(ctx, big, 0.3, 1)
	if err != nil {
		t.Fatal(err)
	}
	small, err := pipeline.PlantedPartition(30, 3, 0.3, 0.02, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Given with the graph it was cut from, whose arcs its test edges
	// are, the split would score trained edges as held out: refused too.
	for _, c := range []struct {
		g    *pipeline.Graph
		want error
	}{{small, pipeline.ErrUnknownNode}, {big, pipeline.ErrBadGraph}} {
		runs := map[string]func() error{
			"train": func() error {
				_, err := train.Run(ctx, c.g, split, train.Config{Dim: 8, Epochs: 1, Seed: 1}, nil)
				return err
			},
			"reference": func() error {
				_, err := reference.Run(ctx, c.g, split, reference.Config{Dim: 8, Steps: 1}, nil)
				return err
			},
			"baseline": func() error {
				_, err := baseline.Run(ctx, c.g, split, baseline.Config{Dim: 8}, nil)
				return err
			},
		}
		for name, run := range runs {
			t.Run(name, func(t *testing.T) {
				if err := run(); !errors.Is(err, c.want) {
					t.Fatalf("%d nodes: got %v, want an error wrapping %v", c.g.N(), err, c.want)
				}
			})
		}
	}
}
