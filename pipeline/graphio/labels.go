package graphio

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wys-project/wys/pipeline"
)

// scanPairs calls fn for every line of a two-column text file (plain or
// gzip) that is not blank or a '#'/'%' comment, with its 1-based line
// number. more ends the error of a line with more columns.
func scanPairs(ctx context.Context, r io.Reader, name, more string, fn func(line int, a, b string) error) error {
	in, err := openText(r, name)
	if err != nil {
		return err
	}
	defer in.Close()
	return in.lines(ctx, func(line int, text []byte) error {
		f := appendFields(nil, text, 3) // as an edge list's: at tabs, else commas, else spaces
		if len(f) == 0 || isComment(f[0]) {
			return nil
		}
		if k := slices.IndexFunc(f, func(b []byte) bool { return len(b) == 0 }); k >= 0 {
			return emptyColumnErr(name, line, k, text)
		}
		if len(f) != 2 {
			hint := ""
			if len(f) > 2 {
				hint = more
			}
			return formatErr(name, line, "want two columns separated by a tab (or a comma), got %d%s", len(f), hint)
		}
		return fn(line, string(f[0]), string(f[1]))
	})
}

// ReadLabels reads node classes from labels ("node<TAB>class" lines,
// class −1 for unlabelled nodes, '#' comments allowed) and, when split is
// not nil, a split of the nodes ("node<TAB>train|val|test"). Either may be
// gzipped. Node ids are the graph's original ids, looked up in ids; nodes
// not listed get class −1. labelsName and splitName are used in errors,
// which name the file and line and wrap ErrUnknownNode (an id not in the
// graph) or ErrFormat (a bad class or set, a node listed twice, a split
// node without a class).
func ReadLabels(ctx context.Context, labels io.Reader, labelsName string, split io.Reader, splitName string, ids *pipeline.NodeIDs) (*pipeline.Labels, error) {
	lab := &pipeline.Labels{Class: make([]int, ids.Len())}
	lineOf := make([]int, ids.Len()) // line that gave the row a class or a set
	for i := range lab.Class {
		lab.Class[i] = -1
	}
	read := map[string]int{} // data lines read per file
	row := func(name string, line int, id string) (int, error) {
		r, ok := ids.Row(id)
		read[name]++
		if !ok {
			hint := ""
			if read[name] == 1 {
				hint = "; if the line holds column names, remove it (these files have none)"
			}
			return 0, &pipeline.ParseError{File: name, Line: line, Err: fmt.Errorf("%w: node %q is not in the graph (labels must use the graph's node ids)%s", pipeline.ErrUnknownNode, id, hint)}
		}
		if lineOf[r] != 0 {
			return 0, formatErr(name, line, "node %s is listed twice (first on line %d)", id, lineOf[r])
		}
		lineOf[r] = line
		return r, nil
	}
	err := scanPairs(ctx, labels, labelsName, " (one class per node here; several per node are read by wys-sparse eval -labels)", func(line int, id, class string) error {
		r, err := row(labelsName, line, id)
		if err != nil {
			return err
		}
		c, err := strconv.Atoi(class)
		if err != nil || c < -1 || c > 1<<20 {
			return formatErr(labelsName, line, "class %q is not an integer in [-1, 2^20] (use -1 for unlabelled nodes; classes given by name, and several per node, are read by wys-sparse eval -labels, on random splits of the labelled nodes)", class)
		}
		lab.Class[r] = c
		lab.Classes = max(lab.Classes, c+1)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if lab.Classes == 0 {
		return nil, &pipeline.ParseError{File: labelsName, Err: fmt.Errorf("%w: no labelled node", pipeline.ErrFormat)}
	}
	if split == nil {
		return lab, nil
	}
	clear(lineOf)
	err = scanPairs(ctx, split, splitName, "", func(line int, id, set string) error {
		r, err := row(splitName, line, id)
		if err != nil {
			return err
		}
		switch set {
		case "train":
			lab.Train = append(lab.Train, r)
		case "val", "valid", "validation":
			lab.Val = append(lab.Val, r)
		case "test":
			lab.Test = append(lab.Test, r)
		default:
			return formatErr(splitName, line, "set %q is not train, val or test", set)
		}
		if lab.Class[r] < 0 {
			return formatErr(splitName, line, "node %s is in the %s set but has no class in %s", id, set, labelsName)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(lab.Train) == 0 || len(lab.Test) == 0 {
		return nil, &pipeline.ParseError{File: splitName, Err: fmt.Errorf("%w: the split needs train and test nodes", pipeline.ErrFormat)}
	}
	return lab, nil
}

// LoadLabels opens labelPath and, when splitPath is not empty, splitPath,
// and reads them with ReadLabels.
func LoadLabels(ctx context.Context, labelPath, splitPath string, ids *pipeline.NodeIDs) (*pipeline.Labels, error) {
	lf, err := OpenFile(labelPath)
	if err != nil {
		return nil, err
	}
	defer lf.Close()
	var split io.Reader
	if splitPath != "" {
		sf, err := OpenFile(splitPath)
		if err != nil {
			return nil, err
		}
		defer sf.Close()
		split = sf
	}
	return ReadLabels(ctx, lf, labelPath, split, splitPath, ids)
}

// planetoidSuffixes name a Planetoid dataset's files after its prefix:
// its edges, its labels and its split, in LoadPlanetoid's order.
var planetoidSuffixes = []string{".edges.tsv", ".labels.tsv", ".split.tsv"}

// PlanetoidFiles returns the files LoadPlanetoid may read for prefix:
// each of the three plain and with ".gz", in that order (it reads the
// first of each pair that exists).
func PlanetoidFiles(prefix string) []string {
	var files []string
	for _, suffix := range planetoidSuffixes {
		files = append(files, prefix+suffix, prefix+suffix+".gz")
	}
	return files
}

// planetoidHint is the end of LoadPlanetoid's error for a missing file of
// prefix: when prefix names Planetoid's own pickles (prefix.graph, as
// ind.cora.graph), that they are not read; and the prefixes of the TSV
// files beside it, if any.
func planetoidHint(prefix string) string {
	hint := ""
	for _, p := range []string{prefix + ".graph", prefix + ".graph.gz"} {
		if _, err := os.Stat(p); err == nil {
			hint = fmt.Sprintf("; %s names Planetoid's pickled files, which are not read: give the prefix of the TSV files PREFIX%s, PREFIX%s and PREFIX%s", prefix, planetoidSuffixes[0], planetoidSuffixes[1], planetoidSuffixes[2])
			break
		}
	}
	dir := filepath.Dir(prefix)
	entries, _ := os.ReadDir(dir)
	var others []string
	for _, e := range entries {
		name, _, ok := strings.Cut(e.Name(), planetoidSuffixes[0])
		if p := filepath.Join(dir, name); ok && p != filepath.Clean(prefix) && !slices.Contains(others, p) {
			others = append(others, p)
		}
	}
	if len(others) > 0 {
		hint += fmt.Sprintf("; beside it: -planetoid %s", strings.Join(others, " or "))
	}
	return hint
}

// LoadPlanetoid reads a Planetoid node-classification dataset in text
// form: prefix.edges.tsv (an edge list, read with opt), prefix.labels.tsv
// and prefix.split.tsv (see ReadLabels), each plain or with a ".gz"
// suffix. For example prefix ".../Cora/cora" reads cora.edges.tsv.gz,
// cora.labels.tsv.gz and cora.split.tsv.gz. The labels are keyed to the
// graph's rows.
func LoadPlanetoid(ctx context.Context, prefix string, opt LoadOptions) (*pipeline.Graph, *pipeline.Labels, *LoadReport, error) {
	path := func(suffix string) (string, error) {
		for _, p := range []string{prefix + suffix, prefix + suffix + ".gz"} {
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
		return "", fmt.Errorf("%s%s (or .gz): %w%s", prefix, suffix, fs.ErrNotExist, planetoidHint(prefix))
	}
	var files [3]string
	for i, suffix := range planetoidSuffixes {
		p, err := path(suffix)
		if err != nil {
			return nil, nil, nil, err
		}
		files[i] = p
	}
	g, rep, err := LoadEdgeList(ctx, files[0], opt)
	if err != nil {
		return nil, nil, nil, err
	}
	lab, err := LoadLabels(ctx, files[1], files[2], g.IDs)
	if err != nil {
		return nil, nil, nil, err
	}
	return g, lab, rep, nil
}
