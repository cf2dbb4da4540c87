// Command overhead measures what running the bucketed schedule on Beam
// costs on one machine: for each number of minibatch steps per round, the
// same rounds of ca-HepTh's split are run by the plain Go loop
// (train.Schedule.Train) and by the Beam pipeline on Prism in-process,
// and the single-machine trainer runs the same steps; it reports the time
// per round and per step, the parameter-block bytes read and written per
// epoch of P rounds, and checks that Prism's embeddings equal the loop's.
//
//	cd beam && go run ./benchmarks/cmd/overhead -data ../../shared/datasets -round-batches 1,8,32 \
//	    -out ../benchmarks/results/beam-overhead.md
//
// The shared flags (-data, -out, -allow-dirty) and the exit statuses are
// those of benchmarks.Harness.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/wys-project/wys/beam/internal/beamrun"
	"github.com/wys-project/wys/beam/wysbeam"
	"github.com/wys-project/wys/benchmarks"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/train"
)

func main() {
	beamrun.SetLogLevel("warn") // Prism's info lines would bury the progress
	beam.Init()
	os.Exit(benchmarks.Main("overhead", run))
}

// options are the command's own flags.
type options struct {
	split, perRound string
	parts, dim      int
	epochs          float64
}

func run(ctx context.Context, h *benchmarks.Harness) error {
	restore, err := beamrun.PrivateTemp() // Prism's launcher files go there
	if err != nil {
		return err
	}
	defer restore()
	o := &options{}
	h.Flags.StringVar(&o.split, "split", "ca-HepTh/asymproj", "released split folder under -data")
	h.Flags.StringVar(&o.perRound, "round-batches", "1,8", "minibatch steps per bucket and round, comma-separated")
	h.Flags.IntVar(&o.parts, "partitions", 4, "P")
	h.Flags.IntVar(&o.dim, "dim", 128, "embedding width d")
	h.Flags.Float64Var(&o.epochs, "epochs", 2, "epochs of the run")
	if err := h.Parse(); err != nil {
		return err
	}
	var ks []int
	for _, f := range strings.Split(o.perRound, ",") {
		k, err := strconv.Atoi(f)
		if err != nil || k < 1 {
			return h.Usagef("-round-batches: %q is not a number of steps", f)
		}
		ks = append(ks, k)
	}
	s, err := graphio.LoadSplitDir(ctx, filepath.Join(h.Data, o.split), false)
	if err != nil {
		return err
	}
	g, err := s.TrainGraph(ctx)
	if err != nil {
		return err
	}
	cfg := train.Config{Dim: o.dim, Epochs: o.epochs, Seed: 1, EvalEvery: o.epochs}
	tmp, err := os.MkdirTemp("", "wys-overhead-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var b strings.Builder
	b.WriteString(h.Header("The bucketed schedule on Beam (Prism, in-process) against the plain loop and the trainer"))
	start := time.Now()
	if _, err := train.Run(ctx, g, nil, cfg, nil); err != nil {
		return err
	}
	trainer := time.Since(start)
	one, err := train.NewSchedule(g, cfg, 1, 1)
	if err != nil {
		return err
	}
	steps := one.Steps() // the trainer's batches
	fmt.Fprintf(&b, "`%s`: %d nodes, %d training arcs; d = %d, %g epochs (%d minibatch steps of %d walks), P = %d. The trainer takes %.2f s (%.1f ms per step). Block bytes: the L and R blocks with their Adam moments, each read and written once per round; an epoch (N walks) is N/256 steps. Through Beam itself travel only bucket numbers and the q state (a few hundred bytes per bucket and round).\n\n",
		o.split, g.N(), g.Adj.NNZ(), o.dim, o.epochs, steps, train.Config{}.Resolve(g.N(), g.Adj.NNZ()).BatchWalks, o.parts,
		trainer.Seconds(), 1000*trainer.Seconds()/float64(steps))
	b.WriteString("| steps per round | rounds | plain loop: s per round | Prism: s per round | Prism / loop | Prism / trainer (per step) | block bytes per round | block bytes per epoch (N walks) | equal |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, k := range ks {
		line, err := measure(ctx, h, g, cfg, o.parts, k, filepath.Join(tmp, fmt.Sprint(k)), trainer.Seconds()/float64(steps))
		if err != nil {
			return err
		}
		b.WriteString(line)
	}
	return h.WriteResult(b.String())
}

// measure runs one setting with the loop and on Prism and returns its
// table row.
func measure(ctx context.Context, h *benchmarks.Harness, g *pipeline.Graph, cfg train.Config, parts, k int, dir string, trainerPerStep float64) (string, error) {
	cj, err := json.Marshal(cfg)
	if err != nil {
		return "", err
	}
	job := wysbeam.Job{Graph: dir + "/graph.csr", Config: string(cj), Partitions: parts, RoundBatches: k, Dir: dir + "/blocks"}
	if err := wysbeam.WriteGraph(ctx, job.Graph, g); err != nil {
		return "", err
	}
	s, err := job.Schedule(ctx)
	if err != nil {
		return "", err
	}
	rounds := s.Rounds()
	start := time.Now()
	want, err := s.Train(ctx, nil)
	if err != nil {
		return "", err
	}
	loop := time.Since(start).Seconds() / float64(rounds)
	p, scope := beam.NewPipelineWithRoot()
	wysbeam.Build(scope, job, rounds)
	start = time.Now()
	if _, err := prism.Execute(ctx, p); err != nil {
		return "", err
	}
	onPrism := time.Since(start).Seconds() / float64(rounds)
	got, err := wysbeam.Gather(ctx, job, s, rounds)
	if err != nil {
		return "", err
	}
	gl, gr, _ := s.Embeddings(got)
	wl, wr, _ := s.Embeddings(want)
	equal := slices.Equal(gl, wl) && slices.Equal(gr, wr) && slices.Equal(got.Q.Logits, want.Q.Logits)
	var bytes int64
	for i := range got.L {
		for _, blk := range []train.Block{got.L[i], got.R[i]} {
			bytes += int64(4 * (len(blk.X) + len(blk.M) + len(blk.V)))
		}
	}
	perRound := 2 * bytes // every block read and written once
	stepsPerEpoch := float64(g.N()) / float64(s.Config().BatchWalks)
	fmt.Fprintf(h.Stderr, "K = %d: %d rounds, loop %.3f s, Prism %.3f s per round, equal %v\n", k, rounds, loop, onPrism, equal)
	return fmt.Sprintf("| %d | %d | %.3f | %.3f | %.1f | %.1f | %.1f MB | %.0f MB | %v |\n", k, rounds, loop, onPrism, onPrism/loop,
		onPrism/(float64(k)*trainerPerStep), float64(perRound)/1e6, float64(perRound)/1e6*stepsPerEpoch/float64(k), equal), nil
}
