package graphio

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/wys-project/wys/pipeline"
)

// FuzzReadMultiLabels feeds arbitrary text to ReadMultiLabels: bad input
// must give a ParseError naming the file and wrapping ErrFormat; a result
// must be consistent (every node and label name maps back to its row,
// each row's labels distinct, increasing and in range, no "no label"
// value among the label names), and written back as node<TAB>label lines
// under a header it must read again as the same nodes, labels and rows.
func FuzzReadMultiLabels(f *testing.F) {
	for _, s := range []string{
		"% comment\n10,b\n2 a\n10\ta\n# node class\n7 c b\n2 a\n30 -1\n",
		"node,group\n1,5\n2,5\n", "a x\nb y\n", "0\tNeural Networks\n1\tTheory\n",
		"1 -1.0\n2 NaN\n3 a\n", "x 1\n2 1\n3 1\n", "1,,2\n", "1\n", "", "\ufeff1 a\n",
		"1 2\r\n2 3\r\n", "1 a\n1 a\n", "1 #a\n2 b\n", "\x1f\x8b\x08",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Add(string(gzipped(f, "1 a\n2 b\n")), false)
	f.Fuzz(func(t *testing.T, text string, header bool) {
		nl, err := ReadMultiLabels(context.Background(), strings.NewReader(text), "fuzz", header)
		if err != nil {
			var pe *pipeline.ParseError
			if !errors.As(err, &pe) || pe.File != "fuzz" || !errors.Is(err, pipeline.ErrFormat) {
				t.Fatalf("error %v is not a ParseError naming the file and wrapping ErrFormat", err)
			}
			return
		}
		checkNodeLabels(t, nl)
		// Written back, one node<TAB>label line per pair (-1 for a node
		// without a label) under a header, it reads as the same labels.
		var b strings.Builder
		b.WriteString("node\tlabel\n")
		for v, ls := range nl.Labels.Of {
			if len(ls) == 0 {
				b.WriteString(nl.IDs.Name(v) + "\t-1\n")
			}
			for _, l := range ls {
				b.WriteString(nl.IDs.Name(v) + "\t" + nl.Names.Name(int(l)) + "\n")
			}
		}
		again, err := ReadMultiLabels(context.Background(), strings.NewReader(b.String()), "again", true)
		if err != nil {
			t.Fatalf("written back as %q: %v", b.String(), err)
		}
		if !sameIDs(nl.IDs, again.IDs) || !sameIDs(nl.Names, again.Names) || again.Labels.Count != nl.Labels.Count {
			t.Fatalf("written back, the nodes or label names changed: %q", b.String())
		}
		for v := range nl.Labels.Of {
			if !slices.Equal(nl.Labels.Of[v], again.Labels.Of[v]) {
				t.Fatalf("node %q: labels %v, written back %v", nl.IDs.Name(v), nl.Labels.Of[v], again.Labels.Of[v])
			}
		}
	})
}

// checkNodeLabels checks the invariants of a ReadMultiLabels result.
func checkNodeLabels(t *testing.T, nl *NodeLabels) {
	t.Helper()
	if nl.Labels.Count != nl.Names.Len() || nl.Labels.Count < 1 || len(nl.Labels.Of) != nl.IDs.Len() || nl.Duplicates < 0 {
		t.Fatalf("%d labels for %d names, %d rows for %d nodes, %d duplicates", nl.Labels.Count, nl.Names.Len(), len(nl.Labels.Of), nl.IDs.Len(), nl.Duplicates)
	}
	for _, ids := range []*pipeline.NodeIDs{nl.IDs, nl.Names} {
		for i := range ids.Len() {
			if r, ok := ids.Row(ids.Name(i)); !ok || r != i || ids.Name(i) == "" {
				t.Fatalf("name %q of row %d maps to row %d, %v", ids.Name(i), i, r, ok)
			}
		}
	}
	for i := range nl.Names.Len() {
		if noLabel(nl.Names.Name(i)) {
			t.Fatalf("label name %q means no label", nl.Names.Name(i))
		}
	}
	for v, ls := range nl.Labels.Of {
		for k, l := range ls {
			if l < 0 || int(l) >= nl.Labels.Count || (k > 0 && l <= ls[k-1]) {
				t.Fatalf("row %d: labels %v", v, ls)
			}
		}
	}
}

// sameIDs reports whether a and b name the same rows the same way.
func sameIDs(a, b *pipeline.NodeIDs) bool {
	if a.Len() != b.Len() {
		return false
	}
	for i := range a.Len() {
		if a.Name(i) != b.Name(i) {
			return false
		}
	}
	return true
}
