package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKernelsMatchGo checks the dispatching kernels (assembly where the
// CPU has AVX2 and FMA) against the plain Go loops, in float64 for the
// reference, for every length up to 70 (tails of every size) and
// offsets that misalign the vectors.
func TestKernelsMatchGo(t *testing.T) {
	if !useAVX2 {
		t.Log("no AVX2/FMA (or WYS_NOASM set): checking the Go kernels against float64 only")
	}
	vec := normalVectors(1)
	for n := 0; n <= 70; n++ {
		for _, off := range []int{0, 1, 3} {
			a, b := vec(n+off, 1)[off:], vec(n+off, 1)[off:]
			var want, mag float64
			for i := range a {
				want += float64(a[i]) * float64(b[i])
				mag += math.Abs(float64(a[i]) * float64(b[i]))
			}
			if got := float64(Dot(a, b)); math.Abs(got-want) > 1e-6*(mag+1) {
				t.Errorf("dot n=%d off=%d: %v, want %v", n, off, got, want)
			}

			dst, x := vec(n+off, 1)[off:], vec(n+off, 1)[off:]
			ref := make([]float64, n)
			for i := range ref {
				ref[i] = float64(dst[i]) + 0.37*float64(x[i])
			}
			Axpy(dst, 0.37, x)
			for i := range ref {
				if math.Abs(float64(dst[i])-ref[i]) > 1e-6*(math.Abs(ref[i])+1) {
					t.Errorf("axpy n=%d off=%d [%d]: %v, want %v", n, off, i, dst[i], ref[i])
				}
			}

			xs, g := vec(n+off, 0.1)[off:], vec(n+off, 1)[off:]
			m, v := vec(n+off, 0.1)[off:], vec(n+off, 0.1)[off:]
			for i := range v {
				v[i] *= v[i] // second moments are non-negative
			}
			x0, g0, m0, v0 := append([]float32(nil), xs...), append([]float32(nil), g...), append([]float32(nil), m...), append([]float32(nil), v...)
			const lr, decay = 0.01, 1e-3
			AdamRow(xs, g, m, v, lr, decay)
			for i := range x0 {
				gi := float64(g0[i]) + decay*float64(x0[i])
				mi := AdamB1*float64(m0[i]) + (1-AdamB1)*gi
				vi := AdamB2*float64(v0[i]) + (1-AdamB2)*gi*gi
				xi := float64(x0[i]) - lr*mi/(math.Sqrt(vi)+AdamEps)
				// Tolerances relative to the magnitude of the terms summed
				// (float32 rounding of each), not of the possibly cancelling sum.
				for _, c := range []struct {
					name             string
					got, want, scale float64
				}{
					{"m", float64(m[i]), mi, AdamB1*math.Abs(float64(m0[i])) + (1-AdamB1)*math.Abs(gi)},
					{"v", float64(v[i]), vi, vi},
					{"x", float64(xs[i]), xi, math.Abs(float64(x0[i])) + math.Abs(lr*mi/(math.Sqrt(vi)+AdamEps))},
				} {
					if math.Abs(c.got-c.want) > 1e-6*(c.scale+1e-9) {
						t.Errorf("adam n=%d off=%d %s[%d]: %v, want %v", n, off, c.name, i, c.got, c.want)
					}
				}
			}
			for i := range g {
				if g[i] != g0[i] {
					t.Fatalf("adam modified the gradient at %d", i)
				}
			}
		}
	}
}

// TestPrefetch checks that Prefetch accepts any length, including the
// empty slice and a slice of one element, and changes no value.
func TestPrefetch(t *testing.T) {
	x := make([]float32, 100)
	for i := range x {
		x[i] = float32(i) / 3
	}
	ix, i32 := make([]int, 100), make([]int32, 100)
	for i := range x {
		ix[i], i32[i] = i, int32(i)
	}
	for _, n := range []int{0, 1, 15, 16, 17, 100} {
		Prefetch(x[:n])
		PrefetchInts(ix[:n])
		PrefetchInt32s(i32[:n])
	}
	Prefetch(nil)
	PrefetchInts(nil)
	PrefetchInt32s(nil)
	for i := range x {
		if x[i] != float32(i)/3 || ix[i] != i || i32[i] != int32(i) {
			t.Fatalf("element %d changed by a prefetch", i)
		}
	}
}

// TestRMSRow checks RMSRow (the assembly where the CPU has it, with the
// Go loop on the tail) against the formula in float64 for every length up
// to 70 and misaligned offsets, and that it leaves the gradient alone.
func TestRMSRow(t *testing.T) {
	vec := normalVectors(5)
	for n := 0; n <= 70; n++ {
		for _, off := range []int{0, 1, 3} {
			x, g, v := vec(n+off, 0.1)[off:], vec(n+off, 1)[off:], vec(n+off, 0.3)[off:]
			for i := range v {
				v[i] *= v[i]
			}
			x0, g0, v0 := append([]float32(nil), x...), append([]float32(nil), g...), append([]float32(nil), v...)
			const a, decay = 0.01, 1e-3
			RMSRow(x, g, v, a, decay)
			for i := range x0 {
				gi := float64(g0[i]) + decay*float64(x0[i])
				vi := AdamB2*float64(v0[i]) + (1-AdamB2)*gi*gi
				step := a * gi / (math.Sqrt(vi) + AdamEps)
				if math.Abs(float64(v[i])-vi) > 1e-6*vi {
					t.Errorf("n=%d off=%d v[%d]: %v, want %v", n, off, i, v[i], vi)
				}
				if xi := float64(x0[i]) - step; math.Abs(float64(x[i])-xi) > 1e-6*(math.Abs(float64(x0[i]))+math.Abs(step)) {
					t.Errorf("n=%d off=%d x[%d]: %v, want %v", n, off, i, x[i], xi)
				}
				if g[i] != g0[i] {
					t.Fatalf("n=%d off=%d: the gradient changed at %d", n, off, i)
				}
			}
		}
	}
}

// TestRowRMSStep checks the row-wise RMSprop step against the same
// formula in float64.
func TestRowRMSStep(t *testing.T) {
	vec := normalVectors(3)
	for _, n := range []int{1, 3, 8, 64, 67} {
		x, g := vec(n, 0.1), vec(n, 1)
		x0 := append([]float32(nil), x...)
		const a, decay, s0 = 0.01, 1e-3, 0.25
		s := RowRMSStep(x, g, s0, a, decay)
		var sq float64
		for i := range x0 {
			gi := float64(g[i]) + decay*float64(x0[i])
			sq += gi * gi
		}
		want := AdamB2*s0 + (1-AdamB2)*sq/float64(n)
		if math.Abs(float64(s)-want) > 1e-6*want {
			t.Errorf("n=%d: second moment %v, want %v", n, s, want)
		}
		for i := range x0 {
			gi := float64(g[i]) + decay*float64(x0[i])
			step := a * gi / (math.Sqrt(want) + AdamEps)
			xi := float64(x0[i]) - step
			if math.Abs(float64(x[i])-xi) > 1e-6*(math.Abs(float64(x0[i]))+math.Abs(step)) {
				t.Errorf("n=%d x[%d]: %v, want %v", n, i, x[i], xi)
			}
		}
	}
}

// TestRowRMSStepBits checks RowRMSStep (the assembly where the CPU has
// it) against rowRMSGo bit for bit, for every length up to 70, gradients
// from 1e-6 to 1e3 times the rows, decays that leave the gradient alone
// or rival it, and second moments that make the step small or larger
// than the row (so that a fused multiply-add would show).
func TestRowRMSStepBits(t *testing.T) {
	vec := normalVectors(4)
	for n := 1; n <= 70; n++ {
		for _, scale := range []float64{1e-6, 1, 1e3} {
			for _, decay := range []float32{0, 1e-3, 0.3} {
				for _, s0 := range []float32{0.25, 1e-8} {
					x, g := vec(n, 0.1), vec(n, 0.1*scale)
					y := append([]float32(nil), x...)
					const a = 0.01
					s := RowRMSStep(x, g, s0, a, decay)
					want := rowRMSGo(y, g, s0, a, decay)
					if math.Float32bits(s) != math.Float32bits(want) {
						t.Fatalf("n=%d scale %g decay %g s0 %g: second moment %v, Go %v", n, scale, decay, s0, s, want)
					}
					for i := range x {
						if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
							t.Fatalf("n=%d scale %g decay %g s0 %g: x[%d] = %v, Go %v", n, scale, decay, s0, i, x[i], y[i])
						}
					}
				}
			}
		}
	}
}

// normalVectors returns a source of vectors of n normal values times
// scale, seeded by seed.
func normalVectors(seed uint64) func(n int, scale float64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 2))
	return func(n int, scale float64) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * scale)
		}
		return x
	}
}

// TestAxpyN checks AxpyN against one Axpy per term, bit for bit (the
// trainer's output bytes rest on it), and against the sum in float64, for
// sums of 0 to 11 terms, every length up to 70 (the assembly's steps of
// 32 and 8 elements and every tail) and misaligned offsets, with zero
// coefficients among the terms.
func TestAxpyN(t *testing.T) {
	vec := normalVectors(3)
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 70; n++ {
		for _, off := range []int{0, 1, 3} {
			for terms := 0; terms <= 11; terms++ {
				start := vec(n+off, 1)[off:]
				a := make([]float32, terms)
				xs := make([][]float32, terms)
				for i := range a {
					if rng.IntN(4) > 0 {
						a[i] = float32(rng.NormFloat64())
					}
					xs[i] = vec(n+off, 1)[off:]
				}
				want := append([]float32(nil), start...)
				ref := make([]float64, n)
				mag := make([]float64, n)
				for j := range ref {
					ref[j], mag[j] = float64(start[j]), math.Abs(float64(start[j]))
				}
				for i := range a {
					Axpy(want, a[i], xs[i])
					for j := range ref {
						ref[j] += float64(a[i]) * float64(xs[i][j])
						mag[j] += math.Abs(float64(a[i]) * float64(xs[i][j]))
					}
				}
				got := append([]float32(nil), start...)
				AxpyN(got, a, xs)
				for j := range got {
					if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
						t.Fatalf("n=%d off=%d terms=%d [%d]: %v, one Axpy per term gives %v", n, off, terms, j, got[j], want[j])
					}
					if math.Abs(float64(got[j])-ref[j]) > 1e-6*(mag[j]+1) {
						t.Fatalf("n=%d off=%d terms=%d [%d]: %v, want %v in float64", n, off, terms, j, got[j], ref[j])
					}
				}
			}
		}
	}
}

// TestDots checks Dots against Dot row by row, bit for bit (the trainer's
// output bytes rest on it), and against the sum in float64, for 0 to 9
// rows (full groups of four and every remainder), every length up to 70,
// misaligned offsets and rows longer than a.
func TestDots(t *testing.T) {
	vec := normalVectors(5)
	for n := 0; n <= 70; n++ {
		for _, off := range []int{0, 1, 3} {
			for rows := 0; rows <= 9; rows++ {
				a := vec(n+off, 1)[off:]
				b := make([][]float32, rows)
				for i := range b {
					b[i] = vec(n+off+i, 1)[off:] // row i is i elements longer than a
				}
				out := make([]float32, rows+1)
				out[rows] = 42
				Dots(out, a, b)
				if out[rows] != 42 {
					t.Fatalf("n=%d rows=%d: Dots wrote past len(b)", n, rows)
				}
				for i, row := range b {
					if want := Dot(a, row[:n]); math.Float32bits(out[i]) != math.Float32bits(want) {
						t.Fatalf("n=%d off=%d rows=%d [%d]: %v, Dot gives %v", n, off, rows, i, out[i], want)
					}
					var ref, mag float64
					for j := range a {
						ref += float64(a[j]) * float64(row[j])
						mag += math.Abs(float64(a[j]) * float64(row[j]))
					}
					if math.Abs(float64(out[i])-ref) > 1e-6*(mag+1) {
						t.Fatalf("n=%d off=%d rows=%d [%d]: %v, want %v in float64", n, off, rows, i, out[i], ref)
					}
				}
			}
		}
	}
}

// TestExp checks Exp bit for bit against math.Exp: a million arguments
// spread over [-700, 700] and concentrated near 0, the edges of the
// range, halfway points between multiples of ln 2 (where the reduction's
// rounding decides), every length up to 13 and inputs outside the range
// (which take math.Exp for the whole slice).
func TestExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, 1<<20)
	for i := range x {
		switch i % 4 {
		case 0:
			x[i] = 1400*rng.Float64() - 700
		case 1:
			x[i] = rng.NormFloat64()
		case 2:
			x[i] = -30 * rng.Float64() // the sigmoid's e^−|g|
		default:
			x[i] = (float64(rng.IntN(2000)-1000) + 0.5) * math.Ln2
			if x[i] > 700 || x[i] < -700 {
				x[i] = 0
			}
		}
	}
	copy(x, []float64{-700, 700, 0, math.Copysign(0, -1), 1e-300, -1e-300, math.Ln2 / 2, -math.Ln2 / 2})
	got := make([]float64, len(x))
	Exp(got, x)
	for i, v := range x {
		if want := math.Exp(v); math.Float64bits(got[i]) != math.Float64bits(want) {
			t.Fatalf("Exp(%v) = %v (%#x), math.Exp %v (%#x)", v, got[i], math.Float64bits(got[i]), want, math.Float64bits(want))
		}
	}
	for n := 0; n <= 13; n++ {
		for _, odd := range []float64{0, 701, -750, math.Inf(1), math.Inf(-1), math.NaN()} {
			in := make([]float64, n)
			for i := range in {
				in[i] = 20*rng.Float64() - 10
			}
			if n > 0 && odd != 0 {
				in[rng.IntN(n)] = odd
			}
			out := make([]float64, n+1)
			out[n] = 42
			Exp(out, in)
			for i, v := range in {
				if want := math.Exp(v); math.Float64bits(out[i]) != math.Float64bits(want) {
					t.Fatalf("n = %d: Exp(%v) = %v, math.Exp %v", n, v, out[i], want)
				}
			}
			if out[n] != 42 {
				t.Fatalf("n = %d: wrote past the input's length", n)
			}
		}
	}
}

// BenchmarkExp compares Exp with a loop of math.Exp over a negative
// block's 64 arguments.
func BenchmarkExp(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, 64)
	for i := range x {
		x[i] = -8 * rng.Float64()
	}
	dst := make([]float64, len(x))
	b.Run("Exp", func(b *testing.B) {
		for b.Loop() {
			Exp(dst, x)
		}
	})
	b.Run("math.Exp", func(b *testing.B) {
		for b.Loop() {
			for i, v := range x {
				dst[i] = math.Exp(v)
			}
		}
	})
}
