package knn

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
)

// smallIntTable returns n x dim entries in {−2, …, 2}: every inner product
// is a small integer, exact in float32 whatever the summation order, and
// most scores are shared by many rows, so ties are everywhere.
func smallIntTable(n, dim int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 1))
	y := make([]float32, n*dim)
	for i := range y {
		y[i] = float32(rng.IntN(5) - 2)
	}
	return y
}

// bruteForce scores every row in float64, sorts all of them by score
// (descending) and row (ascending) and keeps the first k.
func bruteForce(table []float32, dim int, q []float32, skip, k int) []Neighbor {
	var all []Neighbor
	for r := 0; r < len(table)/dim; r++ {
		if r == skip {
			continue
		}
		var s float64
		for j := 0; j < dim; j++ {
			s += float64(q[j]) * float64(table[r*dim+j])
		}
		all = append(all, Neighbor{Row: r, Score: float32(s)})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Score > all[j].Score })
	return all[:min(k, len(all))]
}

// TestSearchAgainstBruteForce compares Search with a full sort on a table
// of several blocks, for several k, worker counts and exclusions.
func TestSearchAgainstBruteForce(t *testing.T) {
	t.Parallel()
	const n, dim, m = 3*BlockRows + 17, 5, 6
	table := smallIntTable(n, dim, 1)
	queries := smallIntTable(m, dim, 2)
	exclude := []int{0, -1, n - 1, 1500, -1, 7}
	for _, k := range []int{1, 10, 200, n + 5} {
		for _, workers := range []int{1, 2, 7} {
			got, err := Search(context.Background(), table, dim, queries, exclude, k, workers)
			if err != nil {
				t.Fatal(err)
			}
			for q := 0; q < m; q++ {
				want := bruteForce(table, dim, queries[q*dim:q*dim+dim], exclude[q], k)
				if !reflect.DeepEqual(got[q], want) {
					t.Fatalf("k=%d workers=%d query %d:\n got %v\nwant %v", k, workers, q, got[q][:min(5, len(got[q]))], want[:min(5, len(want))])
				}
			}
		}
	}
}

// TestNormalized checks unit rows (cosines of a row with itself are 1)
// and that a zero row stays zero.
func TestNormalized(t *testing.T) {
	y := Normalized([]float32{3, 4, 0, 0, 1, 0}, 2)
	want := []float32{0.6, 0.8, 0, 0, 1, 0}
	if !reflect.DeepEqual(y, want) {
		t.Errorf("Normalized = %v, want %v", y, want)
	}
}

// TestSearchCancelled returns the context's error unchanged.
func TestSearchCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Search(ctx, smallIntTable(4*BlockRows, 2, 3), 2, []float32{1, 1}, nil, 3, 2)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

// TestSearchShapes refuses inconsistent shapes and k < 1.
func TestSearchShapes(t *testing.T) {
	ctx := context.Background()
	if _, err := Search(ctx, make([]float32, 7), 2, make([]float32, 2), nil, 1, 1); err == nil {
		t.Error("ragged table accepted")
	}
	if _, err := Search(ctx, make([]float32, 8), 2, make([]float32, 2), []int{1, 2}, 1, 1); err == nil {
		t.Error("wrong number of exclusions accepted")
	}
	if _, err := Search(ctx, make([]float32, 8), 2, make([]float32, 2), nil, 0, 1); err == nil {
		t.Error("k = 0 accepted")
	}
	if _, err := Search(ctx, make([]float32, 8), 2, make([]float32, 2), []int{4}, 1, 1); err == nil {
		t.Error("an exclusion past the table's 4 rows accepted")
	}
	if _, err := Search(ctx, make([]float32, 8), 2, make([]float32, 2), []int{3}, 1, 1); err != nil {
		t.Errorf("the last row excluded: %v", err)
	}
}
