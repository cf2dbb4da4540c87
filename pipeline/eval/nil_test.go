package eval

import (
	"context"
	"testing"

	"github.com/wys-project/wys/pipeline"
)

// TestNilArguments: nil embeddings or labels are errors, not panics (a
// .mat without a group loads with nil labels).
func TestNilArguments(t *testing.T) {
	ctx := context.Background()
	res := &pipeline.Result{N: 2, Half: 1, L: []float32{1, 2}, R: []float32{3, 4}}
	if _, _, err := Features(nil, ""); err == nil {
		t.Error("Features(nil): no error")
	}
	if _, err := Classify(ctx, nil, nil); err == nil {
		t.Error("Classify(nil, nil): no error")
	}
	if _, err := Classify(ctx, res, nil); err == nil {
		t.Error("Classify(res, nil): no error")
	}
	if _, err := MultiLabel(ctx, []float64{1, 2}, 2, 1, nil, nil, MultiLabelConfig{}); err == nil {
		t.Error("MultiLabel(nil labels): no error")
	}
	if err := (*pipeline.Result)(nil).Score(ctx, nil); err == nil {
		t.Error("(*Result)(nil).Score: no error")
	}
	if _, err := (*pipeline.Split)(nil).TrainGraph(ctx); err == nil {
		t.Error("(*Split)(nil).TrainGraph: no error")
	}
}
