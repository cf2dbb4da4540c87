package train

import (
	"context"
	"fmt"
	"math"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/internal/kernels"
	"github.com/wys-project/wys/sparse"
)

// BucketStep runs the minibatch steps of round for bucket (i, Bucket(round,
// i)) on its two blocks, which it updates in place, with the attention
// logits q of the round (read only). It only reads the schedule, so the
// buckets of a round may run concurrently; the same inputs give the same
// bytes for any Config.Workers. It returns ctx.Err() within a shard's
// work of a cancel, leaving the blocks partly updated.
func (s *Schedule) BucketStep(ctx context.Context, round int64, i int, l, r *Block, q []float64) (BucketOut, error) {
	if round < 0 || round >= s.Rounds() || i < 0 || i >= s.p {
		return BucketOut{}, fmt.Errorf("train: bucket %d of round %d; the run has %d rounds of %d buckets", i, round, s.Rounds(), s.p)
	}
	j := s.Bucket(round, i)
	if err := s.checkBlocks(i, j, l, r, q); err != nil {
		return BucketOut{}, err
	}
	t := s.base
	t.q = q
	Q := t.Q()
	out := BucketOut{DQ: make([]float64, t.k)}
	epoch := round / int64(s.p)
	for k := int64(0); k < int64(s.kb); k++ {
		step := round*int64(s.kb) + k
		if step >= s.steps {
			break
		}
		shards, err := s.sampleBucket(ctx, &t, uint64(epoch*int64(s.kb)+k), i, j, l, r, Q)
		if err != nil {
			return BucketOut{}, err
		}
		var loss float64
		dQ := make([]float64, t.k)
		for sh := range shards {
			loss += shards[sh].loss
			out.Pairs += shards[sh].pos
			addTo(dQ, shards[sh].dQ)
		}
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return BucketOut{}, fmt.Errorf("train: loss %w: %v in bucket (%d, %d) at step %d (lower the learning rate)", pipeline.ErrNotFinite, loss, i, j, step)
		}
		out.Loss += loss
		addTo(out.DQ, dQ)
		t.step = step + 1
		t.updateBlocks(shards, l, r, decayedLR(s.cfg.LR, step, s.steps))
	}
	return out, nil
}

// addTo adds src to dst elementwise.
func addTo(dst, src []float64) {
	for k, x := range src {
		dst[k] += x
	}
}

// updateBlocks sums the gradients of the shards' pairs (local rows of the
// blocks l and r) in pair order in compact buffers, as the trainer's batch
// does (accumulateSorted), and applies the optimiser's step t.step to the
// rows they touch.
func (t *trainer) updateBlocks(shards []shardOut, l, r *Block, lr float64) {
	var pairs []pairCoef
	for sh := range shards {
		pairs = append(pairs, shards[sh].pairs...)
	}
	t.l, t.r = l.X, r.X
	// Both sides are summed before either is updated; the buffers are
	// reused by the bucket's next steps.
	if t.blocks == nil {
		t.blocks = make([]blockGrads, 2)
	}
	gl, gr := &t.blocks[0], &t.blocks[1]
	t.accumulateSorted(gl, pairs, nil, true)
	t.accumulateSorted(gr, pairs, nil, false)
	st := t.rowStep(lr, 0)
	gl.apply(st, l.X, l.M, l.V, t.half)
	gr.apply(st, r.X, r.M, r.V, t.half)
}

// sampleBucket draws the pairs of bucket (i, j) from the walks of draw
// (P·BatchWalks walks in the trainer's shards of batch draw) and its
// negatives, scored with the blocks l and r; the pairs carry local rows.
func (s *Schedule) sampleBucket(ctx context.Context, t *trainer, draw uint64, i, j int, l, r *Block, Q []float64) ([]shardOut, error) {
	walks := s.p * s.cfg.BatchWalks
	nShards := (walks + shardWalks - 1) / shardWalks
	share := s.share[i*s.p+j]
	negs := make([]int, nShards)
	totalNeg := 0
	for sh := range negs {
		sw := min(shardWalks, walks-sh*shardWalks)
		negs[sh] = int(math.Ceil(float64(sw*t.k*s.cfg.Negatives) * share))
		totalNeg += negs[sh]
	}
	shards := make([]shardOut, nShards)
	b := bucketDraw{s: s, t: t, i: i, j: j, l: l, r: r, Q: Q,
		wPos: t.posScale / float64(walks) * float64(s.p)}
	if totalNeg > 0 { // else every pair of the bucket is an arc: no negative term
		b.wNeg = t.negScale * share / float64(totalNeg) * float64(s.p)
	}
	err := sparse.ParallelFor(ctx, nShards, s.cfg.Workers, func(sh int) {
		sw := min(shardWalks, walks-sh*shardWalks)
		b.shard(ctx, &shards[sh], draw<<20|uint64(sh), sw, negs[sh])
	})
	if err == nil {
		err = ctx.Err()
	}
	return shards, err
}

// bucketDraw is what the shards of one bucket's minibatch share.
type bucketDraw struct {
	s          *Schedule
	t          *trainer
	i, j       int
	l, r       *Block
	Q          []float64
	wPos, wNeg float64
}

// shard draws the trainer's walks of one shard, keeping the pairs of the
// bucket, then negs negatives inside the bucket. With P = 1 this is the
// trainer's sampleShard: the same stream, draws and arithmetic.
func (b *bucketDraw) shard(ctx context.Context, out *shardOut, shard uint64, walks, negs int) {
	s, t := b.s, b.t
	rng := pipeline.Stream(s.cfg.Seed, pipeline.StreamWalk, shard)
	out.pairs, out.dQ = out.pairs[:0], make([]float64, t.k)
	out.loss, out.pos = 0, 0
	h := t.half
	of, loc := s.part.Of, s.part.Local
	bi, bj := int32(b.i), int32(b.j)
	for w := 0; w < walks; w++ {
		if w&63 == 63 && ctx.Err() != nil {
			return
		}
		v := t.walker.anchor(rng)
		lv := int(loc[v])
		cur := v
		for k := 0; k < t.c; k++ {
			next, ok := t.walker.step(rng, cur)
			if !ok {
				break
			}
			cur = next
			if of[v] != bi || of[cur] != bj {
				continue
			}
			lu := int(loc[cur])
			g := float64(kernels.Dot(b.l.X[lv*h:lv*h+h], b.r.X[lu*h:lu*h+h]))
			loss, grad := t.posTerm(g)
			out.addPair(int32(lv), int32(lu), k, b.wPos, b.Q, loss, grad)
		}
	}
	nrng := rng
	if s.p > 1 {
		nrng = pipeline.Stream(s.cfg.Seed, streamBucketNeg+uint64(b.i*s.p+b.j), shard)
	}
	mi, mj := s.part.Members[b.i], s.part.Members[b.j]
	prod := newLogProduct()
	for x := 0; x < negs; x++ {
		if x&4095 == 4095 && ctx.Err() != nil {
			return
		}
		v, u := mi[nrng.IntN(len(mi))], mj[nrng.IntN(len(mj))]
		for s.adj.Has(int(v), int(u)) {
			v, u = mi[nrng.IntN(len(mi))], mj[nrng.IntN(len(mj))]
		}
		lv, lu := int(loc[v]), int(loc[u])
		g := float64(kernels.Dot(b.l.X[lv*h:lv*h+h], b.r.X[lu*h:lu*h+h]))
		out.pairs = append(out.pairs, pairCoef{int32(lv), int32(lu), t.negTerm(out, &prod, g, b.wNeg)})
	}
	out.loss -= b.wNeg * prod.log()
}

// QStep adds the partial q-gradients of round's buckets, given in bucket
// order, to the epoch's sum in q, and at the last round of an epoch (P
// rounds, or the run's last round) takes one Adam step of q with the
// epoch's mean: the trainer's update, with its learning rate at the
// epoch's last step times P (P rounds' worth of q steps in one, so that q
// moves as fast per epoch as in the trainer) and the epoch as the step
// count. With a fixed Q it does nothing.
//
// q steps once per epoch, not once per round, because a round sees only
// the pairs of its buckets: the C steps of a walk fall into different
// buckets, and the ∂J/∂Q_k of one round differ by the sampling noise of
// that split, which is much larger than the differences between them that
// the q-gradient is made of (on a 400-node graph ±50 around 220 where the
// trainer's batch gives 438 ± 1); an epoch's rounds together take every
// pair of its walks once, and their sum has the trainer's precision.
func (s *Schedule) QStep(round int64, q *QState, partials [][]float64) error {
	t := s.base
	if len(partials) != s.p || len(q.Logits) != t.k || len(q.M) != t.k || len(q.V) != t.k || len(q.Sum) != t.k {
		return fmt.Errorf("train: q step of round %d with %d partial gradients and %d logits, want %d and %d", round, len(partials), len(q.Logits), s.p, t.k)
	}
	if t.fixedQ != nil {
		return nil
	}
	for i, p := range partials {
		if len(p) != t.k {
			return fmt.Errorf("train: partial q-gradient of bucket %d has %d entries, want %d", i, len(p), t.k)
		}
		addTo(q.Sum, p)
	}
	if (round+1)%int64(s.p) != 0 && round+1 != s.Rounds() {
		return nil
	}
	epoch := round / int64(s.p)
	inv := 1 / float64(round-epoch*int64(s.p)+1)
	dQ := make([]float64, t.k)
	for k, x := range q.Sum {
		dQ[k] = x * inv
	}
	clear(q.Sum)
	t.q, t.mq, t.vq = q.Logits, q.M, q.V
	t.step = epoch + 1
	last := min((round+1)*int64(s.kb), s.steps) - 1
	t.updateQ(dQ, s.cfg.QLR*decayedLR(s.cfg.LR, last, s.steps)/s.cfg.LR*float64(s.p))
	return nil
}
