package train

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/wys-project/wys/lowrank"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/internal/kernels"
	"github.com/wys-project/wys/sparse"
	"gonum.org/v1/gonum/mat"
)

// shardWalks is the number of walks drawn by one shard: the unit of
// random streams and of parallel work. It is fixed so that results do not
// depend on the number of workers.
const shardWalks = 64

// numBlocks is the number of row blocks over which gradients are
// accumulated, each by one goroutine in pair order.
const numBlocks = 64

// trainer holds the parameters, optimiser state and scratch space.
type trainer struct {
	cfg    Config
	adj    *sparse.CSR
	n      int
	half   int
	c      int // walk length C
	k      int // attention entries: C, then the extra context types
	walker *walker
	paper  bool
	eps    float64

	l, r   []float32
	q      []float64
	fixedQ []float64

	// Estimator weights: each walk's pairs carry posScale/walks, each
	// negative negScale/negatives (see batch); pairScale is the weight of
	// the non-edge term per uniform pair of nodes (see negativeBlocks).
	posScale, negScale, pairScale float64

	// Adam moments (lazy: updated for touched rows only).
	ml, vl, mr, vr []float32
	mq, vq         []float64
	step           int64

	// Gradient buffers and per-row stamps of the batch that last touched them.
	gl, gr         []float32
	stampL, stampR []uint32
	stamp          uint32

	shards []shardOut
	pairs  int64

	// series, when not nil, reweights walk pairs by the factored E[D]
	// (SourceFactored).
	series *lowrank.Series

	// Pairs of the current batch bucketed by row block (see bucket).
	byL, byR       []pairCoef
	startL, startR [numBlocks + 1]int
	// The summed row gradients of negative blocks, likewise by row block.
	vecL, vecR       []rowVec
	vstartL, vstartR [numBlocks + 1]int
	shardVecs        [][]float32
	// Each row block's compact gradient buffer (see updateSorted).
	blocks []blockGrads
}

// pairCoef is one sampled pair and dJ/dg for it, already weighted.
type pairCoef struct {
	v, u int32
	coef float32
}

type shardOut struct {
	pairs []pairCoef
	// The shard's random stream (see stream) and its walks being scored.
	pcg   rand.PCG
	draws draws
	rng   *rand.Rand
	group walkGroup
	dQ    []float64 // ∂J/∂Q_k estimates
	loss  float64
	pos   int64
	// Scratch of the factored source: the powers of one pair and the
	// series' buffer.
	pw, scratch []float64
	// block holds the rows of a negative block (see negativeBlocks) and
	// coef its pairs' dJ/dg; vecL and vecR its rows' summed gradients,
	// stored in vecs.
	block      []int32
	coef       []float32
	vecL, vecR []rowVec
	// The scores g of a block's scored pairs (or of the pair-by-pair
	// negatives), their sigmoids (see sigmoids) and their places in coef.
	g, sig []float64
	at     []int32
	vecs   []float32
	// rowsL and rowsR are a block's parameter rows, dots one row of its
	// scores and col one column of coef.
	rowsL, rowsR [][]float32
	dots, col    []float32
}

// stream returns the shard's random stream, pipeline.Stream(seed,
// pipeline.StreamWalk, shard) read through out.draws, reusing its buffer.
func (out *shardOut) stream(seed, shard uint64) *rand.Rand {
	out.pcg.Seed(pipeline.StreamSeed(seed, pipeline.StreamWalk, shard))
	if out.rng == nil {
		out.draws.src = &out.pcg
		out.rng = rand.New(&out.draws)
	}
	out.draws.buf, out.draws.pos = out.draws.buf[:0], 0
	return out.rng
}

// sigmoids sets out.sig[i] to sigmoid(out.g[i]), bit for bit, taking
// the exponentials e^−|g| at once (kernels.Exp) instead of one
// math.Exp call per score.
func (out *shardOut) sigmoids() {
	out.sig = slices.Grow(out.sig[:0], len(out.g))[:len(out.g)]
	for i, g := range out.g {
		out.sig[i] = -math.Abs(g)
	}
	kernels.Exp(out.sig, out.sig)
	for i, g := range out.g {
		out.sig[i] = sigmoidExp(g, out.sig[i])
	}
}

// rowVec is a gradient contribution summed in a shard: the h floats at
// off in the vecs of shard shard, to be added to row.
type rowVec struct {
	row, shard, off int32
}

func newTrainer(g *pipeline.Graph, cfg Config) *trainer {
	n := g.N()
	half := cfg.Dim / 2
	obj := cfg.Objective
	t := &trainer{cfg: cfg, adj: g.Adj, n: n, half: half, c: obj.C, k: obj.Contexts(),
		paper:  obj.Formulation == pipeline.FormulationPaper,
		walker: newWalker(g.Adj, obj.Formulation == pipeline.FormulationPaper)}
	if obj.AdamicAdar {
		t.walker.initAdamicAdar()
	}
	t.setScales(g)
	rng := pipeline.Stream(cfg.Seed, pipeline.StreamInit, 0)
	t.l = hugeFloats(n * half)
	t.r = hugeFloats(n * half)
	for i := range t.l {
		t.l[i] = float32(rng.Float64()*0.2 - 0.1)
	}
	for i := range t.r {
		t.r[i] = float32(rng.Float64()*0.2 - 0.1)
	}
	t.q = make([]float64, t.k)
	for i := range t.q {
		t.q[i] = 1
	}
	if cfg.FixedQ != nil {
		t.fixedQ = normalisedQ(cfg.FixedQ)
	}
	switch cfg.Optimizer {
	case OptAdam:
		t.ml, t.vl = hugeFloats(n*half), hugeFloats(n*half)
		t.mr, t.vr = hugeFloats(n*half), hugeFloats(n*half)
	case OptRMSProp:
		t.vl, t.vr = hugeFloats(n*half), hugeFloats(n*half)
	case OptRowRMS:
		t.vl, t.vr = make([]float32, n), make([]float32, n)
	}
	t.mq, t.vq = make([]float64, t.k), make([]float64, t.k)
	if cfg.Optimizer == OptPercentDelta {
		// Adam and SGD sum each block's gradients in compact buffers
		// (updateSorted).
		t.gl, t.gr = hugeFloats(n*half), hugeFloats(n*half)
		t.stampL, t.stampR = make([]uint32, n), make([]uint32, n)
	}
	return t
}

// setScales sets the estimator weights posScale, negScale and pairScale
// (and the code formulation's ε) for g.
func (t *trainer) setScales(g *pipeline.Graph) {
	obj := t.cfg.Objective
	nnz := float64(g.Adj.NNZ())
	nn := float64(t.n) * float64(t.n)
	if t.paper {
		// Σ_vu 80·Σ_k Q_k T^k_vu ℓ = 80·N·E_{v uniform}[...]; negatives summed.
		t.posScale = obj.WalksPerNode * float64(t.n)
		t.negScale = nn - nnz
		t.pairScale = nn
	} else {
		// (1/N²)·Σ_v 80·N·(deg(v)/w̄)·Σ_k Q_k Σ_u T^k_vu ℓ = (80·nnz/N)·E_{v∝deg}[...],
		// with w̄ = vol/nnz the mean arc weight (pipeline.MeanArcWeight).
		t.posScale = obj.WalksPerNode * nnz / float64(t.n)
		t.negScale = (nn - nnz) / nn
		t.pairScale = 1
		t.eps = obj.LogEpsilon()
	}
}

// logits returns a copy of the attention logits q, or nil with a fixed
// Q, which no logits describe (its softmax would be uniform).
func (t *trainer) logits() []float64 {
	if t.fixedQ != nil {
		return nil
	}
	return slices.Clone(t.q)
}

// Q returns the current context distribution.
func (t *trainer) Q() []float64 {
	if t.fixedQ != nil {
		return slices.Clone(t.fixedQ)
	}
	return pipeline.Softmax(t.q)
}

// posTerm returns ℓ+(g) = −log σ(g) (exact logs: the paper formulation
// or ExactLogs) or −log(σ(g)+ε) (code) and its derivative with respect
// to g.
func (t *trainer) posTerm(g float64) (loss, grad float64) {
	s := sigmoid(g)
	if t.eps == 0 {
		return softplus(-g), -(1 - s)
	}
	return -math.Log(s + t.eps), -s * (1 - s) / (s + t.eps)
}

// negTerm scores a negative pair of score g, weighted w, into the
// shard's loss and returns w·dJ/dg. The loss is ℓ−(g) = −log(1−σ(g))
// (exact logs), added to out.loss at once, or −log(1−σ(g)+ε) (code), whose
// factor 1−σ(g)+ε joins the product prod instead: one logarithm per
// shard (prod.log) rather than one per pair, which was a seventh of the
// time at 5 negatives. Every negative sampler scores through it.
func (t *trainer) negTerm(out *shardOut, prod *logProduct, g, w float64) float32 {
	return t.negTermSig(out, prod, g, sigmoid(g), w)
}

// negTermSig is negTerm given s = sigmoid(g).
func (t *trainer) negTermSig(out *shardOut, prod *logProduct, g, s, w float64) float32 {
	if t.eps == 0 {
		out.loss += w * softplus(g)
		return float32(w * s)
	}
	f := 1 - s + t.eps
	prod.mul(f)
	return float32(w * (s * (1 - s) / f))
}

// sampleShard draws the walks and negatives of one shard and computes each
// pair's weighted dJ/dg, the ∂J/∂Q_k estimate and the loss estimate.
// walks is the shard's number of walks; totalWalks and totalNeg are the
// batch's, which set the estimator weights. It only reads the parameters.
// When ctx is cancelled it returns early, leaving a partial shard (the
// batch then fails with ctx.Err()).
func (t *trainer) sampleShard(ctx context.Context, out *shardOut, index int, seed uint64, shard uint64, walks, totalWalks, totalNeg int, Q []float64) {
	rng := out.stream(seed, shard)
	out.pairs = out.pairs[:0]
	out.vecL, out.vecR, out.vecs = out.vecL[:0], out.vecR[:0], out.vecs[:0]
	if out.dQ == nil {
		out.dQ = make([]float64, t.k)
	}
	clear(out.dQ)
	out.loss, out.pos = 0, 0
	wPos := t.posScale / float64(totalWalks)
	wNeg := t.negScale / float64(totalNeg)
	// Without extra context types a walk's draws are its anchor and its
	// steps, so several are drawn side by side (drawWalks); with them,
	// each walk's extra pairs take their draws before the next walk, so
	// walks are drawn one at a time.
	extras := t.cfg.Objective.PPR > 0 || t.cfg.Objective.AdamicAdar
	g := &out.group
	for w := 0; w < walks; {
		if ctx.Err() != nil {
			return
		}
		m := min(lanes, walks-w)
		if extras {
			m = 1
		}
		m = t.drawWalks(rng, &out.draws, g, m)
		for j := range m {
			v, walk := g.walk(j, t.c)
			t.scoreWalk(out, v, walk, wPos, Q)
			if extras {
				t.extraPairs(out, rng, v, wPos, Q)
			}
		}
		w += m
	}
	if t.cfg.NegativeBlock > 0 {
		t.negativeBlocks(ctx, out, int32(index), rng, t.negativeUnits(walks), t.pairScale/float64(totalNeg*t.cfg.NegativeBlock*t.cfg.NegativeBlock))
		return
	}
	t.negativePairs(ctx, out, rng, t.negativeUnits(walks), wNeg)
}

// scoreWalk adds the pairs of the walk from v (its nodes in order).
func (t *trainer) scoreWalk(out *shardOut, v int32, walk []int32, wPos float64, Q []float64) {
	h := t.half
	lv := t.l[int(v)*h : int(v)*h+h]
	for k, cur := range walk {
		g := float64(kernels.Dot(lv, t.r[int(cur)*h:int(cur)*h+h]))
		loss, grad := t.posTerm(g)
		if t.series != nil && t.factoredPair(out, v, cur, wPos, Q, loss, grad) {
			continue
		}
		out.addPair(v, cur, k, wPos, Q, loss, grad)
	}
}

// extraPairs adds one pair from v per extra context type, drawn from its
// row of the context matrix (exactly, so the estimate stays unbiased).
func (t *trainer) extraPairs(out *shardOut, rng *rand.Rand, v int32, wPos float64, Q []float64) {
	k := t.c
	if alpha := t.cfg.Objective.PPR; alpha > 0 {
		if u, ok := t.walker.ppr(rng, v, alpha); ok {
			t.extraPair(out, v, u, k, wPos, Q)
		}
		k++
	}
	if t.cfg.Objective.AdamicAdar {
		if u, ok := t.walker.adamicAdar(rng, v); ok {
			t.extraPair(out, v, u, k, wPos, Q)
		}
	}
}

// negativePairs adds negs non-edge pairs drawn one by one, each weighted
// wNeg. They are all drawn first (drawNegatives) and then scored, each
// pair's rows asked for a few pairs ahead. It is the last use of rng.
func (t *trainer) negativePairs(ctx context.Context, out *shardOut, rng *rand.Rand, negs int, wNeg float64) {
	h := t.half
	start := len(out.pairs)
	if !t.drawNegatives(ctx, out, rng, negs) {
		return
	}
	neg := out.pairs[start:]
	out.g = out.g[:0]
	for i := range neg {
		if i+prefetchAhead < len(neg) {
			a := neg[i+prefetchAhead]
			kernels.Prefetch(t.l[int(a.v)*h : int(a.v)*h+h])
			kernels.Prefetch(t.r[int(a.u)*h : int(a.u)*h+h])
		}
		p := &neg[i]
		g := float64(kernels.Dot(t.l[int(p.v)*h:int(p.v)*h+h], t.r[int(p.u)*h:int(p.u)*h+h]))
		out.g = append(out.g, g)
	}
	out.sigmoids()
	prod := newLogProduct()
	for i, g := range out.g {
		neg[i].coef = t.negTermSig(out, &prod, g, out.sig[i], wNeg)
	}
	out.loss -= wNeg * prod.log()
}

// negAhead is how many candidate negatives drawNegatives draws ahead of
// their check.
const negAhead = 16

// drawNegatives appends negs non-edge pairs to out.pairs: exactly the
// pairs that negative draws one after another from rng. Each candidate
// (v, u) takes the same two draws, in the same order, whether it is kept
// or not, so the candidates can be drawn negAhead ahead of their check,
// with row v of the graph asked for on drawing and the middle of its
// column indices half a ring later, instead of waiting for two cache
// misses per candidate. Only rng's state at the end differs from
// negative's (it has drawn up to negAhead unchecked candidates), which is
// why it must be the last use of rng. It reports false when ctx is
// cancelled.
func (t *trainer) drawNegatives(ctx context.Context, out *shardOut, rng *rand.Rand, negs int) bool {
	if negs <= 0 {
		return true
	}
	indptr, indices := t.adj.Indptr, t.adj.Indices
	var ring [negAhead][2]int32
	draw := func(slot int) {
		v, u := negativeCandidate(t.n, rng)
		ring[slot] = [2]int32{v, u}
		kernels.PrefetchInts(indptr[v : v+2])
	}
	for i := range ring {
		draw(i)
	}
	head := 0
	for got, tries := 0, 0; got < negs; tries++ {
		if tries&4095 == 4095 && ctx.Err() != nil {
			return false
		}
		c := ring[head]
		mid := ring[(head+negAhead/2)%negAhead][0]
		if lo, hi := indptr[mid], indptr[mid+1]; hi > lo {
			m := lo + (hi-lo)/2
			kernels.PrefetchInt32s(indices[m : m+1])
		}
		draw(head)
		head = (head + 1) % negAhead
		if !t.adj.Has(int(c[0]), int(c[1])) {
			out.pairs = append(out.pairs, pairCoef{c[0], c[1], 0})
			got++
		}
	}
	return true
}

// negativeUnits returns the negative draws of a shard of the given walks:
// non-edge pairs (Negatives per positive pair), or with NegativeBlock m
// the blocks of m x m uniform pairs that hold at least as many.
func (t *trainer) negativeUnits(walks int) int {
	negs := walks * t.k * t.cfg.Negatives
	if m := t.cfg.NegativeBlock; m > 0 {
		return (negs + m*m - 1) / (m * m)
	}
	return negs
}

// negativeBlocks adds the shard's negatives as blocks: each block draws m
// uniform rows a_1..a_m of L and m uniform rows b_1..b_m of R and scores
// all m² pairs (a_i, b_j) that are not arcs, each weighted w. Every pair
// of a block is a uniform pair of nodes, so with w = pairScale/(m²·blocks
// of the batch) the sum is an unbiased estimate of the non-edge term, as
// the per-pair rejection sampler's is; it fetches 2m rows for m² pairs
// instead of two rows per pair, so the negatives cost little memory
// traffic (PyTorch-BigGraph's shared negatives, kept unbiased).
// It is the last use of rng: it draws one block ahead.
func (t *trainer) negativeBlocks(ctx context.Context, out *shardOut, shard int32, rng *rand.Rand, blocks int, w float64) {
	h, m := t.half, t.cfg.NegativeBlock
	if cap(out.block) < 4*m {
		out.block = make([]int32, 4*m)
	}
	if cap(out.coef) < m*m {
		out.coef = make([]float32, m*m)
	}
	if cap(out.dots) < m {
		out.dots, out.col = make([]float32, m), make([]float32, m)
	}
	out.dots, out.col = out.dots[:m], out.col[:m]
	coef := out.coef[:m*m]
	// The rows of block blk+1 are drawn (in the same order from rng as
	// one block at a time) and asked for while block blk is scored.
	cur, next := out.block[:2*m], out.block[2*m:4*m]
	draw := func(rows []int32) {
		for i := range rows {
			rows[i] = int32(rng.IntN(t.n))
		}
		for i, v := range rows {
			if i < m {
				kernels.Prefetch(t.l[int(v)*h : int(v)*h+h])
				kernels.PrefetchInts(t.adj.Indptr[v : v+2])
			} else {
				kernels.Prefetch(t.r[int(v)*h : int(v)*h+h])
			}
		}
	}
	if blocks > 0 {
		draw(cur)
	}
	prod := newLogProduct()
	for blk := 0; blk < blocks; blk++ {
		if blk&63 == 63 && ctx.Err() != nil {
			return
		}
		if blk+1 < blocks {
			draw(next)
		}
		a, b := cur[:m], cur[m:]
		out.rowsL, out.rowsR = t.rowsOf(out.rowsL, t.l, a), t.rowsOf(out.rowsR, t.r, b)
		out.g, out.at = out.g[:0], out.at[:0]
		for i, v := range a {
			// Every pair of the row is scored, arcs too (their scores are
			// dropped): four at a time, as Dot would one by one.
			kernels.Dots(out.dots, out.rowsL[i], out.rowsR)
			// The arc check, with v's row looked up once for its m columns.
			nbrs, _ := t.adj.Row(int(v))
			for j, u := range b {
				coef[i*m+j] = 0
				if sparse.RowHas(nbrs, u) {
					continue
				}
				out.g, out.at = append(out.g, float64(out.dots[j])), append(out.at, int32(i*m+j))
			}
		}
		out.sigmoids()
		for k, g := range out.g {
			coef[out.at[k]] = t.negTermSig(out, &prod, g, out.sig[k], w)
		}
		t.blockGradients(out, shard, a, b, coef)
		cur, next = next, cur
	}
	out.loss -= w * prod.log()
}

// blockGradients sums, while the block's rows are in the cache, the
// gradient of each row of a negative block (a: rows of L, b: rows of R,
// coef[i*m+j] = dJ/dg of the pair (a_i, b_j)) into out.vecs, and lists
// them for the update as one vector per row instead of m pairs. The
// block's rows are out.rowsL and out.rowsR (see rowsOf).
func (t *trainer) blockGradients(out *shardOut, shard int32, a, b []int32, coef []float32) {
	h, m := t.half, len(a)
	for side, rows := range [2][]int32{a, b} {
		for i, row := range rows {
			off := len(out.vecs)
			out.vecs = slices.Grow(out.vecs, h)[:off+h]
			g := out.vecs[off : off+h]
			clear(g)
			rv := rowVec{row, shard, int32(off)}
			if side == 0 {
				kernels.AxpyN(g, coef[i*m:i*m+m], out.rowsR)
				out.vecL = append(out.vecL, rv)
				continue
			}
			for j := range m {
				out.col[j] = coef[j*m+i]
			}
			kernels.AxpyN(g, out.col, out.rowsL)
			out.vecR = append(out.vecR, rv)
		}
	}
}

// rowsOf sets dst to the rows of x (n x t.half, row-major) at the
// indices idx, reusing dst's storage.
func (t *trainer) rowsOf(dst [][]float32, x []float32, idx []int32) [][]float32 {
	h := t.half
	dst = dst[:0]
	for _, v := range idx {
		dst = append(dst, x[int(v)*h:int(v)*h+h])
	}
	return dst
}

// factoredPair adds the walk pair (v, u) with the factored weights: with
// p_j = (T^j)_vu for j = 1..C, the pair carries Σ_j Q_j p_j / Σ_j p_j (a
// step of a walk reaches u with probability (1/C)·Σ_j p_j averaged over
// the C steps, so this weighting is unbiased with exact p) and the
// q-gradient gets p_j / Σ_j p_j of the loss for each j. It reports false,
// leaving the pair to the walk weights, when the factored powers of a
// pair the walk did reach sum to almost nothing (a low-rank artefact).
func (t *trainer) factoredPair(out *shardOut, v, u int32, wPos float64, Q []float64, loss, grad float64) bool {
	if out.pw == nil {
		out.pw = make([]float64, t.c)
		out.scratch = make([]float64, 2*t.series.Rank())
	}
	t.series.PowersTo(out.pw, out.scratch, v, u)
	var den, num float64
	for j, p := range out.pw {
		den += p
		num += Q[j] * p
	}
	if !(den > 1e-9) {
		return false
	}
	w := math.Max(num/den, 0)
	out.loss += wPos * w * loss
	for j, p := range out.pw {
		out.dQ[j] += wPos * loss * p / den
	}
	out.pairs = append(out.pairs, pairCoef{v, u, float32(wPos * w * grad)})
	out.pos++
	return true
}

// factorSeries factors the transition matrix of g at rank cfg.FactorRank
// for the C powers (the first two exact), with the sketch drawn from seed.
// The factored source's weights are the powers themselves, so it factors
// to convergence (lowrank.SeriesOptions.Converged); the spectral start
// alone takes the randomized factors, which end at the same test AUC on
// the released splits (docs/results.md) in less time.
func factorSeries(ctx context.Context, g *pipeline.Graph, cfg Config, seed uint64) (*lowrank.Series, error) {
	return lowrank.NewSeries(ctx, g.Adj, lowrank.SeriesOptions{Options: lowrank.Options{Rank: cfg.FactorRank, Seed: seed},
		C: cfg.Objective.C, Exact: 2, Directed: g.Directed, Workers: cfg.Workers, Converged: cfg.Source == SourceFactored})
}

// warmStart sets the leading columns of L and R (as many as the
// factorization's rank, at most d/2; any others keep their random start)
// from the spectral factors of Σ_k T^k/C, each row scaled to unit length:
// a node starts in the direction of its row of the factors, and the score
// L_v·R_u of two nodes starts as the cosine of their rows, which lies in
// [−1, 1] on every graph. A row of the factors that is zero keeps the
// random start. Unit rows replaced one global scale (the mean score of the
// arcs set to 1), which gave the few nodes on which the leading factors
// concentrate rows far longer than the rest: on web-NotreDame that start
// ended 1.0 point below the random one after 40 epochs, unit rows end
// level with it (docs/results.md, "Warm start on the large graphs").
func (t *trainer) warmStart(ctx context.Context, series *lowrank.Series) error {
	c := make([]float64, t.c)
	for k := range c {
		c[k] = 1 / float64(t.c)
	}
	left, right, err := series.Spectral(c)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, r := left.Dims()
	cols := liveColumns(left, right, min(r, t.half))
	h := t.half
	lx, rx := make([]float64, len(cols)), make([]float64, len(cols))
	lrow, rrow := make([]float32, len(cols)), make([]float32, len(cols))
	for v := 0; v < t.n; v++ {
		if v%(1<<16) == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		lv, rv := left.RawRowView(v), right.RawRowView(v)
		for i, j := range cols {
			lx[i], rx[i] = lv[j], rv[j]
			lrow[i], rrow[i] = t.l[v*h+j], t.r[v*h+j]
		}
		unitRow(lrow, lx)
		unitRow(rrow, rx)
		for i, j := range cols {
			t.l[v*h+j], t.r[v*h+j] = lrow[i], rrow[i]
		}
	}
	return nil
}

// liveColumns returns the first n columns of the factors left and right
// but those that are zero in every row of either (to within 1e-9 of the
// largest entry): a column of L and R that starts at zero gets no
// gradient and stays zero, so it keeps the random start. A factor of
// Σ_k T^k/C has one where an eigenvalue of T cancels over the powers
// (−1, with C even, on a bipartite component).
func liveColumns(left, right *mat.Dense, n int) []int {
	rows, _ := left.Dims()
	lmax, rmax := make([]float64, n), make([]float64, n)
	var top float64
	for v := range rows {
		lv, rv := left.RawRowView(v), right.RawRowView(v)
		for j := range n {
			lmax[j], rmax[j] = max(lmax[j], math.Abs(lv[j])), max(rmax[j], math.Abs(rv[j]))
			top = max(top, lmax[j], rmax[j])
		}
	}
	var cols []int
	for j := range n {
		if lmax[j] > 1e-9*top && rmax[j] > 1e-9*top {
			cols = append(cols, j)
		}
	}
	return cols
}

// unitRow sets dst to x scaled to unit length, and leaves dst as it is
// when x is zero.
func unitRow(dst []float32, x []float64) {
	var ss float64
	for _, a := range x {
		ss += a * a
	}
	if ss == 0 {
		return
	}
	inv := 1 / math.Sqrt(ss)
	for i, a := range x {
		dst[i] = float32(a * inv)
	}
}

// extraPair adds the positive pair (v, u) of attention entry k.
func (t *trainer) extraPair(out *shardOut, v, u int32, k int, wPos float64, Q []float64) {
	h := t.half
	g := float64(kernels.Dot(t.l[int(v)*h:int(v)*h+h], t.r[int(u)*h:int(u)*h+h]))
	loss, grad := t.posTerm(g)
	out.addPair(v, u, k, wPos, Q, loss, grad)
}

// addPair records the positive pair (v, u) of attention entry k, with
// ℓ+ = loss and dℓ+/dg = grad, weighted wPos·Q_k.
func (out *shardOut) addPair(v, u int32, k int, wPos float64, Q []float64, loss, grad float64) {
	out.loss += wPos * Q[k] * loss
	out.dQ[k] += wPos * loss
	out.pairs = append(out.pairs, pairCoef{v, u, float32(wPos * Q[k] * grad)})
	out.pos++
}

// sampleBatch runs the shards of batch b in parallel and returns them in
// shard order.
func (t *trainer) sampleBatch(ctx context.Context, b uint64, walks int) ([]shardOut, error) {
	nShards := (walks + shardWalks - 1) / shardWalks
	if cap(t.shards) < nShards {
		t.shards = make([]shardOut, nShards)
	}
	shards := t.shards[:nShards]
	Q := t.Q()
	totalNeg := 0
	for s := 0; s < nShards; s++ {
		totalNeg += t.negativeUnits(min(shardWalks, walks-s*shardWalks))
	}
	err := sparse.ParallelFor(ctx, nShards, t.cfg.Workers, func(s int) {
		sw := min(shardWalks, walks-s*shardWalks)
		t.sampleShard(ctx, &shards[s], s, t.cfg.Seed, b<<20|uint64(s), sw, walks, totalNeg, Q)
	})
	return shards, err
}

// batch runs one minibatch step and returns its loss estimate.
func (t *trainer) batch(ctx context.Context, b uint64, lr float64) (float64, error) {
	walks := t.cfg.BatchWalks
	shards, err := t.sampleBatch(ctx, b, walks)
	if err != nil {
		return 0, err
	}
	var loss float64
	dQ := make([]float64, t.k)
	for i := range shards {
		loss += shards[i].loss
		t.pairs += shards[i].pos
		for k, x := range shards[i].dQ {
			dQ[k] += x
		}
	}
	loss += t.qRegulariser()
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return loss, nil
	}
	t.step++
	t.bucket(shards)
	if t.cfg.Optimizer == OptPercentDelta {
		err = t.updatePercentDelta(ctx, lr)
	} else {
		err = t.updateSorted(ctx, t.rowStep(lr, 0))
	}
	if err != nil {
		return 0, err
	}
	if t.fixedQ == nil {
		t.updateQ(dQ, t.cfg.QLR*lr/t.cfg.LR)
	}
	return loss, nil
}

// updatePercentDelta sums the batch's gradients of every touched row into
// gl and gr and then takes the PercentDelta step, whose scales are means
// over all of them.
func (t *trainer) updatePercentDelta(ctx context.Context, lr float64) error {
	t.stamp++
	touched := make([][]int32, 2*numBlocks)
	err := sparse.ParallelFor(ctx, 2*numBlocks, t.cfg.Workers, func(i int) {
		blk, left := i/2, i%2 == 0
		if left {
			touched[i] = t.accumulate(t.byL[t.startL[blk]:t.startL[blk+1]], t.vecL[t.vstartL[blk]:t.vstartL[blk+1]], true)
		} else {
			touched[i] = t.accumulate(t.byR[t.startR[blk]:t.startR[blk+1]], t.vecR[t.vstartR[blk]:t.vstartR[blk+1]], false)
		}
	})
	if err != nil {
		return err
	}
	pdScale := t.percentDeltaScales(touched, lr)
	return sparse.ParallelFor(ctx, 2*numBlocks, t.cfg.Workers, func(blk int) {
		if blk%2 == 0 {
			t.apply(t.l, t.gl, t.ml, t.vl, touched[blk], lr, pdScale[0])
		} else {
			t.apply(t.r, t.gr, t.mr, t.vr, touched[blk], lr, pdScale[1])
		}
	})
}

// bucket lists the batch's pairs by the row block of their L row (byL)
// and of their R row (byR), each in shard and pair order: a stable
// counting sort, O(pairs).
func (t *trainer) bucket(shards []shardOut) {
	blockSize := (t.n + numBlocks - 1) / numBlocks
	total := 0
	for i := range shards {
		total += len(shards[i].pairs)
	}
	if cap(t.byL) < total {
		t.byL = make([]pairCoef, total)
		t.byR = make([]pairCoef, total)
	}
	t.byL, t.byR = t.byL[:total], t.byR[:total]
	var countL, countR [numBlocks + 1]int
	for i := range shards {
		for _, p := range shards[i].pairs {
			countL[int(p.v)/blockSize+1]++
			countR[int(p.u)/blockSize+1]++
		}
	}
	for b := 0; b < numBlocks; b++ {
		countL[b+1] += countL[b]
		countR[b+1] += countR[b]
	}
	t.startL, t.startR = countL, countR
	for i := range shards {
		for _, p := range shards[i].pairs {
			bl, br := int(p.v)/blockSize, int(p.u)/blockSize
			t.byL[countL[bl]] = p
			countL[bl]++
			t.byR[countR[br]] = p
			countR[br]++
		}
	}
	t.shardVecs = t.shardVecs[:0]
	for i := range shards {
		t.shardVecs = append(t.shardVecs, shards[i].vecs)
	}
	t.vecL, t.vstartL = bucketVecs(t.vecL, shards, blockSize, func(s *shardOut) []rowVec { return s.vecL })
	t.vecR, t.vstartR = bucketVecs(t.vecR, shards, blockSize, func(s *shardOut) []rowVec { return s.vecR })
}

// bucketVecs lists the row vectors that of returns for each shard by row
// block, in shard order, reusing dst.
func bucketVecs(dst []rowVec, shards []shardOut, blockSize int, of func(*shardOut) []rowVec) ([]rowVec, [numBlocks + 1]int) {
	var count [numBlocks + 1]int
	total := 0
	for i := range shards {
		for _, x := range of(&shards[i]) {
			count[int(x.row)/blockSize+1]++
			total++
		}
	}
	for b := 0; b < numBlocks; b++ {
		count[b+1] += count[b]
	}
	start := count
	dst = slices.Grow(dst[:0], total)[:total]
	for i := range shards {
		for _, x := range of(&shards[i]) {
			b := int(x.row) / blockSize
			dst[count[b]] = x
			count[b]++
		}
	}
	return dst, start
}

// accumulate sums, in order, the gradient contributions of pairs (all in
// one row block) to L (left) or R, and returns the rows it touched.
func (t *trainer) accumulate(pairs []pairCoef, vecs []rowVec, left bool) []int32 {
	h := t.half
	var rows []int32
	grad, stamp, other := t.gl, t.stampL, t.r
	if !left {
		grad, stamp, other = t.gr, t.stampR, t.l
	}
	rowGrad := func(row int32) []float32 {
		g := grad[int(row)*h : int(row)*h+h]
		if stamp[row] != t.stamp {
			stamp[row] = t.stamp
			clear(g)
			rows = append(rows, row)
		}
		return g
	}
	for _, p := range pairs {
		row, src := p.v, p.u
		if !left {
			row, src = p.u, p.v
		}
		kernels.Axpy(rowGrad(row), p.coef, other[int(src)*h:int(src)*h+h])
	}
	for _, x := range vecs {
		kernels.Axpy(rowGrad(x.row), 1, t.shardVecs[x.shard][x.off:int(x.off)+h])
	}
	return rows
}

// apply updates the touched rows of one parameter matrix.
func (t *trainer) apply(x, g, m, v []float32, rows []int32, lr, pdScale float64) {
	h := t.half
	st := t.rowStep(lr, pdScale)
	for _, row := range rows {
		o := int(row) * h
		st.update(x, g[o:o+h], m, v, o)
	}
}

// rowStep is the optimiser's update of one row with a batch's constants.
type rowStep struct {
	kind     stepKind
	a, decay float32
}

// stepKind is the row update of an optimiser.
type stepKind uint8

const (
	stepPlain  stepKind = iota // x −= a·(g + decay·x): SGD and PercentDelta
	stepAdam                   // kernels.AdamRow
	stepRMS                    // kernels.RMSRow
	stepRowRMS                 // kernels.RowRMSStep
)

// rowStep returns the update of step t.step at learning rate lr (for
// PercentDelta, step scale pdScale).
func (t *trainer) rowStep(lr, pdScale float64) rowStep {
	// The code formulation's 1e-6·mean(x²) regulariser, applied to the
	// rows a batch touches (weight decay), with its exact per-row gradient.
	var decay float32
	if !t.paper {
		decay = float32(2 * pipeline.CodeEmbeddingReg / float64(t.n*t.half))
	}
	if t.cfg.Optimizer == OptSGD || t.cfg.Optimizer == OptPercentDelta {
		a := float32(lr)
		if t.paper {
			a = float32(lr / (float64(t.n) * float64(t.n)))
		}
		if t.cfg.Optimizer == OptPercentDelta {
			a = float32(pdScale)
		}
		return rowStep{a: a, decay: decay}
	}
	c2 := 1 - math.Pow(kernels.AdamB2, float64(t.step))
	switch t.cfg.Optimizer {
	case OptRowRMS:
		return rowStep{kind: stepRowRMS, a: float32(lr * math.Sqrt(c2)), decay: decay}
	case OptRMSProp:
		return rowStep{kind: stepRMS, a: float32(lr * math.Sqrt(c2)), decay: decay}
	}
	c1 := 1 - math.Pow(kernels.AdamB1, float64(t.step))
	return rowStep{kind: stepAdam, a: float32(lr * math.Sqrt(c2) / c1), decay: decay}
}

// update applies the step to the row at offset o of x (and of the Adam
// moments m and v, with RMSProp its second moments v, or with RowRMS the
// rows' second moments v) with
// gradient g.
func (st rowStep) update(x, g, m, v []float32, o int) {
	h := len(g)
	xr := x[o : o+h]
	switch st.kind {
	case stepRowRMS:
		v[o/h] = kernels.RowRMSStep(xr, g, v[o/h], st.a, st.decay)
	case stepRMS:
		kernels.RMSRow(xr, g, v[o:o+h], st.a, st.decay)
	case stepAdam:
		kernels.AdamRow(xr, g, m[o:o+h], v[o:o+h], st.a, st.decay)
	default:
		for j := range xr {
			xr[j] -= st.a * (g[j] + st.decay*xr[j])
		}
	}
}

// percentDeltaScales returns the PercentDelta step scales of L and R for
// this batch: lr / mean_i |g_i / x_i| over the elements of the rows the
// batch touched (the minibatch version of the authors' per-tensor
// rescaling; lr already carries the linear decay). The mean is summed in
// block order, so it does not depend on the number of workers.
func (t *trainer) percentDeltaScales(touched [][]int32, lr float64) [2]float64 {
	h := t.half
	var out [2]float64
	for side := 0; side < 2; side++ {
		x, g := t.l, t.gl
		if side == 1 {
			x, g = t.r, t.gr
		}
		var sum float64
		var count int
		for blk := side; blk < len(touched); blk += 2 {
			for _, row := range touched[blk] {
				o := int(row) * h
				for j := o; j < o+h; j++ {
					sum += math.Abs(float64(g[j]) / signedEps(float64(x[j])))
				}
				count += h
			}
		}
		if count > 0 {
			out[side] = lr / (sum/float64(count) + 1e-12)
		}
	}
	return out
}

// signedEps returns x moved away from zero by 1e-8, keeping its sign.
func signedEps(x float64) float64 {
	if x >= 0 {
		return x + 1e-8
	}
	return x - 1e-8
}

// qRegulariser returns β·mean(q²) (code) or β‖q‖² (paper).
func (t *trainer) qRegulariser() float64 {
	if t.fixedQ != nil {
		return 0
	}
	return qPenalty(t.cfg.Objective, t.q)
}

// qGradient returns dJ/dq from the ∂J/∂Q_k estimates, through the softmax,
// plus the regulariser's gradient.
func (t *trainer) qGradient(dQ []float64) []float64 {
	Q := pipeline.Softmax(t.q)
	var mean float64
	for k := range dQ {
		mean += Q[k] * dQ[k]
	}
	g := make([]float64, t.k)
	beta := t.cfg.Objective.BetaWeight()
	for j := range g {
		g[j] = Q[j] * (dQ[j] - mean)
		if t.paper {
			g[j] += 2 * beta * t.q[j]
		} else {
			g[j] += 2 * beta * t.q[j] / float64(t.k)
		}
	}
	return g
}

func (t *trainer) updateQ(dQ []float64, lr float64) {
	g := t.qGradient(dQ)
	c1 := 1 - math.Pow(kernels.AdamB1, float64(t.step))
	c2 := 1 - math.Pow(kernels.AdamB2, float64(t.step))
	for j := range t.q {
		t.mq[j] = kernels.AdamB1*t.mq[j] + (1-kernels.AdamB1)*g[j]
		t.vq[j] = kernels.AdamB2*t.vq[j] + (1-kernels.AdamB2)*g[j]*g[j]
		t.q[j] -= lr * (t.mq[j] / c1) / (math.Sqrt(t.vq[j]/c2) + kernels.AdamEps)
	}
}
