// Package atomicfile writes files so that a reader, or an interrupted
// run, never sees a partial one: the content goes to a temporary file in
// the same directory, is synced, and is renamed into place. A path that
// is a symbolic link is written through (its target is replaced, the
// link kept), and a path that is not a regular file (a device such as
// /dev/stdout, a named pipe, a directory) is refused: renaming onto it
// would replace it.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Write writes a file through a temporary file in the same
// directory, synced and renamed into place, so that an interrupted run
// never leaves a partial file at path. fill writes the content.
func Write(path string, fill func(w io.Writer) error) error {
	return WriteAll([]string{path}, func(_ int, w io.Writer) error { return fill(w) })
}

// WriteAll writes the files at paths as Write writes one, fill(i, w)
// writing the content of paths[i], but renames them into place only once
// every one is written: a failed or cancelled fill leaves none of them
// changed (an embedding file and the ids beside it stay a pair).
func WriteAll(paths []string, fill func(i int, w io.Writer) error) error {
	targets := make([]string, len(paths))
	tmps := make([]string, 0, len(paths))
	defer func() {
		for _, tmp := range tmps {
			os.Remove(tmp) // renamed ones are gone already
		}
	}()
	for i, p := range paths {
		path, err := Target(p)
		if err != nil {
			return err
		}
		targets[i] = path
		tmp, err := writeTemp(path, func(w io.Writer) error { return fill(i, w) })
		if err != nil {
			return err
		}
		tmps = append(tmps, tmp)
	}
	for i, tmp := range tmps {
		if err := os.Rename(tmp, targets[i]); err != nil {
			return fmt.Errorf("writing %s: %w", targets[i], err)
		}
	}
	return nil
}

// tempPattern is the name pattern, for os.CreateTemp, of the temporary
// files that Write and WriteAll write beside path.
func tempPattern(path string) string { return "." + filepath.Base(path) + ".partial-*" }

// RemoveStale removes the temporary files that writes of path left
// behind when their process was killed (a signal that no cleanup runs
// after, such as SIGKILL), and returns how many it removed. Only a caller
// that alone writes path (holding a lock on it) may call it: another
// writer's temporary file is not yet stale.
func RemoveStale(path string) (int, error) {
	stale, err := filepath.Glob(filepath.Join(filepath.Dir(path), tempPattern(path)))
	if err != nil {
		return 0, err
	}
	for i, p := range stale {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return i, err
		}
	}
	return len(stale), nil
}

// writeTemp writes, syncs and closes a temporary file beside path with
// the permissions path will have, and returns its name.
func writeTemp(path string, fill func(w io.Writer) error) (string, error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tempPattern(path))
	if err != nil {
		return "", fmt.Errorf("cannot write %s: %w (check that the directory exists and is writable)", path, err)
	}
	tmp := f.Name()
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(tmp)
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := fill(bw); err != nil {
		return fail(err)
	}
	if err := bw.Flush(); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp, mode(path)); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return tmp, nil
}

// mode returns the permissions of the file Write puts at path: those of
// the file it replaces, else what creating it would give (0666 less the
// process's umask, read from /proc/self/status; 0644 where that is
// unknown), as a file the program wrote in place would have had.
func mode(path string) fs.FileMode {
	if fi, err := os.Stat(path); err == nil {
		return fi.Mode().Perm()
	}
	return 0o666 &^ umask()
}

// umask returns the process's file mode creation mask, or 0022 where it
// cannot be read.
func umask() fs.FileMode {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0o022
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			var m uint32
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%o", &m); err == nil {
				return fs.FileMode(m) & 0o777
			}
		}
	}
	return 0o022
}

// Target returns the file that Write(path) replaces: path itself, or
// the file a symbolic link at path leads to (which need not exist yet).
// It is an error for that file to exist and not be a regular file.
func Target(path string) (string, error) {
	// Stat follows every link, /proc's magic ones to pipes included.
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return "", fmt.Errorf("cannot write %s: it is a directory; give a file name inside it", path)
	} else if err == nil && !fi.Mode().IsRegular() {
		return "", fmt.Errorf("cannot write %s: it is not a regular file (%s), and writing it would replace it; give the name of a file", path, kind(fi.Mode()))
	}
	for range 40 { // as many links as Linux follows
		if system(path) {
			return "", fmt.Errorf("cannot write %s: it is a system path (a process's stream or a device), and writing it would replace it; give the name of a file", path)
		}
		fi, err := os.Lstat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return path, nil
		case err != nil:
			return "", fmt.Errorf("cannot write %s: %w", path, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return "", fmt.Errorf("cannot write %s: %w", path, err)
			}
			if !filepath.IsAbs(link) {
				link = filepath.Join(filepath.Dir(path), link)
			}
			path = link
		default:
			return path, nil
		}
	}
	return "", fmt.Errorf("cannot write %s: too many levels of symbolic links", path)
}

// system reports whether path lies under /dev or /proc, where
// /dev/stdout and /proc/self/fd/1 lead to the process's own output: a
// rename onto the file it is redirected to would replace that file while
// the process still writes to the old one.
func system(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for _, dir := range []string{"/dev", "/proc"} {
		if abs == dir || strings.HasPrefix(abs, dir+"/") {
			return true
		}
	}
	return false
}

// kind names a non-regular file mode.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// Check reports, before any work, why Write(path) would fail: "-" (a
// command's stream, not a file), a directory, a target that is not a
// regular file (Target), a missing parent directory, or one in which no
// file can be created (Check creates and removes an empty temporary file
// there). The error starts "cannot write".
func Check(path string) error {
	if path == "-" {
		return errors.New(`cannot write to "-": outputs are files, written whole or not at all; give a file name`)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("cannot write %s: it is a directory; give the name of a file inside it", path)
	}
	target, err := Target(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(target)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("cannot write %s: directory %s does not exist", path, dir)
	}
	f, err := os.CreateTemp(dir, ".wys-write-test-*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot write %s: directory %s is not writable (creating a file there failed: %v); choose another output path", path, dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
