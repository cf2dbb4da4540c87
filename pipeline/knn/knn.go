package knn

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/wys-project/wys/pipeline/internal/kernels"
)

// Neighbor is one result: a row of the table and its score.
type Neighbor struct {
	Row   int
	Score float32
}

// before reports whether a ranks ahead of b: a higher score, or an equal
// score and a lower row; NaN ranks last.
func before(a, b Neighbor) bool {
	an, bn := math.IsNaN(float64(a.Score)), math.IsNaN(float64(b.Score))
	switch {
	case an || bn:
		return !an || (bn && a.Row < b.Row)
	case a.Score != b.Score:
		return a.Score > b.Score
	}
	return a.Row < b.Row
}

// topK is a bounded min-heap: its root is the worst of the kept rows.
type topK struct {
	k     int
	items []Neighbor
}

func (h *topK) Len() int           { return len(h.items) }
func (h *topK) Less(i, j int) bool { return before(h.items[j], h.items[i]) }
func (h *topK) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *topK) Push(x any)         { h.items = append(h.items, x.(Neighbor)) }
func (h *topK) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// offer keeps nb when it ranks among the k best seen.
func (h *topK) offer(nb Neighbor) {
	if len(h.items) < h.k {
		heap.Push(h, nb)
		return
	}
	if before(nb, h.items[0]) {
		h.items[0] = nb
		heap.Fix(h, 0)
	}
}

// sorted returns the kept rows, best first.
func (h *topK) sorted() []Neighbor {
	out := make([]Neighbor, len(h.items))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(h).(Neighbor)
	}
	return out
}

// BlockRows is the number of table rows scanned as one block: 1024 rows
// of 64 float32 are 256 KiB, within a core's L2 cache.
const BlockRows = 1024

// Search returns, for each of the m = len(queries)/dim query vectors
// (row-major), the k rows of table (n x dim, row-major) with the largest
// inner product, best first, ties broken by the lower row (see the
// package documentation). exclude[i], when not negative, is a row that
// query i must not return (the query node itself), below n (a row past
// the table is an error: it would exclude nothing); exclude may be nil.
// workers ≤ 0 means GOMAXPROCS. It checks ctx between blocks and returns
// its error unchanged.
func Search(ctx context.Context, table []float32, dim int, queries []float32, exclude []int, k, workers int) ([][]Neighbor, error) {
	if dim <= 0 || len(table)%dim != 0 || len(queries)%dim != 0 {
		return nil, fmt.Errorf("knn: table of %d and queries of %d numbers are not rows of %d", len(table), len(queries), dim)
	}
	n, m := len(table)/dim, len(queries)/dim
	if exclude != nil && len(exclude) != m {
		return nil, fmt.Errorf("knn: %d exclusions for %d queries", len(exclude), m)
	}
	for i, x := range exclude {
		if x >= n {
			return nil, fmt.Errorf("knn: query %d excludes row %d of a table of %d rows", i, x, n)
		}
	}
	if k <= 0 {
		return nil, fmt.Errorf("knn: k = %d, want at least 1", k)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	blocks := (n + BlockRows - 1) / BlockRows
	workers = max(1, min(workers, blocks))
	heaps := make([][]topK, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range heaps {
		heaps[w] = make([]topK, m)
		for q := range heaps[w] {
			heaps[w][q].k = k
		}
		wg.Add(1)
		go func(hs []topK) {
			defer wg.Done()
			for ctx.Err() == nil {
				b := int(next.Add(1)) - 1
				if b >= blocks {
					return
				}
				scanBlock(hs, table, dim, queries, exclude, b*BlockRows, min(n, (b+1)*BlockRows))
			}
		}(heaps[w])
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]Neighbor, m)
	for q := range out {
		all := &heaps[0][q]
		for w := 1; w < workers; w++ {
			for _, nb := range heaps[w][q].items {
				all.offer(nb)
			}
		}
		out[q] = all.sorted()
	}
	return out, nil
}

// scanBlock offers rows lo..hi−1 of table to every query's heap.
func scanBlock(hs []topK, table []float32, dim int, queries []float32, exclude []int, lo, hi int) {
	for q := range hs {
		x := queries[q*dim : q*dim+dim]
		skip := -1
		if exclude != nil {
			skip = exclude[q]
		}
		h := &hs[q]
		for r := lo; r < hi; r++ {
			if r == skip {
				continue
			}
			h.offer(Neighbor{Row: r, Score: kernels.Dot(x, table[r*dim:r*dim+dim])})
		}
	}
}

// Normalized returns a copy of the n x dim table y with every row scaled
// to unit length (a zero row stays zero), so that inner products of its
// rows are cosines.
func Normalized(y []float32, dim int) []float32 {
	out := make([]float32, len(y))
	for i := 0; i+dim <= len(y); i += dim {
		row := y[i : i+dim]
		var s float64
		for _, v := range row {
			s += float64(v) * float64(v)
		}
		if s == 0 {
			continue
		}
		inv := 1 / math.Sqrt(s)
		for j, v := range row {
			out[i+j] = float32(float64(v) * inv)
		}
	}
	return out
}
