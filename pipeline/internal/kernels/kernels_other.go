//go:build !amd64

package kernels

const useAVX2 = false

func dotAVX2(a, b *float32, n int) float32 { panic("unreachable") }

func axpyAVX2(dst *float32, alpha float32, x *float32, n int) { panic("unreachable") }

func adamAVX2(x, grad, m, v *float32, n int, a, decay, b1, ob1, b2, ob2, eps float32) {
	panic("unreachable")
}

func rmsAVX2(x, grad, v *float32, n int, a, decay, b2, ob2, eps float32) { panic("unreachable") }

func dot4AVX2(a, b0, b1, b2, b3 *float32, n int, out *float32) { panic("unreachable") }

func axpyNAVX2(dst, a *float32, x *[]float32, terms, n int) { panic("unreachable") }

func expAVX2(dst, x *float64, n int) { panic("unreachable") }

func rowSquaresSSE(x, grad *float32, n int, decay float32, out *float32) { panic("unreachable") }

func rowStepAVX(x, grad *float32, n int, step, decay float32) { panic("unreachable") }

// Prefetch does nothing here: the hint is amd64 only.
func Prefetch(x []float32) {}

// PrefetchInts does nothing here: the hint is amd64 only.
func PrefetchInts(x []int) {}

// PrefetchInt32s does nothing here: the hint is amd64 only.
func PrefetchInt32s(x []int32) {}
