// Package beamrun holds what wys-beam, its benchmarks and its tests need
// around the Beam SDK's launcher: a run that leaves no files behind and
// a quieter log.
package beamrun

import (
	"fmt"
	"os"
	"strings"

	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
)

// PrivateTemp points the process's temporary directory ($TMPDIR, which
// os.TempDir reads) at a new directory inside the current one, and
// returns a function that restores $TMPDIR and removes the new directory
// with everything in it. The Beam SDK's launcher creates an empty
// beamloopbackworker-* file in os.TempDir() for each pipeline it runs in
// loopback mode (Prism's default environment) and never removes it, so
// each wys-beam run used to leave two in /tmp; a launch inside
// PrivateTemp leaves nothing. Call it before launching, and restore once
// the pipeline has ended; do not run it concurrently with itself.
func PrivateTemp() (restore func(), err error) {
	dir, err := os.MkdirTemp("", "wys-beam-launch-*")
	if err != nil {
		return nil, err
	}
	old, had := os.LookupEnv("TMPDIR")
	if err := os.Setenv("TMPDIR", dir); err != nil {
		os.Remove(dir)
		return nil, err
	}
	return func() {
		if had {
			os.Setenv("TMPDIR", old)
		} else {
			os.Unsetenv("TMPDIR")
		}
		os.RemoveAll(dir)
	}, nil
}

// LogLevels are the levels SetLogLevel accepts, as the Beam SDK names them.
var LogLevels = []string{"debug", "info", "warn", "error"}

// SetLogLevel sets the level of the Beam SDK's and Prism's log lines
// (slog, on standard error); it takes effect at beam.Init. The SDK's own
// default, info, prints a dozen lines per pipeline around a command's
// output. An unknown level is an error (the SDK would exit the process).
func SetLogLevel(level string) error {
	for _, l := range LogLevels {
		if level == l {
			beamlog.LogLevel = level
			return nil
		}
	}
	return fmt.Errorf("%q: want %s", level, strings.Join(LogLevels, ", "))
}
