package eval

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// bruteReconstruction computes the measures of Reconstruction over the
// given rows from their definitions: each row's arcs and non-arcs scored
// by pipeline.ScorePairs and ranked by pipeline.AveragePrecision, and
// precision@k from one list of every ranked pair (with ties at the k-th
// score counted by the share of arcs among them).
func bruteReconstruction(adj *sparse.CSR, l, r []float32, half int, rows, ks []int) (mapv float64, prec map[string]float64) {
	n, _ := adj.Dims()
	type pair struct {
		s   float64
		arc bool
	}
	var all []pair
	var sum float64
	var withArcs int
	for _, v := range rows {
		var pos, neg []pipeline.Pair
		for u := range n {
			if u == v {
				continue
			}
			p := pipeline.Pair{U: int32(v), V: int32(u)}
			if adj.Has(v, u) {
				pos = append(pos, p)
			} else {
				neg = append(neg, p)
			}
		}
		ps, ns := pipeline.ScorePairs(l, r, half, pos), pipeline.ScorePairs(l, r, half, neg)
		for _, x := range ps {
			all = append(all, pair{x, true})
		}
		for _, x := range ns {
			all = append(all, pair{x, false})
		}
		if len(pos) > 0 {
			sum += pipeline.AveragePrecision(ps, ns)
			withArcs++
		}
	}
	mapv = sum / float64(withArcs)
	prec = map[string]float64{}
	for _, k := range ks {
		if k > len(all) {
			continue
		}
		scores := make([]float64, len(all))
		for i, p := range all {
			scores[i] = p.s
		}
		slices.Sort(scores)
		kth := scores[len(scores)-k]
		var above, arcsAbove, at, arcsAt float64
		for _, p := range all {
			switch {
			case p.s > kth:
				above++
				if p.arc {
					arcsAbove++
				}
			case p.s == kth:
				at++
				if p.arc {
					arcsAt++
				}
			}
		}
		prec[strconv.Itoa(k)] = (arcsAbove + (float64(k)-above)*arcsAt/at) / float64(k)
	}
	return mapv, prec
}

// randomDigraph returns n nodes with each arc present with probability
// p, self-loops included (Reconstruction must leave them out).
func randomDigraph(t *testing.T, rng *rand.Rand, n int, p float64) *sparse.CSR {
	var src, dst []int32
	for v := range n {
		for u := range n {
			if rng.Float64() < p {
				src, dst = append(src, int32(v)), append(dst, int32(u))
			}
		}
	}
	adj, err := sparse.NewFromCOO(t.Context(), n, n, src, dst, nil, sparse.DupSum)
	if err != nil {
		t.Fatal(err)
	}
	return adj
}

// TestReconstructionBruteForce checks MAP and precision@k against
// bruteReconstruction on random digraphs whose embeddings take three
// values per coordinate (so that many scores tie), for every row and for
// a sample, on 1 and 3 workers (bit for bit the same).
func TestReconstructionBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		n, half := 5+rng.IntN(40), 1+rng.IntN(4)
		adj := randomDigraph(t, rng, n, 0.05+0.3*rng.Float64())
		l, r := make([]float32, n*half), make([]float32, n*half)
		for i := range l {
			l[i], r[i] = float32(rng.IntN(3)-1), float32(rng.IntN(3)-1)
		}
		rows := 0
		if trial%2 == 1 {
			rows = 1 + rng.IntN(n-1)
		}
		ks := []int{1, 2, 7, 30, 100000}
		var first *ReconstructionResult
		for _, workers := range []int{1, 3} {
			res, err := Reconstruction(context.Background(), adj, l, r, half, ReconstructionConfig{Rows: rows, K: ks, Seed: 9, Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			sample := ReconstructionRows(n, rows, 9)
			wantMAP, wantPrec := bruteReconstruction(adj, l, r, half, sample, ks[:4])
			if res.Rows != len(sample) || res.Pairs != int64(len(sample)*(n-1)) {
				t.Fatalf("trial %d: %d rows, %d pairs; want %d and %d", trial, res.Rows, res.Pairs, len(sample), len(sample)*(n-1))
			}
			if res.RowsWithArcs > 0 && math.Abs(res.MAP-wantMAP) > 1e-12 {
				t.Errorf("trial %d, %d workers: MAP %v, want %v", trial, workers, res.MAP, wantMAP)
			}
			if len(res.PrecisionAtK) != len(wantPrec) {
				t.Errorf("trial %d: precision at %d values of k, want %d (%d pairs)", trial, len(res.PrecisionAtK), len(wantPrec), res.Pairs)
			}
			for k, want := range wantPrec {
				if got := res.PrecisionAtK[k]; math.Abs(got-want) > 1e-12 {
					t.Errorf("trial %d, %d workers: precision@%s %v, want %v", trial, workers, k, got, want)
				}
			}
			if first == nil {
				first = res
			} else if res.MAP != first.MAP && !(math.IsNaN(res.MAP) && math.IsNaN(first.MAP)) || !mapsEqual(res.PrecisionAtK, first.PrecisionAtK) {
				t.Errorf("trial %d: 3 workers gave %+v, 1 worker %+v", trial, res, first)
			}
		}
	}
}

func mapsEqual(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestReconstructionHand: a 6-node graph whose scores, arcs and ties are
// worked out by hand. Row 0 scores nodes 1..5 as 3, 2, 2, 2, 1 (L_0 = 1,
// R_u the score) with arcs to 1, 3 and 4; every other row scores 0
// everywhere and has no arc.
func TestReconstructionHand(t *testing.T) {
	adj, err := sparse.NewFromCOO(t.Context(), 6, 6, []int32{0, 0, 0, 0}, []int32{0, 1, 3, 4}, nil, sparse.DupSum)
	if err != nil {
		t.Fatal(err)
	}
	l := []float32{1, 0, 0, 0, 0, 0}
	r := []float32{9, 3, 2, 2, 2, 1} // R_0 = 9: the self-loop 0→0 must not count
	res, err := Reconstruction(context.Background(), adj, l, r, 1, ReconstructionConfig{Rows: 1, K: []int{1, 2, 4}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ReconstructionRows(6, 1, 0)) != 1 {
		t.Fatal("one row asked for")
	}
	// With every row: 6 rows of which 1 has arcs (3 of them, the loop
	// aside); 30 pairs. Row 0's AP: threshold 3 (1 arc of 1 pair), then 2
	// (3 arcs of 4 pairs): 1/3·1 + 2/3·3/4 = 5/6.
	res, err = Reconstruction(context.Background(), adj, l, r, 1, ReconstructionConfig{K: []int{1, 2, 4, 5}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 6 || res.RowsWithArcs != 1 || res.Arcs != 3 || res.Pairs != 30 {
		t.Errorf("rows %d, with arcs %d, arcs %d, pairs %d; want 6, 1, 3, 30", res.Rows, res.RowsWithArcs, res.Arcs, res.Pairs)
	}
	if math.Abs(res.MAP-5.0/6) > 1e-15 {
		t.Errorf("MAP %v, want 5/6", res.MAP)
	}
	// Pairs by score: 3 (arc), 2, 2, 2 (two arcs), 1, then 25 zeros.
	// P@1 = 1; P@2 = (1 + 1·2/3)/2; P@4 = (1 + 3·2/3)/4; P@5 = 3/5.
	for k, want := range map[string]float64{"1": 1, "2": (1 + 2.0/3) / 2, "4": 0.75, "5": 0.6} {
		if got := res.PrecisionAtK[k]; math.Abs(got-want) > 1e-15 {
			t.Errorf("precision@%s = %v, want %v", k, got, want)
		}
	}
}

// TestReconstructionRows: the sample is distinct, sorted, of the asked
// size, the same for the same seed, and every node below the default
// size.
func TestReconstructionRows(t *testing.T) {
	a, b := ReconstructionRows(1000, 100, 5), ReconstructionRows(1000, 100, 5)
	if len(a) != 100 || !slices.Equal(a, b) || !slices.IsSorted(a) || len(slices.Compact(slices.Clone(a))) != 100 {
		t.Errorf("sample of 100: %v", a)
	}
	if c := ReconstructionRows(1000, 100, 6); slices.Equal(a, c) {
		t.Error("seeds 5 and 6 drew the same rows")
	}
	if got := len(ReconstructionRows(DefaultReconstructionAll, 0, 1)); got != DefaultReconstructionAll {
		t.Errorf("default at %d nodes: %d rows", DefaultReconstructionAll, got)
	}
	if got := len(ReconstructionRows(DefaultReconstructionAll+1, 0, 1)); got != DefaultReconstructionRows {
		t.Errorf("default above %d nodes: %d rows", DefaultReconstructionAll, got)
	}
}

// TestReconstructionErrors: bad shapes, k and NaN scores are errors, and a
// cancelled context stops it.
func TestReconstructionErrors(t *testing.T) {
	adj, _ := sparse.NewFromCOO(t.Context(), 3, 3, []int32{0}, []int32{1}, nil, sparse.DupSum)
	ok := []float32{1, 2, 3}
	nan := []float32{1, float32(math.NaN()), 3}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, run := range map[string]func() error{
		"short L": func() error {
			_, err := Reconstruction(context.Background(), adj, ok[:2], ok, 1, ReconstructionConfig{})
			return err
		},
		"k = 0": func() error {
			_, err := Reconstruction(context.Background(), adj, ok, ok, 1, ReconstructionConfig{K: []int{0}})
			return err
		},
		"rows < 0": func() error {
			_, err := Reconstruction(context.Background(), adj, ok, ok, 1, ReconstructionConfig{Rows: -1})
			return err
		},
		"NaN": func() error {
			_, err := Reconstruction(context.Background(), adj, ok, nan, 1, ReconstructionConfig{})
			return err
		},
		"cancelled": func() error { _, err := Reconstruction(ctx, adj, ok, ok, 1, ReconstructionConfig{}); return err },
	} {
		if err := run(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
