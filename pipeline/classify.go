package pipeline

import (
	"fmt"
	"math"
)

// ClassifyResult reports node classification with the paper's rule.
type ClassifyResult struct {
	// Alpha is the scale chosen on the validation nodes.
	Alpha float64
	// Score names the pair score used: "LR" (g = L_v·R_u, the paper's
	// g(Y)) or "sym" ((L_v·R_u + L_u·R_v)/2), whichever validated better.
	Score string
	// ValAccuracy and TestAccuracy are fractions in [0, 1].
	ValAccuracy, TestAccuracy float64
}

// ClassifyAlphas is the grid over which α is tuned.
var ClassifyAlphas = []float64{0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100}

// Classify predicts node labels with the paper's smooth nearest-neighbour
// rule, label(v) = argmax_c Σ_{u ∈ train, class c} exp(α·g(Y)_vu), tunes α
// (and the pair score) on the validation nodes, and reports the test
// accuracy at the chosen setting. Memory: O(|train|) per node.
func Classify(res *Result, lab *Labels) (*ClassifyResult, error) {
	if len(lab.Train) == 0 || len(lab.Test) == 0 {
		return nil, fmt.Errorf("pipeline: classification needs train and test nodes")
	}
	if len(lab.Class) != res.N {
		return nil, fmt.Errorf("pipeline: labels for %d nodes, embeddings for %d", len(lab.Class), res.N)
	}
	val := lab.Val
	if len(val) == 0 {
		val = lab.Train // no validation set: tune on train (leave-one-in)
	}
	best := &ClassifyResult{ValAccuracy: -1}
	for _, score := range []string{"LR", "sym"} {
		for _, a := range ClassifyAlphas {
			acc := classifyAccuracy(res, lab, val, a, score)
			if acc > best.ValAccuracy {
				best = &ClassifyResult{Alpha: a, Score: score, ValAccuracy: acc}
			}
		}
	}
	best.TestAccuracy = classifyAccuracy(res, lab, lab.Test, best.Alpha, best.Score)
	return best, nil
}

func (r *Result) pairScore(v, u int, score string) float64 {
	h := r.Half
	lv, ru := r.L[v*h:v*h+h], r.R[u*h:u*h+h]
	s := float64(dot32(lv, ru))
	if score == "sym" {
		s = (s + float64(dot32(r.L[u*h:u*h+h], r.R[v*h:v*h+h]))) / 2
	}
	return s
}

func classifyAccuracy(res *Result, lab *Labels, nodes []int, alpha float64, score string) float64 {
	correct := 0
	scores := make([]float64, len(lab.Train))
	votes := make([]float64, lab.Classes)
	for _, v := range nodes {
		m := math.Inf(-1)
		for i, u := range lab.Train {
			scores[i] = alpha * res.pairScore(v, u, score)
			m = math.Max(m, scores[i])
		}
		clear(votes)
		for i, u := range lab.Train {
			votes[lab.Class[u]] += math.Exp(scores[i] - m)
		}
		pred := 0
		for c := range votes {
			if votes[c] > votes[pred] {
				pred = c
			}
		}
		if pred == lab.Class[v] {
			correct++
		}
	}
	return float64(correct) / float64(len(nodes))
}
