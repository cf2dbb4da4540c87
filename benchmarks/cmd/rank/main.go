// Command rank compares wys with its peers on link prediction scored by
// ranking, as PyTorch-BigGraph and the knowledge-graph literature report
// it, beside the ROC-AUC of the paper's protocol, on the released splits:
//
//	go run -tags openblas ./benchmarks/cmd/rank -out benchmarks/results/rank.md
//
// Each method embeds the split's training graph. Each test edge's tail is
// then ranked against -candidates nodes drawn uniformly and its head
// against as many others (eval.Rank, as wys-sparse eval -mrr runs it:
// unfiltered, ties counted half), giving MRR, Hits@1/10/50 and the mean
// rank; the ROC-AUC is against the split's test non-edges. The methods
// are wys with the sparse trainer's defaults (score L_u·R_v), gensim
// skip-gram on DeepWalk walks (benchmarks/gensim/deepwalk.py, scored
// Y_u·Y_v and Y_u·Y′_v with its output vectors Y′) and ProNE (its
// authors' settings, d columns, scored by its L·Rᵀ = Y·Yᵀ).
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

func main() { os.Exit(benchmarks.Main("rank", run)) }

// methodNames are the methods -methods accepts, in the table's order.
var methodNames = []string{"wys", "gensim", baseline.MethodProNE}

// options are the command's own flags.
type options struct {
	datasets   []string
	methods    map[string]bool
	dim        int
	seed       uint64
	candidates int
	epochs     float64
	gensim     benchmarks.Gensim
}

// row is one scoring of one embedding of one split.
type row struct {
	dataset, name string
	auc           float64
	rank          *eval.RankResult
	took          time.Duration
}

func run(ctx context.Context, h *benchmarks.Harness) error {
	o, err := parseFlags(h)
	if err != nil {
		return err
	}
	if err := o.gensim.CheckMethods(ctx, h, o.methods); err != nil {
		return err
	}
	// Every split is read, and -candidates checked against it, before
	// any method runs.
	splits := make([]*pipeline.Split, len(o.datasets))
	for i, ds := range o.datasets {
		if splits[i], err = graphio.LoadSplitDir(ctx, filepath.Join(h.Data, ds, "asymproj"), false); err != nil {
			return err
		}
		if o.candidates >= splits[i].N-2 {
			return h.Usagef("-candidates %d: as many as %s's %d nodes other than a pair's two, or more: give fewer", o.candidates, ds, splits[i].N-2)
		}
	}
	var rows []row
	for i, ds := range o.datasets {
		s := splits[i]
		tg, err := s.TrainGraph(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(h.Stderr, "%s: %d nodes, %d train / %d test edges\n", ds, s.N, len(s.Train), len(s.Test))
		for _, m := range methodNames {
			if !o.methods[m] {
				continue
			}
			got, err := embed(ctx, o, m, tg, s)
			if err != nil {
				return fmt.Errorf("%s, %s: %w", ds, m, err)
			}
			for i := range got {
				got[i].dataset = ds
				fmt.Fprintf(h.Stderr, "  %s: AUC %.4f, MRR %.4f (embedded in %.0f s)\n", got[i].name, got[i].auc, got[i].rank.MRR, got[i].took.Seconds())
			}
			rows = append(rows, got...)
		}
	}
	return h.WriteResult(h.Header("Link prediction by ranking on the released splits") + describe(o) + table(rows, o.candidates))
}

// parseFlags registers and parses the command's flags.
func parseFlags(h *benchmarks.Harness) (*options, error) {
	o := &options{}
	fs := h.Flags
	ds := fs.String("datasets", "ca-HepTh,ego-Facebook,PPI", "released splits under -data (DATASET/asymproj), undirected")
	methods := fs.String("methods", strings.Join(methodNames, ","), "methods to run: "+strings.Join(methodNames, ", "))
	fs.IntVar(&o.dim, "dim", 128, "numbers per node: wys d (d/2 per side), gensim's and ProNE's width")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of every method and of the ranking candidates")
	fs.IntVar(&o.candidates, "candidates", 1000, "candidates per side of each test edge")
	fs.Float64Var(&o.epochs, "epochs", 0, "wys: epochs (0: the trainer's default)")
	o.gensim.Register(fs, 1, "one pass, as the README's example")
	if err := h.Parse(); err != nil {
		return nil, err
	}
	var err error
	if o.datasets, err = h.Names("datasets", *ds); err != nil {
		return nil, err
	}
	if o.methods, err = h.Methods(*methods, methodNames); err != nil {
		return nil, err
	}
	if o.dim < 2 || o.dim%2 != 0 || o.candidates < 1 {
		return nil, h.Usagef("-dim %d, -candidates %d: want an even width of at least 2 and at least 1 candidate", o.dim, o.candidates)
	}
	o.gensim.Dim, o.gensim.Seed = o.dim, o.seed
	return o, nil
}

// embed embeds the training graph tg with method and scores s's test
// pairs; gensim gives two rows (Y·Y and Y·Y′).
func embed(ctx context.Context, o *options, method string, tg *pipeline.Graph, s *pipeline.Split) ([]row, error) {
	start := time.Now()
	var res *pipeline.Result
	var err error
	switch method {
	case "wys":
		res, err = train.Run(ctx, tg, s, train.Config{Dim: o.dim, Seed: o.seed, Epochs: o.epochs}, nil)
	case baseline.MethodProNE:
		res, err = baseline.Run(ctx, tg, s, baseline.Config{Method: method, Dim: 2 * o.dim, Seed: o.seed}, nil)
	default:
		var last benchmarks.GensimEpoch
		err = benchmarks.RunDeepWalk(ctx, o.gensim, tg.Adj, func(ep benchmarks.GensimEpoch) error {
			last = ep
			return nil
		})
		if err != nil {
			return nil, err
		}
		took := time.Duration(last.Elapsed * float64(time.Second))
		yy, err := score(ctx, o, "gensim DeepWalk (Y_u·Y_v)", last.Y, last.Y, o.dim, s, took)
		if err != nil {
			return nil, err
		}
		yc, err := score(ctx, o, "gensim DeepWalk (Y_u·Y′_v)", last.Y, last.YC, o.dim, s, took)
		return []row{yy, yc}, err
	}
	if err != nil {
		return nil, err
	}
	name := map[string]string{"wys": "wys (L_u·R_v)", baseline.MethodProNE: "ProNE"}[method]
	r, err := score(ctx, o, name, res.L, res.R, res.Half, s, time.Since(start))
	return []row{r}, err
}

// score ranks s's test pairs by l_u·r_v (width w) and takes their AUC.
func score(ctx context.Context, o *options, name string, l, r []float32, w int, s *pipeline.Split, took time.Duration) (row, error) {
	rk, err := eval.Rank(ctx, l, r, w, s.N, s.Test, eval.RankConfig{Negatives: o.candidates, Seed: o.seed})
	if err != nil {
		return row{}, err
	}
	return row{name: name, auc: pipeline.PairAUC(l, r, w, s.Test, s.TestNeg), rank: rk, took: took}, nil
}

// describe says what ran.
func describe(o *options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Splits: %s (`DATASET/asymproj`, undirected). Each method embeds the training graph with seed %d. Ranking (`eval.Rank`, as `wys-sparse eval -mrr %d` runs it): each test edge's tail against %d nodes drawn uniformly (seed %d) and its head against as many others, unfiltered, ties counted half; MRR, Hits@k and the mean rank over both sides of every test edge. ROC-AUC: the test edges against the split's test non-edges.\n\n",
		strings.Join(o.datasets, ", "), o.seed, o.candidates, o.candidates, o.seed)
	var says []string
	if o.methods["wys"] {
		says = append(says, fmt.Sprintf("wys: the sparse trainer's defaults (d = %d, %d per side, epochs %s).", o.dim, o.dim/2, benchmarks.EpochsText(o.epochs)))
	}
	if o.methods["gensim"] {
		says = append(says, fmt.Sprintf("gensim DeepWalk: %s; its time runs from the edge list to the vectors.", o.gensim.Describe()))
	}
	if o.methods[baseline.MethodProNE] {
		says = append(says, fmt.Sprintf("ProNE (its authors' settings): %d columns.", o.dim))
	}
	b.WriteString(strings.Join(says, " ") + "\n\n")
	return b.String()
}

// table formats the rows; a Hits@k whose k exceeds the candidates is 1
// by definition (a rank is at most candidates + 1) and marked so.
func table(rows []row, candidates int) string {
	var b strings.Builder
	b.WriteString("| split | method | ROC-AUC | MRR | Hits@1 | Hits@10 | Hits@50 | mean rank | embedding time |\n|---|---|---|---|---|---|---|---|---|\n")
	hits := func(r row, k int) string {
		cell := fmt.Sprintf("%.4f", r.rank.Hits[strconv.Itoa(k)])
		if k > candidates {
			cell += "*"
		}
		return cell
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %.4f | %.4f | %s | %s | %s | %.1f | %.0f s |\n",
			r.dataset, r.name, r.auc, r.rank.MRR, hits(r, 1), hits(r, 10), hits(r, 50), r.rank.MeanRank, r.took.Seconds())
	}
	if candidates < 50 {
		fmt.Fprintf(&b, "\n\\* k exceeds the %d candidates, so every rank is within it: 1 by definition, not a measurement.\n", candidates)
	}
	return b.String()
}
