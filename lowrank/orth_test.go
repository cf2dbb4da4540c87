package lowrank

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestOrthonormalizeTall checks CholeskyQR2 on a block of several
// gramRows blocks: the Gram matrix against a plain sum over rows, the
// same bits for 1 and 3 workers, and Q: orthonormal columns that span
// Y (Y = Q·QᵀY).
func TestOrthonormalizeTall(t *testing.T) {
	m, l := 2*gramRows+1237, 7
	rng := rand.New(rand.NewPCG(3, 4))
	y := make([]float64, m*l)
	for i := range y {
		y[i] = rng.NormFloat64() * float64(1+i%l) // columns of different scales
	}
	g1, err := gramUpper(context.Background(), y, m, l, 1)
	if err != nil {
		t.Fatal(err)
	}
	if g3, _ := gramUpper(context.Background(), y, m, l, 3); !slices.Equal(g1, g3) {
		t.Fatal("the Gram matrix depends on the number of workers")
	}
	for j := 0; j < l; j++ {
		for k := j; k < l; k++ {
			var want float64
			for i := 0; i < m; i++ {
				want += y[i*l+j] * y[i*l+k]
			}
			if math.Abs(g1[j*l+k]-want) > 1e-10*math.Abs(want)+1e-9 {
				t.Errorf("Gram (%d, %d) = %v, want %v", j, k, g1[j*l+k], want)
			}
		}
	}
	q := slices.Clone(y)
	if err := orthonormalize(context.Background(), q, m, l); err != nil {
		t.Fatal(err)
	}
	got := mat.NewDense(m, l, q)
	var gtg mat.Dense
	gtg.Mul(got.T(), got)
	for j := 0; j < l; j++ {
		for k := 0; k < l; k++ {
			if want := b2f(j == k); math.Abs(gtg.At(j, k)-want) > 1e-12 {
				t.Fatalf("QᵀQ (%d, %d) = %v", j, k, gtg.At(j, k))
			}
		}
	}
	ym := mat.NewDense(m, l, y)
	var c, back mat.Dense
	c.Mul(got.T(), ym)
	back.Mul(got, &c)
	back.Sub(&back, ym)
	if r := mat.Norm(&back, 2) / mat.Norm(ym, 2); r > 1e-12 {
		t.Errorf("‖Y − Q·QᵀY‖ / ‖Y‖ = %.3g: Q does not span Y", r)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestQRTall checks Y = Q·R and QᵀQ = I for qrTall with R wanted, on a
// well-conditioned block (the CholeskyQR2 path), and on one whose last
// column nearly repeats the first: cond(Y) ~ 1e5 (CholeskyQR2, whose
// second pass then matters) and ~ 1e9 (shifted passes first).
func TestQRTall(t *testing.T) {
	m, l := gramRows+999, 6
	for _, eps := range []float64{1, 1e-5, 1e-9} {
		y := nearlyDependent(m, l, eps, 5)
		q := slices.Clone(y)
		r, err := qrTall(context.Background(), q, m, l, true)
		if err != nil {
			t.Fatal(err)
		}
		if e, f := qrErrors(q, y, r, m, l); e > 1e-12 || f > 1e-12 {
			t.Errorf("eps %g: ‖QᵀQ − I‖ = %.3g, ‖QR − Y‖/‖Y‖ = %.3g", eps, e, f)
		}
	}
}

// qrErrors returns ‖QᵀQ − I‖ and ‖QR − Y‖/‖Y‖ for the m x l row-major
// blocks q and y.
func qrErrors(q, y []float64, r mat.Matrix, m, l int) (orth, back float64) {
	qm, ym := mat.NewDense(m, l, q), mat.NewDense(m, l, y)
	var qtq, qr mat.Dense
	qtq.Mul(qm.T(), qm)
	for j := 0; j < l; j++ {
		qtq.Set(j, j, qtq.At(j, j)-1)
	}
	qr.Mul(qm, r)
	qr.Sub(&qr, ym)
	return mat.Norm(&qtq, 2), mat.Norm(&qr, 2) / mat.Norm(ym, 2)
}

// TestTallSVD compares TallSVD with gonum's direct thin SVD of the same
// matrix: the singular values, and U·diag(S)·Vᵀ rebuilding Y (the
// columns' signs may differ), on a well conditioned matrix and one of
// condition number 1e7; and refuses a wide matrix.
func TestTallSVD(t *testing.T) {
	m, k := gramRows+321, 7
	for _, eps := range []float64{1, 1e-7} {
		y := nearlyDependent(m, k, eps, 8)
		ym := mat.NewDense(m, k, slices.Clone(y))
		var want mat.SVD
		if !want.Factorize(ym, mat.SVDThin) {
			t.Fatal("gonum's SVD failed")
		}
		got, err := TallSVD(y, m, k)
		if err != nil {
			t.Fatal(err)
		}
		for j, s := range want.Values(nil) {
			if math.Abs(got.S[j]-s) > 1e-10*want.Values(nil)[0] {
				t.Errorf("eps %g: σ%d = %v, gonum %v", eps, j+1, got.S[j], s)
			}
		}
		var back mat.Dense
		back.Mul(got.U, mat.NewDiagDense(k, got.S))
		back.Mul(&back, got.V.T())
		back.Sub(&back, ym)
		var utu mat.Dense
		utu.Mul(got.U.T(), got.U)
		for j := 0; j < k; j++ {
			utu.Set(j, j, utu.At(j, j)-1)
		}
		if f, e := mat.Norm(&back, 2)/mat.Norm(ym, 2), mat.Norm(&utu, 2); f > 1e-12 || e > 1e-10 {
			t.Errorf("eps %g: ‖USVᵀ − Y‖/‖Y‖ = %.3g, ‖UᵀU − I‖ = %.3g", eps, f, e)
		}
	}
	if _, err := TallSVD(make([]float64, 6), 2, 3); err == nil {
		t.Error("a 2 x 3 matrix: want an error")
	}
}

// nearlyDependent returns an m x l row-major matrix of normal entries
// (seeded) whose last column is the first plus eps times noise: its
// condition number grows like 1/eps.
func nearlyDependent(m, l int, eps float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	y := make([]float64, m*l)
	for i := 0; i < m; i++ {
		for j := 0; j < l; j++ {
			y[i*l+j] = rng.NormFloat64()
		}
		y[i*l+l-1] = y[i*l] + eps*y[i*l+l-1]
	}
	return y
}

// TestQRTallCancel: a cancelled context stops the CholeskyQR2 passes of
// qrTall (and so the re-orthonormalisation of every factorization) with
// its error, where it ran them to their end whatever the context said:
// several seconds on a 131,072 x 138 block.
func TestQRTallCancel(t *testing.T) {
	m, l := 2*gramRows+5, 6
	y := nearlyDependent(m, l, 1, 5)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := qrTall(ctx, y, m, l, true); !errors.Is(err, context.Canceled) {
		t.Fatalf("qrTall: got %v, want context.Canceled", err)
	}
	if err := orthonormalize(ctx, y, m, l); !errors.Is(err, context.Canceled) {
		t.Fatalf("orthonormalize: got %v, want context.Canceled", err)
	}
}

// TestShiftedCholeskyQR checks the CholeskyQR passes alone on blocks a
// plain first pass refuses, of condition about 1e9, 1e12 and 1e14 and
// one whose last column repeats the first exactly (rank deficient): the
// shifted passes and the two plain ones after them give Y = Q·R with
// QᵀQ = I, without Householder QR.
func TestShiftedCholeskyQR(t *testing.T) {
	m, l := gramRows+999, 6
	for _, eps := range []float64{1e-9, 1e-12, 1e-14, 0} {
		y := nearlyDependent(m, l, eps, 5)
		if rp, _, err := cholQR(context.Background(), slices.Clone(y), m, l, false); err != nil || rp != nil {
			t.Fatalf("eps %g: a plain pass took the block (%v)", eps, err)
		}
		q := slices.Clone(y)
		r := mat.NewDense(l, l, nil)
		for i := 0; i < l; i++ {
			r.Set(i, i, 1)
		}
		done, err := cholQRPasses(context.Background(), q, m, l, r)
		if err != nil || !done {
			t.Fatalf("eps %g: done %v, %v", eps, done, err)
		}
		if e, f := qrErrors(q, y, r, m, l); e > 1e-12 || f > 1e-12 {
			t.Errorf("eps %g: ‖QᵀQ − I‖ = %.3g, ‖QR − Y‖/‖Y‖ = %.3g", eps, e, f)
		}
	}
}
