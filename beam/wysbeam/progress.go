package wysbeam

import (
	"context"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
)

// RoundsDone returns the number of the job's rounds that have finished,
// scanning up from from (rounds known to be done) to at most rounds: a
// round's last step writes the q state of the next version, after the
// round's blocks. The driver calls it while the pipeline runs, to show
// progress: the files are on the filesystem every worker writes to.
func (j Job) RoundsDone(ctx context.Context, from, rounds int64) (int64, error) {
	fs, err := filesystem.New(ctx, qPath(j.Dir, from))
	if err != nil {
		return from, err
	}
	defer fs.Close()
	done := from
	for done < rounds {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		if _, err := fs.Size(ctx, qPath(j.Dir, done+1)); err != nil {
			break // not written yet
		}
		done++
	}
	return done, nil
}
