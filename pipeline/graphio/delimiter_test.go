package graphio

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/wys-project/wys/pipeline"
)

// TestDelimiters: a line with a tab is split at tabs only and one with a
// comma at commas only, so that ids holding spaces (a CSV of names) or
// commas (a TSV of "Surname, I.") stay whole, as pandas reads them; a
// line with neither is split at runs of spaces.
func TestDelimiters(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want []string // node names in row order
	}{
		{"node 1,node 2\nnode 2 , node 3\n", []string{"node 1", "node 2", "node 3"}},
		{"Smith, J.\tDoe, A.\nDoe, A.\tLee, K.\t\n", []string{"Doe, A.", "Lee, K.", "Smith, J."}},
		{"a  b\nb\tc\nc,d\n", []string{"a", "b", "c", "d"}},
	} {
		g, rep, err := ReadEdgeList(context.Background(), strings.NewReader(c.text), "g", LoadOptions{})
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if spaced := strings.Contains(strings.Join(c.want, ""), " "); spaced != (rep.SpacedIDLines > 0 && rep.SpacedIDLine == 1) {
			t.Errorf("%q: %d lines with a spaced id, the first %d", c.text, rep.SpacedIDLines, rep.SpacedIDLine)
		}
		var names []string
		for i := range g.N() {
			names = append(names, g.IDs.Name(i))
		}
		if !slices.Equal(names, c.want) {
			t.Errorf("%q: nodes %q, want %q", c.text, names, c.want)
		}
	}
	// An empty column is refused; a first one, as pandas' index column
	// leaves it in the header, with -header too.
	for _, c := range []struct {
		text   string
		header bool
		want   string
	}{
		{"a,b,2\nb,,2\n", false, "g:2: malformed input: column 2 is empty: a value is missing"},
		{",source,target\n0,1,2\n", false, "g:1: malformed input: column 1 is empty: a line that starts with its delimiter has an unnamed first column, as pandas' to_csv writes its index (index=True, the default): write the file with index=False"},
		{",source,target\n0,1,2\n", true, "g:1: malformed input: column 1 is empty"},
	} {
		_, _, err := ReadEdgeList(context.Background(), strings.NewReader(c.text), "g", LoadOptions{Header: c.header})
		if !errors.Is(err, pipeline.ErrFormat) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q header %v: error %v, want %q", c.text, c.header, err, c.want)
		}
	}
	// A node and its neighbours per line (an adjacency list) is counted.
	_, rep, err := ReadEdgeList(context.Background(), strings.NewReader("1 2 3 4\n2 3\n3 1 4 5 6\n"), "g", LoadOptions{})
	if err != nil || rep.WideLines != 2 {
		t.Errorf("adjacency list: %v, %d wide lines, want 2", err, rep.WideLines)
	}
	// An integer written as a float is named, with its line; "1.5" and
	// "v.0" are not such ids.
	_, rep, err = ReadEdgeList(context.Background(), strings.NewReader("a 1.5\nv.0 b\n3 4.00\n4.00 5\n"), "g", LoadOptions{})
	if err != nil || rep.FloatID != "4.00" || rep.FloatIDLine != 3 {
		t.Errorf("float ids: %v, %q at line %d, want \"4.00\" at line 3", err, rep.FloatID, rep.FloatIDLine)
	}
	// Labels: a class name with a space stays one label.
	nl, err := ReadMultiLabels(context.Background(), strings.NewReader("node,label\n0,Neural Networks\n1,Theory\n2,Neural Networks\n"), "l.csv", true)
	if err != nil || nl.Labels.Count != 2 || nl.Names.Name(0) != "Neural Networks" {
		t.Errorf("labels: %v, %d labels", err, nl.Labels.Count)
	}
	// A float column's -1.0 and NaN say "no label", as -1 does.
	nl, err = ReadMultiLabels(context.Background(), strings.NewReader("0,3.0\n1,-1.0\n2,NaN\n3,-1\n4,1.0\n"), "l.csv", false)
	if err != nil || nl.Labels.Count != 2 || nl.IDs.Len() != 5 || len(nl.Labels.Of[1])+len(nl.Labels.Of[2])+len(nl.Labels.Of[3]) != 0 {
		t.Errorf("float labels: %v, %d labels (%v)", err, nl.Labels.Count, nl.Labels.Of)
	}
}
