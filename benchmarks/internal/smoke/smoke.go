// Package smoke runs the benchmark commands on tiny inputs in their
// tests: through the harness as main does, checking the exit status and
// what the command printed, and, for commands that start themselves again
// as child processes, making the test binary act as the command.
package smoke

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/wys-project/wys/internal/datasets"
)

// Command runs a benchmark command with args and returns its exit status:
// benchmarks.Run bound to the command's name and run function (Bind).
type Command func(ctx context.Context, args []string, stdout, stderr io.Writer) int

// Bind returns the Command that runs run through start, benchmarks.Run,
// under the command's name. It is generic in the harness type so that this
// package does not import benchmarks and sits beside it in the layering:
//
//	var command = smoke.Bind(benchmarks.Run, "speed", run)
func Bind[H any](start func(context.Context, string, []string, io.Writer, io.Writer, func(context.Context, H) error) int,
	name string, run func(context.Context, H) error) Command {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
		return start(ctx, name, args, stdout, stderr, run)
	}
}

// Data returns the data mirror's folder, or skips the test with a message
// when the mirror or one of the paths rel under it is missing.
func Data(tb testing.TB, rel ...string) string {
	tb.Helper()
	for _, r := range rel {
		datasets.Path(tb, r)
	}
	return datasets.Dir()
}

// Run runs cmd with args, fails the test unless it exits with status 0
// and prints each of want on stdout, and returns what it printed.
func Run(tb testing.TB, cmd Command, args []string, want ...string) string {
	tb.Helper()
	var stdout, stderr bytes.Buffer
	if code := cmd(context.Background(), args, &stdout, &stderr); code != 0 {
		tb.Fatalf("%q: exit status %d, stderr:\n%s", args, code, stderr.String())
	}
	out := stdout.String()
	for _, w := range want {
		if !strings.Contains(out, w) {
			tb.Errorf("%q: output lacks %q:\n%s", args, w, out)
		}
	}
	return out
}

// Exit runs cmd with args and fails the test unless it exits with status
// code and prints want on stderr.
func Exit(tb testing.TB, cmd Command, args []string, code int, want string) {
	tb.Helper()
	var stdout, stderr bytes.Buffer
	if got := cmd(context.Background(), args, &stdout, &stderr); got != code || !strings.Contains(stderr.String(), want) {
		tb.Errorf("%q: exit status %d, stderr %q; want %d and %q", args, got, stderr.String(), code, want)
	}
}

// childEnv names the command that a child process of a test runs.
const childEnv = "WYS_BENCHMARK_CHILD"

// Main is the TestMain of a command that starts itself again
// (os.Executable, which in a test is the test binary): in a child started
// after Children it runs the command as its main does, through start
// (benchmarks.Main); otherwise the tests.
//
//	func TestMain(m *testing.M) { smoke.Main(m, benchmarks.Main, "scale", run) }
func Main[H any](m *testing.M, start func(string, func(context.Context, H) error) int, name string, run func(context.Context, H) error) {
	if os.Getenv(childEnv) == name {
		os.Exit(start(name, run))
	}
	os.Exit(m.Run())
}

// Children makes the processes that the test starts run the command name
// (see Main) until the test ends.
func Children(t *testing.T, name string) {
	t.Setenv(childEnv, name)
}
