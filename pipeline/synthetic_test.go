package pipeline_test

import (
	"context"
	"errors"
	"testing"

	"github.com/wys-project/wys/internal/ctxtest"
	"github.com/wys-project/wys/pipeline"
)

// TestRMATCancelled checks that R-MAT generation stops at a cancel,
// before the first draw, inside the drawing loop and while building the
// matrix, with ctx.Err().
func TestRMATCancelled(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 3, 5, 8} {
		ctx := &ctxtest.CancelAfter{Context: context.Background(), N: n}
		g, err := pipeline.RMAT(ctx, 12, 64, false, 1) // 262,144 draws: 4 checks; building the matrix: 4 more
		if !errors.Is(err, context.Canceled) || g != nil {
			t.Fatalf("cancelled at check %d: graph %v, error %v, want context.Canceled", n, g != nil, err)
		}
		if ctx.Calls != n {
			t.Errorf("cancelled at check %d: %d checks, want the generation to stop there", n, ctx.Calls)
		}
	}
	if _, err := pipeline.RMAT(&ctxtest.CancelAfter{Context: context.Background(), N: 9}, 12, 64, false, 1); err != nil {
		t.Fatalf("a cancel after the last check: %v", err)
	}
}
