package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWrite checks that a failing writer leaves neither the
// target nor a temporary file, and that an existing file survives it.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "old"); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, strings.Repeat("new", 1<<20)) // more than the buffer: reaches the file
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the writer's error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("the failed write changed the file: %d bytes", len(b))
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want 1", len(entries))
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
}

// TestWriteAll: the files are renamed into place only once all are
// written. A failure in the second fill leaves both old files as they
// were and no temporary file; a good write replaces both.
func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	paths := []string{filepath.Join(dir, "a.npy"), filepath.Join(dir, "a.ids.txt")}
	write := func(text string, failAt int) error {
		return WriteAll(paths, func(i int, w io.Writer) error {
			if i == failAt {
				return errors.New("boom")
			}
			_, err := io.WriteString(w, text+paths[i])
			return err
		})
	}
	if err := write("old", -1); err != nil {
		t.Fatal(err)
	}
	if err := write("new", 1); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("got %v, want the second fill's error", err)
	}
	for _, p := range paths {
		if b, _ := os.ReadFile(p); string(b) != "old"+p {
			t.Errorf("%s holds %q after a failed write, want the old content", p, b)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("directory holds %d entries, want 2", len(entries))
	}
	if err := write("new", -1); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if b, _ := os.ReadFile(p); string(b) != "new"+p {
			t.Errorf("%s holds %q, want the new content", p, b)
		}
	}
}

// TestWriteThroughLinks: a symbolic link (here a relative link to a link)
// is written through, the links kept and the final target replaced; a
// dangling link creates its target; a directory is refused.
func TestWriteThroughLinks(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "real")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(sub, "target.txt")
	os.WriteFile(target, []byte("old"), 0o644)
	if err := os.Symlink("real/target.txt", filepath.Join(dir, "mid")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	os.Symlink(filepath.Join(dir, "mid"), filepath.Join(dir, "link"))
	os.Symlink("real/new.txt", filepath.Join(dir, "dangling"))
	put := func(p, s string) error {
		return Write(p, func(w io.Writer) error { _, err := io.WriteString(w, s); return err })
	}
	if err := put(filepath.Join(dir, "link"), "new"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target holds %q, want the new content", b)
	}
	for _, l := range []string{"link", "mid"} {
		if fi, err := os.Lstat(filepath.Join(dir, l)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v %v", l, fi, err)
		}
	}
	if err := put(filepath.Join(dir, "dangling"), "x"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(sub, "new.txt")); string(b) != "x" {
		t.Errorf("the dangling link's target holds %q", b)
	}
	if err := put(sub, "x"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
}

// TestCheck: a command's stream, a directory, a missing directory (also
// behind a link), and a directory that takes no files are refused; a
// writable path is accepted and the probe leaves nothing behind.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(filepath.Join(dir, "gone", "x.txt"), link); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"-":                               `cannot write to "-"`,
		dir:                               "it is a directory",
		filepath.Join(dir, "no", "x.txt"): "directory " + filepath.Join(dir, "no") + " does not exist",
		link:                              "directory " + filepath.Join(dir, "gone") + " does not exist",
		"/sys/wys-check.txt":              "is not writable",
		filepath.Join(dir, "x.txt"):       "",
	} {
		err := Check(path)
		if (want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries left in %s, want only the link", len(entries), dir)
	}
}

// TestRemoveStale: the temporary files a killed writer of a path left
// (named as the helper report saw them, .wys.ckpt.partial-NNN) are
// removed; the file itself and other files' temporaries are not.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "wys.ckpt")
	keep := []string{"wys.ckpt", ".other.ckpt.partial-1", "wys.ckpt.partial-2", ".wys.ckptx.partial-3"}
	for _, name := range append([]string{".wys.ckpt.partial-12345", ".wys.ckpt.partial-678"}, keep...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n, err := RemoveStale(path)
	if err != nil || n != 2 {
		t.Fatalf("removed %d (%v), want 2", n, err)
	}
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	slices.Sort(left)
	slices.Sort(keep)
	if !slices.Equal(left, keep) {
		t.Errorf("left %q, want %q", left, keep)
	}
}
