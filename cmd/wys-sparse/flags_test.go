package main

import (
	"io"
	"os"
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
