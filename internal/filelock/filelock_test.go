package filelock

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestLock: a second process cannot take a held lock, and can once it is
// released. (flock locks belong to open files, so a second Lock in this
// process would fail too; another process is the case that matters.)
func TestLock(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no flock")
	}
	if path := os.Getenv("FILELOCK_CHILD"); path != "" {
		_, err := Lock(path)
		if errors.Is(err, ErrLocked) {
			os.Exit(3)
		}
		if err != nil {
			os.Exit(4)
		}
		os.Exit(0)
	}
	path := filepath.Join(t.TempDir(), "lock")
	child := func() int {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLock$")
		cmd.Env = append(os.Environ(), "FILELOCK_CHILD="+path)
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	}
	l, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	if code := child(); code != 3 {
		t.Errorf("another process while the lock is held: exit %d, want 3 (ErrLocked)", code)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if code := child(); code != 0 {
		t.Errorf("another process after Unlock: exit %d, want 0", code)
	}
}
