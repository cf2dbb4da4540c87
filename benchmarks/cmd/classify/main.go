// Command classify compares wys with its peers on node classification on
// Cora's Planetoid split (140 train, 500 validation and 1,000 test nodes):
//
//	go run -tags openblas ./benchmarks/cmd/classify -out benchmarks/results/classify.md
//
// Each method embeds the whole graph without seeing a label, and two rules
// classify the test nodes. The paper's smooth-kNN rule (eval.Classify)
// scores a node's classes by exp(α·g(Y)) against the train nodes, with α
// and the pair score tuned on the validation nodes; a single table is
// given as L = R = Y. A one-vs-rest logistic regression (C = 1) on the
// train nodes' features (eval.ClassifyLogReg) is the protocol most papers
// compare embeddings with on this split. A third protocol ignores the
// split: DeepWalk's random splits of every labelled node (eval.MultiLabel,
// as wys-sparse eval -labels runs it), 10 per training share of 10% and
// 50%, whose Micro-F1 is the accuracy on single-label Cora.
//
// The methods are wys with the sparse trainer's defaults (features
// [L | R]), gensim skip-gram on DeepWalk walks (benchmarks/gensim/deepwalk.py,
// features Y), ProNE and NetMF (pipeline/baseline at d columns, as their
// authors embed; features the embedding and U√S). Each runs with -seeds
// seeds (1, 2, …); the split is fixed, so the spread is the embedding's.
//
// The shared flags (-data, -out, -allow-dirty) and the exit statuses are
// those of benchmarks.Harness.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/baseline"
	"github.com/wys-project/wys/pipeline/eval"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/train"
)

func main() { os.Exit(benchmarks.Main("classify", run)) }

// prefix is Cora's Planetoid files under -data (graphio.LoadPlanetoid).
const prefix = "Cora/cora"

// methodNames are the methods -methods accepts, in the table's order.
var methodNames = []string{"wys", "gensim", baseline.MethodProNE, baseline.MethodNetMF}

// published are accuracies reported on this split by others, for the
// notes: the paper's Table 3 (its kNN rule) and GCN's Table 2 (Kipf and
// Welling, ICLR 2017) for DeepWalk.
var published = map[string]string{
	"wys":    "paper (kNN rule): 67.9%",
	"gensim": "DeepWalk in GCN's Table 2: 67.2%; node2vec in the paper (kNN rule): 63.1%",
}

// options are the command's own flags.
type options struct {
	methods map[string]bool
	dim     int
	seeds   int
	epochs  float64
	gensim  benchmarks.Gensim
}

// embedding is one method's embedding of the graph at one seed: the
// pairs of the kNN rule (L and R, Half per row) and the features of the
// logistic regression (n × f).
type embedding struct {
	res  *pipeline.Result
	x    []float64
	f    int
	took time.Duration
}

// row is one method's scores over the seeds.
type row struct {
	name                 string
	knn, knnVal, lr, mf1 []float64
	// The random-split protocol: mean Micro-F1 at 10% and 50% of the
	// nodes, and Macro-F1 at 50%, over its splits.
	micro10, micro50, macro50 []float64
	// Node clustering (eval.Cluster): NMI, ARI and accuracy.
	nmi, ari, acc []float64
	took          []float64
	what          string // the features of the logistic regression
	published     string // others' accuracy on the split, or ""
	knnScores     []string
}

func run(ctx context.Context, h *benchmarks.Harness) error {
	o, err := parseFlags(h)
	if err != nil {
		return err
	}
	if err := o.gensim.CheckMethods(ctx, h, o.methods); err != nil {
		return err
	}
	g, lab, _, err := graphio.LoadPlanetoid(ctx, filepath.Join(h.Data, prefix), graphio.LoadOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(h.Stderr, "Cora: %d nodes, %d arcs; %d train, %d validation, %d test nodes\n", g.N(), g.Adj.NNZ(), len(lab.Train), len(lab.Val), len(lab.Test))
	var rows []row
	for _, m := range methodNames {
		if !o.methods[m] {
			continue
		}
		r, err := score(ctx, h, o, m, g, lab)
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		rows = append(rows, r)
	}
	return h.WriteResult(h.Header("Node classification on Cora (Planetoid split)") + describe(o, g, lab) + table(rows))
}

// parseFlags registers and parses the command's flags.
func parseFlags(h *benchmarks.Harness) (*options, error) {
	o := &options{}
	fs := h.Flags
	methods := fs.String("methods", strings.Join(methodNames, ","), "methods to run: "+strings.Join(methodNames, ", "))
	fs.IntVar(&o.dim, "dim", 128, "numbers per node: wys d (d/2 per side), gensim's and ProNE's width, NetMF's rank")
	fs.IntVar(&o.seeds, "seeds", 3, "seeds per method (1, 2, …)")
	fs.Float64Var(&o.epochs, "epochs", 0, "wys: epochs (0: the trainer's default)")
	o.gensim.Register(fs, 5, "gensim's default")
	if err := h.Parse(); err != nil {
		return nil, err
	}
	var err error
	if o.methods, err = h.Methods(*methods, methodNames); err != nil {
		return nil, err
	}
	if o.dim < 2 || o.dim%2 != 0 || o.seeds < 1 {
		return nil, h.Usagef("-dim %d, -seeds %d: want an even width of at least 2 and at least 1 seed", o.dim, o.seeds)
	}
	o.gensim.Dim = o.dim
	return o, nil
}

// score embeds the graph with method at every seed and classifies.
func score(ctx context.Context, h *benchmarks.Harness, o *options, method string, g *pipeline.Graph, lab *pipeline.Labels) (row, error) {
	multi := singleLabels(lab)
	splits, err := eval.MultiLabelSplits(multi.Labelled(), []float64{0.1, 0.5}, randomSplits, 1)
	if err != nil {
		return row{}, err
	}
	r := row{name: map[string]string{"wys": "wys", "gensim": "gensim DeepWalk", baseline.MethodProNE: "ProNE", baseline.MethodNetMF: "NetMF"}[method],
		published: published[method]}
	for s := range o.seeds {
		seed := uint64(s + 1)
		var e embedding
		var err error
		switch method {
		case "wys":
			e, err = embedWYS(ctx, o, g, seed)
			r.what = `[L \| R]`
		case "gensim":
			e, err = embedGensim(ctx, o, g, seed)
			r.what = "Y"
		default:
			e, err = embedBaseline(ctx, o, method, g, seed)
			r.what = map[string]string{baseline.MethodProNE: "the embedding", baseline.MethodNetMF: "U√S"}[method]
		}
		if err != nil {
			return row{}, err
		}
		knn, err := eval.Classify(ctx, e.res, lab)
		if err != nil {
			return row{}, err
		}
		lr, err := eval.ClassifyLogReg(ctx, e.x, g.N(), e.f, lab, eval.MultiLabelConfig{})
		if err != nil {
			return row{}, err
		}
		ml, err := eval.MultiLabel(ctx, e.x, g.N(), e.f, multi, splits, eval.MultiLabelConfig{})
		if err != nil {
			return row{}, err
		}
		cl, err := eval.Cluster(ctx, e.x, g.N(), e.f, lab.Class, eval.ClusterConfig{Seed: 1})
		if err != nil {
			return row{}, err
		}
		r.nmi, r.ari, r.acc = append(r.nmi, cl.NMI), append(r.ari, cl.ARI), append(r.acc, cl.Accuracy)
		r.micro10 = append(r.micro10, ml.At(0.1).MicroMean)
		r.micro50, r.macro50 = append(r.micro50, ml.At(0.5).MicroMean), append(r.macro50, ml.At(0.5).MacroMean)
		r.knn, r.knnVal = append(r.knn, knn.TestAccuracy), append(r.knnVal, knn.ValAccuracy)
		r.lr, r.mf1 = append(r.lr, lr.TestAccuracy), append(r.mf1, lr.TestMacroF1)
		r.took = append(r.took, e.took.Seconds())
		r.knnScores = append(r.knnScores, fmt.Sprintf("%s α %g", knn.Score, knn.Alpha))
		fmt.Fprintf(h.Stderr, "  %s seed %d: kNN rule %.1f%%, logistic regression %.1f%%, random splits %.1f%% / %.1f%%, k-means NMI %.4f (embedded in %.0f s)\n",
			r.name, seed, 100*knn.TestAccuracy, 100*lr.TestAccuracy, 100*ml.At(0.1).MicroMean, 100*ml.At(0.5).MicroMean, cl.NMI, e.took.Seconds())
	}
	return r, nil
}

// randomSplits is the number of random splits per training share.
const randomSplits = 10

// singleLabels gives each node with a class that class as its one label.
func singleLabels(lab *pipeline.Labels) *pipeline.MultiLabels {
	m := &pipeline.MultiLabels{Of: make([][]int32, len(lab.Class)), Count: lab.Classes}
	for v, c := range lab.Class {
		if c >= 0 {
			m.Of[v] = []int32{int32(c)}
		}
	}
	return m
}

// embedWYS trains wys with its defaults on the whole graph.
func embedWYS(ctx context.Context, o *options, g *pipeline.Graph, seed uint64) (embedding, error) {
	start := time.Now()
	cfg := train.Config{Dim: o.dim, Seed: seed, Epochs: o.epochs}
	res, err := train.Run(ctx, g, &pipeline.Split{N: g.N(), IDs: g.IDs, Directed: g.Directed}, cfg, nil)
	if err != nil {
		return embedding{}, err
	}
	took := time.Since(start)
	x, f, err := eval.Features(res, eval.DefaultFeatures)
	return embedding{res: res, x: x, f: f, took: took}, err
}

// embedGensim runs gensim DeepWalk and keeps its last epoch's Y, a single
// table: the kNN rule's L = R = Y, the features Y.
func embedGensim(ctx context.Context, o *options, g *pipeline.Graph, seed uint64) (embedding, error) {
	gs := o.gensim
	gs.Seed = seed
	var last benchmarks.GensimEpoch
	if err := benchmarks.RunDeepWalk(ctx, gs, g.Adj, func(ep benchmarks.GensimEpoch) error {
		last = ep
		return nil
	}); err != nil {
		return embedding{}, err
	}
	res := &pipeline.Result{N: g.N(), Half: o.dim, L: last.Y, R: last.Y}
	x, f, err := eval.Features(res, eval.FeaturesL)
	return embedding{res: res, x: x, f: f, took: time.Duration(last.Elapsed * float64(time.Second))}, err
}

// embedBaseline embeds with ProNE or NetMF at o.dim columns, as their
// authors do; the features are L (ProNE's embedding, NetMF's U√S).
func embedBaseline(ctx context.Context, o *options, method string, g *pipeline.Graph, seed uint64) (embedding, error) {
	start := time.Now()
	res, err := baseline.Run(ctx, g, &pipeline.Split{N: g.N(), IDs: g.IDs, Directed: g.Directed}, baseline.Config{Method: method, Dim: 2 * o.dim, Seed: seed}, nil)
	if err != nil {
		return embedding{}, err
	}
	took := time.Since(start)
	x, f, err := eval.Features(res, "L")
	return embedding{res: res, x: x, f: f, took: took}, err
}

// describe says what was run.
func describe(o *options, g *pipeline.Graph, lab *pipeline.Labels) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Cora (`%s.{edges,labels,split}.tsv.gz`): %d nodes, %d edges, %d classes; the Planetoid split, %d train, %d validation and %d test nodes. Every method embeds the whole graph (no label seen) with %s.\n\n",
		prefix, g.N(), g.Adj.NNZ()/2, lab.Classes, len(lab.Train), len(lab.Val), len(lab.Test), seedsText(o.seeds))
	b.WriteString("- **kNN rule**: the paper's smooth-kNN rule (`eval.Classify`), class scores exp(α·g(Y)) against the train nodes, α and the pair score (L·R, symmetrised, or Y·Y) chosen on the validation nodes; a single table is scored as L = R = Y.\n")
	b.WriteString("- **logistic regression**: one-vs-rest, C = 1 (scikit-learn's objective), fitted on the train nodes' features, each test node given the class of highest score (`eval.ClassifyLogReg`; the validation nodes are not used).\n")
	fmt.Fprintf(&b, "- **random splits**: DeepWalk's protocol, as `wys-sparse eval -labels` runs it (`eval.MultiLabel`): the same logistic regression fitted on a random %d%% or %d%% of all %d labelled nodes and scored on the rest, %d splits per share (seed 1, the same splits for every method); on single-label Cora its Micro-F1 is the accuracy. It ignores the Planetoid split, and is what DeepWalk, node2vec and most embedding papers report for Cora.\n", 10, 50, len(singleLabels(lab).Labelled()), randomSplits)
	fmt.Fprintf(&b, "- **clustering**: node clustering as `wys-sparse eval -labels -cluster` runs it (`eval.Cluster`): k-means on the same features of all %d labelled nodes into %d clusters, the best of 10 k-means++ seedings (seed 1), scored against the classes by NMI, ARI and accuracy under the best matching of clusters to classes (second table).\n\n", len(singleLabels(lab).Labelled()), lab.Classes)
	var says []string
	if o.methods["wys"] {
		says = append(says, fmt.Sprintf("wys: the sparse trainer's defaults (d = %d, %d per side, epochs %s).", o.dim, o.dim/2, benchmarks.EpochsText(o.epochs)))
	}
	if o.methods["gensim"] {
		says = append(says, fmt.Sprintf("gensim DeepWalk: %s.", o.gensim.Describe()))
	}
	if o.methods[baseline.MethodProNE] {
		says = append(says, fmt.Sprintf("ProNE (its authors' settings): %d columns.", o.dim))
	}
	if o.methods[baseline.MethodNetMF] {
		says = append(says, fmt.Sprintf("NetMF (window 10, b = 1): U√S of rank %d.", o.dim))
	}
	b.WriteString(strings.Join(says, " ") + "\n\n")
	return b.String()
}

// seedsText says which seeds ran.
func seedsText(n int) string {
	if n == 1 {
		return "seed 1"
	}
	return fmt.Sprintf("seeds 1 to %d", n)
}

// table formats the rows: mean ± sample standard deviation over the seeds.
func table(rows []row) string {
	var b strings.Builder
	b.WriteString("| method | kNN rule: test accuracy | (validation) | logistic regression: test accuracy | Macro-F1 | random splits: Micro-F1 at 10% | at 50% | Macro-F1 at 50% | features | embedding time | published on this split | kNN setting per seed |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	pct := func(xs []float64) string {
		m, s := benchmarks.MeanStd(xs)
		return fmt.Sprintf("%.1f%% ± %.1f", 100*m, 100*s)
	}
	for _, r := range rows {
		mf1, sd := benchmarks.MeanStd(r.mf1)
		took, _ := benchmarks.MeanStd(r.took)
		pub := r.published
		if pub == "" {
			pub = "—"
		}
		m50, m50sd := benchmarks.MeanStd(r.macro50)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.4f ± %.4f | %s | %s | %.4f ± %.4f | %s | %.0f s | %s | %s |\n",
			r.name, pct(r.knn), pct(r.knnVal), pct(r.lr), mf1, sd, pct(r.micro10), pct(r.micro50), m50, m50sd, r.what, took, pub, strings.Join(r.knnScores, "; "))
	}
	b.WriteString("\n| method | k-means clustering: NMI | ARI | accuracy |\n|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s", r.name)
		for _, xs := range [][]float64{r.nmi, r.ari, r.acc} {
			m, s := benchmarks.MeanStd(xs)
			fmt.Fprintf(&b, " | %.4f ± %.4f", m, s)
		}
		b.WriteString(" |\n")
	}
	return b.String()
}
