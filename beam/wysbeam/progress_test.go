package wysbeam

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRoundsDone writes the q state of versions 0..3 by hand and checks
// the count of finished rounds from several starting points.
func TestRoundsDone(t *testing.T) {
	t.Parallel()
	job := Job{Dir: t.TempDir()}
	ctx := context.Background()
	check := func(from, rounds, want int64) {
		t.Helper()
		if got, err := job.RoundsDone(ctx, from, rounds); got != want || err != nil {
			t.Errorf("RoundsDone(%d, %d) = %d, %v; want %d", from, rounds, got, err, want)
		}
	}
	check(0, 5, 0)
	for v := int64(0); v <= 3; v++ {
		p := qPath(job.Dir, v)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check(0, 5, 3)
	check(2, 5, 3)
	check(0, 2, 2)
	check(3, 3, 3)
}
