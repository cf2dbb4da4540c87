//go:build linux || darwin

package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRefuseSpecialFiles: a named pipe and a link to one are refused and
// left as they are (renaming onto a device or pipe used to replace
// /dev/stdout with a regular file). Devices are not tried: a broken
// Write would replace a system file.
func TestRefuseSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	os.Symlink("fifo", filepath.Join(dir, "link"))
	for path, want := range map[string]string{
		fifo:                       "a named pipe",
		filepath.Join(dir, "link"): "a named pipe",
	} {
		err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err })
		if err == nil || !strings.Contains(err.Error(), "is not a regular file ("+want+")") {
			t.Errorf("%s: got %v, want a refusal naming %s", path, err, want)
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", fi, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d entries in the directory, want the pipe and the link", len(entries))
	}
}

// TestTargetSystemPaths: the process's own streams are refused by Target
// whatever they are redirected to (a rename onto a redirected file would
// replace it while the process writes to the old one). Only Target is
// called: nothing is written.
func TestTargetSystemPaths(t *testing.T) {
	for _, p := range []string{"/dev/stdout", "/proc/self/fd/1", "/dev/null"} {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if _, err := Target(p); err == nil {
			t.Errorf("Target(%s) accepted it", p)
		}
	}
}
