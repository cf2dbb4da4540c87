// Command directed builds a directed test graph of about -nodes nodes
// from a shared SNAP graph (an induced subgraph around its best-connected
// node), splits it with reversed-arc negatives, writes the split with
// graphio.WriteSplitDir, reads it back, and trains the dense reference and
// the sparse trainer on it, side by side.
//
//	go run -tags openblas ./benchmarks/cmd/directed -out benchmarks/results/directed.md
//
// The subgraph: a breadth-first search from the node of largest in- plus
// out-degree, following arcs in both directions, keeps the first -nodes
// nodes it reaches; the graph induced by them (every arc between two kept
// nodes) is reduced to its largest weakly connected component and split
// by pipeline.SplitEdges, which holds out -test-fraction of the arcs with
// as many uniform non-edges, and a second negative list of the reversed
// test arcs that are not arcs themselves together with those non-edges
// (test.directed.neg.txt.npy, as the paper's AsymProj splits). Both
// trainers are scored on the same pairs, at the step with the best train
// AUC.
//
// The shared flags (-data, -out, -allow-dirty) and the exit statuses are
// those of benchmarks.Harness.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/reference"
	"github.com/wys-project/wys/pipeline/train"
)

func main() { os.Exit(benchmarks.Main("directed", run)) }

// options are the command's own flags.
type options struct {
	graph, splitOut, trainers string
	nodes, dim, steps         int
	testFrac, epochs          float64
	seed                      uint64
}

func run(ctx context.Context, h *benchmarks.Harness) error {
	o := &options{}
	fs := h.Flags
	fs.StringVar(&o.graph, "graph", "soc-Slashdot0902/soc-Slashdot0902.txt.gz", "directed SNAP edge list under -data")
	fs.IntVar(&o.nodes, "nodes", 7000, "nodes of the induced subgraph (before its largest component is kept)")
	fs.Float64Var(&o.testFrac, "test-fraction", 0.5, "share of the arcs held out")
	fs.StringVar(&o.splitOut, "split-out", "", "write the split to `DIR` (default: a temporary folder, removed at the end)")
	fs.StringVar(&o.trainers, "trainers", "dense,sparse", "trainers to run: dense, sparse")
	fs.IntVar(&o.dim, "dim", 128, "embedding width d")
	fs.IntVar(&o.steps, "steps", 300, "dense: full-batch steps")
	fs.Float64Var(&o.epochs, "epochs", 0, "sparse: epochs (0: the trainer's default)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the split and of both trainers")
	if err := h.Parse(); err != nil {
		return err
	}
	for _, tr := range strings.Split(o.trainers, ",") {
		if tr != "dense" && tr != "sparse" {
			return h.Usagef("-trainers: unknown trainer %q (want dense, sparse)", tr)
		}
	}
	if o.nodes < 10 {
		return h.Usagef("-nodes %d: want at least 10", o.nodes)
	}
	if o.steps < 1 {
		return h.Usagef("-steps %d: want at least 1", o.steps)
	}
	if err := h.Settings(o.denseConfig(), o.sparseConfig()); err != nil {
		return err
	}
	split, dir, err := buildSplit(ctx, h, o)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(h.Header("A directed test graph: dense reference and sparse trainer"))
	fmt.Fprintf(&b, "The graph induced by the first %d nodes of a breadth-first search (arcs followed both ways) from the node of largest degree of `%s`, its largest weakly connected component: %d nodes, %d training arcs, %d test arcs, as many uniform non-edges; the directed negatives add %d reversed test arcs that are not arcs to those non-edges. Split seed %d, written by `graphio.WriteSplitDir` to %s and read back. d = %d, code formulation, seed %d; dense %d PercentDelta steps; sparse defaults, epochs %s. Test AUC at the selected step (dense: the best train AUC; sparse: the last within two standard errors of it).\n\n",
		o.nodes, o.graph, split.N, len(split.Train), len(split.Test), len(split.TestDirectedNeg)-len(split.TestNeg), o.seed, dir, o.dim, o.seed, o.steps, benchmarks.EpochsText(o.epochs))
	b.WriteString("| trainer | test AUC (non-edges) | test AUC (reversed arcs and non-edges) | time |\n|---|---|---|---|\n")
	for _, tr := range strings.Split(o.trainers, ",") {
		start := time.Now()
		var res *pipeline.Result
		if tr == "dense" {
			res, err = benchmarks.RunSplit(ctx, reference.Run, split, o.denseConfig(), nil)
		} else {
			res, err = benchmarks.RunSplit(ctx, train.Run, split, o.sparseConfig(), nil)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", tr, err)
		}
		took := time.Since(start)
		fmt.Fprintf(h.Stderr, "%s: test AUC %.4f, reversed %.4f, %v\n", tr, res.TestAUC, res.TestDirectedAUC, took.Round(time.Second))
		fmt.Fprintf(&b, "| %s | %.2f | %.2f | %.1f s |\n", tr, 100*res.TestAUC, 100*res.TestDirectedAUC, took.Seconds())
	}
	return h.WriteResult(b.String())
}

// denseConfig is the dense reference's configuration.
func (o *options) denseConfig() reference.Config {
	return reference.Config{Dim: o.dim, Steps: o.steps, Seed: o.seed}
}

// sparseConfig is the sparse trainer's configuration.
func (o *options) sparseConfig() train.Config {
	return train.Config{Dim: o.dim, Epochs: o.epochs, Seed: o.seed}
}

// buildSplit builds the subgraph, splits it, writes the split (to
// -split-out or a temporary folder) and reads it back; it returns the
// split read and the folder's description.
func buildSplit(ctx context.Context, h *benchmarks.Harness, o *options) (*pipeline.Split, string, error) {
	g, _, err := graphio.LoadEdgeList(ctx, filepath.Join(h.Data, o.graph), graphio.LoadOptions{Directed: true})
	if err != nil {
		return nil, "", err
	}
	sub := pipeline.LargestComponent(pipeline.Induced(g, bfsNodes(g, o.nodes)))
	split, err := pipeline.SplitEdges(ctx, sub, o.testFrac, o.seed)
	if err != nil {
		return nil, "", err
	}
	dir, desc := o.splitOut, "`"+o.splitOut+"`"
	if dir == "" {
		if dir, err = os.MkdirTemp("", "wys-directed-*"); err != nil {
			return nil, "", err
		}
		defer os.RemoveAll(dir)
		desc = "a temporary folder"
	}
	if err := graphio.WriteSplitDir(ctx, dir, split); err != nil {
		return nil, "", err
	}
	back, err := graphio.LoadSplitDir(ctx, dir, true)
	if err != nil {
		return nil, "", err
	}
	return back, desc, nil
}

// bfsNodes returns, ascending, the first k rows a breadth-first search
// reaches from the row of largest in- plus out-degree, following arcs in
// both directions (all rows when the search reaches fewer).
func bfsNodes(g *pipeline.Graph, k int) []int32 {
	n := g.N()
	in := g.Adj.Transpose()
	start, best := 0, -1
	for v := 0; v < n; v++ {
		a, _ := g.Adj.Row(v)
		b, _ := in.Row(v)
		if len(a)+len(b) > best {
			start, best = v, len(a)+len(b)
		}
	}
	seen := make([]bool, n)
	seen[start] = true
	order := []int32{int32(start)}
	for i := 0; i < len(order) && len(order) < k; i++ {
		v := int(order[i])
		a, _ := g.Adj.Row(v)
		b, _ := in.Row(v)
		for _, u := range append(slices.Clip(a), b...) {
			if !seen[u] && len(order) < k {
				seen[u] = true
				order = append(order, u)
			}
		}
	}
	slices.Sort(order)
	return order
}
