package baseline

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/wys-project/wys/internal/sysmem"
	"github.com/wys-project/wys/lowrank"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/internal/logmf"
	"github.com/wys-project/wys/sparse"
)

// Baseline methods: the paper's Table 1 SVD and EigenMaps, NetMF and
// ProNE.
const (
	MethodSVD       = "svd"       // truncated SVD of A: L = UΣ^½, R = VΣ^½
	MethodEigenmaps = "eigenmaps" // Laplacian eigenmaps: L = R = D^{-1/2}U
	MethodNetMF     = "netmf"     // NetMF (Qiu et al., WSDM 2018), small window
	MethodProNE     = "prone"     // ProNE (Zhang et al., IJCAI 2019): L = R
)

// NetMFMaxNodes is the largest graph, in nodes, that NetMF takes: its
// matrix is a dense N x N float32 matrix (4 GiB at 32,768 nodes).
const NetMFMaxNodes = logmf.MaxNodes

// IsMethod reports whether m names one of the baseline methods.
func IsMethod(m string) bool {
	return m == MethodSVD || m == MethodEigenmaps || m == MethodNetMF || m == MethodProNE
}

// netmfNegative is NetMF's b, the number of negative samples of the
// skip-gram objective it factors in closed form (its authors' default).
const netmfNegative = 1

// Config selects a baseline and its size. The zero value of a field means
// its default.
type Config struct {
	// Method is MethodSVD ("" means it), MethodEigenmaps, MethodNetMF or
	// MethodProNE.
	Method string `json:"method"`
	// Window is NetMF's window T, the number of transition-matrix powers;
	// 0 means pipeline.DefaultC (10, NetMF's own small-window setting).
	Window int `json:"window,omitempty"`
	// Dim is the width d of Y = [L | R], d/2 columns per side; 0 means 128.
	Dim int `json:"dim"`
	// Seed draws the randomized range finder's sketch.
	Seed uint64 `json:"seed"`
	// Workers bounds the goroutines; 0 means GOMAXPROCS.
	Workers int `json:"workers"`
}

// Resolve returns c with every zero field replaced by its default.
func (c Config) Resolve() Config {
	if c.Method == "" {
		c.Method = MethodSVD
	}
	if c.Dim == 0 {
		c.Dim = 128
	}
	if c.Window == 0 && c.Method == MethodNetMF {
		c.Window = pipeline.DefaultC
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	return c
}

// Validate reports a setting that cannot be used, before any work.
func (c Config) Validate() error {
	bad := func(setting string, value any, want string) error {
		return &pipeline.SettingError{Pkg: "baseline", Setting: setting, Value: value, Want: want}
	}
	switch {
	case c.Method != "" && !IsMethod(c.Method):
		return bad("method", c.Method, fmt.Sprintf("want %s, %s, %s or %s", MethodSVD, MethodEigenmaps, MethodNetMF, MethodProNE))
	case c.Window < 0:
		return bad("window", c.Window, fmt.Sprintf("want a NetMF window of at least 1 (0: %d)", pipeline.DefaultC))
	case c.Dim < 0 || c.Dim == 1 || c.Dim%2 != 0:
		return bad("dim", c.Dim, "want an even width of at least 2 (d/2 per side)")
	case c.Workers < 0:
		return bad("workers", c.Workers, "want at least 1 (0: all cores)")
	}
	return nil
}

// Run embeds g with the spectral baseline cfg.Method of width cfg.Dim
// (cfg.Dim/2 columns per side) and measures the AUCs of eval's pairs like
// the trainers do (eval may be nil; pairs naming rows outside g are an
// error wrapping pipeline.ErrUnknownNode). rec, which may be nil, receives
// the stage events.
//
// SVD: A ≈ UΣVᵀ of rank dim/2; the score L_u·R_v is the rank-d/2
// approximation of A_uv. Eigenmaps (Belkin and Niyogi): the dim/2
// eigenvectors of the normalised Laplacian I − D^{-1/2}AD^{-1/2} with the
// smallest eigenvalues after the trivial one, mapped back by D^{-1/2};
// L = R = Y and the score is Y_u·Y_v. NetMF (Qiu et al., WSDM 2018, the
// small-window algorithm, b = 1): L = U√S and R = V√S of the rank-dim/2
// SVD of log max(vol(G)/(b·T)·(Σ_{r=1..T} P^r)·D^{-1}, 1), T = cfg.Window,
// whose L_u·R_v approximates the matrix DeepWalk factorizes implicitly.
// ProNE (Zhang et al., IJCAI 2019, its authors' settings): a sparse
// factorization refined by spectral propagation (see prone), dim/2
// columns, L = R and the score Y_u·Y_v; sparse products only, so it
// scales like svd.
func Run(ctx context.Context, g *pipeline.Graph, eval *pipeline.Split, cfg Config, rec pipeline.Recorder) (*pipeline.Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.Resolve()
	if rec == nil {
		rec = pipeline.NopRecorder{}
	}
	if err := pipeline.CheckGraph(g); err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	method, dim, seed, workers := cfg.Method, cfg.Dim, cfg.Seed, cfg.Workers
	if dim/2 > g.N() {
		return nil, fmt.Errorf("baseline: rank %d (d = %d) exceeds the %d nodes of the graph; lower the dimension", dim/2, dim, g.N())
	}
	if n := g.N(); method == MethodNetMF && n > NetMFMaxNodes {
		return nil, fmt.Errorf("baseline: %w: netmf builds a dense %d x %d matrix; it takes graphs of at most %d nodes (use -method wys or svd)", pipeline.ErrTooLarge, n, n, NetMFMaxNodes)
	}
	if err := eval.CheckGraph(g); err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	if eval == nil {
		eval = &pipeline.Split{}
	}
	n := g.N()
	half := dim / 2
	res := &pipeline.Result{Method: method, N: n, Half: half, TrainAUC: math.NaN(), TestAUC: math.NaN(), TestDirectedAUC: math.NaN()}
	rec.Record(pipeline.Event{Kind: pipeline.StageStart, Stage: "factorize", Message: fmt.Sprintf("%s baseline of rank %d", method, dim/2)})
	start := time.Now()
	var err error
	var fit solve
	switch method {
	case MethodSVD:
		res.L, res.R, fit, err = svdFactors(ctx, g, half, seed, workers, rec)
	case MethodNetMF:
		res.L, res.R, err = netmf(ctx, g, half, cfg.Window, seed, workers)
	case MethodProNE:
		st := newProneSteps(rec)
		res.L, err = prone(ctx, g, half, workers, proneSVD(ctx, half, seed, workers, st), rec, st)
		res.R = res.L
	default:
		res.L, fit, err = eigenmaps(ctx, g, half, seed, workers, rec)
		res.R = res.L
	}
	if err != nil {
		return nil, err
	}
	if fit.residual > solveTol {
		rec.Record(pipeline.Event{Kind: pipeline.Note, Stage: "factorize", Message: fmt.Sprintf(
			"the %s solver stopped at its cap of %d iterations with a relative residual of %.2g, above its aim of %g (the top of the spectrum crowds)",
			method, fit.iters, fit.residual, solveTol)})
	}
	res.Stats.Stages = append(res.Stats.Stages, pipeline.StageTime{Name: "factorize", Duration: time.Since(start)})
	rec.Record(pipeline.Event{Kind: pipeline.StageEnd, Stage: "factorize", Elapsed: time.Since(start)})
	if err := res.Score(ctx, eval); err != nil {
		return nil, err
	}
	res.Stats.PeakRSS = sysmem.PeakRSS()
	return res, nil
}

// symmetrise returns A + Aᵀ, without its diagonal when dropLoops: with
// A's weights when weighted (an arc and its reverse add up), else the
// pattern with unit weights.
func symmetrise(ctx context.Context, a *sparse.CSR, dropLoops, weighted bool) (*sparse.CSR, error) {
	n, _ := a.Dims()
	var src, dst []int32
	var w []float64
	for v := 0; v < n; v++ {
		idx, val := a.Row(v)
		for j, u := range idx {
			if !dropLoops || int(u) != v {
				src, dst = append(src, int32(v), u), append(dst, u, int32(v))
				if weighted {
					w = append(w, val[j], val[j])
				}
			}
		}
	}
	if !weighted {
		return sparse.NewFromCOO(ctx, n, n, src, dst, nil, sparse.DupFirst)
	}
	return sparse.NewFromCOO(ctx, n, n, src, dst, w, sparse.DupSum)
}

// solveTol is the relative residual the baselines' eigensolver aims at
// (lowrank.TopOptions.Tol's default), solveMaxIters its iteration cap.
const (
	solveTol      = 1e-6
	solveMaxIters = 50
)

// filterDegree returns the Chebyshev filter's degree for an operator of
// nnz stored entries on n nodes and a block of l columns: about the
// number of sparse products that cost as much as the block's
// orthonormalisation and Rayleigh–Ritz step (a few n·l² flops against
// nnz·l each), from 8 to 64. A larger degree spends more of each
// iteration on the products, which converge, than on that overhead: on
// web-NotreDame the default 8 spent about 90% of its flops there. For
// eigenmaps only, whose wanted eigenvalues all lie near 1.
func filterDegree(n, nnz, l int) int {
	return min(64, max(8, 2*n*l/max(nnz, 1)))
}

// solverProgress returns a lowrank.TopOptions.Progress that records the
// factorize stage's iterations, with a total predicted from the
// residual's last rate of decrease (at most the cap), so that the ETA
// follows the solver's convergence.
func solverProgress(rec pipeline.Recorder) func(int, float64) {
	start := time.Now()
	prev := math.NaN()
	return func(it int, res float64) {
		total := solveMaxIters
		if r := prev / res; r > 1 && res > solveTol {
			total = min(solveMaxIters, it+int(math.Ceil(math.Log(res/solveTol)/math.Log(r))))
		}
		if res <= solveTol {
			total = it
		}
		prev = res
		rec.Record(pipeline.Event{Kind: pipeline.Progress, Stage: "factorize", Done: int64(it), Total: int64(max(total, it, 1)), Unit: "iterations", Elapsed: time.Since(start)})
	}
}

// solve is how far the eigensolver went.
type solve struct {
	iters    int
	residual float64
}

// svdFactors returns L = UΣ^½ and R = VΣ^½ of the rank-half SVD of A.
func svdFactors(ctx context.Context, g *pipeline.Graph, half int, seed uint64, workers int, rec pipeline.Recorder) (l, r []float32, fit solve, err error) {
	n := g.N()
	// A's top singular values crowd (a few power iterations of
	// RandomizedSVD left the test AUC 0.3–0.7 points below an exact
	// SVD's on the released splits); TopSVD converges.
	// The filter keeps its default degree here: the wanted σ² span orders
	// of magnitude, and a higher degree lifts the largest so far above
	// the smallest wanted that these drown in rounding (degree 24 hit the
	// cap on ca-HepTh at d = 128, in 13 s instead of 0.7).
	svd, err := lowrank.TopSVD(ctx, lowrank.NewCSROperator(g.Adj, workers), lowrank.TopOptions{Options: lowrank.Options{Rank: half, Seed: seed},
		Tol: solveTol, MaxIters: solveMaxIters, Progress: solverProgress(rec)})
	if err != nil {
		return nil, nil, fit, err
	}
	l, r = make([]float32, n*half), make([]float32, n*half)
	svd.SqrtFactorsTo(l, r)
	return l, r, solve{svd.Iters, svd.Residual}, nil
}

// netmf returns L = U√S and R = V√S of the rank-half SVD of NetMF's
// small-window matrix log max(vol(G)/(b·T)·(Σ_{r=1..T} P^r)·D^{-1}, 1),
// P = D^{-1}A, of the graph made undirected (NetMF is defined for
// undirected graphs; a directed one is symmetrised as for eigenmaps).
// The matrix is dense: Run refuses graphs above logmf.MaxNodes nodes.
func netmf(ctx context.Context, g *pipeline.Graph, half, window int, seed uint64, workers int) (l, r []float32, err error) {
	n := g.N()
	m, err := netmfMatrix(ctx, g, window, workers)
	if err != nil {
		return nil, nil, err
	}
	// 16 power iterations: with lowrank's default of 2 the test AUC on
	// PPI's split was 0.9 below an exact SVD's (numpy: 72.61).
	l, r = make([]float32, n*half), make([]float32, n*half)
	return l, r, logmf.FactorTo(ctx, l, r, m, n, half, seed, 16, workers)
}

// netmfMatrix returns NetMF's truncated-log matrix of g (row-major,
// N x N) for a window of the given number of powers.
func netmfMatrix(ctx context.Context, g *pipeline.Graph, window, workers int) ([]float32, error) {
	n := g.N()
	adj := g.Adj
	if g.Directed {
		var err error
		if adj, err = symmetrise(ctx, adj, false, g.Weighted); err != nil {
			return nil, err
		}
	}
	deg := adj.RowSums()
	var vol float64
	for _, d := range deg {
		vol += d
	}
	row, col := make([]float64, n), make([]float64, n)
	for v, d := range deg {
		row[v] = vol / netmfNegative
		if d > 0 {
			col[v] = 1 / d
		}
	}
	w := make([]float64, window)
	for k := range w {
		w[k] = 1
	}
	tm, _ := adj.RowNormalize()
	return logmf.Target(ctx, tm, w, row, col, workers)
}

// eigenmaps returns D^{-1/2}U for the half eigenvectors of the normalised
// Laplacian with the smallest eigenvalues after the trivial one.
func eigenmaps(ctx context.Context, g *pipeline.Graph, half int, seed uint64, workers int, rec pipeline.Recorder) ([]float32, solve, error) {
	n := g.N()
	if half+1 > n {
		return nil, solve{}, fmt.Errorf("baseline: %d eigenvectors (d/2 + 1) exceed the %d nodes", half+1, n)
	}
	adj := g.Adj
	if g.Directed {
		// Eigenmaps need a symmetric graph: use A + Aᵀ.
		sym, err := symmetrise(ctx, adj, false, g.Weighted)
		if err != nil {
			return nil, solve{}, err
		}
		adj = sym
	}
	s, sqrtDeg := adj.SymNormalize()
	// The largest eigenvalues of S are the smallest of I − S. They crowd
	// below 1 on clustered graphs, where plain power iterations stall
	// (on ego-Facebook's training graph, 12 of them on S + I left
	// residuals of 0.03 and a test AUC 7 points below scikit-learn's
	// SpectralEmbedding); the Chebyshev filter converges there.
	eig, err := lowrank.TopEigSym(ctx, lowrank.NewCSROperator(s, workers), lowrank.TopOptions{Options: lowrank.Options{Rank: half + 1, Seed: seed}, Lo: -1,
		Degree: filterDegree(n, s.NNZ(), half+11), Tol: solveTol, MaxIters: solveMaxIters, Progress: solverProgress(rec)})
	if err != nil {
		return nil, solve{}, err
	}
	l := make([]float32, n*half)
	for j := 0; j < half; j++ {
		for i := 0; i < n; i++ {
			var x float64
			if sqrtDeg[i] > 0 {
				x = eig.U.At(i, j+1) / sqrtDeg[i]
			}
			l[i*half+j] = float32(x)
		}
	}
	return l, solve{eig.Iters, eig.Residual}, nil
}
