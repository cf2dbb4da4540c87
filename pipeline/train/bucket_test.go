package train_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/train"
)

// TestBucketedP1IsTrainer checks that the bucketed schedule with one
// partition and one step per round is the single-machine trainer: the
// same seed gives Run's embeddings and attention logits bit for bit (Run
// evaluates once, at the end, so it keeps the last step).
func TestBucketedP1IsTrainer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		f        pipeline.Formulation
		directed bool
		opt      string
		workers  int
	}{
		{"code-adam", pipeline.FormulationCode, false, train.OptAdam, 1},
		{"code-adam-3workers", pipeline.FormulationCode, false, train.OptAdam, 3},
		{"code-rmsprop-2workers", pipeline.FormulationCode, false, train.OptRMSProp, 2},
		{"paper-directed-sgd", pipeline.FormulationPaper, true, train.OptSGD, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := smallGraph(120, 500, c.directed, 4)
			cfg := train.Config{Start: train.StartRandom, Objective: pipeline.ObjectiveConfig{Formulation: c.f, C: 4},
				Dim: 8, Epochs: 20, EvalEvery: 20, BatchWalks: 100, Negatives: 2, Optimizer: c.opt,
				Seed: 7, Workers: c.workers}
			want, err := train.Run(context.Background(), g, nil, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			s, err := train.NewSchedule(g, cfg, 1, 1)
			if err != nil {
				t.Fatal(err)
			}
			if s.Steps() != 24 {
				t.Fatalf("%d steps, want the trainer's 24 batches", s.Steps())
			}
			m, err := s.Train(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			l, r, _ := s.Embeddings(m)
			if !slices.Equal(l, want.L) || !slices.Equal(r, want.R) || !slices.Equal(m.Q.Logits, want.QLogits) {
				t.Fatalf("P = 1 differs from the trainer: L[0] %v vs %v, q %v vs %v", l[0], want.L[0], m.Q.Logits, want.QLogits)
			}
		})
	}
}

// bucketedRun trains g with the bucketed schedule and returns the
// gathered embeddings and logits.
func bucketedRun(t *testing.T, g *pipeline.Graph, cfg train.Config, parts, roundBatches int) ([]float32, []float32, []float64) {
	t.Helper()
	s, err := train.NewSchedule(g, cfg, parts, roundBatches)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Train(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	l, r, _ := s.Embeddings(m)
	return l, r, m.Q.Logits
}

// TestBucketedDeterministic checks that the result depends on the seed and
// P only: the same bytes for 1 and 3 workers and when a round's buckets
// run in reverse order, and different bytes for another P.
func TestBucketedDeterministic(t *testing.T) {
	t.Parallel()
	for _, opt := range []string{train.OptAdam, train.OptRMSProp} {
		t.Run(opt, func(t *testing.T) {
			t.Parallel()
			testBucketedDeterministic(t, opt)
		})
	}
}

func testBucketedDeterministic(t *testing.T, opt string) {
	g := smallGraph(150, 600, false, 5)
	cfg := train.Config{Objective: pipeline.ObjectiveConfig{C: 5}, Dim: 8, Epochs: 10, BatchWalks: 64,
		Negatives: 2, Optimizer: opt, Seed: 3, Workers: 1}
	l1, r1, q1 := bucketedRun(t, g, cfg, 4, 2)
	cfg.Workers = 3
	l3, r3, q3 := bucketedRun(t, g, cfg, 4, 2)
	if !slices.Equal(l1, l3) || !slices.Equal(r1, r3) || !slices.Equal(q1, q3) {
		t.Fatal("1 and 3 workers give different embeddings")
	}
	// The buckets of each round in reverse order, the partial q-gradients
	// still passed in bucket order.
	s, err := train.NewSchedule(g, cfg, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	m := s.Init()
	for round := int64(0); round < s.Rounds(); round++ {
		partials := make([][]float64, 4)
		for i := 3; i >= 0; i-- {
			out, err := s.BucketStep(context.Background(), round, i, &m.L[i], &m.R[s.Bucket(round, i)], m.Q.Logits)
			if err != nil {
				t.Fatal(err)
			}
			partials[i] = out.DQ
		}
		if err := s.QStep(round, &m.Q, partials); err != nil {
			t.Fatal(err)
		}
	}
	lr, rr, _ := s.Embeddings(m)
	if !slices.Equal(l1, lr) || !slices.Equal(r1, rr) || !slices.Equal(q1, m.Q.Logits) {
		t.Fatal("running a round's buckets in another order changes the embeddings")
	}
	l2, _, _ := bucketedRun(t, g, cfg, 2, 2)
	if slices.Equal(l1, l2) {
		t.Fatal("P = 2 and P = 4 give the same embeddings")
	}
}

// TestBucketedLearnsTrainersQ checks on a small graph that the context
// distribution learned by the bucketed schedule (P = 2 and 4, one step per
// round) is close to the trainer's, and that it reaches an objective as
// low: the mean of 20 trainer estimates of 4096 walks each (unbiased, see
// TestEstimatorUnbiased), within 2%.
func TestBucketedLearnsTrainersQ(t *testing.T) {
	if testing.Short() {
		t.Skip("three training runs of 120 epochs; skipped under -short")
	}
	t.Parallel()
	g := smallGraph(400, 1600, false, 9)
	cfg := train.Config{Start: train.StartRandom, Objective: pipeline.ObjectiveConfig{C: 5}, Dim: 16, Epochs: 120, EvalEvery: 120,
		BatchWalks: 256, Seed: 11}
	want, err := train.Run(context.Background(), g, nil, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	objective := func(l, r []float32, q []float64) float64 {
		var sum float64
		for d := range 20 {
			est, err := train.EstimateObjective(context.Background(), g, cfg, l, r, q, 4096, uint64(100+d))
			if err != nil {
				t.Fatal(err)
			}
			sum += est.Loss
		}
		return sum / 20
	}
	ref := objective(want.L, want.R, want.QLogits)
	wantQ := pipeline.Softmax(want.QLogits)
	for _, p := range []int{2, 4} {
		l, r, q := bucketedRun(t, g, cfg, p, 1)
		Q := pipeline.Softmax(q)
		for k := range Q {
			if math.Abs(Q[k]-wantQ[k]) > 0.03 {
				t.Errorf("P = %d: Q = %.3f, the trainer's %.3f", p, Q, wantQ)
				break
			}
		}
		if got := objective(l, r, q); got > 1.02*ref {
			t.Errorf("P = %d: objective %.4g, the trainer's %.4g", p, got, ref)
		}
	}
}

// TestPartition checks the degree-balanced partition by brute force:
// every node in exactly one part, at its row, sizes within one, the P
// largest hubs in P different parts.
func TestPartition(t *testing.T) {
	g := smallGraph(103, 400, false, 2)
	const p = 5
	pt, err := train.NewPartition(g.Adj, p)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]int, g.N())
	sizes := make([]int, 0, p)
	for part, mem := range pt.Members {
		if !slices.IsSorted(mem) {
			t.Errorf("part %d is not in node order", part)
		}
		for row, v := range mem {
			seen[v]++
			if int(pt.Of[v]) != part || int(pt.Local[v]) != row {
				t.Errorf("node %d: Of %d Local %d, found in part %d row %d", v, pt.Of[v], pt.Local[v], part, row)
			}
		}
		sizes = append(sizes, len(mem))
	}
	for v, k := range seen {
		if k != 1 {
			t.Fatalf("node %d is in %d parts", v, k)
		}
	}
	if slices.Max(sizes)-slices.Min(sizes) > 1 {
		t.Errorf("part sizes %v differ by more than one", sizes)
	}
	order := make([]int, g.N())
	for v := range order {
		order[v] = v
	}
	slices.SortStableFunc(order, func(a, b int) int { return g.Adj.RowNNZ(b) - g.Adj.RowNNZ(a) })
	hubs := map[int32]bool{}
	for _, v := range order[:p] {
		hubs[pt.Of[v]] = true
	}
	if len(hubs) != p {
		t.Errorf("the %d largest hubs fall in %d parts", p, len(hubs))
	}
	if _, err := train.NewPartition(g.Adj, 0); err == nil {
		t.Error("0 partitions accepted")
	}
}

// TestScheduleRefuses checks that settings the bucketed schedule cannot
// honour are refused with a message naming them.
func TestScheduleRefuses(t *testing.T) {
	g := smallGraph(30, 90, false, 1)
	for _, c := range []struct {
		cfg  train.Config
		want string
	}{
		{train.Config{Optimizer: train.OptPercentDelta}, "percentdelta"},
		{train.Config{Optimizer: train.OptRowRMS}, "rowrms"},
		{train.Config{Start: train.StartSpectral}, "random start"},
		{train.Config{Objective: pipeline.ObjectiveConfig{PPR: 0.2}}, "PPR"},
		{train.Config{Converge: true}, "convergence"},
		{train.Config{NegativeBlock: 4}, "negative blocks"},
		{train.Config{Average: 0.5}, "tail averaging"},
	} {
		if _, err := train.NewSchedule(g, c.cfg, 2, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %q", c.cfg, err, c.want)
		}
	}
	if _, err := train.NewSchedule(g, train.Config{}, 2, 0); err == nil {
		t.Error("0 steps per round accepted")
	}
}

// TestScheduleStartMessage checks the counts in the run's start line, in
// the singular where they are 1.
func TestScheduleStartMessage(t *testing.T) {
	t.Parallel()
	g := smallGraph(60, 200, false, 4)
	cfg := train.Config{Start: train.StartRandom, Objective: pipeline.ObjectiveConfig{C: 4},
		Dim: 4, BatchWalks: 60, Negatives: 1, Seed: 7}
	for _, c := range []struct {
		parts, roundBatches int
		epochs              float64
		want                string
	}{
		{1, 1, 1, "1 round of 1 bucket, 1 minibatch step each"},
		{2, 2, 4, "%d rounds of 2 buckets, 2 minibatch steps each"},
	} {
		cfg.Epochs = c.epochs
		s, err := train.NewSchedule(g, cfg, c.parts, c.roundBatches)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(c.want, "%d") {
			if s.Rounds() < 2 {
				t.Fatalf("P = %d: %d round, want several", c.parts, s.Rounds())
			}
			c.want = fmt.Sprintf(c.want, s.Rounds())
		}
		var got string
		rec := pipeline.RecordFunc(func(e pipeline.Event) {
			if e.Kind == pipeline.StageStart && e.Stage == "train" {
				got = e.Message
			}
		})
		if _, err := s.Train(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("P = %d: start line %q, want %q", c.parts, got, c.want)
		}
	}
}
