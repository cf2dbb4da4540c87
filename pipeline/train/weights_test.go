package train_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/reference"
	"github.com/wys-project/wys/pipeline/train"
)

// TestWeightUnitInvariance: the unit of the edge weights does not change
// the model. A weighted graph and the same graph with every weight times
// 4 or 1/8 (exact in floating point) train the same embeddings bit for
// bit: the sparse trainer from each start and the dense reference, in
// both formulations. Before the code formulation counted walks per mean
// arc weight, its positive term grew with the weights (times 1,000 cost
// a point of test AUC on ca-HepTh, and 1e20 gave chance).
func TestWeightUnitInvariance(t *testing.T) {
	t.Parallel()
	base := smallGraph(40, 160, false, 7)
	weighArcs(base)
	scaled := func(c float64) *pipeline.Graph {
		adj := base.Adj.Clone()
		for i := range adj.Data {
			adj.Data[i] *= c
		}
		g := *base
		g.Adj = adj
		return &g
	}
	// same checks that run trains the same embeddings on the weights
	// times 4 and 1/8 as on the weights as given.
	same := func(what string, run func(*pipeline.Graph) (*pipeline.Result, error)) {
		first, err := run(scaled(1))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []float64{4, 0.125} {
			res, err := run(scaled(c))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.L, first.L) || !slices.Equal(res.R, first.R) || !slices.Equal(res.QLogits, first.QLogits) {
				t.Errorf("%s: weights times %v train other embeddings than the weights as given", what, c)
			}
		}
	}
	for _, f := range []pipeline.Formulation{pipeline.FormulationCode, pipeline.FormulationPaper} {
		// The Adamic–Adar context's 1/ln(degree) counts degrees in mean
		// arc weights too.
		obj := pipeline.ObjectiveConfig{Formulation: f, C: 4, AdamicAdar: true}
		for _, start := range []string{train.StartSpectral, train.StartLogSVD, train.StartRandom} {
			cfg := train.Config{Objective: obj, Dim: 8, Epochs: 20, Start: start, Seed: 3}
			same(fmt.Sprintf("%s, start %s", f, start), func(g *pipeline.Graph) (*pipeline.Result, error) {
				return train.Run(context.Background(), g, nil, cfg, nil)
			})
		}
		cfg := reference.Config{Objective: obj, Dim: 8, Steps: 30, Seed: 3}
		same(fmt.Sprintf("%s, dense reference", f), func(g *pipeline.Graph) (*pipeline.Result, error) {
			return reference.Run(context.Background(), g, nil, cfg, nil)
		})
	}
}

// TestConstantWeightsUnweighted checks that a graph whose arcs all have
// the same weight trains what the unweighted graph trains: the walks are
// the same (the walker samples it as unweighted), and with a power of two
// as the weight every other number is too.
func TestConstantWeightsUnweighted(t *testing.T) {
	t.Parallel()
	base := smallGraph(40, 160, false, 7)
	for _, f := range []pipeline.Formulation{pipeline.FormulationCode, pipeline.FormulationPaper} {
		cfg := train.Config{Objective: pipeline.ObjectiveConfig{Formulation: f, C: 4}, Dim: 8, Epochs: 20, Seed: 3}
		want, err := train.Run(context.Background(), base, nil, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []float64{4, 0.125} {
			g := *base
			g.Adj = base.Adj.Clone()
			for i := range g.Adj.Data {
				g.Adj.Data[i] = c
			}
			got, err := train.Run(context.Background(), &g, nil, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.L, want.L) || !slices.Equal(got.R, want.R) || !slices.Equal(got.QLogits, want.QLogits) {
				t.Errorf("%s: every weight %v trains other embeddings than the unweighted graph", f, c)
			}
		}
	}
}
