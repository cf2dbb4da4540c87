package train

import (
	"errors"
	"fmt"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// streamBucketNeg is the stream purpose of a bucket's negatives when
// P > 1; the bucket's ordinal i·P + j is added to it.
const streamBucketNeg uint64 = 0x6e656762 << 32 // "negb"

// Schedule is the bucketed schedule of the sparse trainer, in the manner
// of PyTorch-BigGraph: the nodes are split into P parts (NewPartition), L
// and R are held as one Block per part, and round ρ trains the P buckets
// (i, (i + ρ) mod P), i = 0..P−1, a Latin square: each block is used by
// exactly one bucket of a round, so the buckets of a round can run on
// different machines without locks. A round is RoundBatches minibatch
// steps of each of its buckets, and P rounds are an epoch of the
// schedule. The steps are numbered as the trainer's batches (step s of
// the schedule has the trainer's learning rate and Adam step count of
// batch s) and the run has as many of them as the trainer would.
//
// The walks of an epoch's k-th step are drawn once, P·BatchWalks of them
// from the trainer's streams of batch e·RoundBatches + k, and each round
// of the epoch takes the pairs that fall into its buckets, so every pair
// drawn is used exactly once. Negatives are uniform over the non-edges:
// bucket (i, j) gets its share by area (|P_i|·|P_j| minus its arcs, over
// N² minus all arcs) of each shard's negatives, drawn uniformly inside
// the bucket and rejected against its arcs. Each weight is P times the
// trainer's, so a round's loss and gradient are unbiased estimates of the
// whole objective's when the round is chosen at random, and the mean of
// the P rounds of an epoch is one for any parameters (checked against the
// dense reference). The attention logits q are global: a round's buckets
// return their partial q-gradients, summed in bucket order, and one Adam
// step of q per epoch of P rounds (Schedule.QStep) gives the next epoch's
// q.
//
// With P = 1 and RoundBatches = 1 the schedule is the trainer: the same
// seed gives Run's embeddings bit for bit (with one evaluation at the
// end, so that the last step is kept). The result depends on the seed, P
// and RoundBatches only, not on Config.Workers or on the order in which a
// round's buckets run.
type Schedule struct {
	cfg   Config
	adj   *sparse.CSR
	part  *Partition
	p, kb int
	steps int64
	base  trainer   // the estimator weights, walker and shapes; copied per call
	share []float64 // bucket i·P + j: its share of the non-edges
}

// Block is one part's rows of L or R (in the order of
// Partition.Members, d/2 wide) with their optimiser state: Adam's moments
// M and V, RMSProp's second moments V (M nil), or neither (SGD).
type Block struct {
	X, M, V []float32
}

// QState is the attention logits q with their Adam moments, and the sum
// of the partial q-gradients of the current epoch's rounds so far.
type QState struct {
	Logits, M, V, Sum []float64
}

// BucketOut is what a bucket step returns: its partial q-gradient
// (∂J/∂Q_k estimates of its pairs, summed over its steps), its loss
// estimate and the positive pairs it used.
type BucketOut struct {
	DQ    []float64
	Loss  float64
	Pairs int64
}

// BucketedConfig returns cfg with the bucketed schedule's own defaults
// in place of the trainer's, as NewSchedule runs it: the random start
// and pair-by-pair negatives at any size. Its Resolve and EstimateMemory
// are those of the schedule's run.
func BucketedConfig(cfg Config) Config {
	if cfg.Start == "" {
		cfg.Start = StartRandom
	}
	if cfg.NegativeBlock == 0 {
		cfg.NegativeBlock = NegativePairs
	}
	return cfg
}

// NewSchedule returns the bucketed schedule of g under cfg with the given
// number of partitions and minibatch steps per round. It supports the
// walk source with Adam, RMSProp or SGD and pair-by-pair negatives; the settings
// that need the whole graph's parameters at once (PercentDelta, the
// factored source, the warm start, PPR and Adamic–Adar contexts, negative
// blocks) or the trainer's evaluation loop
// (Converge, TimeBudget, checkpoints) are refused.
func NewSchedule(g *pipeline.Graph, cfg Config, partitions, roundBatches int) (*Schedule, error) {
	if err := CheckBucketed(cfg); err != nil {
		return nil, err
	}
	if err := checkSampleable(g); err != nil {
		return nil, err
	}
	if roundBatches < 1 {
		return nil, fmt.Errorf("train: %d minibatch steps per round; want at least 1", roundBatches)
	}
	part, err := NewPartition(g.Adj, partitions)
	if err != nil {
		return nil, err
	}
	n := g.N()
	// The schedule's own defaults, at any size: the random start and
	// pair-by-pair negatives (the trainer's spectral start and, on large
	// graphs, its negative blocks need the whole graph's parameters). The
	// optimizer follows the trainer's size rule, Adam below
	// DefaultBlockNodes nodes and RMSProp from there: on uk-2007-05@100000
	// (20 epochs, benchmarks/results/bucketed-uk-rmsprop.md against
	// bucketed-uk.md) RMSProp ends P = 4 and 8 at 97.88 and 98.04 where
	// Adam, whose momentum a block carries from one partner to the next,
	// ends at 97.43 and 97.32.
	cfg = BucketedConfig(cfg).Resolve(n, g.Adj.NNZ())
	walksTotal, err := plannedWalks(cfg, n, "") // no time budget here
	if err != nil {
		return nil, err
	}
	obj := cfg.Objective
	s := &Schedule{cfg: cfg, adj: g.Adj, part: part, p: partitions, kb: roundBatches}
	s.base = trainer{cfg: cfg, adj: g.Adj, n: n, half: cfg.Dim / 2, c: obj.C, k: obj.Contexts(),
		paper: obj.Formulation == pipeline.FormulationPaper}
	s.base.walker = newWalker(g.Adj, s.base.paper)
	s.base.setScales(g)
	if cfg.FixedQ != nil {
		s.base.fixedQ = normalisedQ(cfg.FixedQ)
	}
	s.steps = (walksTotal + int64(cfg.BatchWalks) - 1) / int64(cfg.BatchWalks)
	s.setShares(g.Adj)
	return s, nil
}

// CheckBucketed refuses cfg as NewSchedule would before it reads the
// graph: an invalid setting, or one the bucketed schedule cannot use; a
// command checks its flags with it before any work.
func CheckBucketed(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	return bucketedSupports(cfg)
}

// bucketedSupports reports a setting the bucketed schedule cannot use.
func bucketedSupports(cfg Config) error {
	obj := cfg.Objective
	switch {
	case cfg.Optimizer == OptPercentDelta:
		return errors.New("train: the bucketed schedule supports the adam, rmsprop and sgd optimizers, not percentdelta (its step scale is a mean over all parameters)")
	case cfg.Optimizer == OptRowRMS:
		return errors.New("train: the bucketed schedule supports the adam, rmsprop and sgd optimizers, not rowrms (its blocks carry per-element moments)")
	case cfg.Source == SourceFactored || cfg.Start == StartSpectral || cfg.Start == StartLogSVD:
		return errors.New("train: the bucketed schedule supports the walk source and the random start, not the factored source or the spectral and log-SVD starts (the factorization needs the whole graph's parameters)")
	case cfg.NegativeBlock > 0:
		return errors.New("train: the bucketed schedule draws its negatives pair by pair inside each bucket, not in negative blocks")
	case obj.PPR > 0 || obj.AdamicAdar:
		return errors.New("train: the bucketed schedule supports the walk contexts only, not PPR or Adamic–Adar")
	case cfg.Converge || cfg.TimeBudget > 0 || cfg.Checkpoint != nil || cfg.Resume != nil:
		return errors.New("train: the bucketed schedule runs a fixed number of epochs: no convergence rule, time budget or checkpoints")
	case cfg.Average > 0:
		return errors.New("train: the bucketed schedule returns its last step; tail averaging (average) is a setting of the in-memory trainer")
	}
	return nil
}

// normalisedQ returns a fixed context distribution normalised to sum 1.
func normalisedQ(q []float64) []float64 {
	var sum float64
	for _, x := range q {
		sum += x
	}
	out := make([]float64, len(q))
	for i, x := range q {
		out[i] = x / sum
	}
	return out
}

// setShares sets each bucket's share of the non-edges: (|P_i|·|P_j| −
// arcs in the bucket) / (N² − arcs), exactly 1 for P = 1.
func (s *Schedule) setShares(adj *sparse.CSR) {
	p, of := s.p, s.part.Of
	arcs := make([]int, p*p)
	for v := 0; v < s.base.n; v++ {
		idx, _ := adj.Row(v)
		for _, u := range idx {
			arcs[int(of[v])*p+int(of[u])]++
		}
	}
	n := s.base.n
	s.share = make([]float64, p*p)
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			area := float64(len(s.part.Members[i])) * float64(len(s.part.Members[j]))
			s.share[i*p+j] = (area - float64(arcs[i*p+j])) / (float64(n)*float64(n) - float64(adj.NNZ()))
		}
	}
}

// Partition returns the schedule's partition.
func (s *Schedule) Partition() *Partition { return s.part }

// Config returns the resolved configuration.
func (s *Schedule) Config() Config { return s.cfg }

// Rounds returns the number of rounds of the run.
func (s *Schedule) Rounds() int64 { return (s.steps + int64(s.kb) - 1) / int64(s.kb) }

// Steps returns the number of minibatch steps of the run: the trainer's
// number of batches.
func (s *Schedule) Steps() int64 { return s.steps }

// Bucket returns the R block that block L_i is paired with in round.
func (s *Schedule) Bucket(round int64, i int) int { return (i + int(round%int64(s.p))) % s.p }

// InitBlock returns block i of L (right false) or R at the start: entries
// U(−0.1, 0.1) as the trainer's. With P = 1 they are the trainer's own
// (one stream, L then R); otherwise L_i comes from the init stream's shard
// 1 + 2i and R_i from shard 2 + 2i, so a worker can draw its block alone.
func (s *Schedule) InitBlock(right bool, i int) Block {
	h := s.base.half
	rows := len(s.part.Members[i])
	b := Block{X: make([]float32, rows*h)}
	var rng = pipeline.Stream(s.cfg.Seed, pipeline.StreamInit, uint64(1+2*i))
	if right {
		rng = pipeline.Stream(s.cfg.Seed, pipeline.StreamInit, uint64(2+2*i))
	}
	if s.p == 1 {
		rng = pipeline.Stream(s.cfg.Seed, pipeline.StreamInit, 0)
		if right {
			for range s.base.n * h {
				rng.Float64()
			}
		}
	}
	for x := range b.X {
		b.X[x] = float32(rng.Float64()*0.2 - 0.1)
	}
	m, v := s.blockMoments(rows * h)
	b.M, b.V = zeroed(m), zeroed(v)
	return b
}

// blockMoments returns the lengths of the moment arrays M and V that a
// block of n values carries under the schedule's optimizer: both for
// Adam, V alone for RMSProp, none for SGD.
func (s *Schedule) blockMoments(n int) (m, v int) {
	switch s.cfg.Optimizer {
	case OptAdam:
		return n, n
	case OptRMSProp:
		return 0, n
	}
	return 0, 0
}

// zeroed returns n zeros, or nil for n = 0 (a block without that state).
func zeroed(n int) []float32 {
	if n == 0 {
		return nil
	}
	return make([]float32, n)
}

// InitQ returns the attention logits at the start (q = 1, as the
// trainer's) with zero moments.
func (s *Schedule) InitQ() QState {
	k := s.base.k
	q := QState{Logits: make([]float64, k), M: make([]float64, k), V: make([]float64, k), Sum: make([]float64, k)}
	for i := range q.Logits {
		q.Logits[i] = 1
	}
	return q
}

// checkBlocks reports blocks whose shapes do not fit bucket (i, j).
func (s *Schedule) checkBlocks(i, j int, l, r *Block, q []float64) error {
	h := s.base.half
	for _, c := range []struct {
		b    *Block
		part int
		name string
	}{{l, i, "L"}, {r, j, "R"}} {
		want := len(s.part.Members[c.part]) * h
		wantM, wantV := s.blockMoments(want)
		if len(c.b.X) != want || len(c.b.M) != wantM || len(c.b.V) != wantV {
			return fmt.Errorf("train: block %s_%d has %d values (moments %d, %d), want %d (moments %d, %d) for its %d nodes at d/2 = %d with %s",
				c.name, c.part, len(c.b.X), len(c.b.M), len(c.b.V), want, wantM, wantV, len(s.part.Members[c.part]), h, s.cfg.Optimizer)
		}
	}
	if len(q) != s.base.k {
		return fmt.Errorf("train: %d attention logits, want %d", len(q), s.base.k)
	}
	return nil
}
