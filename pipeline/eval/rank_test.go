package eval

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/wys-project/wys/pipeline"
)

// TestRankAllAnalytic ranks against every node but the pair's two on a
// 1-d embedding whose ranks are known in closed form: with l_u = 1 and
// r_w = w, the tail v of a pair (u, v) has the n − 1 − v nodes above it,
// less u when u > v, and every head ties with the n − 2 others (rank
// 1 + (n − 2)/2).
func TestRankAllAnalytic(t *testing.T) {
	const n = 40
	l, r := make([]float32, n), make([]float32, n)
	for w := range n {
		l[w], r[w] = 1, float32(w)
	}
	pairs := []pipeline.Pair{{U: 3, V: 39}, {U: 0, V: 10}, {U: 39, V: 0}, {U: 7, V: 38}}
	res, err := Rank(context.Background(), l, r, 1, n, pairs, RankConfig{})
	if err != nil {
		t.Fatal(err)
	}
	head := 1 + float64(n-2)/2
	var mrr, mean float64
	hits1 := 0
	for _, p := range pairs {
		tail := float64(n - int(p.V))
		if p.U > p.V {
			tail--
		}
		mrr += 1/tail + 1/head
		mean += tail + head
		if tail <= 1 {
			hits1++
		}
	}
	m := float64(2 * len(pairs))
	if math.Abs(res.MRR-mrr/m) > 1e-12 || math.Abs(res.MeanRank-mean/m) > 1e-12 || res.Hits["1"] != float64(hits1)/m || res.Pairs != 4 {
		t.Errorf("got %+v; want MRR %v, mean rank %v, Hits@1 %v", res, mrr/m, mean/m, float64(hits1)/m)
	}
	// Hits@10: the tails of v = 39 and 38 (ranks 1 and 2); Hits@50 every rank.
	if res.Hits["10"] != 2/m || res.Hits["50"] != 1 {
		t.Errorf("hits %v", res.Hits)
	}
}

// bruteRanks ranks with sorted float64 copies of the float32 scores:
// the tail and head rank of each pair against every node but its two.
func bruteRanks(l, r []float32, half, n int, pairs []pipeline.Pair) []float64 {
	dot := func(a, b int) float32 {
		var s float64
		for j := range half {
			s += float64(l[a*half+j]) * float64(r[b*half+j])
		}
		return float32(s)
	}
	rank := func(s float32, others []float32) float64 {
		sort.Slice(others, func(i, j int) bool { return others[i] > others[j] })
		above := sort.Search(len(others), func(i int) bool { return others[i] <= s })
		tied := sort.Search(len(others), func(i int) bool { return others[i] < s }) - above
		return 1 + float64(above) + float64(tied)/2
	}
	var out []float64
	for _, p := range pairs {
		var tails, heads []float32
		for w := range n {
			if w != int(p.U) && w != int(p.V) {
				tails = append(tails, dot(int(p.U), w))
				heads = append(heads, dot(w, int(p.V)))
			}
		}
		out = append(out, rank(dot(int(p.U), int(p.V)), tails), rank(dot(int(p.U), int(p.V)), heads))
	}
	return out
}

// randomRankInput draws n × half embeddings with small integers (exact
// float32 dots, so that the brute force in float64 agrees bit for bit,
// and many ties) and pairs.
func randomRankInput(n, half, pairs int) (l, r []float32, p []pipeline.Pair) {
	rng := rand.New(rand.NewPCG(11, 12))
	l, r = make([]float32, n*half), make([]float32, n*half)
	for i := range l {
		l[i], r[i] = float32(rng.IntN(5)-2), float32(rng.IntN(5)-2)
	}
	for range pairs {
		p = append(p, pipeline.Pair{U: int32(rng.IntN(n)), V: int32(rng.IntN(n))})
	}
	return l, r, p
}

// TestRankAllBrute compares ranking against every node with a brute force
// over sorted scores, on embeddings with many ties, for 1 and 3 workers.
func TestRankAllBrute(t *testing.T) {
	const n, half = 60, 3
	l, r, pairs := randomRankInput(n, half, 200)
	ranks := bruteRanks(l, r, half, n, pairs)
	want := rankSummary(ranks, len(pairs), 0)
	for _, w := range []int{1, 3} {
		got, err := Rank(context.Background(), l, r, half, n, pairs, RankConfig{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.MRR-want.MRR) > 1e-12 || math.Abs(got.MeanRank-want.MeanRank) > 1e-9 || !reflect.DeepEqual(got.Hits, want.Hits) {
			t.Errorf("workers %d: got %+v, want %+v", w, got, want)
		}
	}
}

// TestRankSampled checks the sampled candidates against ranking over
// every node: a candidate drawn uniformly from the m nodes other than the
// pair's (n − 2, or n − 1 for a self-loop) scores above the pair with
// probability above/m (ties count a half), so the expected rank − 1 of a
// side is k/m times its full rank − 1. It also requires the same result for any worker
// count, another one for another seed, and none of the pair's own
// endpoint among the candidates (a pair whose tail scores above every
// other node ranks 1 on that side).
func TestRankSampled(t *testing.T) {
	const n, half, k = 50, 3, 4000
	l, r, pairs := randomRankInput(n, half, 300)
	full := bruteRanks(l, r, half, n, pairs)
	cfg := RankConfig{Negatives: k, Seed: 5, Workers: 1}
	got, err := Rank(context.Background(), l, r, half, n, pairs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := 1.0
	for i, rank := range full {
		m := n - 2
		if p := pairs[i/2]; p.U == p.V {
			m = n - 1
		}
		want += float64(k) / float64(m) * (rank - 1) / float64(len(full))
	}
	if math.Abs(got.MeanRank-want) > 0.01*want {
		t.Errorf("mean rank %v with %d candidates, want %v", got.MeanRank, k, want)
	}
	cfg.Workers = 4
	if again, _ := Rank(context.Background(), l, r, half, n, pairs, cfg); !reflect.DeepEqual(again, got) {
		t.Errorf("4 workers: %+v, 1 worker: %+v", again, got)
	}
	cfg.Seed = 6
	if other, _ := Rank(context.Background(), l, r, half, n, pairs, cfg); other.MeanRank == got.MeanRank {
		t.Errorf("seed 6 gives seed 5's mean rank %v", got.MeanRank)
	}
	// Node 0's r is far above the rest: a pair (u, 0) with l_u > 0 ranks 1
	// at the tail unless node 0 were drawn against itself.
	top := append([]float32(nil), r...)
	copy(top[:half], []float32{100, 100, 100})
	lp := append([]float32(nil), l...)
	copy(lp[half:2*half], []float32{1, 1, 1})
	one, err := Rank(context.Background(), lp, top, half, n, []pipeline.Pair{{U: 1, V: 0}}, RankConfig{Negatives: 500})
	if err != nil || one.Hits["1"] < 0.5 {
		t.Errorf("pair (1, 0): %+v, %v", one, err)
	}
}

// TestRankErrors covers bad settings, a NaN and a cancelled context.
func TestRankErrors(t *testing.T) {
	l, r, pairs := randomRankInput(10, 2, 5)
	ctx := context.Background()
	nan := append([]float32(nil), l...)
	nan[int(pairs[0].U)*2] = float32(math.NaN())
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"negative count", func() error { _, err := Rank(ctx, l, r, 2, 10, pairs, RankConfig{Negatives: -1}); return err }, "-1 ranking candidates"},
		{"no pairs", func() error { _, err := Rank(ctx, l, r, 2, 10, nil, RankConfig{}); return err }, "no pairs"},
		{"outside", func() error {
			_, err := Rank(ctx, l, r, 2, 10, []pipeline.Pair{{U: 1, V: 10}}, RankConfig{})
			return err
		}, "outside 0..9"},
		{"nan all", func() error { _, err := Rank(ctx, nan, r, 2, 10, pairs, RankConfig{}); return err }, "NaN"},
		{"nan sampled", func() error { _, err := Rank(ctx, nan, r, 2, 10, pairs, RankConfig{Negatives: 20}); return err }, "NaN"},
		{"cancelled", func() error { _, err := Rank(cancelled, l, r, 2, 10, pairs, RankConfig{}); return err }, "context canceled"},
	}
	for _, c := range cases {
		if err := c.run(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}
