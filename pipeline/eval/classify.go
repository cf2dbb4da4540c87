package eval

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/internal/kernels"
)

// Pair scores for node classification.
const (
	// ScoreLR is the paper's g(Y)_vu = L_v·R_u: the score of the arc v→u.
	ScoreLR = "LR"
	// ScoreSym is the symmetrised (L_v·R_u + L_u·R_v)/2.
	ScoreSym = "sym"
	// ScoreDot is the dot product of the whole embeddings,
	// Y_v·Y_u = L_v·L_u + R_v·R_u.
	ScoreDot = "dot"
)

// ClassifyScores are the pair scores Classify tries, in order; the first
// of equally good settings wins.
var ClassifyScores = []string{ScoreLR, ScoreSym, ScoreDot}

// ClassifyAlphas is the grid over which α is tuned.
var ClassifyAlphas = []float64{0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100}

// ClassifyResult reports node classification with the paper's rule.
type ClassifyResult struct {
	// Alpha is the scale chosen on the validation nodes.
	Alpha float64 `json:"alpha"`
	// Score names the pair score chosen on the validation nodes (one of
	// ClassifyScores).
	Score string `json:"score"`
	// TunedOn says which nodes chose Alpha and Score: "validation", or
	// "train" when the split has no validation nodes (ValAccuracy is then
	// the accuracy on the train nodes, each scored against the others and
	// itself, so it says little).
	TunedOn string `json:"tuned_on"`
	// ValAccuracy and TestAccuracy are fractions in [0, 1].
	ValAccuracy  float64 `json:"val_accuracy"`
	TestAccuracy float64 `json:"test_accuracy"`
	// Grid holds the validation accuracy of every (score, α) tried.
	Grid []ClassifyPoint `json:"grid"`
}

// ClassifyPoint is the validation accuracy of one setting.
type ClassifyPoint struct {
	Score       string  `json:"score"`
	Alpha       float64 `json:"alpha"`
	ValAccuracy float64 `json:"val_accuracy"`
}

// classifyBlock is the number of nodes scored at once: memory is
// O(classifyBlock · |train|) besides the embeddings.
const classifyBlock = 256

// Classify predicts node labels with the paper's smooth nearest-neighbour
// rule, L̃ = exp(α·g(Y))·L_train, that is
// label(v) = argmax_c Σ_{u ∈ train, class c} exp(α·g(Y)_vu), tunes α over
// ClassifyAlphas and the pair score over ClassifyScores on the validation
// nodes (on the train nodes when there are none), and reports the test
// accuracy at the chosen setting. The paper's g(Y) is L Rᵀ; the tuning
// reports which score validates best for the embeddings at hand. A single
// table given as L = R = Y has the scores Y·Y, Y·Y and 2·Y·Y (ScoreDot sums
// both sides), so its α is in effect tuned over the grid and twice it.
//
// Nodes are scored in blocks against the train nodes only, so memory is
// O(block · |train|) beyond the embeddings. It checks ctx before scoring
// each node against the train nodes and before each α.
func Classify(ctx context.Context, res *pipeline.Result, lab *pipeline.Labels) (*ClassifyResult, error) {
	if res == nil || lab == nil {
		return nil, errors.New("eval: classification needs embeddings and labels (nil)")
	}
	if len(lab.Train) == 0 || len(lab.Test) == 0 {
		return nil, fmt.Errorf("eval: classification needs train and test nodes")
	}
	if len(lab.Class) != res.N {
		return nil, fmt.Errorf("eval: labels for %d nodes, embeddings for %d", len(lab.Class), res.N)
	}
	for _, set := range [][]int{lab.Train, lab.Val, lab.Test} {
		for _, v := range set {
			if v < 0 || v >= res.N || lab.Class[v] < 0 || lab.Class[v] >= lab.Classes {
				return nil, fmt.Errorf("eval: split node %d has no class in [0, %d)", v, lab.Classes)
			}
		}
	}
	val, tunedOn := lab.Val, "validation"
	if len(val) == 0 {
		val, tunedOn = lab.Train, "train" // no validation set: tune on train
	}
	correct, err := classifyCorrect(ctx, res, lab, val, ClassifyScores, ClassifyAlphas)
	if err != nil {
		return nil, err
	}
	out := &ClassifyResult{TunedOn: tunedOn, ValAccuracy: -1}
	for i, score := range ClassifyScores {
		for j, a := range ClassifyAlphas {
			acc := float64(correct[i][j]) / float64(len(val))
			out.Grid = append(out.Grid, ClassifyPoint{Score: score, Alpha: a, ValAccuracy: acc})
			if acc > out.ValAccuracy {
				out.Alpha, out.Score, out.ValAccuracy = a, score, acc
			}
		}
	}
	test, err := classifyCorrect(ctx, res, lab, lab.Test, []string{out.Score}, []float64{out.Alpha})
	if err != nil {
		return nil, err
	}
	out.TestAccuracy = float64(test[0][0]) / float64(len(lab.Test))
	return out, nil
}

// pairScore returns the score of (v, u): see the Score constants.
func pairScore(r *pipeline.Result, v, u int, score string) float64 {
	h := r.Half
	lv, rv := r.L[v*h:v*h+h], r.R[v*h:v*h+h]
	lu, ru := r.L[u*h:u*h+h], r.R[u*h:u*h+h]
	switch score {
	case ScoreSym:
		return (float64(kernels.Dot(lv, ru)) + float64(kernels.Dot(lu, rv))) / 2
	case ScoreDot:
		return float64(kernels.Dot(lv, lu)) + float64(kernels.Dot(rv, ru))
	}
	return float64(kernels.Dot(lv, ru))
}

// classifyCorrect returns, for every score and α, how many of nodes the
// rule labels correctly. Each block of nodes is scored once per score
// against the train nodes; every α reuses those scores.
func classifyCorrect(ctx context.Context, res *pipeline.Result, lab *pipeline.Labels, nodes []int, scores []string, alphas []float64) ([][]int, error) {
	correct := make([][]int, len(scores))
	for i := range correct {
		correct[i] = make([]int, len(alphas))
	}
	nt := len(lab.Train)
	g := make([]float64, classifyBlock*nt)
	votes := make([]float64, lab.Classes)
	for lo := 0; lo < len(nodes); lo += classifyBlock {
		block := nodes[lo:min(len(nodes), lo+classifyBlock)]
		for si, score := range scores {
			for b, v := range block {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				row := g[b*nt : b*nt+nt]
				for i, u := range lab.Train {
					row[i] = pairScore(res, v, u, score)
				}
			}
			for ai, a := range alphas {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				for b, v := range block {
					row := g[b*nt : b*nt+nt]
					// Subtract the largest exponent: the argmax is unchanged
					// and exp cannot overflow.
					m := math.Inf(-1)
					for _, s := range row {
						m = math.Max(m, a*s)
					}
					clear(votes)
					for i, u := range lab.Train {
						votes[lab.Class[u]] += math.Exp(a*row[i] - m)
					}
					pred := 0
					for c := range votes {
						if votes[c] > votes[pred] {
							pred = c
						}
					}
					if pred == lab.Class[v] {
						correct[si][ai]++
					}
				}
			}
		}
	}
	return correct, nil
}
