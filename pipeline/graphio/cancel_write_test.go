package graphio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/wys-project/wys/pipeline"
)

// laterCtx is a context cancelled at its Err call number after+1: a
// cancel that arrives while rows are being written.
type laterCtx struct {
	context.Context
	after int
}

func (c *laterCtx) Err() error {
	if c.after--; c.after < 0 {
		return context.Canceled
	}
	return nil
}

// TestWriteEmbeddingsCancelled: a context cancelled before the write, or
// after one or two checks of the row loops, stops the write in every
// format, returns context.Canceled and leaves no file (the output is
// atomic).
func TestWriteEmbeddingsCancelled(t *testing.T) {
	// Text is formatted GOMAXPROCS chunks of checkRows rows at a time, with
	// a check before each such window: 3·GOMAXPROCS + 1 chunks make four.
	chunks := 3*runtime.GOMAXPROCS(0) + 1
	n, h := (chunks-1)*checkRows+5, 2
	res := &pipeline.Result{N: n, Half: h, L: make([]float32, n*h), R: make([]float32, n*h)}
	dir := t.TempDir()
	for i, name := range []string{"e.txt", "e.tsv", "e.csv", "e.txt.gz", "e.npy", "f.npy"} {
		ctx := &laterCtx{context.Background(), i % 3}
		if name == "f.npy" {
			// The .npy rows (one check per chunk) are written; the ids
			// file is cancelled at its second check.
			ctx.after = chunks + 1
		}
		path := filepath.Join(dir, name)
		if err := WriteEmbeddings(ctx, path, "", res, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: got %v, want context.Canceled", name, err)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 0 {
			t.Errorf("%s: a cancelled write left %v", name, entries)
		}
	}
}
