package lowrank

import (
	"context"
	"runtime"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// parallelChunks calls fn(i) for i in [0, n) on up to workers goroutines
// (0 means GOMAXPROCS). The calls must be independent; ctx is checked
// between them.
func parallelChunks(ctx context.Context, n, workers int, fn func(i int)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var eg errgroup.Group
	for w := 0; w < min(workers, n); w++ {
		eg.Go(func() error {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return nil
				}
				fn(i)
			}
		})
	}
	eg.Wait()
	return ctx.Err()
}
