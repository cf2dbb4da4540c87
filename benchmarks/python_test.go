package benchmarks

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wys-project/wys/sparse"
)

// writeFile writes text to dir/name, making its folder, and returns the
// path.
func writeFile(t *testing.T, dir, name, text string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCheckPython runs the check with a real python3 on stand-in modules
// (on PYTHONPATH) that are missing, too old or new enough, and under a
// sitecustomize that makes it report Python 2.7, and checks the one line
// it fails with.
func TestCheckPython(t *testing.T) {
	const python = "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	mods := t.TempDir()
	writeFile(t, mods, "wysold/__init__.py", "__version__ = '3.8.3'\n", 0o644)
	writeFile(t, mods, "wysnew/__init__.py", "__version__ = '4.2.0'\n", 0o644)
	writeFile(t, mods, "wysbroken/__init__.py", "raise ImportError('libfoo.so: cannot open shared object file')\n", 0o644)
	old := t.TempDir()
	writeFile(t, old, "sitecustomize.py", "import sys\nsys.version_info = (2, 7, 18, 'final', 0)\n", 0o644)
	newMod := PythonModule{"wysnew", 4, "python3-wysnew"}
	for _, tc := range []struct {
		name, path, python string
		modules            []PythonModule
		want               string // "": no error
	}{
		{"ok", mods, python, []PythonModule{newMod, {"wysold", 3, "python3-wysold"}}, ""},
		{"missing", mods, python, []PythonModule{newMod, {"wysmissing", 0, "python3-wysmissing"}},
			"-python /usr/bin/python3 cannot import wysmissing: No module named 'wysmissing' (Debian: apt-get install python3-wysmissing)"},
		{"broken", mods, python, []PythonModule{{"wysbroken", 0, "python3-wysbroken"}},
			"cannot import wysbroken: libfoo.so: cannot open shared object file (Debian: apt-get install python3-wysbroken)"},
		{"too old a module", mods, python, []PythonModule{{"wysold", 4, "python3-wysold"}},
			"-python /usr/bin/python3 has wysold 3.8.3; the comparison scripts want wysold 4 or newer"},
		{"python 2", old, python, []PythonModule{newMod},
			"-python /usr/bin/python3 is Python 2.7; the comparison scripts want Python 3.6 or newer"},
		{"no python", mods, filepath.Join(mods, "python3"), nil, "not found (Debian: apt-get install python3, or give -python)"},
		{"empty", mods, "", nil, "-python is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PYTHONPATH", tc.path)
			err := CheckPython(context.Background(), "-python", tc.python, tc.modules...)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("CheckPython = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n")):
				t.Errorf("CheckPython = %v, want one line with %q", err, tc.want)
			}
		})
	}
}

// TestCheckPythonHangs checks that a python3 that never answers (a shell
// wrapper whose child keeps the output pipe open) ends the check with one
// line when its time is up, instead of hanging the command (until the
// child ends: it is killed when the test ends).
func TestCheckPythonHangs(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "sleep.pid")
	fake := writeFile(t, dir, "python3", "#!/bin/sh\nsleep 600 &\necho $! > "+pidFile+"\nwait\n", 0o755)
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	defer func(d time.Duration) { pythonCheckTimeout = d }(pythonCheckTimeout)
	pythonCheckTimeout = 100 * time.Millisecond
	err := CheckPython(context.Background(), "-python", fake, NumPy)
	if err == nil || !strings.Contains(err.Error(), "no answer within 100ms") {
		t.Errorf("CheckPython = %v, want no answer within 100ms", err)
	}
}

// TestDeepWalkTraceback runs RunDeepWalk with a stand-in for python3 that
// fails with a traceback, and checks that the error is one line ending in
// the exception, not the whole traceback.
func TestDeepWalkTraceback(t *testing.T) {
	t.Parallel()
	fake := writeFile(t, t.TempDir(), "python3", "#!/bin/sh\n"+
		"echo 'Traceback (most recent call last):' >&2\n"+
		"echo '  File \"deepwalk.py\", line 171, in main' >&2\n"+
		"echo \"TypeError: __init__() got an unexpected keyword argument 'vector_size'\" >&2\n"+
		"echo >&2\nexit 1\n", 0o755)
	adj, err := sparse.NewFromCOO(t.Context(), 2, 2, []int32{0, 1}, []int32{1, 0}, nil, sparse.DupFirst)
	if err != nil {
		t.Fatal(err)
	}
	o := Gensim{Python: fake, Script: "deepwalk.py", Walks: 1, Length: 2, Window: 1, Negative: 1, Epochs: 1, Workers: 1, Dim: 2}
	err = RunDeepWalk(context.Background(), o, adj, func(GensimEpoch) error { return nil })
	want := "gensim: deepwalk.py: exit status 1: TypeError: __init__() got an unexpected keyword argument 'vector_size'"
	if err == nil || err.Error() != want {
		t.Errorf("RunDeepWalk = %v, want %q", err, want)
	}
}
