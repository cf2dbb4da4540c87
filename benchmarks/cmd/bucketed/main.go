// Command bucketed compares the bucketed schedule of the sparse trainer
// (train.Schedule, the plain Go loop that the Beam pipeline of beam/
// equals bit for bit) with the single-machine trainer on a released split:
// test AUC, learned Q and time for each number of partitions.
//
//	go run ./benchmarks/cmd/bucketed -epochs 50 -partitions 4,8 -out benchmarks/results/bucketed.md
//
// Every row trains the same number of minibatch steps from the same seed
// and is scored at its last step (the trainer with one evaluation at the
// end), so the rows differ by the schedule only. The shared flags (-data,
// -out, -allow-dirty) and the exit statuses are those of
// benchmarks.Harness.
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
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/train"
)

func main() { os.Exit(benchmarks.Main("bucketed", run)) }

func run(ctx context.Context, h *benchmarks.Harness) error {
	var split, graph, parts, opt string
	var epochs float64
	var dim, roundBatches int
	var seed uint64
	fs := h.Flags
	fs.StringVar(&split, "split", "ca-HepTh/asymproj", "released split folder under -data")
	fs.StringVar(&graph, "graph", "", "edge list under -data instead of -split: its largest component, half of the edges held out by pipeline.SplitEdges (as benchmarks/cmd/large)")
	fs.StringVar(&parts, "partitions", "4,8", "numbers of partitions P, comma-separated")
	fs.Float64Var(&epochs, "epochs", 50, "epochs of every row (0: the trainer's default)")
	fs.IntVar(&dim, "dim", 128, "embedding width d")
	fs.IntVar(&roundBatches, "round-batches", 1, "minibatch steps of each bucket per round")
	fs.StringVar(&opt, "optimizer", train.OptAdam, "optimizer of every row: adam, rmsprop or sgd (negatives pair by pair, as the schedule draws them)")
	fs.Uint64Var(&seed, "seed", 1, "seed of every row")
	if err := h.Parse(); err != nil {
		return err
	}
	ps, err := h.Ints("partitions", parts, func(p int) bool { return p >= 1 }, "a number of partitions (at least 1)")
	if err != nil {
		return err
	}
	s, err := loadSplit(ctx, h, split, graph, seed)
	if err != nil {
		return err
	}
	if graph != "" {
		split = graph
	}
	g, err := s.TrainGraph(ctx)
	if err != nil {
		return err
	}
	// The bucketed schedule starts from noise and draws its negatives pair
	// by pair, so the trainer does too, with the same optimizer (on graphs
	// of 100,000 nodes or more the trainer's own defaults would otherwise
	// be rmsprop in negative blocks, which the schedule refuses).
	cfg := train.Config{Dim: dim, Epochs: epochs, Seed: seed, Start: train.StartRandom,
		Optimizer: opt, NegativeBlock: train.NegativePairs}.Resolve(g.N(), g.Adj.NNZ())
	if err := cfg.Validate(); err != nil {
		return h.Usagef("%v", err)
	}
	cfg.EvalEvery = cfg.Epochs // one evaluation, at the end: the last step
	// Refuse a partition count before any training.
	for _, p := range ps {
		if _, err := train.NewSchedule(g, cfg, p, roundBatches); err != nil {
			return h.Usagef("%v", err)
		}
	}
	var b strings.Builder
	b.WriteString(h.Header("The bucketed schedule against the single-machine trainer"))
	fmt.Fprintf(&b, "`%s`: %d nodes, %d training arcs. d = %d, %g epochs of %d-walk steps, seed %d, the random start, %s with negatives %s, otherwise the trainer's defaults; %d minibatch steps per bucket and round. Test AUC of the last step.\n\n",
		split, g.N(), g.Adj.NNZ(), dim, cfg.Epochs, cfg.BatchWalks, seed, cfg.Optimizer, train.NegativesText(cfg.NegativeBlock), roundBatches)
	b.WriteString("| schedule | test AUC | Δ vs trainer (points) | Q | time |\n|---|---|---|---|---|\n")
	start := time.Now()
	ref, err := train.Run(ctx, g, s, cfg, nil)
	if err != nil {
		return err
	}
	row(h, &b, "trainer", ref, ref, time.Since(start))
	for _, p := range ps {
		start := time.Now()
		sch, err := train.NewSchedule(g, cfg, p, roundBatches)
		if err != nil {
			return err
		}
		m, err := sch.Train(ctx, nil)
		if err != nil {
			return err
		}
		res, err := sch.Result(ctx, m, s)
		if err != nil {
			return err
		}
		row(h, &b, fmt.Sprintf("P = %d", p), res, ref, time.Since(start))
	}
	return h.WriteResult(b.String())
}

// row adds one schedule's line to b and reports it on stderr.
func row(h *benchmarks.Harness, b *strings.Builder, name string, res, ref *pipeline.Result, took time.Duration) {
	q := make([]string, len(res.Q))
	for k, x := range res.Q {
		q[k] = fmt.Sprintf("%.2f", x)
	}
	fmt.Fprintf(h.Stderr, "%s: test AUC %.4f, %v\n", name, res.TestAUC, took.Round(time.Second))
	fmt.Fprintf(b, "| %s | %.2f | %+.2f | %s | %.1f s |\n", name, 100*res.TestAUC, 100*(res.TestAUC-ref.TestAUC), strings.Join(q, " "), took.Seconds())
}

// loadSplit reads the released split under -data, or with graph set the
// edge list's largest component split in half with seed.
func loadSplit(ctx context.Context, h *benchmarks.Harness, split, graph string, seed uint64) (*pipeline.Split, error) {
	if graph == "" {
		return graphio.LoadSplitDir(ctx, filepath.Join(h.Data, split), false)
	}
	g, _, err := graphio.LoadEdgeList(ctx, filepath.Join(h.Data, graph), graphio.LoadOptions{})
	if err != nil {
		return nil, err
	}
	return pipeline.SplitEdges(ctx, pipeline.LargestComponent(g), 0.5, seed)
}
