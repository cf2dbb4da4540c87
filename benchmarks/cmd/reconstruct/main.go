// Command reconstruct compares wys with its peers on graph reconstruction,
// the measure of SDNE, HOPE and the GEM benchmark: each method embeds a
// whole graph, and for each node (every node up to 10,000 nodes, a seeded
// sample of 2,048 above) every other node is ranked by the method's own
// pair score; MAP is the mean average precision of the nodes' arcs and
// precision@k the share of arcs among the k best-scored pairs
// (eval.Reconstruction, as wys-sparse eval -graph reports it):
//
//	go run -tags openblas ./benchmarks/cmd/reconstruct -out benchmarks/results/reconstruct.md
//
// The methods are wys with the sparse trainer's defaults (score L_u·R_v),
// gensim skip-gram on DeepWalk walks (benchmarks/gensim/deepwalk.py,
// scored both Y_u·Y_v and Y_u·Y′_v with the output vectors Y′), ProNE and
// NetMF (pipeline/baseline at d columns, as their authors embed, scored by
// their own L·Rᵀ; NetMF only up to its dense limit of 32,768 nodes). Every
// graph is read undirected without self-loops, unweighted. -exact-logs
// trains wys with exact logs (pipeline.ObjectiveConfig.ExactLogs):
//
//	go run -tags openblas ./benchmarks/cmd/reconstruct -methods wys -exact-logs -out benchmarks/results/reconstruct-exact.md
//
// The shared flags (-data, -out, -allow-dirty) and the exit statuses are
// those of benchmarks.Harness.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/baseline"
	"github.com/wys-project/wys/pipeline/eval"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/train"
)

func main() { os.Exit(benchmarks.Main("reconstruct", run)) }

// datasets maps a dataset name to its file under -data.
var datasets = map[string]string{
	"PPI":          "PPI/Homo_sapiens.mat.gz",
	"POS":          "POS/POS.mat.gz",
	"ego-Facebook": "ego-Facebook/facebook_combined.txt.gz",
	"email-Enron":  "email-Enron/Email-Enron.txt.gz",
}

// methodNames are the methods -methods accepts, in the table's order.
var methodNames = []string{"wys", "gensim", baseline.MethodProNE, baseline.MethodNetMF}

// options are the command's own flags.
type options struct {
	datasets []string
	methods  map[string]bool
	dim      int
	seed     uint64
	rows     int
	ks       []int
	workers  int
	epochs   float64
	exact    bool
	gensim   benchmarks.Gensim
}

// row is one method's reconstruction of one graph.
type row struct {
	name string
	res  *eval.ReconstructionResult
	note string
}

func run(ctx context.Context, h *benchmarks.Harness) error {
	o, err := parseFlags(h)
	if err != nil {
		return err
	}
	if err := o.gensim.CheckMethods(ctx, h, o.methods); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(h.Header("Graph reconstruction (MAP and precision@k)"))
	fmt.Fprintf(&b, "Whole graph, undirected, no self-loops, unweighted. For each ranked node every other node is ranked by the method's pair score, its arcs being the ones to find (eval.Reconstruction, as `wys-sparse eval -graph` reports it): MAP is the mean of the ranked nodes' average precision (scikit-learn's definition, ties together), precision@k the share of arcs among the k best-scored pairs of all ranked nodes. Every node is ranked up to %d nodes, a sample of %d above (seed %d), the same nodes for every method.\n\n",
		eval.DefaultReconstructionAll, eval.DefaultReconstructionRows, o.seed)
	var says []string
	if o.methods["wys"] {
		logs := ""
		if o.exact {
			logs = ", exact logs (`-exact-logs`: no ε = 1e-5 inside them)"
		}
		says = append(says, fmt.Sprintf("wys: the sparse trainer's defaults (d = %d, %d per side, epochs %s, seed %d%s), score L_u·R_v.", o.dim, o.dim/2, benchmarks.EpochsText(o.epochs), o.seed, logs))
	}
	if o.methods["gensim"] {
		says = append(says, fmt.Sprintf("gensim DeepWalk: %s, scored Y_u·Y_v and Y_u·Y′_v (Y′: the output vectors, %d more numbers per node).", o.gensim.Describe(), o.dim))
	}
	if o.methods[baseline.MethodProNE] {
		says = append(says, fmt.Sprintf("ProNE (its authors' settings): %d columns, score Y_u·Y_v.", o.dim))
	}
	if o.methods[baseline.MethodNetMF] {
		says = append(says, fmt.Sprintf("NetMF (window 10, b = 1): rank %d, score (U√S)_u·(V√S)_v.", o.dim))
	}
	b.WriteString(strings.Join(says, " ") + "\n\n")
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
	names := fs.String("datasets", "PPI,POS,ego-Facebook,email-Enron", "comma-separated datasets: PPI, POS, ego-Facebook, email-Enron")
	methods := fs.String("methods", strings.Join(methodNames, ","), "methods to run: "+strings.Join(methodNames, ", "))
	ks := fs.String("k", "10,100,1000,10000", "comma-separated k of precision@k")
	fs.IntVar(&o.dim, "dim", 128, "numbers per node: wys d (d/2 per side), gensim's and ProNE's width, NetMF's rank")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of every method and of the sampled nodes")
	fs.IntVar(&o.rows, "rows", 0, "nodes ranked (0: eval.Reconstruction's default)")
	fs.IntVar(&o.workers, "workers", 0, "goroutines of the reconstruction (0: all cores)")
	fs.Float64Var(&o.epochs, "epochs", 0, "wys: epochs (0: the trainer's default)")
	fs.BoolVar(&o.exact, "exact-logs", false, "wys: exact logs, without the code formulation's ε = 1e-5 (wys-sparse -exact-logs)")
	o.gensim.Register(fs, 5, "gensim's default")
	if err := h.Parse(); err != nil {
		return nil, err
	}
	o.datasets = strings.Split(*names, ",")
	for _, d := range o.datasets {
		if datasets[d] == "" {
			return nil, h.Usagef("-datasets: unknown dataset %q (want PPI, POS, ego-Facebook, email-Enron)", d)
		}
	}
	var err error
	if o.methods, err = h.Methods(*methods, methodNames); err != nil {
		return nil, err
	}
	if o.ks, err = h.Ints("k", *ks, func(k int) bool { return k >= 1 }, "a whole number of at least 1"); err != nil {
		return nil, err
	}
	if o.dim < 2 || o.dim%2 != 0 || o.rows < 0 {
		return nil, h.Usagef("-dim %d, -rows %d: want an even width of at least 2 and rows of at least 0", o.dim, o.rows)
	}
	o.gensim.Seed, o.gensim.Dim = o.seed, o.dim
	return o, nil
}

// load reads a dataset undirected, unweighted, without self-loops.
func load(ctx context.Context, h *benchmarks.Harness, name string) (*pipeline.Graph, error) {
	g, _, err := graphio.LoadGraph(ctx, filepath.Join(h.Data, datasets[name]), graphio.LoadOptions{})
	return g, err
}

// evaluate embeds one dataset with each method and returns its section.
func evaluate(ctx context.Context, h *benchmarks.Harness, o *options, name string) (string, error) {
	g, err := load(ctx, h, name)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h.Stderr, "%s: %d nodes, %d arcs\n", name, g.N(), g.Adj.NNZ())
	score := func(l, r []float32, half int) (*eval.ReconstructionResult, error) {
		return eval.Reconstruction(ctx, g.Adj, l, r, half, eval.ReconstructionConfig{Rows: o.rows, K: o.ks, Seed: o.seed, Workers: o.workers})
	}
	var rows []row
	var skipped []string
	for _, m := range methodNames {
		if !o.methods[m] {
			continue
		}
		if m == baseline.MethodNetMF && g.N() > baseline.NetMFMaxNodes {
			skipped = append(skipped, fmt.Sprintf("NetMF is left out: its dense matrix takes at most %d nodes.", baseline.NetMFMaxNodes))
			continue
		}
		start := time.Now()
		var r []row
		switch m {
		case "wys":
			r, err = embedWYS(ctx, o, g, score)
		case "gensim":
			r, err = embedGensim(ctx, o, g, score)
		default:
			r, err = embedBaseline(ctx, o, m, g, score)
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", m, err)
		}
		for _, x := range r {
			fmt.Fprintf(h.Stderr, "  %s: MAP %.4f (%.0f s with the scoring)\n", x.name, x.res.MAP, time.Since(start).Seconds())
		}
		rows = append(rows, r...)
	}
	return section(name, g, o.ks, rows, skipped), nil
}

// scoreFunc scores an embedding's reconstruction of the dataset's graph.
type scoreFunc func(l, r []float32, half int) (*eval.ReconstructionResult, error)

// embedWYS trains wys with its defaults on the whole graph.
func embedWYS(ctx context.Context, o *options, g *pipeline.Graph, score scoreFunc) ([]row, error) {
	cfg := train.Config{Dim: o.dim, Seed: o.seed, Epochs: o.epochs, Objective: pipeline.ObjectiveConfig{ExactLogs: o.exact}}
	res, rc, took, err := embedWhole(g, score, func(whole *pipeline.Split) (*pipeline.Result, error) {
		return train.Run(ctx, g, whole, cfg, nil)
	})
	if err != nil {
		return nil, err
	}
	resolved := cfg.Resolve(g.N(), g.Adj.NNZ())
	return []row{{name: "wys (L_u·R_v)", res: rc, note: fmt.Sprintf("trained in %.0f s (%.0f epochs), Q₁ %.3f", took.Seconds(), resolved.Epochs, res.Q[0])}}, nil
}

// embedWhole embeds the whole graph with fit and scores the result's
// L·Rᵀ; it returns the time fit took.
func embedWhole(g *pipeline.Graph, score scoreFunc, fit func(whole *pipeline.Split) (*pipeline.Result, error)) (*pipeline.Result, *eval.ReconstructionResult, time.Duration, error) {
	start := time.Now()
	res, err := fit(&pipeline.Split{N: g.N(), IDs: g.IDs, Directed: g.Directed})
	if err != nil {
		return nil, nil, 0, err
	}
	took := time.Since(start)
	rc, err := score(res.L, res.R, res.Half)
	return res, rc, took, err
}

// embedGensim runs gensim DeepWalk and scores its last epoch both ways.
func embedGensim(ctx context.Context, o *options, g *pipeline.Graph, score scoreFunc) ([]row, error) {
	var last benchmarks.GensimEpoch
	if err := benchmarks.RunDeepWalk(ctx, o.gensim, g.Adj, func(ep benchmarks.GensimEpoch) error {
		last = ep
		return nil
	}); err != nil {
		return nil, err
	}
	note := fmt.Sprintf("embedded in %.0f s", last.Elapsed)
	yy, err := score(last.Y, last.Y, o.dim)
	if err != nil {
		return nil, err
	}
	yc, err := score(last.Y, last.YC, o.dim)
	if err != nil {
		return nil, err
	}
	return []row{{name: "gensim DeepWalk (Y_u·Y_v)", res: yy, note: note}, {name: "gensim DeepWalk (Y_u·Y′_v)", res: yc, note: note}}, nil
}

// embedBaseline embeds with ProNE or NetMF at o.dim columns per side.
func embedBaseline(ctx context.Context, o *options, method string, g *pipeline.Graph, score scoreFunc) ([]row, error) {
	_, rc, took, err := embedWhole(g, score, func(whole *pipeline.Split) (*pipeline.Result, error) {
		return baseline.Run(ctx, g, whole, baseline.Config{Method: method, Dim: 2 * o.dim, Seed: o.seed}, nil)
	})
	if err != nil {
		return nil, err
	}
	name := map[string]string{baseline.MethodProNE: "ProNE", baseline.MethodNetMF: "NetMF"}[method]
	return []row{{name: name, res: rc, note: fmt.Sprintf("embedded in %.0f s", took.Seconds())}}, nil
}

// section writes one dataset's table.
func section(name string, g *pipeline.Graph, ks []int, rows []row, skipped []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n%d nodes, %d edges", name, g.N(), g.Adj.NNZ()/2)
	if len(rows) > 0 {
		r := rows[0].res
		fmt.Fprintf(&b, "; %d nodes ranked (%d with arcs), %d pairs, %d arcs among them", r.Rows, r.RowsWithArcs, r.Pairs, r.Arcs)
	}
	b.WriteString(".\n\n| method | MAP |")
	var have []int
	for _, k := range ks {
		if len(rows) > 0 {
			if _, ok := rows[0].res.PrecisionAtK[strconv.Itoa(k)]; !ok {
				continue
			}
		}
		have = append(have, k)
		fmt.Fprintf(&b, " P@%d |", k)
	}
	b.WriteString(" notes |\n|---|---|" + strings.Repeat("---|", len(have)) + "---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %.4f |", r.name, r.res.MAP)
		for _, k := range have {
			fmt.Fprintf(&b, " %.4f |", r.res.PrecisionAtK[strconv.Itoa(k)])
		}
		fmt.Fprintf(&b, " %s |\n", r.note)
	}
	for _, s := range skipped {
		b.WriteString("\n" + s + "\n")
	}
	b.WriteString("\n")
	return b.String()
}
