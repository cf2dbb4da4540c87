package pipeline

import (
	"fmt"
	"slices"
	"strconv"
)

// NodeIDs maps rows 0..N−1 to the user's original node ids and back.
//
// Graphs read from edge lists number their rows by sorted order of the ids:
// numerically when every id is a non-negative integer that fits in 64 bits,
// otherwise as byte strings. Released splits come with their own index
// (NewIndexedIDs). Map iteration order never enters the numbering.
type NodeIDs struct {
	// Exactly one of num and str is used.
	num []uint64
	str []string
	// order lists rows by increasing str when str is not sorted itself
	// (an explicit index); nil otherwise.
	order []int32
}

// NewNumericIDs returns the ids of the distinct values in ids, in
// increasing numeric order. ids may be modified (sorted) in place.
func NewNumericIDs(ids []uint64) *NodeIDs {
	slices.Sort(ids)
	return &NodeIDs{num: slices.Clip(slices.Compact(ids))}
}

// NewStringIDs returns the ids of the distinct strings in ids, in
// increasing byte order. ids may be modified (sorted) in place.
func NewStringIDs(ids []string) *NodeIDs {
	slices.Sort(ids)
	return &NodeIDs{str: slices.Clip(slices.Compact(ids))}
}

// NewIndexedIDs returns ids whose row i is names[i], in the given order.
// It is an error for a name to appear twice.
func NewIndexedIDs(names []string) (*NodeIDs, error) {
	order := make([]int32, len(names))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if names[a] < names[b] {
			return -1
		}
		if names[a] > names[b] {
			return 1
		}
		return 0
	})
	for i := 1; i < len(order); i++ {
		if names[order[i]] == names[order[i-1]] {
			return nil, fmt.Errorf("pipeline: node id %q is given rows %d and %d", names[order[i]], order[i-1], order[i])
		}
	}
	return &NodeIDs{str: names, order: order}, nil
}

// Len returns the number of nodes.
func (m *NodeIDs) Len() int {
	if m.str != nil {
		return len(m.str)
	}
	return len(m.num)
}

// Numeric reports whether the ids are integers held as numbers.
func (m *NodeIDs) Numeric() bool { return m.str == nil }

// Name returns the original id of row i as text.
func (m *NodeIDs) Name(i int) string {
	if m.str != nil {
		return m.str[i]
	}
	return strconv.FormatUint(m.num[i], 10)
}

// Row returns the row of the original id name, and whether it exists.
func (m *NodeIDs) Row(name string) (int, bool) {
	if m.str != nil {
		if m.order == nil {
			return slices.BinarySearch(m.str, name)
		}
		k, ok := slices.BinarySearchFunc(m.order, name, func(r int32, s string) int {
			switch {
			case m.str[r] < s:
				return -1
			case m.str[r] > s:
				return 1
			}
			return 0
		})
		if !ok {
			return 0, false
		}
		return int(m.order[k]), true
	}
	v, err := strconv.ParseUint(name, 10, 64)
	if err != nil {
		return 0, false
	}
	return m.RowOf(v)
}

// RowOf returns the row of the numeric id v, and whether it exists.
func (m *NodeIDs) RowOf(v uint64) (int, bool) {
	if m.str != nil {
		return m.Row(strconv.FormatUint(v, 10))
	}
	return slices.BinarySearch(m.num, v)
}

// Subset returns the ids of the given rows, in that order, for a graph
// restricted to those rows (rows must be increasing).
func (m *NodeIDs) Subset(rows []int32) *NodeIDs {
	if m.str == nil {
		num := make([]uint64, len(rows))
		for i, r := range rows {
			num[i] = m.num[r]
		}
		return &NodeIDs{num: num}
	}
	str := make([]string, len(rows))
	for i, r := range rows {
		str[i] = m.str[r]
	}
	if m.order == nil {
		return &NodeIDs{str: str}
	}
	out, _ := NewIndexedIDs(str)
	return out
}

// IdentityIDs returns ids 0..n−1, for graphs given in row indices.
func IdentityIDs(n int) *NodeIDs {
	num := make([]uint64, n)
	for i := range num {
		num[i] = uint64(i)
	}
	return &NodeIDs{num: num}
}

// SortedIDs returns the ids of the distinct names, numbered as an edge
// list numbers its nodes: in increasing numeric order when every name is
// a non-negative integer below 2^64 written without leading zeros, else
// in increasing byte order. names may be modified (sorted) in place.
func SortedIDs(names []string) *NodeIDs {
	nums := make([]uint64, len(names))
	for i, s := range names {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil || len(s) > 1 && s[0] == '0' || s[0] == '+' {
			return NewStringIDs(names)
		}
		nums[i] = v
	}
	return NewNumericIDs(nums)
}
