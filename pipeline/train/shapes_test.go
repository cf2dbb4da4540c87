package train_test

import (
	"context"
	"testing"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/train"
)

// TestEstimateObjectiveShapes: parameters that do not fit the graph and
// the width are an error, where EstimateObjective panicked.
func TestEstimateObjectiveShapes(t *testing.T) {
	g, err := pipeline.PlantedPartition(30, 3, 0.3, 0.02, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := train.Config{Dim: 8}
	l, r, q := make([]float32, 30*4), make([]float32, 30*4), make([]float64, 10)
	if _, err := train.EstimateObjective(context.Background(), g, cfg, l, r, q, 10, 1); err != nil {
		t.Fatalf("right shapes: %v", err)
	}
	for name, args := range map[string][3]int{"L": {29 * 4, 120, 10}, "R": {120, 30 * 3, 10}, "q": {120, 120, 9}} {
		if _, err := train.EstimateObjective(context.Background(), g, cfg, make([]float32, args[0]), make([]float32, args[1]), make([]float64, args[2]), 10, 1); err == nil {
			t.Errorf("%s of the wrong length: no error", name)
		}
	}
}
