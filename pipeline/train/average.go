package train

import (
	"context"
	"fmt"

	"github.com/wys-project/wys/sparse"
)

// AverageSnapshots is the most snapshots of L and R that tail averaging
// (Config.Average) takes, evenly spaced over its share of the run. On PPI
// the test AUC is the same with 100 snapshots as with one after every
// batch, at a hundredth of the cost.
const AverageSnapshots = 100

// averageRows is the number of rows one goroutine averages at a time.
const averageRows = 4096

// averager keeps the running mean of L and R over the snapshots taken so
// far (Polyak–Ruppert averaging of the run's tail).
type averager struct {
	window, every int64 // batches averaged over, and between snapshots
	l, r          []float32
	n             int // snapshots so far
}

// newAverager returns the averager of a run of batches batches that
// averages its last share of them, or nil when share is 0.
func newAverager(share float64, batches int64) *averager {
	if share <= 0 {
		return nil
	}
	window := max(1, int64(share*float64(batches)+0.5))
	return &averager{window: window, every: (window + AverageSnapshots - 1) / AverageSnapshots}
}

// due reports whether the parameters after done of batches batches are a
// snapshot: the last batch is one, and so is every every-th before it
// within the window.
func (a *averager) due(done, batches int64) bool {
	return a != nil && done > batches-a.window && (batches-done)%a.every == 0
}

// add folds the snapshot l, r into the mean: mean += (x − mean)/k for the
// k-th snapshot, element by element, so the result does not depend on
// the number of workers.
func (a *averager) add(ctx context.Context, l, r []float32, h, workers int) error {
	if a.l == nil {
		a.l, a.r = make([]float32, len(l)), make([]float32, len(r))
	}
	a.n++
	k := float32(a.n)
	rows := len(l) / h
	return sparse.ParallelFor(ctx, (rows+averageRows-1)/averageRows, workers, func(i int) {
		lo, hi := i*averageRows*h, min(rows, (i+1)*averageRows)*h
		for j := lo; j < hi; j++ {
			a.l[j] += (l[j] - a.l[j]) / k
			a.r[j] += (r[j] - a.r[j]) / k
		}
	})
}

// note describes the averaging for the run's log.
func (a *averager) note() string {
	return fmt.Sprintf("L and R averaged over the last %d batches (%d snapshots, one every %d batches)", a.window, a.n, a.every)
}
