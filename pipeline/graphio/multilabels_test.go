package graphio

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/wys-project/wys/pipeline"
)

// TestReadMultiLabels reads the forms label files come in: one label per
// line with a node on several lines (group-edges.csv), several labels on
// one line, -1 for none, a header, a duplicate pair.
func TestReadMultiLabels(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	in := "% comment\n10,b\n2 a\n10\ta\n# node class\n7 c b\n2 a\n30 -1\n"
	nl, err := ReadMultiLabels(ctx, strings.NewReader(in), "g.csv", false)
	if err != nil {
		t.Fatal(err)
	}
	// Nodes in numeric order 2, 7, 10, 30; labels in byte order a, b, c.
	var names []string
	for i := range nl.IDs.Len() {
		names = append(names, nl.IDs.Name(i))
	}
	want := [][]int32{{0}, {1, 2}, {0, 1}, nil}
	if !slices.Equal(names, []string{"2", "7", "10", "30"}) || nl.Labels.Count != 3 || nl.Names.Name(2) != "c" || nl.Duplicates != 1 {
		t.Fatalf("nodes %v, %d labels, duplicates %d", names, nl.Labels.Count, nl.Duplicates)
	}
	for v, ls := range nl.Labels.Of {
		if !slices.Equal(ls, want[v]) {
			t.Errorf("node %s: labels %v, want %v", names[v], ls, want[v])
		}
	}
	if got := nl.Labels.Labelled(); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("labelled rows %v", got)
	}
	hdr, err := ReadMultiLabels(ctx, strings.NewReader("# written by a tool\n\nnode,group\n1,5\n2,5\n"), "h.csv", true)
	if err != nil || hdr.IDs.Len() != 2 || hdr.Labels.Count != 1 {
		t.Fatalf("with header: %v %+v", err, hdr)
	}
	cases := []struct{ name, in, want string }{
		{"one field", "1 a\n2\n", "l.txt:2: malformed input: want a node and at least one label"},
		{"header", "node class\n1 a\n2 b\n", "l.txt:1: malformed input: node \"node\" is not an integer while every later node is: if line 1 holds column names, skip it (-header)"},
		{"empty", "# nothing\n", "l.txt: malformed input: no label lines found"},
		{"no label", "1 -1\n2 -1\n", "l.txt: malformed input: every node has label -1 (none)"},
	}
	for _, c := range cases {
		_, err := ReadMultiLabels(ctx, strings.NewReader(c.in), "l.txt", false)
		var pe *pipeline.ParseError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &pe) || !errors.Is(err, pipeline.ErrFormat) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	// Token nodes are not mistaken for a header.
	if _, err := ReadMultiLabels(ctx, strings.NewReader("alice x\nbob y\n"), "t.txt", false); err != nil {
		t.Error(err)
	}
}

// TestReadMultiLabelsOrder checks that the numbering and the labels do
// not depend on the order of the lines or on gzip: a random assignment
// written in shuffled order reads back as a map built directly.
func TestReadMultiLabelsOrder(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	truth := map[int]map[int]bool{}
	var lines []string
	for range 500 {
		v, l := rng.IntN(120)*3, rng.IntN(17)
		if truth[v] == nil {
			truth[v] = map[int]bool{}
		}
		truth[v][l] = true
		lines = append(lines, fmt.Sprintf("%d\tlab%02d", v, l))
	}
	for trial := range 2 {
		rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(strings.Join(lines, "\n")))
		zw.Close()
		nl, err := ReadMultiLabels(context.Background(), &buf, "x.gz", false)
		if err != nil {
			t.Fatal(err)
		}
		if nl.IDs.Len() != len(truth) {
			t.Fatalf("%d nodes, want %d", nl.IDs.Len(), len(truth))
		}
		prev := -1
		for r := range nl.IDs.Len() {
			var v int
			fmt.Sscan(nl.IDs.Name(r), &v)
			if v <= prev {
				t.Fatalf("trial %d: row %d is node %d after %d", trial, r, v, prev)
			}
			prev = v
			var want []string
			for l := range truth[v] {
				want = append(want, fmt.Sprintf("lab%02d", l))
			}
			slices.Sort(want)
			var got []string
			for _, l := range nl.Labels.Of[r] {
				got = append(got, nl.Names.Name(int(l)))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d: node %d labels %v, want %v", trial, v, got, want)
			}
		}
	}
}
