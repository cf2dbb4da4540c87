package pipeline

import (
	"fmt"
	"math"

	"github.com/wys-project/wys/sparse"
)

// Formulation selects how E[D] is weighted and how the loss is aggregated.
// See ../shared/REFERENCE-NOTES.md ("The two formulations").
type Formulation string

const (
	// FormulationCode follows the authors' released code, the default:
	// E[D] = WalksPerNode·N·diag(deg/w̄)·Σ_k Q_k T^k (= WalksPerNode·N·Σ_k Q_k (A/w̄) T^{k−1}),
	// with w̄ the mean arc weight (MeanArcWeight; 1 when unweighted),
	// the loss is the mean over all N² entries with log(σ+1e-5) and
	// log(1−σ+1e-5) (exact logs with ObjectiveConfig.ExactLogs), the
	// attention regulariser is β·mean(q²), and the embeddings carry
	// 1e-6·(mean(L²)+mean(R²)). The diagonal counts as a negative.
	FormulationCode Formulation = "code"
	// FormulationPaper follows the paper literally: E[D] =
	// WalksPerNode·Σ_k Q_k T^k (P0 = diag(WalksPerNode)), the loss is the sum
	// over all N² entries with exact logs, and the regulariser is β‖q‖².
	FormulationPaper Formulation = "paper"
)

// MinPPR is the smallest restart probability ObjectiveConfig.PPR takes:
// the walk of a PPR draw takes 1/α steps on average, and ApplyPPR sums
// about ln(1e12)/α ≈ 28/α products by T, so that a tiny α (1e-9) runs
// for hours per draw instead of failing.
const MinPPR = 0.001

// Defaults of ObjectiveConfig, from the paper's Table 1 settings.
const (
	DefaultC            = 10
	DefaultBeta         = 0.5
	DefaultWalksPerNode = 80
	// MaxWalksPerNode bounds WalksPerNode: far above the default the
	// non-edges weigh nothing against the walks, and from about 1e30 the
	// float32 gradients overflow (the CLI's demo then ends in NaN).
	MaxWalksPerNode = 1e6
	// CodeEmbeddingReg is the authors' L2 weight on mean(L²)+mean(R²).
	CodeEmbeddingReg = 1e-6
	// CodeLogEpsilon is the authors' epsilon inside both logarithms.
	CodeLogEpsilon = 1e-5
)

// WalksPerNodeWant says which WalksPerNode values ObjectiveConfig takes,
// for the commands' flag messages.
var WalksPerNodeWant = fmt.Sprintf("want a positive number of walks per node (the starting mass P0 of E[D]), at most %g (the default is %d)", MaxWalksPerNode, DefaultWalksPerNode)

// ObjectiveConfig holds the parameters of the Watch Your Step objective
// shared by the dense reference and the sparse trainer. The zero value
// means the paper's Table 1 settings in the code formulation.
type ObjectiveConfig struct {
	// Formulation: "" means FormulationCode.
	Formulation Formulation `json:"formulation"`
	// C is the number of transition-matrix powers, k = 1..C; 0 means 10.
	C int `json:"C"`
	// Beta weighs the attention regulariser; 0 means 0.5. A negative value
	// turns the regulariser off (Resolve keeps it, as −1, so that a
	// resolved configuration resolves to itself; BetaWeight is the weight).
	Beta float64 `json:"beta"`
	// WalksPerNode is the starting mass P0 (walks per node); 0 means 80.
	WalksPerNode float64 `json:"walks_per_node"`
	// PPR, when positive, adds a Personalized PageRank context (the paper's
	// "Extensions"): the row-stochastic matrix
	// Π = Σ_{t≥1} α(1−α)^{t−1} T^t with restart probability α = PPR, the
	// distribution of the node where a walk from v stops when it stops
	// after each step with probability α. It enters E[D] like a power of
	// T, with its own attention logit after the C powers. 0 means none;
	// else at least MinPPR.
	PPR float64 `json:"ppr"`
	// AdamicAdar adds an Adamic–Adar context: the row-normalised
	// S = A·H·A with H = diag(1/ln(max(deg_w, 2))), deg the (weighted)
	// out-degree, so S_vu sums the common neighbours w of v and u (paths
	// v→w→u) weighted by 1/ln deg_w, the classic index on an undirected
	// graph (its diagonal included). Its logit comes after PPR's.
	AdamicAdar bool `json:"adamic_adar"`
	// ExactLogs drops the code formulation's ε = 1e-5 inside log(σ+ε) and
	// log(1−σ+ε) (the paper formulation never has it). With ε, a pair
	// scored above about −log ε ≈ 11.5 gets almost no gradient from being
	// a negative, nor one scored below −11.5 from being a positive, so on
	// long runs over a whole graph some non-arcs drift far above the arcs
	// (docs/results.md, "Graph reconstruction"). false keeps the authors'
	// numerics, which reproduce Table 1.
	ExactLogs bool `json:"exact_logs,omitempty"`
}

// LogEpsilon returns the ε inside the loss's logarithms: CodeLogEpsilon
// in the code formulation, 0 (exact logs) in the paper formulation or
// with ExactLogs.
func (c ObjectiveConfig) LogEpsilon() float64 {
	if c.Resolve().Formulation == FormulationPaper || c.ExactLogs {
		return 0
	}
	return CodeLogEpsilon
}

// Context names of the extra types, as reported next to Q.
const (
	ContextPPR        = "ppr"
	ContextAdamicAdar = "adamic-adar"
)

// Contexts returns the number of attention entries: the C powers of T,
// then PPR and Adamic–Adar when enabled. Q and q have this length.
func (c ObjectiveConfig) Contexts() int {
	c = c.Resolve()
	k := c.C
	if c.PPR > 0 {
		k++
	}
	if c.AdamicAdar {
		k++
	}
	return k
}

// ContextNames returns a label per attention entry: "1".."C" for the
// powers, then ContextPPR and ContextAdamicAdar when enabled.
func (c ObjectiveConfig) ContextNames() []string {
	c = c.Resolve()
	names := make([]string, 0, c.Contexts())
	for k := 1; k <= c.C; k++ {
		names = append(names, fmt.Sprint(k))
	}
	if c.PPR > 0 {
		names = append(names, ContextPPR)
	}
	if c.AdamicAdar {
		names = append(names, ContextAdamicAdar)
	}
	return names
}

// Resolve returns c with every zero field replaced by its default: the
// objective a run uses. It is the only place the objective's defaults live.
func (c ObjectiveConfig) Resolve() ObjectiveConfig {
	if c.Formulation == "" {
		c.Formulation = FormulationCode
	}
	if c.C == 0 {
		c.C = DefaultC
	}
	if c.Beta == 0 {
		c.Beta = DefaultBeta
	}
	if c.Beta < 0 {
		c.Beta = -1
	}
	if c.WalksPerNode == 0 {
		c.WalksPerNode = DefaultWalksPerNode
	}
	return c
}

// BetaWeight returns the weight β of the attention regulariser of a
// resolved configuration: Beta, or 0 when it is turned off.
func (c ObjectiveConfig) BetaWeight() float64 { return max(c.Beta, 0) }

// Validate reports a configuration that cannot be used.
func (c ObjectiveConfig) Validate() error {
	c = c.Resolve()
	bad := func(setting string, value any, want string) error {
		return &SettingError{Pkg: "pipeline", Setting: setting, Value: value, Want: want}
	}
	switch {
	case c.Formulation != FormulationCode && c.Formulation != FormulationPaper:
		return bad("formulation", string(c.Formulation), fmt.Sprintf("want %s (the authors' released numerics) or %s", FormulationCode, FormulationPaper))
	case c.C < 1:
		return bad("C", c.C, "want at least 1 transition-matrix power")
	case c.C > 1000:
		return bad("C", c.C, "want at most 1000 powers")
	case math.IsNaN(c.Beta) || math.IsInf(c.Beta, 0):
		return bad("beta", c.Beta, "want a finite weight")
	case !(c.PPR >= 0 && c.PPR < 1):
		return bad("ppr", c.PPR, fmt.Sprintf("want a restart probability in [%g, 1), e.g. 0.15, or 0 (off)", MinPPR))
	case c.PPR > 0 && c.PPR < MinPPR:
		return bad("ppr", c.PPR, fmt.Sprintf("want a restart probability of at least %g, e.g. 0.15: each PPR draw walks 1/α steps on average, and the PPR matrix sums about 28/α powers of T (%.3g at this α)", MinPPR, 28/c.PPR))
	case !(c.WalksPerNode > 0 && c.WalksPerNode <= MaxWalksPerNode):
		return bad("walks_per_node", c.WalksPerNode, WalksPerNodeWant)
	case c.ExactLogs && c.Formulation == FormulationPaper:
		return bad("exact_logs", c.ExactLogs, "want it with the code formulation only: the paper formulation's logs are exact already")
	}
	return nil
}

// Softmax returns softmax(q), computed stably.
func Softmax(q []float64) []float64 {
	out := make([]float64, len(q))
	if len(q) == 0 {
		return out
	}
	m := q[0]
	for _, v := range q[1:] {
		m = math.Max(m, v)
	}
	var s float64
	for i, v := range q {
		out[i] = math.Exp(v - m)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

// EntryWeights returns the weights of the objective's terms on the graph
// adj, with the normalisation of the loss folded in: pos[v] multiplies row
// v of Σ_k Q_k T^k in the positive term, neg one entry of the negative
// term. The code formulation weighs WalksPerNode·N·(deg(v)/w̄)/N² and 1/N²
// (a mean over N² entries), with deg the weighted out-degrees and w̄ their
// MeanArcWeight; the paper WalksPerNode and 1 (a sum). c must be resolved.
func (c ObjectiveConfig) EntryWeights(adj *sparse.CSR) (pos []float64, neg float64) {
	n, _ := adj.Dims()
	pos = make([]float64, n)
	if c.Formulation == FormulationPaper {
		for v := range pos {
			pos[v] = c.WalksPerNode
		}
		return pos, 1
	}
	deg, unit := adj.RowSums(), MeanArcWeight(adj)
	for v := range pos {
		pos[v] = c.WalksPerNode * float64(n) * (deg[v] / unit) / (float64(n) * float64(n))
	}
	return pos, 1 / (float64(n) * float64(n))
}

// MeanArcWeight returns the mean weight of adj's stored arcs, Σ_vu A_vu /
// nnz(A): exactly 1 on an unweighted graph, 1 on an empty one. The code
// formulation's starting mass 80·N·deg(v) counts walks per unit of weight,
// so it divides the degrees by this mean: the model then does not depend
// on the unit of the weights (A and 4·A train the same embeddings), and an
// unweighted graph keeps the authors' numerics.
func MeanArcWeight(adj *sparse.CSR) float64 {
	if len(adj.Data) == 0 {
		return 1
	}
	var vol float64
	for _, x := range adj.Data {
		vol += x
	}
	return vol / float64(len(adj.Data))
}
