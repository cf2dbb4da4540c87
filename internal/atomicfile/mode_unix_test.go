//go:build linux

package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteMode: a new file gets 0666 less the umask, as a file created
// in place would; a replaced file keeps its mode.
func TestWriteMode(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	write := func(path string) {
		if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
			t.Fatal(err)
		}
	}
	fresh := filepath.Join(dir, "fresh")
	write(fresh)
	if st, _ := os.Stat(fresh); st.Mode().Perm() != 0o600 {
		t.Errorf("new file under umask 077: mode %v, want 0600", st.Mode().Perm())
	}
	kept := filepath.Join(dir, "kept")
	os.WriteFile(kept, []byte("old"), 0o600)
	os.Chmod(kept, 0o640)
	write(kept)
	if st, _ := os.Stat(kept); st.Mode().Perm() != 0o640 {
		t.Errorf("replaced file: mode %v, want its 0640", st.Mode().Perm())
	}
}
