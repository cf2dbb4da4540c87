package pipeline_test

import (
	"context"
	"errors"
	"testing"

	"github.com/wys-project/wys/pipeline"
)

// cancelAfter is a context whose Err turns to context.Canceled at its
// n-th call, so that a test can cancel inside a loop at a known point.
type cancelAfter struct {
	context.Context
	n, calls int
}

func (c *cancelAfter) Err() error {
	c.calls++
	if c.calls >= c.n {
		return context.Canceled
	}
	return nil
}

// TestRMATCancelled checks that R-MAT generation stops at a cancel,
// before the first draw and inside the drawing loop, with ctx.Err().
func TestRMATCancelled(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 3} {
		ctx := &cancelAfter{Context: context.Background(), n: n}
		g, err := pipeline.RMAT(ctx, 12, 64, false, 1) // 262,144 draws: 4 checks
		if !errors.Is(err, context.Canceled) || g != nil {
			t.Fatalf("cancelled at check %d: graph %v, error %v, want context.Canceled", n, g != nil, err)
		}
		if ctx.calls != n {
			t.Errorf("cancelled at check %d: %d checks, want the generation to stop there", n, ctx.calls)
		}
	}
	if _, err := pipeline.RMAT(&cancelAfter{Context: context.Background(), n: 5}, 12, 64, false, 1); err != nil {
		t.Fatalf("a cancel after the last check: %v", err)
	}
}
