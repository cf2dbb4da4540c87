package train

import (
	"context"
	"fmt"

	"github.com/wys-project/wys/pipeline"
)

// Estimate is one minibatch estimate of the objective and its gradient.
type Estimate struct {
	Loss         float64
	GradL, GradR []float64 // N x d/2, row-major
	GradQ        []float64 // length Objective.Contexts()
	Pairs        int       // positive pairs drawn
}

// EstimateObjective draws one minibatch of walks (and cfg.Negatives
// negatives per positive pair) from stream seed and returns the sparse
// trainer's estimate of the objective at (l, r, q) and of its full
// gradient, densely. The estimate is unbiased: its mean over seeds is the
// exact objective that package reference computes (the code
// formulation's 1e-6 embedding regulariser is added exactly here; during
// training it is applied to the rows a batch touches). It is meant for
// tests and diagnostics: memory O(N·d). Parameters of the wrong shape are
// an error.
func EstimateObjective(ctx context.Context, g *pipeline.Graph, cfg Config, l, r []float32, q []float64, walks int, seed uint64) (*Estimate, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.Resolve(g.N(), g.Adj.NNZ())
	cfg.Seed = seed
	t := newTrainer(g, cfg)
	if len(l) != len(t.l) || len(r) != len(t.r) || len(q) != t.k {
		return nil, fmt.Errorf("train: EstimateObjective: L and R of %d and %d values and %d logits; want %d x %d each and %d logits (N, d/2 and the contexts)", len(l), len(r), len(q), g.N(), cfg.Dim/2, t.k)
	}
	copy(t.l, l)
	copy(t.r, r)
	copy(t.q, q)
	if cfg.Source == SourceFactored {
		series, err := factorSeries(ctx, g, cfg, 1)
		if err != nil {
			return nil, err
		}
		t.series = series
	}
	shards, err := t.sampleBatch(ctx, 0, walks)
	if err != nil {
		return nil, err
	}
	h := t.half
	est := &Estimate{GradL: make([]float64, len(l)), GradR: make([]float64, len(r))}
	dQ := make([]float64, t.k)
	for i := range shards {
		est.Loss += shards[i].loss
		est.Pairs += int(shards[i].pos)
		for k, x := range shards[i].dQ {
			dQ[k] += x
		}
		for _, p := range shards[i].pairs {
			est.addPair(int(p.v), int(p.u), float64(p.coef), l, r, h)
		}
		// The negative blocks' rows, summed in the shard.
		vecs := shards[i].vecs
		for _, x := range shards[i].vecL {
			for j := 0; j < h; j++ {
				est.GradL[int(x.row)*h+j] += float64(vecs[int(x.off)+j])
			}
		}
		for _, x := range shards[i].vecR {
			for j := 0; j < h; j++ {
				est.GradR[int(x.row)*h+j] += float64(vecs[int(x.off)+j])
			}
		}
	}
	t.finishEstimate(est, dQ, l, r)
	return est, nil
}

// addPair adds the gradient of the pair (v, u) with dJ/dg = coef.
func (est *Estimate) addPair(v, u int, coef float64, l, r []float32, h int) {
	for j := 0; j < h; j++ {
		est.GradL[v*h+j] += coef * float64(r[u*h+j])
		est.GradR[u*h+j] += coef * float64(l[v*h+j])
	}
}

// finishEstimate adds to est, which holds the sampled terms, the
// regularisers (exactly) and the q-gradient from the ∂J/∂Q_k estimates dQ.
func (t *trainer) finishEstimate(est *Estimate, dQ []float64, l, r []float32) {
	h := t.half
	est.Loss += t.qRegulariser()
	if t.fixedQ == nil {
		est.GradQ = t.qGradient(dQ)
	} else {
		est.GradQ = make([]float64, t.k)
	}
	if !t.paper {
		scale := pipeline.CodeEmbeddingReg / float64(t.n*h)
		for i := range l {
			est.Loss += scale * (float64(l[i])*float64(l[i]) + float64(r[i])*float64(r[i]))
			est.GradL[i] += 2 * scale * float64(l[i])
			est.GradR[i] += 2 * scale * float64(r[i])
		}
	}
}

// Params are the trainable parameters of the WYS model.
type Params struct {
	L, R    []float32 // N x d/2, row-major
	QLogits []float64 // q, length Objective.Contexts(); Q = softmax(q)
}

// InitialParameters returns the parameters the sparse trainer starts from
// for g and cfg: q = 1, and L, R from the spectral factors when the
// resolved Start is StartSpectral, from the log target's SVD when it is
// StartLogSVD, otherwise U(−0.1, 0.1) from the seed's "init" stream.
func InitialParameters(ctx context.Context, g *pipeline.Graph, cfg Config) (*Params, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.Resolve(g.N(), g.Adj.NNZ())
	t := newTrainer(g, cfg)
	if cfg.Start == StartSpectral {
		series, err := factorSeries(ctx, g, cfg, cfg.Seed)
		if err != nil {
			return nil, err
		}
		if err := t.warmStart(ctx, series); err != nil {
			return nil, err
		}
	}
	if cfg.Start == StartLogSVD {
		if err := t.logSVDStart(ctx, g); err != nil {
			return nil, err
		}
	}
	return &Params{L: t.l, R: t.r, QLogits: t.q}, nil
}
