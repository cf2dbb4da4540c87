package wysbeam

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/wys-project/wys/beam/internal/beamtest"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/train"
	"github.com/wys-project/wys/sparse"
)

func TestMain(m *testing.M) {
	os.Exit(beamtest.Main(m))
}

// writeGraph writes a random undirected graph of n nodes and m edges as
// the workers' training graph.
func writeGraph(t *testing.T, dir string, n, m int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	var src, dst []int32
	for e := 0; e < m; e++ {
		u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
		if u != v {
			src, dst = append(src, u, v), append(dst, v, u)
		}
	}
	adj, err := sparse.NewFromCOO(t.Context(), n, n, src, dst, nil, sparse.DupFirst)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "graph.csr")
	if err := WriteGraph(context.Background(), path, &pipeline.Graph{Adj: adj, IDs: pipeline.IdentityIDs(n)}); err != nil {
		t.Fatal(err)
	}
	return path
}

// runPrism builds the job of cfg with the given partitions and one step
// per round on a random graph of 120 nodes, runs all its rounds on Prism
// and returns the job, its schedule and the gathered model.
func runPrism(t *testing.T, cfg train.Config, partitions int) (Job, *train.Schedule, *train.Model) {
	t.Helper()
	dir := t.TempDir()
	cj, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	job := Job{Graph: writeGraph(t, dir, 120, 480), Config: string(cj), Partitions: partitions, RoundBatches: 1,
		Dir: filepath.Join(dir, "blocks")}
	s, err := job.Schedule(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p, scope := beam.NewPipelineWithRoot()
	Build(scope, job, s.Rounds())
	if _, err := ptest.RunWithMetrics(p); err != nil {
		t.Fatal(err)
	}
	got, err := Gather(context.Background(), job, s, s.Rounds())
	if err != nil {
		t.Fatal(err)
	}
	return job, s, got
}

// TestPrismEqualsPlainLoop runs the schedule with P = 4 on Prism and
// checks the embeddings and q against the plain Go loop of the same
// schedule, bit for bit. The run has 10 rounds, so its last epoch is cut
// short (2 of 4 rounds), which exercises the q step of a partial epoch.
func TestPrismEqualsPlainLoop(t *testing.T) {
	for _, opt := range []string{train.OptAdam, train.OptRMSProp} {
		t.Run(opt, func(t *testing.T) { testPrismEqualsPlainLoop(t, opt) })
	}
}

func testPrismEqualsPlainLoop(t *testing.T, opt string) {
	cfg := train.Config{Objective: pipeline.ObjectiveConfig{C: 4}, Dim: 8, Epochs: 8, BatchWalks: 96,
		Negatives: 2, Optimizer: opt, Seed: 5, Workers: 2}
	job, s, got := runPrism(t, cfg, 4)
	rounds := s.Rounds()
	if rounds != 10 {
		t.Fatalf("%d rounds, want 10", rounds)
	}
	want, err := s.Train(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	gl, gr, _ := s.Embeddings(got)
	wl, wr, _ := s.Embeddings(want)
	if !slices.Equal(gl, wl) || !slices.Equal(gr, wr) || !slices.Equal(got.Q.Logits, want.Q.Logits) {
		t.Fatalf("Prism differs from the plain loop: L[0] %v vs %v, q %v vs %v", gl[0], wl[0], got.Q.Logits, want.Q.Logits)
	}
	// Only the last version's blocks remain.
	blocks, err := filepath.Glob(filepath.Join(job.Dir, "v*", "*.blk"))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 8 || !strings.Contains(blocks[0], fmt.Sprintf("v%06d", rounds)) {
		t.Errorf("block files left: %v, want the 8 of version %d", blocks, rounds)
	}
	for i := range got.L {
		if len(got.L[i].V) == 0 || (opt == train.OptAdam) != (len(got.L[i].M) > 0) {
			t.Fatalf("%s: block %d came back with %d first and %d second moments", opt, i, len(got.L[i].M), len(got.L[i].V))
		}
		if !slices.Equal(got.L[i].M, want.L[i].M) || !slices.Equal(got.R[i].V, want.R[i].V) {
			t.Fatalf("%s: moments of block %d differ", opt, i)
		}
	}
}

// TestPrismP1IsTrainer runs the schedule with P = 1 and one step per round
// on Prism and checks its embeddings and q against the single-machine
// trainer's (train.Run from the random start, as the schedule starts, with
// one evaluation, at the end) for the same seed,
// bit for bit.
func TestPrismP1IsTrainer(t *testing.T) {
	cfg := train.Config{Start: train.StartRandom, Objective: pipeline.ObjectiveConfig{C: 4}, Dim: 8, Epochs: 6, EvalEvery: 6, BatchWalks: 96,
		Negatives: 2, Seed: 9, Workers: 2}
	job, s, got := runPrism(t, cfg, 1)
	g, err := ReadGraph(context.Background(), job.Graph)
	if err != nil {
		t.Fatal(err)
	}
	want, err := train.Run(context.Background(), g, nil, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, r, _ := s.Embeddings(got)
	if !slices.Equal(l, want.L) || !slices.Equal(r, want.R) || !slices.Equal(got.Q.Logits, want.QLogits) {
		t.Fatalf("P = 1 on Prism differs from the trainer: L[0] %v vs %v, q %v vs %v", l[0], want.L[0], got.Q.Logits, want.QLogits)
	}
}
