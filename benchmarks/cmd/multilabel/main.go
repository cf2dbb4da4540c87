// Command multilabel scores embeddings on multi-label node classification
// with the protocol of DeepWalk and node2vec, on PPI (node2vec's BioGRID
// human protein network, 50 labels) and POS (Wikipedia co-occurrence, 40
// part-of-speech labels), next to the Macro-F1 that node2vec's Table 2
// publishes at 50% labelled nodes:
//
//	go run ./benchmarks/cmd/multilabel -features LR,R,LR+norm -variants default,paper+weighted+lr=0.005 \
//	    -sklearn benchmarks/sklearn/multilabel.py -plot benchmarks/results/multilabel -out benchmarks/results/multilabel.md
//
// Each graph is read from its .mat file undirected without self-loops (as
// wys-sparse -graph reads an edge list), whole (every node carries
// labels), and unweighted unless a variant says weighted. wys trains on the
// whole graph (no held-out edges) once per -variants entry: "default" is
// the sparse trainer's defaults, any other entry joins settings with "+"
// (code or paper for the formulation, weighted, lr=X, batch=N, epochs=X,
// average=S), e.g.
// "paper+weighted+lr=0.005". gensim DeepWalk (benchmarks/gensim/deepwalk.py,
// gensim's 5 epochs by default) embeds the unweighted graph. All are
// scored by eval.MultiLabel: 10 random splits per
// training ratio 10%…90% (the same splits for every method), one-vs-rest
// logistic regression with C = 1, the top-k rule, Micro- and Macro-F1
// mean ± sample standard deviation. -features lists the feature variants
// of wys to score (eval.Features: [L | R], L, R, L+R, each optionally
// "+norm"); -sklearn also scores the first variant with scikit-learn
// (benchmarks/sklearn/multilabel.py) on the same features and splits and
// reports the largest difference.
//
// The shared flags (-data, -out, -allow-dirty) and the exit statuses are
// those of benchmarks.Harness.
package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/baseline"
	"github.com/wys-project/wys/pipeline/eval"
	"github.com/wys-project/wys/pipeline/train"
)

func main() { os.Exit(benchmarks.Main("multilabel", run)) }

// datasets maps a dataset name to its file under -data.
var datasets = map[string]string{
	"PPI": "PPI/Homo_sapiens.mat.gz",
	"POS": "POS/POS.mat.gz",
}

// published is node2vec's Table 2 Macro-F1 at 50% labelled nodes (Grover
// and Leskovec, KDD 2016; POS is their "Wikipedia").
var published = map[string][]struct {
	method string
	macro  float64
}{
	"PPI": {{"DeepWalk (node2vec Table 2)", 0.1768}, {"node2vec (node2vec Table 2)", 0.1791}},
	"POS": {{"DeepWalk (node2vec Table 2)", 0.1274}, {"node2vec (node2vec Table 2)", 0.1552}},
}

// options are the command's own flags.
type options struct {
	datasets []string
	methods  map[string]bool
	features []string
	ratios   []float64
	splits   int
	seed     uint64
	c        float64
	wys      train.Config // the base of every variant
	variants []variant
	gensim   benchmarks.Gensim
	plot     string
	sklearn  string // the oracle script, empty: not run
}

// row is one method's scores on one dataset.
type row struct {
	name string
	res  *eval.MultiLabelResult
	note string
}

func run(ctx context.Context, h *benchmarks.Harness) error {
	o, err := parseFlags(h)
	if err != nil {
		return err
	}
	if err := checkPython(ctx, h, o); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(h.Header("Multi-label node classification (DeepWalk/node2vec protocol)"))
	fmt.Fprintf(&b, "Whole graph, undirected, no self-loops, unweighted unless a variant says weighted. %d random splits per training ratio (seed %d), the same for every method; one-vs-rest logistic regression (C = %g, scikit-learn's objective, fitted to convergence) on the features; each test node gets its k most likely labels, k its true number of labels. Mean ± sample standard deviation over the splits.\n\n",
		o.splits, o.seed, o.c)
	var says []string
	if o.methods["wys"] {
		says = append(says, fmt.Sprintf("wys: the sparse trainer's defaults (d = %d, epochs %s, seed %d) changed by each variant's settings (%s), features %s (eval.Features).",
			o.wys.Dim, benchmarks.EpochsText(o.wys.Epochs), o.seed, variantsText(o.variants), strings.Join(o.features, ", ")))
	}
	if o.methods["gensim"] {
		says = append(says, fmt.Sprintf("gensim DeepWalk: %s.", o.gensim.Describe()))
	}
	if o.methods[baseline.MethodNetMF] {
		says = append(says, fmt.Sprintf("NetMF (pipeline/baseline; Qiu et al., WSDM 2018, small window T = 10, b = 1): U√S of the rank-%d SVD of its matrix, as its authors embed.", o.wys.Dim))
	}
	if o.methods[baseline.MethodProNE] {
		says = append(says, fmt.Sprintf("ProNE (pipeline/baseline; Zhang et al., IJCAI 2019, its authors' settings): %d columns, as its authors embed.", o.wys.Dim))
	}
	b.WriteString(strings.Join(says, " "))
	b.WriteString("\n\n")
	for _, name := range o.datasets {
		text, err := evaluate(ctx, h, o, name)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		b.WriteString(text)
	}
	return h.WriteResult(b.String())
}

// parseFlags registers and parses the command's flags.
func parseFlags(h *benchmarks.Harness) (*options, error) {
	o := &options{}
	fs := h.Flags
	names := fs.String("datasets", "PPI,POS", "comma-separated datasets: PPI, POS")
	methods := fs.String("methods", "wys,gensim", "methods to run: wys, gensim, netmf, prone")
	variants := fs.String("variants", "default", "comma-separated wys variants: default, or settings joined by + (code, paper, weighted, lr=X, batch=N, epochs=X, average=S), e.g. paper+weighted+lr=0.005")
	features := fs.String("features", eval.DefaultFeatures, "comma-separated feature variants of wys to score (LR, L, R, L+R, each optionally +norm)")
	ratios := fs.String("ratios", "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9", "comma-separated training ratios")
	fs.IntVar(&o.splits, "splits", 10, "random splits per ratio")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the splits and of every method")
	fs.Float64Var(&o.c, "C", 1, "inverse regularisation strength of the logistic regression (scikit-learn's C)")
	fs.Float64Var(&o.wys.Epochs, "epochs", 0, "wys: epochs (0: the trainer's default)")
	fs.IntVar(&o.wys.Dim, "dim", 128, "embedding width d of wys (d/2 per side) and of gensim")
	fs.StringVar(&o.plot, "plot", "", "draw Micro- and Macro-F1 against the training ratio to `PREFIX`-DATASET.png")
	fs.StringVar(&o.sklearn, "sklearn", "", "also score wys's first feature variant with this scikit-learn `script` (benchmarks/sklearn/multilabel.py) and report the largest difference")
	fs.Float64Var(&o.wys.Objective.Beta, "beta", 0, "wys: β, the weight of Q's regulariser (0: the default)")
	fs.IntVar(&o.wys.Objective.C, "window", 0, "wys: C, the number of walk steps in the context (0: the default)")
	deepwalkQ := fs.Bool("deepwalk-q", false, "wys: fix Q to DeepWalk's window weights 1 − (k−1)/C instead of learning it")
	o.gensim.Register(fs, 5, "gensim's default")
	if err := h.Parse(); err != nil {
		return nil, err
	}
	if o.plot != "" {
		if err := h.CheckPrefix("-plot", o.plot); err != nil {
			return nil, err
		}
	}
	o.datasets = strings.Split(*names, ",")
	for _, d := range o.datasets {
		if datasets[d] == "" {
			return nil, h.Usagef("-datasets: unknown dataset %q (want PPI, POS)", d)
		}
	}
	var err error
	if o.methods, err = h.Methods(*methods, []string{"wys", "gensim", baseline.MethodNetMF, baseline.MethodProNE}); err != nil {
		return nil, err
	}
	o.features = strings.Split(*features, ",")
	for _, f := range o.features {
		if !slices.Contains(eval.FeatureVariants, strings.TrimSuffix(f, "+norm")) {
			return nil, h.Usagef("-features: unknown variant %q (want %s, each optionally +norm)", f, strings.Join(eval.FeatureVariants, ", "))
		}
	}
	if o.ratios, err = h.Floats("ratios", *ratios, func(r float64) bool { return r > 0 && r < 1 }, "a share in (0, 1)"); err != nil {
		return nil, err
	}
	if o.splits < 1 || !(o.c > 0) {
		return nil, h.Usagef("-splits %d, -C %v: want at least one split and a positive C", o.splits, o.c)
	}
	o.wys.Seed, o.gensim.Seed, o.gensim.Dim = o.seed, o.seed, o.wys.Dim
	if *deepwalkQ {
		obj := o.wys.Objective.Resolve()
		for k := range obj.C {
			o.wys.FixedQ = append(o.wys.FixedQ, 1-float64(k)/float64(obj.C))
		}
	}
	for _, spec := range strings.Split(*variants, ",") {
		v, err := parseVariant(spec, o.wys)
		if err != nil {
			return nil, h.Usagef("-variants: %v", err)
		}
		if o.methods["wys"] { // without wys no variant is trained
			o.variants = append(o.variants, v)
		}
	}
	return o, nil
}

// variantsText lists the variants for the results file.
func variantsText(vs []variant) string {
	var s []string
	for _, v := range vs {
		s = append(s, v.spec)
	}
	return strings.Join(s, "; ")
}

// evaluate embeds one dataset with each method and returns its section.
func evaluate(ctx context.Context, h *benchmarks.Harness, o *options, name string) (string, error) {
	g, lab, err := loadDataset(ctx, h, name, false)
	if err != nil {
		return "", err
	}
	var weighted *pipeline.Graph // read when a variant needs it
	splits, err := eval.MultiLabelSplits(lab.Labelled(), o.ratios, o.splits, o.seed)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h.Stderr, "%s: %d nodes, %d arcs, %d labels\n", name, g.N(), g.Adj.NNZ(), lab.Count)
	cfg := eval.MultiLabelConfig{LogReg: eval.LogRegConfig{C: o.c}}
	var rows []row
	var checks []string
	for i, v := range o.variants {
		vg := g
		if v.weighted {
			if weighted == nil {
				if weighted, _, err = loadDataset(ctx, h, name, true); err != nil {
					return "", err
				}
			}
			vg = weighted
		}
		r, check, err := scoreWYS(ctx, h, o, v, i == 0, vg, lab, splits, cfg)
		if err != nil {
			return "", err
		}
		rows, checks = append(rows, r...), append(checks, check...)
	}
	if o.methods["gensim"] {
		r, err := scoreGensim(ctx, h, o, g, lab, splits, cfg)
		if err != nil {
			return "", err
		}
		rows = append(rows, r)
	}
	for _, m := range []string{baseline.MethodNetMF, baseline.MethodProNE} {
		if !o.methods[m] {
			continue
		}
		r, err := scoreBaseline(ctx, h, o, m, g, lab, splits, cfg)
		if err != nil {
			return "", err
		}
		rows = append(rows, r)
	}
	if o.plot != "" {
		if err := plotF1(o.plot+"-"+name+".png", name, rows, published[name]); err != nil {
			return "", err
		}
	}
	return section(name, g, lab, rows, checks), nil
}

// scoreWYS trains one wys variant on the whole graph and scores each
// feature variant; with -sklearn, for the first training variant (first),
// it also scores the first features with scikit-learn and returns the
// comparison.
func scoreWYS(ctx context.Context, h *benchmarks.Harness, o *options, v variant, first bool, g *pipeline.Graph, lab *pipeline.MultiLabels, splits []eval.LabelSplit, cfg eval.MultiLabelConfig) ([]row, []string, error) {
	start := time.Now()
	whole := &pipeline.Split{N: g.N(), IDs: g.IDs, Directed: g.Directed}
	res, err := train.Run(ctx, g, whole, v.cfg, nil)
	if err != nil {
		return nil, nil, err
	}
	trained := time.Since(start)
	resolved := v.cfg.Resolve(g.N(), g.Adj.NNZ())
	fmt.Fprintf(h.Stderr, "  %s: %.0f epochs in %.1fs, Q = %s\n", v.name(), resolved.Epochs, trained.Seconds(), benchmarks.FormatQ(res.Q, 5))
	var rows []row
	var checks []string
	for i, feat := range o.features {
		x, f, err := eval.Features(res, feat)
		if err != nil {
			return nil, nil, err
		}
		t0 := time.Now()
		m, err := eval.MultiLabel(ctx, x, g.N(), f, lab, splits, cfg)
		if err != nil {
			return nil, nil, err
		}
		note := fmt.Sprintf("features %s (%d columns); trained in %.0f s (%g epochs, Q = %s), scored in %.0f s", feat, f, trained.Seconds(), resolved.Epochs, benchmarks.FormatQ(res.Q, 3), time.Since(t0).Seconds())
		fmt.Fprintf(h.Stderr, "  %s %s: Macro-F1 at 50%% %s\n", v.name(), feat, at50(m))
		rows = append(rows, row{name: v.name() + " " + feat, res: m, note: note})
		if first && i == 0 && o.sklearn != "" {
			check, err := compareSklearn(ctx, o, x, g.N(), f, lab, splits, m)
			if err != nil {
				return nil, nil, err
			}
			checks = append(checks, check)
		}
	}
	return rows, checks, nil
}

// scoreGensim embeds the graph with gensim DeepWalk and scores its input
// vectors Y after the last epoch.
func scoreGensim(ctx context.Context, h *benchmarks.Harness, o *options, g *pipeline.Graph, lab *pipeline.MultiLabels, splits []eval.LabelSplit, cfg eval.MultiLabelConfig) (row, error) {
	var last benchmarks.GensimEpoch
	err := benchmarks.RunDeepWalk(ctx, o.gensim, g.Adj, func(ep benchmarks.GensimEpoch) error {
		last = ep
		return nil
	})
	if err != nil {
		return row{}, err
	}
	x := make([]float64, len(last.Y))
	for i, v := range last.Y {
		x[i] = float64(v)
	}
	m, err := eval.MultiLabel(ctx, x, g.N(), o.gensim.Dim, lab, splits, cfg)
	if err != nil {
		return row{}, err
	}
	fmt.Fprintf(h.Stderr, "  gensim DeepWalk: %.0f s, Macro-F1 at 50%% %s\n", last.Elapsed, at50(m))
	return row{name: "gensim DeepWalk", res: m, note: fmt.Sprintf("features Y (%d columns); embedded in %.0f s", o.gensim.Dim, last.Elapsed)}, nil
}

// scoreBaseline embeds the graph with the baseline method (netmf or
// prone) at d columns (-dim), as their authors do (d/2 per side would
// halve it), and scores its L: U√S for NetMF, the embedding for ProNE.
func scoreBaseline(ctx context.Context, h *benchmarks.Harness, o *options, method string, g *pipeline.Graph, lab *pipeline.MultiLabels, splits []eval.LabelSplit, cfg eval.MultiLabelConfig) (row, error) {
	start := time.Now()
	whole := &pipeline.Split{N: g.N(), IDs: g.IDs, Directed: g.Directed}
	res, err := baseline.Run(ctx, g, whole, baseline.Config{Method: method, Dim: 2 * o.wys.Dim, Seed: o.seed}, nil)
	if err != nil {
		return row{}, err
	}
	took := time.Since(start)
	x, f, err := eval.Features(res, "L")
	if err != nil {
		return row{}, err
	}
	m, err := eval.MultiLabel(ctx, x, g.N(), f, lab, splits, cfg)
	if err != nil {
		return row{}, err
	}
	name, what := "NetMF", "U√S"
	if method == baseline.MethodProNE {
		name, what = "ProNE", "the embedding"
	}
	fmt.Fprintf(h.Stderr, "  %s: %.0f s, Macro-F1 at 50%% %s\n", name, took.Seconds(), at50(m))
	return row{name: name, res: m, note: fmt.Sprintf("features %s (%d columns); embedded in %.0f s", what, f, took.Seconds())}, nil
}

func at50(m *eval.MultiLabelResult) string {
	if r := m.At(0.5); r != nil {
		return fmt.Sprintf("%.4f", r.MacroMean)
	}
	return "—"
}
