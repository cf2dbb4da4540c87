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

// Dots sets out[t] = Dot(a, b[t]) for every row b[t], bit for bit, with
// a read once for every four rows. len(out) must be at least len(b), and
// every row at least as long as a.
func Dots(out, a []float32, b [][]float32) {
	out = out[:len(b)]
	t := 0
	if n8 := len(a) &^ 7; useAVX2 && n8 > 0 {
		for ; t+4 <= len(b); t += 4 {
			b0, b1, b2, b3 := b[t][:len(a)], b[t+1][:len(a)], b[t+2][:len(a)], b[t+3][:len(a)]
			o := out[t : t+4]
			dot4AVX2(&a[0], &b0[0], &b1[0], &b2[0], &b3[0], n8, &o[0])
			if n8 < len(a) {
				for k, bk := range [4][]float32{b0, b1, b2, b3} {
					o[k] += dotGo(a[n8:], bk[n8:])
				}
			}
		}
	}
	for ; t < len(b); t++ {
		out[t] = Dot(a, b[t])
	}
}

// AxpyN adds a[t]·x[t] to dst for t = 0, 1, … in that order: bit for bit
// the numbers of one Axpy per term, with dst read and written once. a
// must have an entry per term, and every term be at least as long as dst.
func AxpyN(dst, a []float32, x [][]float32) {
	a = a[:len(x)]
	n8 := 0
	if useAVX2 && len(dst) >= 8 && len(x) > 0 {
		n8 = len(dst) &^ 7
		for _, xt := range x {
			_ = xt[:len(dst)] // the assembly reads n8 elements of each term
		}
		axpyNAVX2(&dst[0], &a[0], &x[0], len(x), n8)
	}
	if n8 < len(dst) {
		rest := dst[n8:]
		for t, xt := range x {
			axpyGo(rest, a[t], xt[n8:len(dst)])
		}
	}
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

// RMSRow applies one RMSprop step with step size a (the bias correction
// folded in) to a row x with gradient g (plus decay·x) and second moments
// v: Adam's update with β1 = 0, so that the state is v alone, one number
// per element, and an update reads and writes three arrays, not four.
func RMSRow(x, g, v []float32, a, decay float32) {
	n8 := 0
	if useAVX2 && len(x) >= 8 {
		n8 = len(x) &^ 7
		rmsAVX2(&x[0], &g[:n8][0], &v[:n8][0], n8, a, decay, AdamB2, 1-AdamB2, AdamEps)
	}
	rmsGo(x[n8:], g[n8:len(x)], v[n8:len(x)], a, decay)
}

// RowRMSStep applies one step of row-wise RMSprop with step size a (the
// bias correction folded in) to a row x with gradient g (plus decay·x):
// the row's second moment s, one number for the whole row, becomes
// AdamB2·s + (1 − AdamB2)·mean(g²) and x moves by a·g/(√s + AdamEps). It
// returns the new s. This is Adam with β1 = 0 and v shared by the row's
// elements: the state is one number per row instead of two per element.
func RowRMSStep(x, g []float32, s, a, decay float32) float32 {
	if !useAVX2 {
		return rowRMSGo(x, g, s, a, decay)
	}
	g = g[:len(x)]
	n4, n8 := len(x)&^3, len(x)&^7
	var p [4]float32
	if n4 > 0 {
		rowSquaresSSE(&x[0], &g[0], n4, decay, &p[0])
	}
	s0 := addSquares(p[0], x[n4:], g[n4:], decay)
	s, step := rowRMSMoment(s, (s0+p[1])+(p[2]+p[3]), len(x), a)
	if n8 > 0 {
		rowStepAVX(&x[0], &g[0], n8, step, decay)
	}
	rowUpdate(x[n8:], g[n8:], step, decay)
	return s
}

// rowRMSGo is RowRMSStep in Go. Every product is converted to float32
// before it is added, so that no build fuses a multiply-add and the
// assembly's separate roundings match it bit for bit.
func rowRMSGo(x, g []float32, s, a, decay float32) float32 {
	g = g[:len(x)]
	var s0, s1, s2, s3 float32
	j := 0
	for ; j+4 <= len(x); j += 4 {
		g0, g1 := g[j]+float32(decay*x[j]), g[j+1]+float32(decay*x[j+1])
		g2, g3 := g[j+2]+float32(decay*x[j+2]), g[j+3]+float32(decay*x[j+3])
		s0 += float32(g0 * g0)
		s1 += float32(g1 * g1)
		s2 += float32(g2 * g2)
		s3 += float32(g3 * g3)
	}
	s0 = addSquares(s0, x[j:], g[j:], decay)
	s, step := rowRMSMoment(s, (s0+s1)+(s2+s3), len(x), a)
	rowUpdate(x, g, step, decay)
	return s
}

// addSquares returns s plus the squares of g_j + decay·x_j, added one by
// one in order: the tail of a row that the four partial sums leave.
func addSquares(s float32, x, g []float32, decay float32) float32 {
	g = g[:len(x)]
	for j, xj := range x {
		gj := g[j] + float32(decay*xj)
		s += float32(gj * gj)
	}
	return s
}

// rowRMSMoment returns the row's new second moment from the sum of its
// n squared gradients, and the step size a/(√s + AdamEps) it gives.
func rowRMSMoment(s, sq float32, n int, a float32) (float32, float32) {
	s = AdamB2*s + (1-AdamB2)*(sq/float32(n))
	return s, a / (float32(math.Sqrt(float64(s))) + AdamEps)
}

// rowUpdate sets x_j −= step·(g_j + decay·x_j), each product rounded
// before it is added.
func rowUpdate(x, g []float32, step, decay float32) {
	g = g[:len(x)]
	for j, xj := range x {
		x[j] = xj - float32(step*(g[j]+float32(decay*xj)))
	}
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

func rmsGo(x, g, v []float32, a, decay float32) {
	g, v = g[:len(x)], v[:len(x)]
	for j, xj := range x {
		gj := g[j] + decay*xj
		vj := AdamB2*v[j] + (1-AdamB2)*gj*gj
		v[j] = vj
		x[j] = xj - a*gj/(float32(math.Sqrt(float64(vj)))+AdamEps)
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
