package train

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on linux/amd64 and
// arm64 (2 MiB); hugeMin is the smallest array worth advising (below it
// the TLB covers the array anyway).
const (
	hugePage = 2 << 20
	hugeMin  = 8 * hugePage
)

// hugeFloats returns a zeroed slice of n float32 for a large, randomly
// accessed array: from hugeMin bytes on, it starts on a huge-page boundary
// and is advised to the kernel as MADV_HUGEPAGE, so that where
// transparent huge pages are enabled ("madvise" or "always") random rows
// cost few TLB misses. The values are those of make([]float32, n); only
// where they live changes. A failed advice is ignored (the slice is then
// an ordinary one).
func hugeFloats(n int) []float32 {
	if 4*n < hugeMin {
		return make([]float32, n)
	}
	const per = hugePage / 4
	buf := make([]float32, n+per)
	skip := 0
	if rem := uintptr(unsafe.Pointer(&buf[0])) % hugePage; rem != 0 {
		skip = int((hugePage - rem) / 4)
	}
	s := buf[skip : skip+n : skip+n]
	advise(unsafe.Pointer(&s[0]), 4*n, syscall.MADV_HUGEPAGE)
	return s
}

// advise gives the advice for the whole huge pages inside [p, p+size).
func advise(p unsafe.Pointer, size, advice int) {
	off := int((hugePage - uintptr(p)%hugePage) % hugePage)
	whole := (size - off) / hugePage * hugePage
	if whole <= 0 {
		return
	}
	b := unsafe.Slice((*byte)(p), size)
	_ = syscall.Madvise(b[off:off+whole], advice)
}
