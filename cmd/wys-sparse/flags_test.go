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

// TestRefineFlag checks -refine: its steps follow either trainer, the
// summary and the report say so, and bad values or a -refine-lr without
// -refine are usage errors naming the flag.
func TestRefineFlag(t *testing.T) {
	tmp := t.TempDir()
	graph, rep := writeGoodGraph(t, tmp), filepath.Join(tmp, "r.json")
	for _, trainer := range []string{"sparse", "dense"} {
		length := []string{"-epochs", "3"}
		if trainer == "dense" {
			length = []string{"-steps", "4"}
		}
		args := append([]string{"-graph", graph, "-test-fraction", "0.3", "-trainer", trainer, "-dim", "4", "-refine", "7", "-refine-lr", "0.005", "-report", rep, "-progress", "none"}, length...)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s -refine 7: exit %d\n%s", trainer, code, stderr)
		}
		if !strings.Contains(stdout, "then 7 exact full-batch steps (-refine)") || !strings.Contains(stdout, "; 7 exact full-batch steps (-refine) in ") {
			t.Errorf("%s -refine 7: the summary does not say so:\n%s", trainer, stdout)
		}
		b, err := os.ReadFile(rep)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Settings struct{ Refine *train.RefineConfig }
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if c := r.Settings.Refine; c == nil || c.Steps != 7 || c.LR != 0.005 || c.EvalEvery != 5 {
			t.Errorf("%s: the report records -refine as %+v", trainer, c)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-refine", "-2"}, "-refine cannot be negative"},
		{[]string{"-refine", "3", "-refine-lr", "-1"}, "-refine-lr cannot be negative"},
		{[]string{"-refine-lr", "0.1"}, "give -refine STEPS (at least 1) too"},
		{[]string{"-refine", "3", "-refine-lr", "NaN"}, "-refine-lr NaN: want a positive learning rate (0: 0.01)"},
		{[]string{"-method", "deepwalk", "-refine", "3"}, "-refine is a setting of WYS"},
	} {
		code, _, stderr := runCLI(t, append([]string{"-graph", graph}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", c.args, code, c.want, stderr)
		}
	}
	// A rate far too large lowers the selection AUC (on the built-in
	// graph): the summary says so even without progress lines.
	if code, stdout, stderr := runCLI(t, "-epochs", "50", "-dim", "8", "-refine", "10", "-refine-lr", "1e6", "-progress", "none", "-out", filepath.Join(tmp, "e.txt")); code != 0 || !strings.Contains(stdout, "note: the refinement lowered the train AUC") {
		t.Errorf("-refine-lr 1e6: exit %d, no note in the summary:\n%s%s", code, stdout, stderr)
	}
	// -refine-lr 0 is the default rate: nothing to refuse without -refine.
	if code, _, stderr := runCLI(t, "-graph", graph, "-epochs", "1", "-dim", "4", "-refine-lr", "0", "-progress", "none", "-out", filepath.Join(tmp, "e.txt")); code != 0 {
		t.Errorf("-refine-lr 0 without -refine: exit %d\n%s", code, stderr)
	}
}
