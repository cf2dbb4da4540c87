// Package wysbeam runs the bucketed schedule of the sparse trainer
// (train.Schedule) as an Apache Beam pipeline: one epoch is P rounds, each
// round a ParDo over its P buckets that reads the two parameter blocks of
// its bucket from chunk files under versioned paths of a Beam filesystem,
// runs train.Schedule.BucketStep on them and writes the new blocks; the
// buckets' partial q-gradients are grouped, sorted by bucket and folded
// into q by train.Schedule.QStep, whose result is the next round's side
// input. Only bucket numbers, file versions and the small q state travel
// through Beam. Every step is deterministic, so a retried bundle rewrites
// the same bytes and the result is the plain loop's (Schedule.Train) bit
// for bit, whatever the runner or the number of workers.
package wysbeam

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/wys-project/wys/pipeline/train"
)

// Job is what every worker needs to rebuild the schedule: the training
// graph (a file of WriteGraph on any Beam filesystem), the trainer's
// configuration as JSON, P, the steps per round and the directory of the
// parameter blocks.
type Job struct {
	Graph        string `json:"graph"`
	Config       string `json:"config"`
	Partitions   int    `json:"partitions"`
	RoundBatches int    `json:"round_batches"`
	Dir          string `json:"dir"`
}

var (
	scheduleMu sync.Mutex
	schedules  = map[Job]*train.Schedule{}
)

// Schedule loads the job's graph and returns its schedule, built once per
// process and job.
func (j Job) Schedule(ctx context.Context) (*train.Schedule, error) {
	scheduleMu.Lock()
	defer scheduleMu.Unlock()
	if s, ok := schedules[j]; ok {
		return s, nil
	}
	g, err := ReadGraph(ctx, j.Graph)
	if err != nil {
		return nil, err
	}
	var cfg train.Config
	if err := json.Unmarshal([]byte(j.Config), &cfg); err != nil {
		return nil, fmt.Errorf("wysbeam: the job's configuration: %w", err)
	}
	s, err := train.NewSchedule(g, cfg, j.Partitions, j.RoundBatches)
	if err != nil {
		return nil, err
	}
	schedules[j] = s
	return s, nil
}

func init() {
	register.DoFn3x1[context.Context, int, func(int), error](&initFn{})
	register.DoFn4x1[context.Context, int, func(*int) bool, func([]byte), error](&startFn{})
	register.DoFn4x1[context.Context, int, []byte, func([]byte), error](&bucketFn{})
	register.DoFn5x1[context.Context, int, func(*[]byte) bool, []byte, func([]byte), error](&qFn{})
	register.Emitter1[int]()
	register.Emitter1[[]byte]()
	register.Iter1[int]()
	register.Iter1[[]byte]()
}

// initFn writes the blocks L_i and R_i at version 0.
type initFn struct{ Job Job }

func (f *initFn) ProcessElement(ctx context.Context, i int, emit func(int)) error {
	s, err := f.Job.Schedule(ctx)
	if err != nil {
		return err
	}
	for _, side := range []string{"L", "R"} {
		b := s.InitBlock(side == "R", i)
		if err := writeBlock(ctx, blockPath(f.Job.Dir, 0, side, i), &b); err != nil {
			return err
		}
	}
	emit(i)
	return nil
}

// startFn waits for every block of version 0 and emits the initial q.
type startFn struct{ Job Job }

func (f *startFn) ProcessElement(ctx context.Context, _ int, done func(*int) bool, emit func([]byte)) error {
	s, err := f.Job.Schedule(ctx)
	if err != nil {
		return err
	}
	var i, n int
	for done(&i) {
		n++
	}
	if n != f.Job.Partitions {
		return fmt.Errorf("wysbeam: %d of %d blocks initialised", n, f.Job.Partitions)
	}
	q := s.InitQ()
	return emitQ(ctx, f.Job.Dir, 0, &q, emit)
}

// emitQ writes q as the state at version and emits it.
func emitQ(ctx context.Context, dir string, version int64, q *train.QState, emit func([]byte)) error {
	b, err := json.Marshal(q)
	if err != nil {
		return err
	}
	if err := writeFile(ctx, qPath(dir, version), func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return err
	}
	emit(b)
	return nil
}

// partial is a bucket's message to the q step.
type partial struct {
	Bucket int       `json:"bucket"`
	DQ     []float64 `json:"dq"`
	Loss   float64   `json:"loss"`
}

// bucketFn runs bucket i of Round: reads L_i and R_j at version Round,
// steps, writes them at version Round+1 and emits its partial q-gradient.
type bucketFn struct {
	Job   Job
	Round int64
}

func (f *bucketFn) ProcessElement(ctx context.Context, i int, qb []byte, emit func([]byte)) error {
	s, q, err := f.Job.roundState(ctx, f.Round, qb)
	if err != nil {
		return err
	}
	j := s.Bucket(f.Round, i)
	l, err := readBlock(ctx, blockPath(f.Job.Dir, f.Round, "L", i))
	if err != nil {
		return err
	}
	r, err := readBlock(ctx, blockPath(f.Job.Dir, f.Round, "R", j))
	if err != nil {
		return err
	}
	out, err := s.BucketStep(ctx, f.Round, i, l, r, q.Logits)
	if err != nil {
		return err
	}
	if err := writeBlock(ctx, blockPath(f.Job.Dir, f.Round+1, "L", i), l); err != nil {
		return err
	}
	if err := writeBlock(ctx, blockPath(f.Job.Dir, f.Round+1, "R", j), r); err != nil {
		return err
	}
	b, err := json.Marshal(partial{Bucket: i, DQ: out.DQ, Loss: out.Loss})
	if err != nil {
		return err
	}
	emit(b)
	return nil
}

// qFn folds the partial q-gradients of Round, sorted by bucket, into the
// q state of the round (a side input) and emits the next one.
type qFn struct {
	Job   Job
	Round int64
}

func (f *qFn) ProcessElement(ctx context.Context, _ int, parts func(*[]byte) bool, qb []byte, emit func([]byte)) error {
	s, q, err := f.Job.roundState(ctx, f.Round, qb)
	if err != nil {
		return err
	}
	var got []partial
	var b []byte
	for parts(&b) {
		var p partial
		if err := json.Unmarshal(b, &p); err != nil {
			return fmt.Errorf("wysbeam: partial q-gradient of round %d: %w", f.Round, err)
		}
		got = append(got, p)
	}
	slices.SortFunc(got, func(a, b partial) int { return a.Bucket - b.Bucket })
	dq := make([][]float64, len(got))
	for k, p := range got {
		if p.Bucket != k {
			return fmt.Errorf("wysbeam: round %d has partial q-gradients of buckets %v, want one of each of %d", f.Round, bucketsOf(got), s.Partition().P())
		}
		dq[k] = p.DQ
	}
	if err := s.QStep(f.Round, &q, dq); err != nil {
		return err
	}
	if err := emitQ(ctx, f.Job.Dir, f.Round+1, &q, emit); err != nil {
		return err
	}
	removeBlocks(ctx, f.Job.Dir, f.Round, f.Job.Partitions)
	return nil
}

func bucketsOf(ps []partial) []int {
	out := make([]int, len(ps))
	for k, p := range ps {
		out[k] = p.Bucket
	}
	return out
}

// Build adds the whole run to the pipeline's root scope: the
// initialisation and every round of the schedule s (built from the same
// job on the driver, for the number of rounds). After the pipeline has
// run, Gather reads the result.
func Build(scope beam.Scope, job Job, rounds int64) {
	ids := make([]int, job.Partitions)
	for i := range ids {
		ids[i] = i
	}
	buckets := beam.CreateList(scope.Scope("buckets"), ids)
	inits := beam.ParDo(scope.Scope("init"), &initFn{Job: job}, buckets)
	q := beam.ParDo(scope.Scope("start"), &startFn{Job: job}, beam.GroupByKey(scope, beam.AddFixedKey(scope, inits)))
	for round := int64(0); round < rounds; round++ {
		rs := scope.Scope(fmt.Sprintf("round%06d", round))
		parts := beam.ParDo(rs, &bucketFn{Job: job, Round: round}, buckets, beam.SideInput{Input: q})
		grouped := beam.GroupByKey(rs, beam.AddFixedKey(rs, parts))
		q = beam.ParDo(rs, &qFn{Job: job, Round: round}, grouped, beam.SideInput{Input: q})
	}
}

// Gather reads the blocks and q after rounds rounds from the job's
// directory into a model of s.
func Gather(ctx context.Context, job Job, s *train.Schedule, rounds int64) (*train.Model, error) {
	p := s.Partition().P()
	m := &train.Model{L: make([]train.Block, p), R: make([]train.Block, p)}
	for i := 0; i < p; i++ {
		for _, side := range []string{"L", "R"} {
			b, err := readBlock(ctx, blockPath(job.Dir, rounds, side, i))
			if err != nil {
				return nil, err
			}
			if side == "L" {
				m.L[i] = *b
			} else {
				m.R[i] = *b
			}
		}
	}
	err := readFile(ctx, qPath(job.Dir, rounds), func(r io.Reader) error {
		return json.NewDecoder(r).Decode(&m.Q)
	})
	return m, err
}

// roundState returns the job's schedule and the q state qb of round, the
// side input every step of the round starts from.
func (j Job) roundState(ctx context.Context, round int64, qb []byte) (*train.Schedule, train.QState, error) {
	var q train.QState
	s, err := j.Schedule(ctx)
	if err != nil {
		return nil, q, err
	}
	if err := json.Unmarshal(qb, &q); err != nil {
		return nil, q, fmt.Errorf("wysbeam: q state of round %d: %w", round, err)
	}
	return s, q, nil
}
