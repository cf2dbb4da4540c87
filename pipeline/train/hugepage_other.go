//go:build !linux

package train

// hugeFloats returns make([]float32, n): huge-page advice is linux only.
func hugeFloats(n int) []float32 { return make([]float32, n) }
