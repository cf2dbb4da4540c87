package pipeline

import (
	"context"
	"testing"

	"github.com/wys-project/wys/sparse"
)

// TestWeightsFrom: a split's training graph, unweighted, gets every arc's
// weight from the graph it was drawn from, checked against the weights
// as written.
func TestWeightsFrom(t *testing.T) {
	var src, dst []int32
	var w []float64
	weight := map[[2]int32]float64{}
	for i := range int32(30) {
		for _, j := range []int32{(i + 1) % 30, (i + 4) % 30} {
			x := float64(1 + (i*7+j)%5)
			src, dst, w = append(src, i, j), append(dst, j, i), append(w, x, x)
			weight[[2]int32{i, j}], weight[[2]int32{j, i}] = x, x
		}
	}
	adj, err := sparse.NewFromCOO(30, 30, src, dst, w, sparse.DupFirst)
	if err != nil {
		t.Fatal(err)
	}
	g := &Graph{Adj: adj, IDs: IdentityIDs(30)}
	s, err := SplitEdges(context.Background(), g, 0.4, 3)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := s.TrainGraph()
	if err != nil {
		t.Fatal(err)
	}
	tg.WeightsFrom(g)
	arcs := 0
	for i := range tg.N() {
		idx, val := tg.Adj.Row(i)
		for k, j := range idx {
			arcs++
			if want := weight[[2]int32{int32(i), j}]; val[k] != want {
				t.Fatalf("arc %d→%d weighs %v, want %v", i, j, val[k], want)
			}
		}
	}
	if arcs == 0 || arcs == adj.NNZ() {
		t.Errorf("%d training arcs of %d", arcs, adj.NNZ())
	}
}
