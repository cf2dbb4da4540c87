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
