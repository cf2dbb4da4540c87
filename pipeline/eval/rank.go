package eval

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"

	"golang.org/x/sync/errgroup"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/internal/kernels"
)

// streamRank is the random stream purpose of Rank's candidates.
const streamRank uint64 = 0x72616e6b // "rank"

// RankHitsK are the k of the Hits@k that Rank reports: PyTorch-BigGraph's.
var RankHitsK = []int{1, 10, 50}

// RankConfig sets up Rank. The zero value ranks against every node.
type RankConfig struct {
	// Negatives is the number of candidates each true endpoint is ranked
	// against, per side, drawn uniformly with replacement from the nodes
	// other than the pair's two; 0 ranks it against every such node.
	Negatives int
	// Seed seeds the draws: pair i's candidates come from its own stream,
	// so the result does not depend on Workers.
	Seed uint64
	// Workers ranks pairs in parallel; 0 means GOMAXPROCS.
	Workers int
}

// RankResult holds the ranking measures of Rank.
type RankResult struct {
	// Negatives is RankConfig.Negatives (0: every other node), and
	// Candidates the number each side of a pair is ranked against: the
	// random nodes drawn, or every node other than the pair's two.
	Negatives  int `json:"negatives"`
	Candidates int `json:"candidates"`
	// Pairs counts the pairs; each was ranked twice (head and tail).
	Pairs int `json:"pairs"`
	// MRR is the mean of 1/rank over both sides of every pair.
	MRR float64 `json:"mrr"`
	// MeanRank is the mean rank.
	MeanRank float64 `json:"mean_rank"`
	// Hits maps k (RankHitsK) to the share of ranks of at most k.
	Hits map[string]float64 `json:"hits"`
}

// Rank scores link prediction by ranking, as PyTorch-BigGraph and the
// knowledge-graph literature do (unfiltered): for each pair (u, v), the
// score s(u, v) = l_u·r_v is ranked against s(u, w) for candidate tails
// and, separately, against s(w, v) for candidate heads, the candidates
// being nodes other than u and v: a node is not its own neighbour (the
// graphs have no self-loops), and with a single table, whose s(u, u) is
// |y_u|² (or 1 with cosine), it would outscore most true pairs. A rank
// is 1 + the candidates scoring above the pair + half of those tied with
// it (the mean rank under random tie-breaking, as OGB's MRR counts ties).
// Candidates that are themselves arcs are not removed. l and r are n ×
// half row-major; every score is kernels.Dot's float32 dot product, the
// pair's included, so that a candidate equal to the pair ties with it.
// It checks ctx between pairs.
func Rank(ctx context.Context, l, r []float32, half, n int, pairs []pipeline.Pair, cfg RankConfig) (*RankResult, error) {
	switch {
	case cfg.Negatives < 0:
		return nil, fmt.Errorf("eval: %d ranking candidates; want 0 (every node) or more", cfg.Negatives)
	case n < 2:
		return nil, fmt.Errorf("eval: ranking needs at least 2 nodes, have %d", n)
	case len(pairs) == 0:
		return nil, fmt.Errorf("eval: no pairs to rank")
	case len(l) < n*half || len(r) < n*half:
		return nil, fmt.Errorf("eval: %d and %d numbers for %d rows of %d", len(l), len(r), n, half)
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(pairs))
	ranks := make([]float64, 2*len(pairs))
	lRows, rRows := rowsOf(l, half, n), rowsOf(r, half, n)
	g, ctx := errgroup.WithContext(ctx)
	for w := range workers {
		g.Go(func() error {
			var buf []float32
			if cfg.Negatives == 0 {
				buf = make([]float32, n)
			}
			for i := w * len(pairs) / workers; i < (w+1)*len(pairs)/workers; i++ {
				if err := ctx.Err(); err != nil {
					return err
				}
				u, v := int(pairs[i].U), int(pairs[i].V)
				if u >= n || v >= n || u < 0 || v < 0 {
					return fmt.Errorf("eval: pair %d (%d, %d) names a node outside 0..%d", i, u, v, n-1)
				}
				var err error
				if cfg.Negatives == 0 {
					ranks[2*i], err = rankAll(buf, lRows[u], rRows, v, u)
					if err == nil {
						ranks[2*i+1], err = rankAll(buf, rRows[v], lRows, u, v)
					}
				} else {
					rng := pipeline.Stream(cfg.Seed, streamRank, uint64(i))
					ranks[2*i], err = rankSampled(lRows[u], rRows, v, u, cfg.Negatives, rng.IntN)
					if err == nil {
						ranks[2*i+1], err = rankSampled(rRows[v], lRows, u, v, cfg.Negatives, rng.IntN)
					}
				}
				if err != nil {
					return fmt.Errorf("eval: pair %d (%d, %d): %w", i, u, v, err)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	res := rankSummary(ranks, len(pairs), cfg.Negatives)
	if res.Candidates = cfg.Negatives; cfg.Negatives == 0 {
		res.Candidates = n - 2
	}
	return res, nil
}

// rowsOf returns the n rows of the row-major x.
func rowsOf(x []float32, half, n int) [][]float32 {
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = x[i*half : (i+1)*half]
	}
	return rows
}

// rankAll ranks a·rows[pos] against a·rows[w] for every w other than pos
// and self (the pair's other node).
func rankAll(buf, a []float32, rows [][]float32, pos, self int) (float64, error) {
	kernels.Dots(buf, a, rows)
	s := buf[pos]
	if s != s {
		return 0, errNaNScore
	}
	above, tied := 0, 0
	for w, x := range buf {
		switch {
		case w == pos || w == self:
		case x > s:
			above++
		case x == s:
			tied++
		case x != x:
			return 0, errNaNScore
		}
	}
	return 1 + float64(above) + float64(tied)/2, nil
}

// rankSampled ranks a·rows[pos] against a·rows[w] for k candidates w
// drawn uniformly from the nodes other than pos and self (the pair's
// other node; the same as pos for a self-loop).
func rankSampled(a []float32, rows [][]float32, pos, self, k int, intN func(int) int) (float64, error) {
	s := kernels.Dot(a, rows[pos])
	if s != s {
		return 0, errNaNScore
	}
	above, tied := 0, 0
	lo, hi := min(pos, self), max(pos, self)
	others := len(rows) - 1 // the nodes other than lo and hi
	if lo != hi {
		others--
	}
	for range k {
		w := intN(others) // skip lo, then hi
		if w >= lo {
			w++
		}
		if lo != hi && w >= hi {
			w++
		}
		x := kernels.Dot(a, rows[w])
		switch {
		case x > s:
			above++
		case x == s:
			tied++
		case x != x:
			return 0, errNaNScore
		}
	}
	return 1 + float64(above) + float64(tied)/2, nil
}

var errNaNScore = errors.New("a score is NaN: the embeddings hold a NaN or an infinity, or values too large for the float32 sums the scores are computed in (3.4e38)")

// rankSummary turns the ranks of pairs pairs into MRR, mean rank and
// Hits@k.
func rankSummary(ranks []float64, pairs, negatives int) *RankResult {
	res := &RankResult{Negatives: negatives, Pairs: pairs, Hits: map[string]float64{}}
	hits := make([]int, len(RankHitsK))
	for _, rk := range ranks {
		res.MRR += 1 / rk
		res.MeanRank += rk
		for j, k := range RankHitsK {
			if rk <= float64(k) {
				hits[j]++
			}
		}
	}
	m := float64(len(ranks))
	res.MRR /= m
	res.MeanRank /= m
	for j, k := range RankHitsK {
		res.Hits[strconv.Itoa(k)] = float64(hits[j]) / m
	}
	return res
}
