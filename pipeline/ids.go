package pipeline

import (
	"slices"
	"strconv"
)

// NodeIDs maps rows 0..N−1 to the user's original node ids and back.
//
// Rows are assigned by sorted order of the ids: numerically when every id
// is a non-negative integer that fits in 64 bits, otherwise as byte
// strings. Map iteration order never enters the numbering.
type NodeIDs struct {
	// Exactly one of num and str is used.
	num []uint64
	str []string
}

// NewNumericIDs returns the ids of the distinct values in ids, in
// increasing numeric order. ids may be modified (sorted) in place.
func NewNumericIDs(ids []uint64) *NodeIDs {
	slices.Sort(ids)
	return &NodeIDs{num: slices.Compact(ids)}
}

// NewStringIDs returns the ids of the distinct strings in ids, in
// increasing byte order. ids may be modified (sorted) in place.
func NewStringIDs(ids []string) *NodeIDs {
	slices.Sort(ids)
	return &NodeIDs{str: slices.Compact(ids)}
}

// Len returns the number of nodes.
func (m *NodeIDs) Len() int {
	if m.str != nil {
		return len(m.str)
	}
	return len(m.num)
}

// Numeric reports whether the ids are integers.
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
		return slices.BinarySearch(m.str, name)
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

// IdentityIDs returns ids 0..n−1, for graphs given in row indices.
func IdentityIDs(n int) *NodeIDs {
	num := make([]uint64, n)
	for i := range num {
		num[i] = uint64(i)
	}
	return &NodeIDs{num: num}
}
