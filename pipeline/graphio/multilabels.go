package graphio

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/wys-project/wys/pipeline"
)

// NodeLabels is a multi-label assignment read from text by
// ReadMultiLabels.
type NodeLabels struct {
	// IDs names the nodes the file lists; their rows are those of Labels.
	IDs *pipeline.NodeIDs
	// Labels holds the labels of each row; Labels.Count is the number of
	// distinct labels.
	Labels *pipeline.MultiLabels
	// Names names the labels: label i is Names.Name(i).
	Names *pipeline.NodeIDs
	// Duplicates counts the (node, label) pairs listed more than once.
	Duplicates int
	// Header is the line skipped as column names (ReadMultiLabels'
	// header), or "".
	Header string
	// First is the node of the first line read as data: column names
	// when the file has a header that was not skipped.
	First string
}

// labelFields returns the fields of line ln of a label file, split as an
// edge list's (at tabs, else commas, else spaces), or none for a blank or
// comment line; an empty field is an error.
func labelFields(name string, ln int, text []byte) ([]string, error) {
	var f []string
	for _, b := range appendFields(nil, text, -1) {
		f = append(f, string(b))
	}
	if len(f) == 0 || isComment([]byte(f[0])) {
		return nil, nil
	}
	if k := slices.Index(f, ""); k >= 0 {
		return nil, emptyColumnErr(name, ln, k, text)
	}
	return f, nil
}

// noLabel reports whether a label field says "no label": -1, also as a
// float column writes it (-1.0, which pandas' fillna(-1) gives), or NaN.
func noLabel(label string) bool {
	x, err := strconv.ParseFloat(label, 64)
	return err == nil && (x == -1 || math.IsNaN(x))
}

// ReadMultiLabels reads node labels from r (plain or gzip): lines
// "node label [label …]" with fields split as an edge list's (at tabs,
// else commas, else spaces),
// skipping blank lines and '#' or '%' comments. That is the form of
// BlogCatalog's and Flickr's group-edges.csv ("node,group"), of OpenNE's
// and BioNEV's label files, and of the "node<TAB>class" files ReadLabels
// reads. A node may be listed on several lines: its labels are their
// union. The label -1 marks a node without a label (as in ReadLabels).
//
// Nodes and labels are numbered as an edge list numbers its nodes
// (pipeline.SortedIDs), so the numbering, and whatever is drawn from it
// with a seed, does not depend on the order of the lines. header skips
// the first line that is not blank or a comment (column names). Errors name the file and line and wrap
// pipeline.ErrFormat.
func ReadMultiLabels(ctx context.Context, r io.Reader, name string, header bool) (*NodeLabels, error) {
	in, err := openText(r, name)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	skipHeader := header
	type pair struct{ node, label string }
	var (
		pairs        []pair
		lines        int // data lines
		firstLine    int
		firstNumeric bool // whether the first data line's node is an integer
		textAfter    bool // whether a later line's node is not
		skipped      string
	)
	err = in.lines(ctx, func(line int, text []byte) error {
		text = dropBOM(line, text)
		f, err := labelFields(name, line, text)
		if err != nil || len(f) == 0 {
			return err
		}
		if header {
			header, skipped = false, string(text) // the first line that is not a comment
			return nil
		}
		if len(f) < 2 {
			return formatErr(name, line, "want a node and at least one label (\"node label [label …]\"), got %d field", len(f))
		}
		lines++
		if _, ok := ParseNodeID([]byte(f[0]), IDAuto); lines == 1 {
			firstLine, firstNumeric = line, ok
		} else if !ok {
			textAfter = true
		}
		for _, l := range f[1:] {
			pairs = append(pairs, pair{f[0], l})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(pairs) == 0 {
		return nil, &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: no label lines found (expected lines like \"node label\")", pipeline.ErrFormat)}
	}
	if !skipHeader && !firstNumeric && !textAfter && lines > 1 {
		return nil, formatErr(name, firstLine, "node %q is not an integer while every later node is: if line %d holds column names, skip it (-header)", pairs[0].node, firstLine)
	}
	nodes := make([]string, 0, len(pairs))
	var labels []string
	for _, p := range pairs {
		nodes = append(nodes, p.node)
		if !noLabel(p.label) {
			labels = append(labels, p.label)
		}
	}
	out := &NodeLabels{IDs: pipeline.SortedIDs(nodes), Names: pipeline.SortedIDs(labels), Header: skipped, First: pairs[0].node}
	if len(labels) == 0 {
		return nil, &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: every node has label -1 (none): nothing to classify", pipeline.ErrFormat)}
	}
	of := make([][]int32, out.IDs.Len())
	for _, p := range pairs {
		if noLabel(p.label) {
			continue
		}
		v, _ := out.IDs.Row(p.node)
		l, _ := out.Names.Row(p.label)
		of[v] = append(of[v], int32(l))
	}
	for v, ls := range of {
		slices.Sort(ls)
		k := len(ls)
		ls = slices.Compact(ls)
		out.Duplicates += k - len(ls)
		of[v] = slices.Clip(ls)
	}
	out.Labels = &pipeline.MultiLabels{Of: of, Count: out.Names.Len()}
	return out, nil
}

// LoadMultiLabels opens path and reads it with ReadMultiLabels.
func LoadMultiLabels(ctx context.Context, path string, header bool) (*NodeLabels, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadMultiLabels(ctx, f, path, header)
}
