package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/wys-project/wys/beam/wysbeam"
)

// Progress of the training pipeline, read from the rounds' files as the
// workers write them: a line once the run is past progressQuiet, then on
// every tenth of the rounds or after progressEvery.
var (
	progressPoll  = 2 * time.Second
	progressQuiet = 5 * time.Second
	progressEvery = 30 * time.Second
)

// executeWatched runs the training pipeline p of job, printing its
// progress to w while it runs.
func executeWatched(ctx context.Context, p *beam.Pipeline, job wysbeam.Job, rounds int64, w io.Writer) error {
	stop := watchRounds(ctx, job, rounds, w)
	defer stop()
	return execute(ctx, p)
}

// watchRounds polls how many of the job's rounds are done while the
// pipeline runs and writes progress lines to w; the returned function
// stops it (and waits for it) before w is written again.
func watchRounds(ctx context.Context, job wysbeam.Job, rounds int64, w io.Writer) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		var done, shown int64
		var lastLine time.Time
		tick := time.NewTicker(progressPoll)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			done, _ = job.RoundsDone(ctx, done, rounds)
			elapsed := time.Since(start)
			if done == shown || done == 0 || elapsed < progressQuiet ||
				(10*(done-shown) < rounds && time.Since(lastLine) < progressEvery) {
				continue
			}
			eta := time.Duration(float64(elapsed) / float64(done) * float64(rounds-done))
			fmt.Fprintf(w, "[train] round %d/%d  %3.0f%%  %.3f s per round  ETA %s\n",
				done, rounds, 100*float64(done)/float64(rounds), elapsed.Seconds()/float64(done), eta.Round(time.Second))
			shown, lastLine = done, time.Now()
		}
	}()
	return func() { cancel(); wg.Wait() }
}
