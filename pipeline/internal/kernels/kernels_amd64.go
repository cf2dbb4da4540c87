package kernels

import (
	"os"
	"unsafe"
)

// useAVX2 selects the assembly kernels: the CPU has AVX2 and FMA, the OS
// saves the YMM registers, and WYS_NOASM is not set.
var useAVX2 = hasAVX2FMA() && os.Getenv("WYS_NOASM") == ""

func hasAVX2FMA() bool {
	_, _, ecx1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	if eax, _ := xgetbv(); eax&6 != 6 { // XMM and YMM state enabled
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)

// dotAVX2 returns Σ a_i·b_i over n elements, n a multiple of 8.
//
//go:noescape
func dotAVX2(a, b *float32, n int) float32

// axpyAVX2 adds alpha·x to dst over n elements, n a multiple of 8.
//
//go:noescape
func axpyAVX2(dst *float32, alpha float32, x *float32, n int)

// adamAVX2 is adamGo over n elements, n a multiple of 8, with the rates
// passed in.
//
//go:noescape
func adamAVX2(x, grad, m, v *float32, n int, a, decay, b1, ob1, b2, ob2, eps float32)

// rmsAVX2 is rmsGo over n elements, n a multiple of 8, with the rates
// passed in.
//
//go:noescape
func rmsAVX2(x, grad, v *float32, n int, a, decay, b2, ob2, eps float32)

// dot4AVX2 sets out[k] = Σ a_i·bk_i for k = 0..3 over n elements, n a
// multiple of 8, each bit for bit dotAVX2(a, bk, n).
//
//go:noescape
func dot4AVX2(a, b0, b1, b2, b3 *float32, n int, out *float32)

// axpyNAVX2 adds a[t]·x[t] to dst for t = 0..terms-1, in that order, over
// n elements, n a multiple of 8; x points to terms slices, each at least
// n long.
//
//go:noescape
func axpyNAVX2(dst, a *float32, x *[]float32, terms, n int)

// expAVX2 sets dst[i] = math.Exp(x[i]) for n elements, n a multiple of
// 4 and every x[i] in [-700, 700].
//
//go:noescape
func expAVX2(dst, x *float64, n int)

// rowSquaresSSE sets out[k] to the sum of (g_j + decay·x_j)² over the j
// ≡ k mod 4 below n, n a multiple of 4, bit for bit rowRMSGo's four
// partial sums.
//
//go:noescape
func rowSquaresSSE(x, grad *float32, n int, decay float32, out *float32)

// rowStepAVX is rowRMSGo's update x_j −= step·(g_j + decay·x_j) over n
// elements, n a multiple of 8, bit for bit.
//
//go:noescape
func rowStepAVX(x, grad *float32, n int, step, decay float32)

// prefetchAsm asks for the cache lines of n > 0 float32 from p.
//
//go:noescape
func prefetchAsm(p *float32, n int)

// PrefetchInts is Prefetch for an int array.
func PrefetchInts(x []int) {
	if len(x) > 0 {
		prefetchAsm((*float32)(unsafe.Pointer(&x[0])), len(x)*int(unsafe.Sizeof(x[0]))/4)
	}
}

// PrefetchInt32s is Prefetch for an int32 array.
func PrefetchInt32s(x []int32) {
	if len(x) > 0 {
		prefetchAsm((*float32)(unsafe.Pointer(&x[0])), len(x))
	}
}

// Prefetch asks the CPU to start loading x into the cache, so that a row
// needed a little later is there when it is read. It has no effect on any
// value.
func Prefetch(x []float32) {
	if len(x) > 0 {
		prefetchAsm(&x[0], len(x))
	}
}
