package pipeline

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

// MultiLabels holds a multi-label assignment of graph rows, as in the
// BlogCatalog, PPI and POS benchmarks of DeepWalk and node2vec.
type MultiLabels struct {
	// Of[i] lists the labels of row i in increasing order (empty when the
	// row has none).
	Of [][]int32
	// Count is the number of labels: at least 1 + the largest label; for
	// a .mat `group` matrix, its number of columns (graphio.MATFile.Labels),
	// which may include labels no row carries.
	Count int
}

// Labelled returns the rows that carry at least one label, in row order.
func (m *MultiLabels) Labelled() []int {
	var rows []int
	for i, ls := range m.Of {
		if len(ls) > 0 {
			rows = append(rows, i)
		}
	}
	return rows
}
