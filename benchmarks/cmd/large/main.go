// Command large compares, on real graphs of millions of edges, the test
// ROC-AUC each method reaches against wall-clock time: wys-sparse with its
// defaults, gensim skip-gram on DeepWalk walks
// (benchmarks/gensim/deepwalk.py: 10 walks of 80 per node, window 10, 5
// negatives, 2 workers by default), scored by Y·Y and by Y·Y′ (input
// against output vectors), and, with -methods …,prone, ProNE
// (pipeline/baseline), all with the project's AUC code on the same split.
//
//	go run ./benchmarks/cmd/large -plot benchmarks/results/large -out benchmarks/results/large.md
//
// Each graph is read undirected, reduced to its largest connected
// component, and split with pipeline.SplitEdges (half of the edges held
// out by default; the training graph keeps its connectivity). Loading and
// splitting are not timed; every method's clock starts when it gets the
// training graph (gensim's after its edge list is read), so the walks,
// vocabulary and any factorization count. wys is evaluated during
// training on a 200,000-pair sample of the test pairs (its final row on
// every pair); gensim after each of its epochs on every pair. The methods
// run one after another, alone on the machine.
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
	"github.com/wys-project/wys/internal/sysmem"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/train"
)

func main() { os.Exit(benchmarks.Main("large", run)) }

// options are the command's own flags.
type options struct {
	graphs   string
	testFrac float64
	seed     uint64
	wys      train.Config
	gensim   benchmarks.Gensim
	methods  map[string]bool
	plot     string
}

// point is one evaluation of one method: test AUC after seconds.
type point struct {
	seconds, auc float64
}

// curve is one method's evaluations on one graph.
type curve struct {
	name   string
	points []point
	final  float64 // the method's final test AUC on every pair
	note   string
}

func run(ctx context.Context, h *benchmarks.Harness) error {
	o := &options{}
	fs := h.Flags
	fs.StringVar(&o.graphs, "graphs", "uk-2007-05@100000/uk-2007-05@100000.txt.gz,web-NotreDame/web-NotreDame.txt.gz", "comma-separated edge lists under -data")
	fs.Float64Var(&o.testFrac, "test-fraction", 0.5, "share of the edges held out for testing")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the split and of every method")
	methods := fs.String("methods", "wys,gensim", "methods to run: "+methodList(true))
	fs.Float64Var(&o.wys.Epochs, "epochs", 0, "wys: epochs (0: the trainer's default)")
	fs.IntVar(&o.wys.Dim, "dim", 128, "embedding width d of wys (d/2 per side) and of gensim")
	fs.StringVar(&o.plot, "plot", "", "draw test AUC against seconds to `PREFIX`-GRAPH.png, one picture per graph")
	o.gensim.Register(fs, 1, gensimEpochsHelp)
	if err := h.Parse(); err != nil {
		return err
	}
	if o.plot != "" {
		if err := h.CheckPrefix("-plot", o.plot); err != nil {
			return err
		}
	}
	o.methods = map[string]bool{}
	for _, m := range strings.Split(*methods, ",") {
		if variant(m) == nil && m != "gensim" && m != "prone" {
			return h.Usagef("-methods: unknown method %q (want %s)", m, methodList(false))
		}
		o.methods[m] = true
	}
	if !(o.testFrac > 0 && o.testFrac < 1) {
		return h.Usagef("-test-fraction %v: want a share in (0, 1)", o.testFrac)
	}
	if o.wys.Dim < 2 || o.wys.Dim%2 != 0 {
		return h.Usagef("-dim %d: want an even width of at least 2", o.wys.Dim)
	}
	if err := h.Settings(o.wys); err != nil {
		return err
	}
	if err := o.gensim.CheckMethods(ctx, h, o.methods); err != nil {
		return err
	}
	o.wys.Seed, o.gensim.Seed, o.gensim.Dim = o.seed, o.seed, o.wys.Dim
	var b strings.Builder
	b.WriteString(h.Header("Test AUC against time on large graphs"))
	fmt.Fprintf(&b, "Each graph undirected, largest connected component, %.0f%% of the edges held out (seed %d). wys: `wys-sparse` defaults (d = %d, epochs %s).", 100*o.testFrac, o.seed, o.wys.Dim, benchmarks.EpochsText(o.wys.Epochs))
	for _, v := range wysVariants[1:] {
		if o.methods[v.name] {
			fmt.Fprintf(&b, " %s: the same with `%s`%s.", strings.ReplaceAll(v.name, "-", " "), v.flag, v.note)
		}
	}
	if o.methods["gensim"] {
		fmt.Fprintf(&b, " gensim %s.", o.gensim.Describe())
	}
	if o.methods["prone"] {
		fmt.Fprintf(&b, " ProNE: `wys-sparse -method prone -dim %d` (its authors' settings, %d columns as gensim's; the factorization's time counts).", 2*o.wys.Dim, o.wys.Dim)
	}
	b.WriteString(" Seconds from the training graph to each evaluation; evaluations included for wys, excluded for gensim.\n\n")
	for _, rel := range strings.Split(o.graphs, ",") {
		text, err := compare(ctx, h, o, rel)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		b.WriteString(text)
	}
	return h.WriteResult(b.String())
}

// compare runs the methods on one graph and returns its section.
func compare(ctx context.Context, h *benchmarks.Harness, o *options, rel string) (string, error) {
	name := strings.Split(rel, "/")[0]
	g, _, err := graphio.LoadEdgeList(ctx, filepath.Join(h.Data, rel), graphio.LoadOptions{})
	if err != nil {
		return "", err
	}
	g = pipeline.LargestComponent(g)
	split, err := pipeline.SplitEdges(ctx, g, o.testFrac, o.seed)
	if err != nil {
		return "", err
	}
	tg, err := split.TrainGraph(ctx)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h.Stderr, "%s: %d nodes, %d training arcs, %d test edges\n", name, tg.N(), tg.Adj.NNZ(), len(split.Test))
	var curves []curve
	for _, v := range wysVariants {
		if !o.methods[v.name] {
			continue
		}
		c, err := runWYS(ctx, h, o, tg, split, v)
		if err != nil {
			return "", err
		}
		curves = append(curves, c)
	}
	if o.methods["gensim"] {
		cs, err := runGensim(ctx, h, o.gensim, tg, split)
		if err != nil {
			return "", err
		}
		curves = append(curves, cs...)
	}
	if o.methods["prone"] {
		c, err := runProNE(ctx, h, o.wys.Dim, o.seed, tg, split)
		if err != nil {
			return "", err
		}
		curves = append(curves, c)
	}
	if o.plot != "" {
		path := o.plot + "-" + name + ".png"
		if err := plotCurves(path, fmt.Sprintf("%s: test AUC against time", name), curves); err != nil {
			return "", err
		}
	}
	return section(name, tg, split, curves), nil
}

// wysMethod is a wys method: the sparse trainer's defaults but for the
// setting set changes, which wys-sparse spells flag.
type wysMethod struct {
	name, flag, note string
	set              func(*train.Config)
}

// wysVariants are the wys methods in the order they run: the defaults
// first, then each variant.
var wysVariants = []wysMethod{
	{"wys", "", "", func(*train.Config) {}},
	{"wys-adam", "-optimizer adam -negative-block 0", " (the defaults below 100,000 nodes: Adam, negatives pair by pair)",
		func(c *train.Config) { c.Optimizer, c.NegativeBlock = train.OptAdam, train.NegativePairs }},
	{"wys-rowrms", "-optimizer rowrms", "", func(c *train.Config) { c.Optimizer = train.OptRowRMS }},
	{"wys-warm", "-start spectral", " (L and R from the spectral factors of the walk series; the factorization counts in its time)",
		func(c *train.Config) { c.Start = train.StartSpectral }},
	{"wys-random", "-start random", " (L and R uniform noise)", func(c *train.Config) { c.Start = train.StartRandom }},
	{"wys-blocks", "-optimizer adam -negative-block 16", " (Adam, each shard's negatives as blocks of 16 x 16 pairs between 16 uniform rows of L and 16 of R, at least one per positive pair)",
		func(c *train.Config) { c.Optimizer, c.NegativeBlock = train.OptAdam, 16 }},
	{"wys-blocks5", "-optimizer adam -negatives 5 -negative-block 16", " (the same blocks, at least five per positive pair)",
		func(c *train.Config) { c.Optimizer, c.Negatives, c.NegativeBlock = train.OptAdam, 5, 16 }},
	{"wys-blocks-rowrms", "-negative-block 16 -optimizer rowrms", " (the blocks of wys blocks, with the row-wise optimiser)",
		func(c *train.Config) { c.NegativeBlock, c.Optimizer = 16, train.OptRowRMS }},
	{"wys-blocks-rmsprop", "-negative-block 16 -optimizer rmsprop", " (the blocks of wys blocks, with Adam's per-element second moments and no momentum)",
		func(c *train.Config) { c.NegativeBlock, c.Optimizer = 16, train.OptRMSProp }},
}

// variant returns the wys method named name, or nil.
func variant(name string) *wysMethod {
	for i := range wysVariants {
		if wysVariants[i].name == name {
			return &wysVariants[i]
		}
	}
	return nil
}

// methodList lists the methods for -methods, with each variant's flag
// when withFlags.
func methodList(withFlags bool) string {
	var b strings.Builder
	for _, v := range wysVariants {
		b.WriteString(v.name)
		if withFlags && v.flag != "" {
			fmt.Fprintf(&b, " (wys with %s)", v.flag)
		}
		b.WriteString(", ")
	}
	return b.String() + "gensim, prone"
}

// runWYS trains the wys method v and records its curve.
func runWYS(ctx context.Context, h *benchmarks.Harness, o *options, tg *pipeline.Graph, split *pipeline.Split, v wysMethod) (curve, error) {
	cfg := o.wys
	v.set(&cfg)
	resolved := cfg.Resolve(tg.N(), tg.Adj.NNZ())
	c := curve{name: strings.ReplaceAll(v.name, "-", " ")}
	start := time.Now()
	rec := pipeline.RecordFunc(func(e pipeline.Event) {
		if e.Kind == pipeline.Eval {
			c.points = append(c.points, point{time.Since(start).Seconds(), e.Point.TestAUC})
			fmt.Fprintf(h.Stderr, "  wys epoch %.1f  %.0fs  test AUC %.4f\n", e.Point.Epoch, time.Since(start).Seconds(), e.Point.TestAUC)
		}
	})
	res, err := train.Run(ctx, tg, split, cfg, rec)
	if err != nil {
		return c, err
	}
	total := time.Since(start).Seconds()
	c.final = res.TestAUC
	c.points = append(c.points, point{total, res.TestAUC})
	c.note = fmt.Sprintf("%g epochs, %s, negatives %s, %.2fM positive pairs/s, peak RSS %s", resolved.Epochs, resolved.Optimizer, train.NegativesText(resolved.NegativeBlock), res.Stats.PairsPerSecond/1e6, sysmem.FormatBytes(res.Stats.PeakRSS))
	return c, nil
}

// section formats one graph's table: each method's curve, and wys's AUC
// at each of gensim's points in time.
func section(name string, tg *pipeline.Graph, split *pipeline.Split, curves []curve) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n%d nodes, %d training edges, %d test edges and as many non-edges.\n\n", name, tg.N(), len(split.Train), len(split.Test))
	b.WriteString("| method | final test AUC | time (s) | test AUC at (s) | notes |\n|---|---|---|---|---|\n")
	for _, c := range curves {
		var pts []string
		for _, p := range thin(c.points, 8) {
			pts = append(pts, fmt.Sprintf("%.2f @ %s", 100*p.auc, secs(p.seconds)))
		}
		last := c.points[len(c.points)-1]
		fmt.Fprintf(&b, "| %s | %.2f | %s | %s | %s |\n", c.name, 100*c.final, secs(last.seconds), strings.Join(pts, ", "), c.note)
	}
	var ours, others []curve
	for _, c := range curves {
		if strings.HasPrefix(c.name, "wys") {
			ours = append(ours, c)
		} else {
			others = append(others, c)
		}
	}
	for _, w := range ours {
		if len(others) > 0 {
			b.WriteString("\n" + aheadTable(w, others))
		}
	}
	b.WriteString("\n")
	return b.String()
}

// aheadTable compares wys with each other curve at the other's points in
// time: wys's latest evaluation by then (its final AUC once it has ended).
func aheadTable(wys curve, others []curve) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| at the time of | seconds | its test AUC | %[1]s test AUC by then | %[1]s ahead |\n|---|---|---|---|---|\n", wys.name)
	for _, o := range others {
		for i, p := range o.points {
			w, ok := wysAt(wys, p.seconds)
			at, ahead := "none yet", "no"
			if ok {
				at = fmt.Sprintf("%.2f", 100*w)
				if w >= p.auc {
					ahead = "yes"
				}
			}
			fmt.Fprintf(&b, "| %s, point %d | %s | %.2f | %s | %s |\n", o.name, i+1, secs(p.seconds), 100*p.auc, at, ahead)
		}
	}
	return b.String()
}

// secs formats seconds with one decimal below 100.
func secs(s float64) string {
	if s < 100 {
		return fmt.Sprintf("%.1f", s)
	}
	return fmt.Sprintf("%.0f", s)
}

// wysAt returns the AUC of wys's latest point at or before seconds.
func wysAt(c curve, seconds float64) (float64, bool) {
	auc, ok := 0.0, false
	for _, p := range c.points {
		if p.seconds <= seconds {
			auc, ok = p.auc, true
		}
	}
	return auc, ok
}

// thin keeps at most k points, evenly spread, always the last.
func thin(ps []point, k int) []point {
	if len(ps) <= k {
		return ps
	}
	out := make([]point, 0, k)
	for i := 0; i < k; i++ {
		out = append(out, ps[(i+1)*len(ps)/k-1])
	}
	return out
}
