package wysbeam

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
)

// runDepth is the depth of the deepest files a run writes under its
// directory (prep/shards/csr-00000.bin, blocks/v000003/L-0001.blk).
const runDepth = 3

// RemoveRun deletes what a run wrote under dir: the preprocessing's
// shards, the training graph and the parameter blocks. A local dir is
// removed with everything in it; on another Beam file system (gs://,
// s3://), which holds objects rather than directories, every file up to
// the depth a run writes is listed and removed. It returns the first
// error, after trying every file.
func RemoveRun(ctx context.Context, dir string) error {
	if !strings.Contains(dir, "://") {
		return os.RemoveAll(dir)
	}
	fs, err := filesystem.New(ctx, dir)
	if err != nil {
		return fmt.Errorf("wysbeam: %s: %w", dir, err)
	}
	defer fs.Close()
	rm, ok := fs.(filesystem.Remover)
	if !ok {
		return fmt.Errorf("wysbeam: the file system of %s cannot remove files", dir)
	}
	var files []string
	for depth := 1; depth <= runDepth; depth++ {
		got, err := fs.List(ctx, dir+strings.Repeat("/*", depth))
		if err != nil {
			return fmt.Errorf("wysbeam: listing %s: %w", dir, err)
		}
		files = append(files, got...)
	}
	slices.Sort(files)
	var first error
	for _, f := range slices.Compact(files) {
		if err := rm.Remove(ctx, f); err != nil && first == nil {
			first = fmt.Errorf("wysbeam: removing %s: %w", f, err)
		}
	}
	return first
}
