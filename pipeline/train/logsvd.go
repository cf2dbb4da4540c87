package train

import (
	"context"
	"fmt"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/internal/logmf"
)

// DefaultLogSVDNodes is the largest graph, in nodes, that the log-SVD
// start accepts: its target is a dense N x N float32 matrix (4 GiB at
// 32,768 nodes) built in C·nnz·N multiply-adds.
const DefaultLogSVDNodes = logmf.MaxNodes

// logRatios returns ρ_v, the weight of a positive entry of row v over the
// weight of a negative entry (pipeline.ObjectiveConfig.EntryWeights), such
// that the entrywise minimiser of the objective at a non-arc (v, u) is the
// score log(ρ_v·Σ_k Q_k (T^k)_vu).
func logRatios(g *pipeline.Graph, obj pipeline.ObjectiveConfig) []float64 {
	rho, neg := obj.EntryWeights(g.Adj)
	for v := range rho {
		rho[v] /= neg
	}
	return rho
}

// logTarget returns the N x N row-major matrix
// M_vu = log max(ρ_v·Σ_k w_k (T^k)_vu, 1) over the C powers of the
// transition matrix of g, with w the normalised weights (logmf.Target).
func logTarget(ctx context.Context, g *pipeline.Graph, obj pipeline.ObjectiveConfig, w []float64, workers int) ([]float32, error) {
	tm, _ := g.Adj.RowNormalize()
	return logmf.Target(ctx, tm, w, logRatios(g, obj), nil, workers)
}

// logSVDFits reports why a graph of n nodes cannot start from the log
// SVD at rank half, before anything of size n² is allocated.
func logSVDFits(n, half int) error {
	if n > DefaultLogSVDNodes {
		return fmt.Errorf("train: %w: the log-SVD start builds a dense %d x %d matrix; it takes graphs of at most %d nodes (use -start spectral)", pipeline.ErrTooLarge, n, n, DefaultLogSVDNodes)
	}
	if half > n {
		return fmt.Errorf("train: the log-SVD start needs d/2 = %d at most the %d nodes of the graph; lower the dimension", half, n)
	}
	return nil
}

// logSVDStart sets L = U√S and R = V√S from the rank-d/2 truncated SVD
// of logTarget at the starting Q (softmax of q = 1: uniform over the C
// powers; extra context types are left out), drawn with the run's seed.
// It returns an error on a graph above DefaultLogSVDNodes nodes.
func (t *trainer) logSVDStart(ctx context.Context, g *pipeline.Graph) error {
	if err := logSVDFits(t.n, t.half); err != nil {
		return err
	}
	m, err := logTarget(ctx, g, t.cfg.Objective, t.Q()[:t.c], t.cfg.Workers)
	if err != nil {
		return err
	}
	return logmf.FactorTo(ctx, t.l, t.r, m, t.n, t.half, t.cfg.Seed, 0, t.cfg.Workers)
}
