package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wys-project/wys/pipeline/train"
)

// TestStartHelpBound checks that -start's help text and the README's
// flag table, which spell the spectral start's bound out with thousands
// separators, name train.DefaultSpectralNodes.
func TestStartHelpBound(t *testing.T) {
	digits := strconv.Itoa(train.DefaultSpectralNodes)
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	bound := b.String()
	fs := newFlagSet(&config{}, io.Discard)
	if u := fs.Lookup("start").Usage; !strings.Contains(u, "up to "+bound+" nodes") {
		t.Errorf("-start's help does not name the bound %s: %q", bound, u)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "| `-start` | spectral up to "+bound+" nodes,") {
		t.Errorf("the README's -start row does not name the bound %s", bound)
	}
}

// TestNegativeBlockFlag checks -negative-block: 0 asks for pairs drawn one
// by one (train.NegativePairs, which the report records), a block size is
// kept, and a negative value is refused by the flag's name.
func TestNegativeBlockFlag(t *testing.T) {
	tmp := t.TempDir()
	graph, rep := writeGoodGraph(t, tmp), filepath.Join(tmp, "r.json")
	for _, c := range []struct {
		arg  string
		want int
	}{{"0", train.NegativePairs}, {"4", 4}} {
		code, _, stderr := runCLI(t, "-graph", graph, "-test-fraction", "0", "-epochs", "1", "-dim", "4", "-negative-block", c.arg, "-report", rep, "-progress", "none")
		if code != 0 {
			t.Fatalf("-negative-block %s: exit %d\n%s", c.arg, code, stderr)
		}
		b, err := os.ReadFile(rep)
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ Settings struct{ Sparse train.Config } }
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if got := r.Settings.Sparse.NegativeBlock; got != c.want {
			t.Errorf("-negative-block %s: the report records %d, want %d", c.arg, got, c.want)
		}
	}
	code, _, stderr := runCLI(t, "-graph", graph, "-negative-block", "-1")
	if code != 2 || !strings.Contains(stderr, "-negative-block") || !strings.Contains(stderr, "cannot be negative") {
		t.Errorf("-negative-block -1: exit %d, want 2 and the flag named:\n%s", code, stderr)
	}
}
