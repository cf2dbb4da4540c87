package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wys-project/wys/internal/outcheck"
)

// mainEnv, set to 1, makes the test binary run main: runMain's child.
const mainEnv = "WYS_BEAM_TEST_MAIN"

// runMain runs the command with args in a child process of the test
// binary, in dir, and returns its exit code, standard output and
// standard error.
func runMain(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), mainEnv+"=1", "TMPDIR="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// TestMainRefusesOutLikeWysSparse: an -out or -format that wys-sparse
// refuses is refused before any pipeline runs, with exit code 2 and
// wys-sparse's message (its golden file, the command's name aside).
func TestMainRefusesOutLikeWysSparse(t *testing.T) {
	tmp := t.TempDir()
	graph := filepath.Join(tmp, "g.txt")
	if err := os.WriteFile(graph, []byte("1 2\n2 3\n3 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for golden, args := range map[string][]string{
		"out-npy-gz":              {"-out", filepath.Join(tmp, "emb.npy.gz")},
		"out-format-name":         {"-out", filepath.Join(tmp, "emb.parquet")},
		"out-binary-word2vec":     {"-out", filepath.Join(tmp, "emb.bin")},
		"format-against-npy-name": {"-format", "tsv", "-out", filepath.Join(tmp, "e.npy")},
		"format-against-txt-name": {"-format", "csv", "-out", filepath.Join(tmp, "e.txt")},
		"format-against-gz-name":  {"-format", "npy", "-out", filepath.Join(tmp, "e.txt.gz")},
		"format-without-out":      {"-format", "npy"},
	} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "..", "cmd", "wys-sparse", "testdata", "errors", golden+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		want := strings.ReplaceAll(strings.ReplaceAll(string(raw), "wys-sparse", "wys-beam"), "TMP", tmp)
		code, stdout, stderr := runMain(t, tmp, append([]string{"-graph", graph, "-epochs", "1", "-partitions", "2"}, args...)...)
		if got := "exit " + strconv.Itoa(code) + "\n" + stderr; got != want || stdout != "" {
			t.Errorf("%s: %q, output %q; want %q before any pipeline", golden, got, stdout, want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "e*")); len(left) > 0 {
		t.Errorf("refused runs wrote %q", left)
	}
}

// TestMainStdinAndNotes: -graph - (standard input, which wys-sparse
// reads) is a usage error that says what to do; a run on the whole graph
// without -out says, before it starts, that the embeddings will not be
// written, and -q-out says where Q went, as wys-sparse says both.
func TestMainStdinAndNotes(t *testing.T) {
	tmp := t.TempDir()
	code, stdout, stderr := runMain(t, tmp, "-graph", "-", "-out", "e.npy")
	want := "wys-beam: -graph -: wys-beam reads the graph in byte ranges on its workers, not from standard input; write the edges to a file and give -graph FILE\n"
	if code != 2 || stderr != want || stdout != "" {
		t.Errorf("-graph -: exit %d, stderr %q, stdout %q; want exit 2 and %q", code, stderr, stdout, want)
	}
	graph := filepath.Join(tmp, "g.txt")
	if err := os.WriteFile(graph, []byte("1 2\n2 3\n3 1\n3 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	q := filepath.Join(tmp, "q.json")
	code, stdout, stderr = runMain(t, tmp, "-graph", graph, "-dim", "4", "-epochs", "2", "-partitions", "2", "-q-out", q)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "note: "+outcheck.NoOut+"\n") || !strings.Contains(stdout, "\nwrote Q to "+q+"\n") {
		t.Errorf("output %q: want the note on -out first and the line on -q-out", stdout)
	}
}
