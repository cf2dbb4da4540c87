package wysbeam

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"
)

// TestRemoveRun removes a run's files at every depth it writes, on the
// local file system (the directory goes too) and on Beam's in-memory one
// (objects, listed by depth), and leaves a sibling run alone.
func TestRemoveRun(t *testing.T) {
	ctx := context.Background()
	rel := []string{"graph.csr", "prep/ids.bin", "prep/shards/csr-00000.bin", "blocks/v000001/q.json", "blocks/v000002/L-0000.blk"}
	local := t.TempDir()
	for root, sibling := range map[string]string{filepath.Join(local, "run"): filepath.Join(local, "run2", "graph.csr"), "memfs://bucket/run": "memfs://bucket/run2/graph.csr"} {
		for _, p := range append([]string{sibling}, rel...) {
			if p != sibling {
				p = root + "/" + p
			}
			if err := writeFile(ctx, p, func(w io.Writer) error { _, err := w.Write([]byte("x")); return err }); err != nil {
				t.Fatal(err)
			}
		}
		if err := RemoveRun(ctx, root); err != nil {
			t.Fatal(err)
		}
		fs, err := filesystem.New(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rel {
			if ok, _ := exists(ctx, fs, root+"/"+r); ok {
				t.Errorf("%s/%s is left", root, r)
			}
		}
		if ok, _ := exists(ctx, fs, sibling); !ok {
			t.Errorf("%s: the sibling run's file is gone", root)
		}
		fs.Close()
	}
	if _, err := os.Stat(filepath.Join(local, "run")); !os.IsNotExist(err) {
		t.Errorf("local run directory: %v", err)
	}
}

// exists reports whether path can be opened on fs.
func exists(ctx context.Context, fs filesystem.Interface, path string) (bool, error) {
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		return false, err
	}
	return true, r.Close()
}
