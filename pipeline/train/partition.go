package train

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/wys-project/wys/sparse"
)

// Partition splits the nodes of a graph into P parts for the bucketed
// schedule (see Schedule): parameters L and R are held as one block per
// part, and the pairs (v, u) fall into P × P buckets by (part of v, part
// of u).
type Partition struct {
	Of      []int32   // node → its part
	Local   []int32   // node → its row in its part's block
	Members [][]int32 // part → its nodes, ascending (row order of the block)
}

// NewPartition splits the n nodes of adj into p parts balanced by degree
// with the hubs spread: nodes in decreasing out-degree (ties by id) are
// dealt to the parts in snake order (0, 1, …, p−1, p−1, …, 0, 0, 1, …), so
// the part sizes differ by at most one, the p largest hubs land in p
// different parts and the parts' arc counts differ by at most the largest
// degree. With p = 1 the single part is every node in id order.
func NewPartition(adj *sparse.CSR, p int) (*Partition, error) {
	n, _ := adj.Dims()
	if p < 1 || p > max(n, 1) {
		return nil, fmt.Errorf("train: %d partitions for %d nodes; want 1 to %d", p, n, max(n, 1))
	}
	order := make([]int32, n)
	for v := range order {
		order[v] = int32(v)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		return cmp.Compare(adj.RowNNZ(int(b)), adj.RowNNZ(int(a)))
	})
	pt := &Partition{Of: make([]int32, n), Local: make([]int32, n), Members: make([][]int32, p)}
	for k, v := range order {
		part := k % p
		if (k/p)%2 == 1 {
			part = p - 1 - part
		}
		pt.Of[v] = int32(part)
	}
	for v := 0; v < n; v++ {
		part := pt.Of[v]
		pt.Local[v] = int32(len(pt.Members[part]))
		pt.Members[part] = append(pt.Members[part], int32(v))
	}
	return pt, nil
}

// P returns the number of parts.
func (pt *Partition) P() int { return len(pt.Members) }
