package pipeline

import (
	"context"
	"fmt"

	"github.com/wys-project/wys/sparse"
)

const streamSynthetic uint64 = 0x73796e74 // "synt"

// PlantedPartition returns a seeded undirected graph of n nodes in equal
// blocks: each pair inside a block is an edge with probability pIn, each
// pair across blocks with probability pOut. It is the built-in demo graph
// of the command-line tool. Cost O(n²): meant for small n.
func PlantedPartition(n, blocks int, pIn, pOut float64, seed uint64) (*Graph, error) {
	if n < 2 || blocks < 1 || blocks > n || pIn < 0 || pIn > 1 || pOut < 0 || pOut > 1 {
		return nil, fmt.Errorf("pipeline: planted partition needs n >= 2, 1 <= blocks <= n, probabilities in [0, 1]")
	}
	rng := Stream(seed, streamSynthetic, 0)
	var src, dst []int32
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			p := pOut
			if u*blocks/n == v*blocks/n {
				p = pIn
			}
			if rng.Float64() < p {
				src = append(src, int32(u), int32(v))
				dst = append(dst, int32(v), int32(u))
			}
		}
	}
	adj, err := sparse.NewFromCOO(context.Background(), n, n, src, dst, nil, sparse.DupFirst)
	if err != nil {
		return nil, err
	}
	if adj.NNZ() == 0 {
		return nil, fmt.Errorf("pipeline: planted partition drew no edges; raise the probabilities")
	}
	return &Graph{Adj: adj, IDs: IdentityIDs(n)}, nil
}

// RMAT returns a seeded Graph500-style R-MAT graph with 2^scale nodes and
// edgeFactor·2^scale edges drawn (A = 0.57, B = 0.19, C = 0.19), node ids
// randomly permuted, duplicates and self-loops dropped. Undirected graphs
// store both arcs. Memory: about 40 bytes per drawn edge while building.
// It stops within 65,536 draws, or 1,048,576 arcs while building the
// matrix, of a cancel and returns ctx.Err().
func RMAT(ctx context.Context, scale, edgeFactor int, directed bool, seed uint64) (*Graph, error) {
	if scale < 1 || scale > 30 || edgeFactor < 1 {
		return nil, fmt.Errorf("pipeline: R-MAT needs 1 <= scale <= 30 and edge factor >= 1")
	}
	n := 1 << scale
	m := edgeFactor * n
	rng := Stream(seed, streamSynthetic, 1)
	perm := rng.Perm(n)
	cap := m
	if !directed {
		cap *= 2
	}
	src := make([]int32, 0, cap)
	dst := make([]int32, 0, cap)
	for e := 0; e < m; e++ {
		if e%(1<<16) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		var u, v int
		for l := 0; l < scale; l++ {
			r := rng.Float64()
			switch {
			case r < 0.57:
			case r < 0.76:
				v |= 1 << l
			case r < 0.95:
				u |= 1 << l
			default:
				u |= 1 << l
				v |= 1 << l
			}
		}
		if u == v {
			continue
		}
		a, b := int32(perm[u]), int32(perm[v])
		src, dst = append(src, a), append(dst, b)
		if !directed {
			src, dst = append(src, b), append(dst, a)
		}
	}
	adj, err := sparse.NewFromCOO(ctx, n, n, src, dst, nil, sparse.DupFirst)
	if err != nil {
		return nil, err
	}
	return &Graph{Adj: adj, IDs: IdentityIDs(n), Directed: directed}, nil
}
