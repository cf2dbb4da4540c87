package train

import (
	"context"
	"fmt"

	"github.com/wys-project/wys/pipeline"
)

// Model is the state of a bucketed run: one block of L and of R per part
// and the attention logits.
type Model struct {
	L, R []Block
	Q    QState
}

// Init returns the model at the start of the run.
func (s *Schedule) Init() *Model {
	m := &Model{L: make([]Block, s.p), R: make([]Block, s.p), Q: s.InitQ()}
	for i := 0; i < s.p; i++ {
		m.L[i], m.R[i] = s.InitBlock(false, i), s.InitBlock(true, i)
	}
	return m
}

// Round runs the P buckets of round in order on m and then its q step,
// and returns the round's loss estimate (the buckets' sum plus the
// regulariser of q).
func (s *Schedule) Round(ctx context.Context, round int64, m *Model) (float64, error) {
	partials := make([][]float64, s.p)
	var loss float64
	for i := 0; i < s.p; i++ {
		out, err := s.BucketStep(ctx, round, i, &m.L[i], &m.R[s.Bucket(round, i)], m.Q.Logits)
		if err != nil {
			return 0, err
		}
		partials[i] = out.DQ
		loss += out.Loss
	}
	t := s.base
	t.q = m.Q.Logits
	loss += t.qRegulariser()
	return loss, s.QStep(round, &m.Q, partials)
}

// Train runs the whole schedule as a plain loop over the rounds and their
// buckets: the reference that a distributed run of the same schedule
// must equal bit for bit. It stops within a shard's work of a cancel and
// returns ctx.Err().
func (s *Schedule) Train(ctx context.Context, rec pipeline.Recorder) (*Model, error) {
	if rec == nil {
		rec = pipeline.NopRecorder{}
	}
	m := s.Init()
	rounds := s.Rounds()
	rec.Record(pipeline.Event{Kind: pipeline.StageStart, Stage: "train", Total: rounds, Unit: "rounds",
		Message: fmt.Sprintf("%s of %s, %s each", count(rounds, "round"), count(int64(s.p), "bucket"), count(int64(s.kb), "minibatch step"))})
	for round := int64(0); round < rounds; round++ {
		if _, err := s.Round(ctx, round, m); err != nil {
			return nil, err
		}
		if (round+1)%16 == 0 || round+1 == rounds {
			rec.Record(pipeline.Event{Kind: pipeline.Progress, Stage: "train", Done: round + 1, Total: rounds, Unit: "rounds"})
		}
	}
	return m, nil
}

// Embeddings gathers the blocks of m into N x d/2 matrices L and R
// (row-major, rows in node order) and returns them with Q.
func (s *Schedule) Embeddings(m *Model) (l, r []float32, Q []float64) {
	h := s.base.half
	n := s.base.n
	l, r = make([]float32, n*h), make([]float32, n*h)
	for v := 0; v < n; v++ {
		part, row := int(s.part.Of[v]), int(s.part.Local[v])
		copy(l[v*h:v*h+h], m.L[part].X[row*h:row*h+h])
		copy(r[v*h:v*h+h], m.R[part].X[row*h:row*h+h])
	}
	t := s.base
	t.q = m.Q.Logits
	return l, r, t.Q()
}

// Result returns the embeddings of m as a pipeline.Result scored on eval
// (which may be nil), with the run's length in its statistics. When ctx
// is cancelled during the scoring it returns ctx.Err().
func (s *Schedule) Result(ctx context.Context, m *Model, eval *pipeline.Split) (*pipeline.Result, error) {
	l, r, Q := s.Embeddings(m)
	t := s.base
	t.q = m.Q.Logits
	res := &pipeline.Result{Method: "sparse-bucketed", N: s.base.n, Half: s.base.half, L: l, R: r, Q: Q,
		QLogits: t.logits(), BestStep: int(s.steps)}
	if eval == nil {
		eval = &pipeline.Split{}
	}
	if err := res.Score(ctx, eval); err != nil {
		return nil, err
	}
	return res, nil
}

// EstimateBucketed is EstimateObjective for the bucketed schedule with
// the given number of partitions: the mean of the P rounds' estimates of
// one epoch's first draw (P·walks walks from stream seed) at fixed
// parameters (l, r, q), with the gradient densely. Its mean over seeds is
// the exact objective (a test checks it against package reference). It is
// meant for tests and diagnostics: memory O(N·d).
func EstimateBucketed(ctx context.Context, g *pipeline.Graph, cfg Config, partitions int, l, r []float32, q []float64, walks int, seed uint64) (*Estimate, error) {
	cfg.Seed, cfg.BatchWalks = seed, walks
	s, err := NewSchedule(g, cfg, partitions, 1)
	if err != nil {
		return nil, err
	}
	t := s.base
	h, p, mem := t.half, s.p, s.part.Members
	if len(l) != t.n*h || len(r) != t.n*h || len(q) != t.k {
		return nil, fmt.Errorf("train: EstimateBucketed: parameters of %d, %d and %d values do not fit %d nodes at d/2 = %d and %d contexts", len(l), len(r), len(q), t.n, h, t.k)
	}
	t.q = q
	Q := t.Q()
	lb, rb := make([]Block, p), make([]Block, p)
	for i := range lb {
		lb[i].X, rb[i].X = make([]float32, len(mem[i])*h), make([]float32, len(mem[i])*h)
		for row, v := range mem[i] {
			copy(lb[i].X[row*h:row*h+h], l[int(v)*h:int(v)*h+h])
			copy(rb[i].X[row*h:row*h+h], r[int(v)*h:int(v)*h+h])
		}
	}
	est := &Estimate{GradL: make([]float64, len(l)), GradR: make([]float64, len(r))}
	dQ := make([]float64, t.k)
	inv := 1 / float64(p)
	for round := int64(0); round < int64(p); round++ {
		for i := 0; i < p; i++ {
			j := s.Bucket(round, i)
			shards, err := s.sampleBucket(ctx, &t, 0, i, j, &lb[i], &rb[j], Q)
			if err != nil {
				return nil, err
			}
			for sh := range shards {
				est.Loss += inv * shards[sh].loss
				est.Pairs += int(shards[sh].pos)
				for k, x := range shards[sh].dQ {
					dQ[k] += inv * x
				}
				for _, pc := range shards[sh].pairs {
					est.addPair(int(mem[i][pc.v]), int(mem[j][pc.u]), inv*float64(pc.coef), l, r, h)
				}
			}
		}
	}
	t.finishEstimate(est, dQ, l, r)
	return est, nil
}

// count returns "1 round" or "n rounds".
func count(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
