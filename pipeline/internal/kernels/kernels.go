// Package kernels holds the float32 vector kernels of the sparse trainer. On amd64 with AVX2 and
// FMA they run in assembly (kernels_amd64.s), 8 lanes at a time with the
// remainder in Go; elsewhere, or with WYS_NOASM=1 in the environment, in
// Go. The two paths round differently (fused multiply-adds, float32
// square roots), so embeddings are reproducible for a given seed on a
// given kind of machine, for any number of workers.
package kernels

import "math"

// Dot returns Σ a_i·b_i.
func Dot(a, b []float32) float32 {
	n8 := 0
	var s float32
	if useAVX2 && len(a) >= 8 {
		n8 = len(a) &^ 7
		s = dotAVX2(&a[0], &b[:n8][0], n8)
	}
	return s + dotGo(a[n8:], b[n8:len(a)])
}

// Axpy adds alpha·x to dst.
func Axpy(dst []float32, alpha float32, x []float32) {
	n8 := 0
	if useAVX2 && len(dst) >= 8 {
		n8 = len(dst) &^ 7
		axpyAVX2(&dst[0], alpha, &x[:n8][0], n8)
	}
	axpyGo(dst[n8:], alpha, x[n8:len(dst)])
}

// Axpy4 adds a[0]·x0, a[1]·x1, a[2]·x2 and a[3]·x3 to dst: the same
// numbers, bit for bit, as four Axpy calls in that order, with dst read
// and written once instead of four times.
func Axpy4(dst []float32, a *[4]float32, x0, x1, x2, x3 []float32) {
	n8 := 0
	if useAVX2 && len(dst) >= 8 {
		n8 = len(dst) &^ 7
		axpy4AVX2(&dst[0], a[0], a[1], a[2], a[3], &x0[:n8][0], &x1[:n8][0], &x2[:n8][0], &x3[:n8][0], n8)
	}
	if n8 < len(dst) {
		t := dst[n8:]
		axpyGo(t, a[0], x0[n8:len(dst)])
		axpyGo(t, a[1], x1[n8:len(dst)])
		axpyGo(t, a[2], x2[n8:len(dst)])
		axpyGo(t, a[3], x3[n8:len(dst)])
	}
}

// AxpySum adds Σ a_i·x_i to one vector, term by term in the order the
// terms are added: the same numbers, bit for bit, as one Axpy per term,
// with the terms applied four at a time by Axpy4. Flush applies the
// terms still pending; it must be called before the vector is read.
type AxpySum struct {
	dst []float32
	a   [4]float32
	x   [4][]float32
	n   int
}

// Reset starts a sum into dst, dropping any pending terms.
func (s *AxpySum) Reset(dst []float32) {
	s.dst, s.n = dst, 0
}

// Add adds the term a·x.
func (s *AxpySum) Add(a float32, x []float32) {
	s.a[s.n], s.x[s.n] = a, x
	s.n++
	if s.n == 4 {
		Axpy4(s.dst, &s.a, s.x[0], s.x[1], s.x[2], s.x[3])
		s.n = 0
	}
}

// Flush applies the pending terms.
func (s *AxpySum) Flush() {
	for i := 0; i < s.n; i++ {
		Axpy(s.dst, s.a[i], s.x[i])
	}
	s.n = 0
}

// Exp sets dst[i] = math.Exp(x[i]) for every i < len(x), bit for bit: in
// assembly, 4 at a time, when every x[i] lies in [-700, 700] (where
// math.Exp takes neither its overflow nor its subnormal path), and with
// math.Exp otherwise. dst must be at least as long as x.
func Exp(dst, x []float64) {
	dst = dst[:len(x)]
	n := 0
	if useAVX2 && len(x) >= 4 && expInRange(x) {
		n = len(x) &^ 3
		expAVX2(&dst[0], &x[0], n)
	}
	for i := n; i < len(x); i++ {
		dst[i] = math.Exp(x[i])
	}
}

// expInRange reports whether every x[i] lies in [-700, 700] (NaN does
// not).
func expInRange(x []float64) bool {
	for _, v := range x {
		if !(v >= -700 && v <= 700) {
			return false
		}
	}
	return true
}

// AdamB1, AdamB2 and AdamEps are Adam's moment decay rates and epsilon,
// shared with the trainer's update of q.
const (
	AdamB1, AdamB2, AdamEps = 0.9, 0.999, 1e-8
)

// AdamRow applies one Adam step with step size a (bias corrections folded
// in) to a row x with gradient g (plus decay·x) and moments m and v.
func AdamRow(x, g, m, v []float32, a, decay float32) {
	n8 := 0
	if useAVX2 && len(x) >= 8 {
		n8 = len(x) &^ 7
		adamAVX2(&x[0], &g[:n8][0], &m[:n8][0], &v[:n8][0], n8, a, decay, AdamB1, 1-AdamB1, AdamB2, 1-AdamB2, AdamEps)
	}
	adamGo(x[n8:], g[n8:len(x)], m[n8:len(x)], v[n8:len(x)], a, decay)
}

// RowRMSStep applies one step of row-wise RMSprop with step size a (the
// bias correction folded in) to a row x with gradient g (plus decay·x):
// the row's second moment s, one number for the whole row, becomes
// AdamB2·s + (1 − AdamB2)·mean(g²) and x moves by a·g/(√s + AdamEps). It
// returns the new s. This is Adam with β1 = 0 and v shared by the row's
// elements: the state is one number per row instead of two per element.
func RowRMSStep(x, g []float32, s, a, decay float32) float32 {
	g = g[:len(x)]
	var s0, s1, s2, s3 float32
	j := 0
	for ; j+4 <= len(x); j += 4 {
		g0, g1 := g[j]+decay*x[j], g[j+1]+decay*x[j+1]
		g2, g3 := g[j+2]+decay*x[j+2], g[j+3]+decay*x[j+3]
		s0 += g0 * g0
		s1 += g1 * g1
		s2 += g2 * g2
		s3 += g3 * g3
	}
	for ; j < len(x); j++ {
		gj := g[j] + decay*x[j]
		s0 += gj * gj
	}
	s = AdamB2*s + (1-AdamB2)*(((s0+s1)+(s2+s3))/float32(len(x)))
	step := a / (float32(math.Sqrt(float64(s))) + AdamEps)
	for j, xj := range x {
		x[j] = xj - step*(g[j]+decay*xj)
	}
	return s
}

func dotGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func axpyGo(dst []float32, alpha float32, x []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] += alpha * x[i]
	}
}

func adamGo(x, g, m, v []float32, a, decay float32) {
	g, m, v = g[:len(x)], m[:len(x)], v[:len(x)]
	for j, xj := range x {
		gj := g[j] + decay*xj
		mj := AdamB1*m[j] + (1-AdamB1)*gj
		vj := AdamB2*v[j] + (1-AdamB2)*gj*gj
		m[j], v[j] = mj, vj
		x[j] = xj - a*mj/(float32(math.Sqrt(float64(vj)))+AdamEps)
	}
}
