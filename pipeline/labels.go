package pipeline

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Labels holds node classes and a Planetoid-style split of the labelled
// nodes, in rows of a graph.
type Labels struct {
	// Class[i] is the class of row i, or −1 when unknown.
	Class []int
	// Classes is the number of classes (1 + the largest class).
	Classes int
	// Train, Val and Test list rows of each split set, in file order.
	Train, Val, Test []int
}

// scanTSV calls fn for every non-comment line of a two-column text file
// (plain or gzip), with its 1-based line number.
func scanTSV(path string, fn func(line int, a, b string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("pipeline: %w (check the path)", err)
	}
	defer f.Close()
	r, done, err := openMaybeGzip(f, path)
	if err != nil {
		return err
	}
	defer done()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' || text[0] == '%' {
			continue
		}
		f := strings.Fields(text)
		if len(f) != 2 {
			return formatErr(path, line, "want two columns, got %d", len(f))
		}
		if err := fn(line, f[0], f[1]); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil && err != io.EOF {
		return &ParseError{File: path, Line: line + 1, Err: err}
	}
	return nil
}

// LoadLabels reads node classes ("node<TAB>class", class −1 for
// unlabelled) and, when splitPath is not empty, a split of the nodes
// ("node<TAB>train|val|test"). Node ids are the graph's original ids; an id
// that is not in ids is an error naming the file and line.
func LoadLabels(labelPath, splitPath string, ids *NodeIDs) (*Labels, error) {
	lab := &Labels{Class: make([]int, ids.Len())}
	for i := range lab.Class {
		lab.Class[i] = -1
	}
	row := func(path string, line int, id string) (int, error) {
		r, ok := ids.Row(id)
		if !ok {
			return 0, &ParseError{File: path, Line: line, Err: fmt.Errorf("%w: node %q is not in the graph (labels must use the graph's node ids)", ErrUnknownNode, id)}
		}
		return r, nil
	}
	err := scanTSV(labelPath, func(line int, id, class string) error {
		r, err := row(labelPath, line, id)
		if err != nil {
			return err
		}
		c, err := strconv.Atoi(class)
		if err != nil || c < -1 {
			return formatErr(labelPath, line, "class %q is not an integer >= -1 (use -1 for unlabelled nodes)", class)
		}
		lab.Class[r] = c
		lab.Classes = max(lab.Classes, c+1)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if lab.Classes == 0 {
		return nil, &ParseError{File: labelPath, Err: fmt.Errorf("%w: no labelled node", ErrFormat)}
	}
	if splitPath == "" {
		return lab, nil
	}
	err = scanTSV(splitPath, func(line int, id, set string) error {
		r, err := row(splitPath, line, id)
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
			return formatErr(splitPath, line, "set %q is not train, val or test", set)
		}
		if lab.Class[r] < 0 {
			return formatErr(splitPath, line, "node %s is in the %s set but has no class in %s", id, set, labelPath)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(lab.Train) == 0 || len(lab.Test) == 0 {
		return nil, &ParseError{File: splitPath, Err: fmt.Errorf("%w: the split needs train and test nodes", ErrFormat)}
	}
	return lab, nil
}
