package eval

import (
	"context"
	"errors"
	"fmt"

	"github.com/wys-project/wys/pipeline"
)

// Binary operators of node2vec's link prediction protocol (Grover and
// Leskovec, KDD 2016, Table 1): an edge (u, v) is the feature vector
// op(x_u, x_v) of its two node vectors.
const (
	OpAverage  = "average"  // (x_u + x_v) / 2
	OpHadamard = "hadamard" // x_u ⊙ x_v
	OpL1       = "l1"       // |x_u − x_v| (node2vec's weighted-L1)
	OpL2       = "l2"       // (x_u − x_v)² (node2vec's weighted-L2)
)

// EdgeOperators lists the operators in node2vec's order.
var EdgeOperators = []string{OpAverage, OpHadamard, OpL1, OpL2}

// DefaultEdgeTrainPairs caps the training pairs of each class of
// EdgeClassifier: a larger list is subsampled (seeded) to this many.
const DefaultEdgeTrainPairs = 100000

// streamEdgeTrain is the random stream purpose of the subsampled pairs.
const streamEdgeTrain uint64 = 0x65646765 // "edge"

// EdgeFeatures returns the len(pairs) × f row-major matrix of op(x_u, x_v)
// for the pairs (u, v), x being n × f row-major. A pair naming a row
// outside 0..n−1 is an error wrapping pipeline.ErrUnknownNode.
func EdgeFeatures(x []float64, f int, pairs []pipeline.Pair, op string) ([]float64, error) {
	if f < 1 || len(x)%f != 0 {
		return nil, fmt.Errorf("eval: edge features: %d values are not rows of %d", len(x), f)
	}
	n := len(x) / f
	out := make([]float64, len(pairs)*f)
	for i, p := range pairs {
		if p.U < 0 || p.V < 0 || int(p.U) >= n || int(p.V) >= n {
			return nil, fmt.Errorf("eval: %w: pair %d (%d, %d) names a node outside 0..%d", pipeline.ErrUnknownNode, i, p.U, p.V, n-1)
		}
		a, b, o := x[int(p.U)*f:int(p.U+1)*f], x[int(p.V)*f:int(p.V+1)*f], out[i*f:(i+1)*f]
		switch op {
		case OpAverage:
			for j := range o {
				o[j] = (a[j] + b[j]) / 2
			}
		case OpHadamard:
			for j := range o {
				o[j] = a[j] * b[j]
			}
		case OpL1:
			for j := range o {
				o[j] = max(a[j]-b[j], b[j]-a[j])
			}
		case OpL2:
			for j := range o {
				o[j] = (a[j] - b[j]) * (a[j] - b[j])
			}
		default:
			return nil, fmt.Errorf("eval: unknown edge operator %q; want one of %v", op, EdgeOperators)
		}
	}
	return out, nil
}

// EdgeClassifierConfig sets EdgeClassifier.
type EdgeClassifierConfig struct {
	// LogReg is the logistic regression (C = 1 by default, as the
	// scikit-learn LogisticRegression that node2vec-style scripts use).
	LogReg LogRegConfig
	// MaxTrainPairs caps the training edges and the training non-edges,
	// each (0: DefaultEdgeTrainPairs); longer lists are subsampled.
	MaxTrainPairs int
	// Seed draws the subsample.
	Seed uint64
}

// EdgeClassifierResult is one operator's score.
type EdgeClassifierResult struct {
	Operator string  `json:"operator"`
	TestAUC  float64 `json:"test_auc"`
	TestAP   float64 `json:"test_ap"`
	// TrainPairs is the number of training pairs of each class fitted.
	TrainPairs   [2]int `json:"train_pairs"`
	NotConverged bool   `json:"not_converged,omitempty"`
}

// EdgeClassifier runs node2vec's link prediction protocol on a split:
// a logistic regression fitted on op(x_u, x_v) of the training edges
// (label 1) and training non-edges (label 0), then the test edges and
// non-edges ranked by its margin w·x + b, scored by pipeline.AUC and
// pipeline.AveragePrecision. x holds the n × f node features. It returns
// ctx's error once ctx is done (checked after every evaluation of the
// fit's objective).
func EdgeClassifier(ctx context.Context, x []float64, f int, s *pipeline.Split, op string, cfg EdgeClassifierConfig) (*EdgeClassifierResult, error) {
	if len(x) != s.N*f || f < 1 {
		return nil, fmt.Errorf("eval: edge classifier of %d nodes needs %d x %d features; have %d values", s.N, s.N, f, len(x))
	}
	if len(s.Train) == 0 || len(s.TrainNeg) == 0 || len(s.Test) == 0 || len(s.TestNeg) == 0 {
		return nil, errors.New("eval: the edge classifier needs training and test edges and non-edges")
	}
	if err := s.CheckNodes(s.N); err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	lr := cfg.LogReg.resolve()
	if err := lr.validate(); err != nil {
		return nil, err
	}
	limit := cfg.MaxTrainPairs
	if limit == 0 {
		limit = DefaultEdgeTrainPairs
	}
	pos := pipeline.SubsamplePairs(s.Train, limit, pipeline.Stream(cfg.Seed, streamEdgeTrain, 0))
	neg := pipeline.SubsamplePairs(s.TrainNeg, limit, pipeline.Stream(cfg.Seed, streamEdgeTrain, 1))
	train, err := EdgeFeatures(x, f, append(append([]pipeline.Pair(nil), pos...), neg...), op)
	if err != nil {
		return nil, err
	}
	y := make([]float64, len(pos)+len(neg))
	for i := range y {
		y[i] = -1
		if i < len(pos) {
			y[i] = 1
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := fitLogReg(ctx, newLogReg(train, len(y), f, y, lr.C), lr)
	notConv := errors.Is(err, errNotConverged)
	if err != nil && !notConv {
		return nil, err
	}
	tp, err := edgeMargins(ctx, x, f, s.Test, op, p)
	if err != nil {
		return nil, err
	}
	tn, err := edgeMargins(ctx, x, f, s.TestNeg, op, p)
	if err != nil {
		return nil, err
	}
	rk := pipeline.Rank(tp, tn)
	return &EdgeClassifierResult{Operator: op, TestAUC: rk.AUC(), TestAP: rk.AveragePrecision(),
		TrainPairs: [2]int{len(pos), len(neg)}, NotConverged: notConv}, nil
}

// marginChunk is how many pairs edgeMargins turns into features at once:
// the features of every test pair, n·f float64s, would be gigabytes on a
// large split.
const marginChunk = 4096

// edgeMargins returns the margin w·op(x_u, x_v) + b of every pair under
// the fitted p = [w | b], a chunk of marginChunk pairs at a time, and
// ctx's error once ctx is done (checked between chunks).
func edgeMargins(ctx context.Context, x []float64, f int, pairs []pipeline.Pair, op string, p []float64) ([]float64, error) {
	out := make([]float64, len(pairs))
	for lo := 0; lo < len(pairs); lo += marginChunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		chunk := pairs[lo:min(len(pairs), lo+marginChunk)]
		feat, err := EdgeFeatures(x, f, chunk, op)
		if err != nil {
			return nil, err
		}
		for i := range chunk {
			m := p[f]
			for j, v := range feat[i*f : (i+1)*f] {
				m += p[j] * v
			}
			out[lo+i] = m
		}
	}
	return out, nil
}
