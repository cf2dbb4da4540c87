package baseline

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/wys-project/wys/lowrank"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// ProNE's settings, its authors' defaults (THUDM/ProNE, proNE.py): the
// negative-sampling exponent of the sparse factorization, and the
// spectral propagation's Chebyshev order, μ and θ (the Gaussian filter's
// width, the s of the Bessel coefficients I_i(s)).
const (
	proneAlpha = 0.75
	proneOrder = 10
	proneMu    = 0.2
	proneTheta = 0.5
)

// prone returns ProNE's embedding of g (Zhang et al., IJCAI 2019), half
// columns with unit rows, computed as its authors' code does on the
// graph made undirected with unit weights and without self-loops:
//
//  1. sparse factorization: F_ij = log(A_ij/d_i) − log(P_j) on the
//     pattern of A, with P_j ∝ (Σ_i A_ij/d_i)^0.75; E = U√S of F's
//     rank-half SVD, rows scaled to unit length;
//  2. spectral propagation: with Ã = I + A, D̃⁻¹Ã its row normalisation
//     and M = I − D̃⁻¹Ã − μI, the Chebyshev expansion of a Gaussian
//     filter in y = M²/2 − I with the coefficients (−1)^i·2·I_i(θ)
//     (I_0(θ) for i = 0), C = Σ_{i<order} c_i T_i(y)·E, and the output
//     U√S of the thin SVD of Ã·(E − C), rows scaled to unit length.
//
// factor returns F's rank-half SVD: proneSVD, the authors' randomized
// SVD, in Run.
func prone(ctx context.Context, g *pipeline.Graph, half, workers int, factor func(*sparse.CSR) (*lowrank.SVD, error), rec pipeline.Recorder, st *proneSteps) ([]float32, error) {
	a, err := symmetrise(ctx, g.Adj, true, false) // ProNE's reader: unit weights, no self-loops
	if err != nil {
		return nil, err
	}
	n := g.N()
	note := func(msg string, args ...any) {
		rec.Record(pipeline.Event{Kind: pipeline.Note, Stage: "factorize", Message: fmt.Sprintf(msg, args...)})
	}
	start := time.Now()
	note("ProNE: the rank-%d SVD of the sparse matrix F (%d entries)", half, a.NNZ())
	svd, err := factor(proneFactorMatrix(a))
	if err != nil {
		return nil, err
	}
	note("ProNE: F factored in %.1fs; spectral propagation (%d Chebyshev terms) and the SVD of the %d x %d result", time.Since(start).Seconds(), proneOrder, n, half)
	e := make([]float64, n*half)
	for i := 0; i < n; i++ {
		for j, s := range svd.S {
			e[i*half+j] = svd.U.At(i, j) * math.Sqrt(s)
		}
	}
	pipeline.NormalizeRows(e, half)
	prop, err := propagate(ctx, a, e, half, workers, st)
	if err != nil {
		return nil, err
	}
	out, err := sqrtLeftFactor(prop, n, half)
	if err != nil {
		return nil, err
	}
	st.tick()
	pipeline.NormalizeRows(out, half)
	emb := make([]float32, n*half)
	for i, x := range out {
		emb[i] = float32(x)
	}
	return emb, nil
}

// proneSVD is the factorization of ProNE's F that its authors use:
// scikit-learn's randomized_svd with 5 power iterations and 10 extra
// sketch columns. It does not converge where F's spectrum crowds, and is
// kept because the method is defined by it: on web-NotreDame (half the
// edges held out, 128 columns) the test AUC was 97.82 with it and 96.45
// with the converged TopSVD; on PPI's split at d = 128, 74.90 against
// 74.49 (the authors' script: 74.60–75.11 over four sketch seeds).
func proneSVD(ctx context.Context, half int, seed uint64, workers int, st *proneSteps) func(*sparse.CSR) (*lowrank.SVD, error) {
	return func(f *sparse.CSR) (*lowrank.SVD, error) {
		op := &progressOp{Operator: lowrank.NewCSROperator(f, workers), st: st}
		return lowrank.RandomizedSVD(ctx, op, lowrank.Options{Rank: half, Seed: seed, Oversample: 10, PowerIters: proneSVDPowerIters})
	}
}

// proneSVDPowerIters is the power iterations of proneSVD, as its
// authors' randomized SVD.
const proneSVDPowerIters = 5

// proneSteps counts ProNE's steps for its progress events (stage
// factorize, unit steps): the products of proneSVD, 2·(power iterations
// + 1), each followed by a re-orthonormalisation of like cost; the
// propagation's proneOrder − 1 products with M², and its last product
// with the final SVD. A nil *proneSteps records nothing.
type proneSteps struct {
	done  int
	rec   pipeline.Recorder
	start time.Time
}

// proneTotalSteps is the number of steps a ProNE run records.
const proneTotalSteps = 2*(proneSVDPowerIters+1) + proneOrder

func newProneSteps(rec pipeline.Recorder) *proneSteps {
	return &proneSteps{rec: rec, start: time.Now()}
}

func (s *proneSteps) tick() {
	if s == nil {
		return
	}
	s.done++
	s.rec.Record(pipeline.Event{Kind: pipeline.Progress, Stage: "factorize", Done: int64(s.done), Total: int64(max(proneTotalSteps, s.done)), Unit: "steps", Elapsed: time.Since(s.start)})
}

// progressOp ticks st after each product with its operator.
type progressOp struct {
	lowrank.Operator
	st *proneSteps
}

func (o *progressOp) MulBlockTo(ctx context.Context, dst, b []float64, k int) error {
	defer o.st.tick()
	return o.Operator.MulBlockTo(ctx, dst, b, k)
}

func (o *progressOp) MulTransBlockTo(ctx context.Context, dst, b []float64, k int) error {
	defer o.st.tick()
	return o.Operator.MulTransBlockTo(ctx, dst, b, k)
}

// proneFactorMatrix returns F of ProNE's sparse factorization on the
// pattern of the unit-weight adjacency a: F_ij = log(1/d_i) − log(P_j),
// P_j = c_j^α / Σ_k c_k^α with c_j = Σ_i a_ij/d_i.
func proneFactorMatrix(a *sparse.CSR) *sparse.CSR {
	n, _ := a.Dims()
	deg := a.RowSums()
	c := make([]float64, n)
	for i := 0; i < n; i++ {
		idx, _ := a.Row(i)
		for _, j := range idx {
			c[j] += 1 / deg[i]
		}
	}
	var total float64
	for j, x := range c {
		c[j] = math.Pow(x, proneAlpha)
		total += c[j]
	}
	f := a.Clone()
	for i := 0; i < n; i++ {
		lo, hi := f.Indptr[i], f.Indptr[i+1]
		for p := lo; p < hi; p++ {
			f.Data[p] = -math.Log(deg[i]) - math.Log(c[f.Indices[p]]/total)
		}
	}
	return f
}

// propagate returns Ã·(E − C) of ProNE's spectral propagation (see
// prone) for E, n x half row-major, and the unit-weight adjacency a.
func propagate(ctx context.Context, a *sparse.CSR, e []float64, half, workers int, st *proneSteps) ([]float64, error) {
	n, _ := a.Dims()
	at, err := withUnitDiagonal(ctx, a)
	if err != nil {
		return nil, err
	}
	da, _ := at.RowNormalize()
	tmp := make([]float64, len(e))
	// mulM sets dst = M·x = (1 − μ)x − D̃⁻¹Ã·x.
	mulM := func(dst, x []float64) error {
		if err := sparse.MulBlockTo(ctx, dst, da, x, half, workers); err != nil {
			return err
		}
		for i := range dst {
			dst[i] = (1-proneMu)*x[i] - dst[i]
		}
		return nil
	}
	// mulM2 sets dst = M²·x, a step of the progress.
	mulM2 := func(dst, x []float64) error {
		defer st.tick()
		if err := mulM(tmp, x); err != nil {
			return err
		}
		return mulM(dst, tmp)
	}
	// coef is the Chebyshev coefficient of T_k: (−1)^k·2·I_k(θ), and
	// I_0(θ) for k = 0.
	coef := func(k int) float64 {
		c := 2 * besselI(k, proneTheta)
		if k == 0 {
			c /= 2
		}
		if k%2 == 1 {
			c = -c
		}
		return c
	}
	// T_0 = E and T_1 = M²E/2 − E, in y = M²/2 − I.
	x0 := append([]float64(nil), e...)
	x1 := make([]float64, len(e))
	if err := mulM2(x1, e); err != nil {
		return nil, err
	}
	for i := range x1 {
		x1[i] = 0.5*x1[i] - e[i]
	}
	conv := make([]float64, len(e))
	c0, c1 := coef(0), coef(1)
	for i := range conv {
		conv[i] = c0*x0[i] + c1*x1[i]
	}
	x2 := make([]float64, len(e))
	for k := 2; k < proneOrder; k++ {
		// T_k = 2y·T_{k−1} − T_{k−2} = M²·T_{k−1} − 2·T_{k−1} − T_{k−2}.
		if err := mulM2(x2, x1); err != nil {
			return nil, err
		}
		ck := coef(k)
		for i := range x2 {
			x2[i] -= 2*x1[i] + x0[i]
			conv[i] += ck * x2[i]
		}
		x0, x1, x2 = x1, x2, x0
	}
	for i := range conv {
		conv[i] = e[i] - conv[i]
	}
	out := make([]float64, n*half)
	return out, sparse.MulBlockTo(ctx, out, at, conv, half, workers)
}

// withUnitDiagonal returns I + a for a without diagonal entries.
func withUnitDiagonal(ctx context.Context, a *sparse.CSR) (*sparse.CSR, error) {
	n, _ := a.Dims()
	src := make([]int32, 0, a.NNZ()+n)
	dst := make([]int32, 0, a.NNZ()+n)
	w := make([]float64, 0, a.NNZ()+n)
	for v := 0; v < n; v++ {
		idx, val := a.Row(v)
		src, dst, w = append(src, int32(v)), append(dst, int32(v)), append(w, 1)
		for p, u := range idx {
			src, dst, w = append(src, int32(v)), append(dst, u), append(w, val[p])
		}
	}
	return sparse.NewFromCOO(ctx, n, n, src, dst, w, sparse.DupFirst)
}

// sqrtLeftFactor returns U√S of the thin SVD of x (n x k, row-major),
// overwriting x: lowrank.TallSVD, a QR and the SVD of its k x k R (on
// web-NotreDame at k = 64, gonum's direct SVD of all n rows took most
// of ProNE's time after the factorization).
func sqrtLeftFactor(x []float64, n, k int) ([]float64, error) {
	svd, err := lowrank.TallSVD(x, n, k)
	if err != nil {
		return nil, fmt.Errorf("baseline: prone: the SVD of the propagated %d x %d embedding: %w", n, k, err)
	}
	out := make([]float64, n*k)
	for i := 0; i < n; i++ {
		for j, s := range svd.S {
			out[i*k+j] = svd.U.At(i, j) * math.Sqrt(s)
		}
	}
	return out, nil
}

// besselI returns the modified Bessel function of the first kind I_n(x)
// for n ≥ 0 from its power series Σ_k (x/2)^{2k+n} / (k!·(k+n)!), which
// for ProNE's small θ converges in a few terms.
func besselI(n int, x float64) float64 {
	h := x / 2
	term := 1.0
	for i := 1; i <= n; i++ {
		term *= h / float64(i)
	}
	sum := term
	for k := 1; k < 200; k++ {
		term *= h * h / (float64(k) * float64(k+n))
		sum += term
		if term < 1e-17*sum {
			break
		}
	}
	return sum
}
