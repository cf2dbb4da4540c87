package train

import (
	"testing"
	"unsafe"
)

// TestHugeFloats checks that hugeFloats returns n zeros that can be
// written, with a huge-page-aligned start from hugeMin bytes on, and
// leaves small arrays alone.
func TestHugeFloats(t *testing.T) {
	for _, n := range []int{0, 1, 1000, hugeMin/4 - 1, hugeMin / 4, hugeMin/4 + 12345} {
		s := hugeFloats(n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("hugeFloats(%d): len %d cap %d", n, len(s), cap(s))
		}
		for i := range s {
			if s[i] != 0 {
				t.Fatalf("hugeFloats(%d)[%d] = %v, want 0", n, i, s[i])
			}
			s[i] = float32(i)
		}
		if 4*n >= hugeMin {
			if p := uintptr(unsafe.Pointer(&s[0])); p%hugePage != 0 {
				t.Errorf("hugeFloats(%d) starts at %#x, not on a %d-byte boundary", n, p, hugePage)
			}
			if s[n-1] != float32(n-1) {
				t.Errorf("hugeFloats(%d): last element %v after writing %v", n, s[n-1], float32(n-1))
			}
		}
	}
}
