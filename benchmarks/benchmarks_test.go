package benchmarks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/wys-project/wys/sparse"
)

// TestWriteEdgeListTemp writes a small undirected graph and compares the
// file with the edges listed by hand.
func TestWriteEdgeListTemp(t *testing.T) {
	src := []int32{0, 1, 1, 2, 0, 3}
	dst := []int32{1, 0, 2, 1, 3, 0}
	adj, err := sparse.NewFromCOO(t.Context(), 4, 4, src, dst, nil, sparse.DupFirst)
	if err != nil {
		t.Fatal(err)
	}
	path, err := WriteEdgeListTemp(adj)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "0\t1\n0\t3\n1\t2\n"; string(b) != want {
		t.Errorf("edge list %q, want %q", b, want)
	}
}

func TestMeanStd(t *testing.T) {
	m, s := MeanStd([]float64{1, 2, 3, 4})
	// mean 2.5; sample variance (2.25+0.25+0.25+2.25)/3 = 5/3.
	if m != 2.5 || s < 1.2909944 || s > 1.2909945 {
		t.Errorf("MeanStd = %v, %v; want 2.5, 1.2909944…", m, s)
	}
}

// harnessCmd is a command for the harness tests: a flag -fail that makes
// it fail, and a result with the header and one table row.
func harnessCmd(ctx context.Context, h *Harness) error {
	fail := h.Flags.Bool("fail", false, "return an error after parsing")
	n := h.Flags.Int("n", 1, "a positive number")
	if err := h.Parse(); err != nil {
		return err
	}
	if *n < 1 {
		return h.Usagef("-n %d: want a positive number", *n)
	}
	if *fail {
		return errors.New("it failed")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return h.WriteResult(h.Header("Test") + "| a | b |\n|---|---|\n| 1 | 2 |\n")
}

// TestRunExitCodes checks the exit status and the streams for each kind of
// outcome.
func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		args   []string
		code   int
		stdout string // a substring of stdout ("" : stdout empty)
		stderr string // a substring of stderr ("" : stderr empty)
	}{
		{"ok", context.Background(), []string{"-n", "2"}, 0, "| 1 | 2 |", ""},
		{"help", context.Background(), []string{"-help"}, 0, "usage: go run ./benchmarks/cmd/test [flags]", ""},
		{"h", context.Background(), []string{"-h"}, 0, "-allow-dirty", ""},
		{"unknown flag", context.Background(), []string{"-bogus"}, 2, "", "test: flag provided but not defined: -bogus\nusage: "},
		{"bad value", context.Background(), []string{"-n", "x"}, 2, "", `test: invalid value "x" for flag -n`},
		{"positional", context.Background(), []string{"extra"}, 2, "", `test: unexpected argument "extra"`},
		{"usagef", context.Background(), []string{"-n", "0"}, 2, "", "test: -n 0: want a positive number\n(go run ./benchmarks/cmd/test -help lists the flags)\n"},
		{"error", context.Background(), []string{"-fail"}, 1, "", "test: it failed\n"},
		{"interrupted", cancelled, nil, 130, "", "test: interrupted\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(tc.ctx, "test", tc.args, &stdout, &stderr, harnessCmd)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tc.code, stderr.String())
			}
			for _, s := range []struct {
				name      string
				got, want string
			}{{"stdout", stdout.String(), tc.stdout}, {"stderr", stderr.String(), tc.stderr}} {
				if s.want == "" && s.got != "" || !strings.Contains(s.got, s.want) {
					t.Errorf("%s %q, want %q in it", s.name, s.got, s.want)
				}
			}
		})
	}
}

// TestDataHint checks that a failure naming a path under a -data folder
// that does not exist says so, and that it does not when the folder
// exists (the dataset itself is missing) or the error is about another
// path.
func TestDataHint(t *testing.T) {
	t.Parallel()
	exists := t.TempDir()
	missing := filepath.Join(exists, "no-mirror")
	for _, tc := range []struct {
		data, path string
		hint       bool
	}{
		{missing, filepath.Join(missing, "PPI", "x.mat.gz"), true},
		{exists, filepath.Join(exists, "PPI", "x.mat.gz"), false},
		{missing, "/elsewhere/x", false},
	} {
		cmd := func(ctx context.Context, h *Harness) error {
			if err := h.Parse(); err != nil {
				return err
			}
			_, err := os.Open(tc.path)
			return err
		}
		var stderr bytes.Buffer
		code := Run(context.Background(), "test", []string{"-data", tc.data}, io.Discard, &stderr, cmd)
		got := strings.Contains(stderr.String(), "[-data "+tc.data+": no such folder; give -data")
		if code != 1 || got != tc.hint || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("-data %s, error on %s: exit %d, stderr %q; want 1, one line, hint %v", tc.data, tc.path, code, stderr.String(), tc.hint)
		}
	}
}

// TestCheckPrefix checks -plot PREFIX: refused under a file, accepted in
// a folder that is still to be made.
func TestCheckPrefix(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file.md")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness("x", nil, io.Discard, io.Discard)
	var usage *usageError
	if err := h.CheckPrefix("-plot", filepath.Join(file, "large")); !errors.As(err, &usage) || !strings.Contains(err.Error(), "-plot: cannot write "+filepath.Join(file, "large")+": "+file+" is not a folder") {
		t.Errorf("CheckPrefix under a file = %v, want a usage error", err)
	}
	if err := h.CheckPrefix("-plot", filepath.Join(dir, "new", "large")); err != nil {
		t.Errorf("CheckPrefix in a new folder = %v, want nil", err)
	}
}

// TestHeader checks the header's lines and the command line built from the
// build tags and the arguments, quoted for a shell where they need it.
func TestHeader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tags string
		args []string
		want string
	}{
		{"", nil, "go run ./benchmarks/cmd/speed"},
		{"", []string{"-dataset", "PPI", "-dim", "64"}, "go run ./benchmarks/cmd/speed -dataset PPI -dim 64"},
		{"openblas", []string{"-out", "benchmarks/results/speed.md"}, "go run -tags openblas ./benchmarks/cmd/speed -out benchmarks/results/speed.md"},
		{"openblas,netgo", []string{"-python", "", "-label", "it's a b"}, `go run -tags openblas,netgo ./benchmarks/cmd/speed -python '' -label 'it'\''s a b'`},
	} {
		h := newHarness("speed", tc.args, io.Discard, io.Discard)
		h.tags, h.commit = tc.tags, "abc1234+dirty"
		got := h.Header("Time to target")
		want := "# Time to target\n\nMeasured "
		if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "\n\nCommand: `"+tc.want+"`\n\n") {
			t.Errorf("header %q, want it to start %q and end with the command %q", got, want, tc.want)
		}
		if !strings.Contains(got, ", commit abc1234+dirty, "+runtime.Version()+", ") {
			t.Errorf("header %q lacks the commit and Go version", got)
		}
	}
}

// TestBuildTags checks that the header names the tags this test binary
// was built with.
func TestBuildTags(t *testing.T) {
	t.Parallel()
	h := newHarness("x", nil, io.Discard, io.Discard)
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build information in this binary")
	}
	want := ""
	for _, s := range bi.Settings {
		if s.Key == "-tags" {
			want = s.Value
		}
	}
	if h.tags != want {
		t.Errorf("tags %q, want %q", h.tags, want)
	}
}

// TestDirtyRefusal checks that -out from a dirty tree is refused by Parse,
// before the command does any work, unless -allow-dirty; the tree's state
// is injected.
func TestDirtyRefusal(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "result.md")
	for _, tc := range []struct {
		commit string
		args   []string
		refuse bool
	}{
		{"abc1234+dirty", []string{"-out", out}, true},
		{"abc1234+dirty", []string{"-out", out, "-allow-dirty"}, false},
		{"abc1234+dirty", nil, false},
		{"abc1234", []string{"-out", out}, false},
		{"unknown", []string{"-out", out}, false},
	} {
		h := newHarness("x", tc.args, io.Discard, io.Discard)
		h.commit = tc.commit
		err := h.Parse()
		var usage *usageError
		if refused := errors.As(err, &usage); refused != tc.refuse || (err != nil && !refused) {
			t.Errorf("commit %s, args %q: Parse() = %v, want refusal %v", tc.commit, tc.args, err, tc.refuse)
		}
		if tc.refuse && !strings.Contains(fmt.Sprint(err), "-allow-dirty") {
			t.Errorf("refusal %q does not name -allow-dirty", err)
		}
	}
}

// TestWriteResult checks that the result goes to stdout and to -out, whole
// and without a temporary file left beside it.
func TestWriteResult(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "sub", "result.md")
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), "test", []string{"-out", out, "-allow-dirty"}, &stdout, &stderr, harnessCmd); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != stdout.String() || !strings.HasPrefix(string(b), "# Test\n\n") {
		t.Errorf("-out holds %q, stdout %q", b, stdout.String())
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
		t.Errorf("%s holds %d files, want only the result", filepath.Dir(out), len(entries))
	}
}

// TestUnwritableOut checks that an -out that cannot be written is refused
// by Parse, before the command does any work, and that a writable one
// (its folders not made yet) is accepted and nothing is left behind.
func TestUnwritableOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file.md")
	if err := os.WriteFile(file, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		out    string
		folder bool
		refuse string // a substring of the refusal ("": accepted)
	}{
		{filepath.Join(dir, "new", "sub", "result.md"), false, ""},
		{file, false, ""},
		{dir, false, "it is a directory"},
		{filepath.Join(file, "result.md"), false, "is not a folder"},
		{"/dev/null", false, "not a regular file"},
		{filepath.Join(dir, "figs"), true, ""},
		{dir, true, ""},
		{file, true, "is not a folder"},
		{filepath.Join(file, "figs"), true, "is not a folder"},
	} {
		h := newHarness("x", []string{"-out", tc.out}, io.Discard, io.Discard)
		h.commit, h.OutFolder = "abc1234", tc.folder
		err := h.Parse()
		var usage *usageError
		switch {
		case tc.refuse == "" && err != nil:
			t.Errorf("-out %s (folder %v): Parse() = %v, want it accepted", tc.out, tc.folder, err)
		case tc.refuse != "" && (!errors.As(err, &usage) || !strings.Contains(err.Error(), tc.refuse)):
			t.Errorf("-out %s (folder %v): Parse() = %v, want a usage error saying %q", tc.out, tc.folder, err, tc.refuse)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%s holds %d entries after the checks, want only file.md", dir, len(entries))
	}
}
