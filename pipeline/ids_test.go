package pipeline

import (
	"slices"
	"testing"
)

// TestSortedIDs checks the numbering of SortedIDs: numeric order for
// canonical integers, byte order as soon as one name is not one ("007",
// "+7", a word, a number of 2^64 or more).
func TestSortedIDs(t *testing.T) {
	cases := []struct {
		in      []string
		numeric bool
		want    []string
	}{
		{[]string{"10", "9", "0", "10"}, true, []string{"0", "9", "10"}},
		{[]string{"10", "9", "007"}, false, []string{"007", "10", "9"}},
		{[]string{"10", "+7"}, false, []string{"+7", "10"}},
		{[]string{"b", "a", "b"}, false, []string{"a", "b"}},
		{[]string{"18446744073709551616", "2"}, false, []string{"18446744073709551616", "2"}},
	}
	for _, c := range cases {
		ids := SortedIDs(slices.Clone(c.in))
		var got []string
		for i := range ids.Len() {
			got = append(got, ids.Name(i))
		}
		if ids.Numeric() != c.numeric || !slices.Equal(got, c.want) {
			t.Errorf("%q: numeric %v, rows %q; want %v, %q", c.in, ids.Numeric(), got, c.numeric, c.want)
		}
		for i, name := range got {
			if r, ok := ids.Row(name); !ok || r != i {
				t.Errorf("%q: Row(%q) = %d, %v", c.in, name, r, ok)
			}
		}
	}
}
