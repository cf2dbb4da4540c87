package benchmarks

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/wys-project/wys/internal/atomicfile"
)

// Harness is what a benchmark command gets: its flag set, the shared flags
// already registered, the streams to write to, and the results header.
//
// A command's whole work is a function run(ctx, h) error: it registers its
// own flags on h.Flags, calls h.Parse, does its work and ends with
// h.WriteResult(h.Header(title) + table). Main (or Run in tests) turns the
// returned error into the exit status.
type Harness struct {
	Name       string        // command name, e.g. "speed"
	Flags      *flag.FlagSet // the command registers its own flags here before Parse
	Data       string        // -data: folder holding the datasets (default ../shared/datasets)
	Out        string        // -out: results file to write (empty: stdout only)
	AllowDirty bool          // -allow-dirty: write -out from a tree with uncommitted changes
	OutFolder  bool          // -out names a folder, not a file (set before Parse)
	Stdout     io.Writer
	Stderr     io.Writer

	args   []string // the command line after the program's name
	tags   string   // the binary's build tags, comma-separated
	commit string   // the checkout's commit at start, "+dirty" with uncommitted tracked changes
}

// Exit statuses of the benchmark commands.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// usageError is an error in the command line: Run maps it to exit status 2.
type usageError struct {
	err       error
	flagError bool // from the flag package: print the flags after it
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// Main runs run with a Harness for os.Args, a context cancelled on SIGINT
// or SIGTERM, and returns the process exit code: 0 ok, 2 usage error (a
// bad flag; -help prints the usage on stdout and returns 0), 130
// interrupted (context cancelled), 1 any other error (printed as
// "NAME: err" on stderr). A command's main is
//
//	func main() { os.Exit(benchmarks.Main("speed", run)) }
func Main(name string, run func(ctx context.Context, h *Harness) error) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, name, os.Args[1:], os.Stdout, os.Stderr, run)
}

// Run is Main with explicit arguments (without the program's name) and
// streams, for smoke tests.
func Run(ctx context.Context, name string, args []string, stdout, stderr io.Writer, run func(context.Context, *Harness) error) int {
	h := newHarness(name, args, stdout, stderr)
	return h.exitCode(ctx, run(ctx, h))
}

// newHarness returns a harness whose flag set holds the shared flags, with
// the build tags of this binary and the commit read at start.
func newHarness(name string, args []string, stdout, stderr io.Writer) *Harness {
	h := &Harness{Name: name, Flags: flag.NewFlagSet(name, flag.ContinueOnError), Stdout: stdout, Stderr: stderr,
		args: args, tags: buildTags(), commit: startCommit}
	h.Flags.SetOutput(stderr)
	h.Flags.Usage = func() { h.printUsage(h.Flags.Output()) }
	h.Flags.StringVar(&h.Data, "data", "../shared/datasets", "folder holding the datasets")
	h.Flags.StringVar(&h.Out, "out", "", "write the result to this file as well as to stdout (refused from a tree with uncommitted changes unless -allow-dirty)")
	h.Flags.BoolVar(&h.AllowDirty, "allow-dirty", false, "allow -out from a working tree with uncommitted changes to tracked files (the header then says +dirty)")
	return h
}

// exitCode reports err on Stderr and returns the exit status for it.
func (h *Harness) exitCode(ctx context.Context, err error) int {
	var usage *usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &usage):
		fmt.Fprintf(h.Stderr, "%s: %v\n", h.Name, err)
		if usage.flagError {
			h.printUsage(h.Stderr)
		} else {
			fmt.Fprintf(h.Stderr, "(go run ./benchmarks/cmd/%s -help lists the flags)\n", h.Name)
		}
		return exitUsage
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		fmt.Fprintf(h.Stderr, "%s: interrupted\n", h.Name)
		return exitInterrupted
	}
	fmt.Fprintf(h.Stderr, "%s: %v%s\n", h.Name, err, h.dataHint(err))
	return exitFailure
}

// dataHint returns a note for an error about a path under -data when the
// -data folder itself is missing, as from a checkout without the data
// mirror beside it: the cause is then -data, not the dataset.
func (h *Harness) dataHint(err error) string {
	if h.Data == "" || !strings.Contains(err.Error(), h.Data) {
		return ""
	}
	if _, serr := os.Stat(h.Data); serr == nil {
		return ""
	}
	return fmt.Sprintf(" [-data %s: no such folder; give -data, the folder holding the datasets]", h.Data)
}

func (h *Harness) printUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: go run ./benchmarks/cmd/%s [flags]\n\nflags:\n", h.Name)
	out := h.Flags.Output()
	h.Flags.SetOutput(w)
	h.Flags.PrintDefaults()
	h.Flags.SetOutput(out)
}

// Parse parses the arguments into h.Flags (after the command registered
// its flags); its errors are usage errors. With -help it prints the usage
// on Stdout and returns an error that Main maps to exit status 0. It
// refuses (usage error) an -out from a working tree with uncommitted
// changes to tracked files unless -allow-dirty, so that a committed result
// always names the code that produced it; call it before any work starts.
func (h *Harness) Parse() error {
	h.Flags.SetOutput(io.Discard) // the errors are reported by Run
	err := h.Flags.Parse(h.args)
	h.Flags.SetOutput(h.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		h.printUsage(h.Stdout)
		return err
	}
	if err != nil {
		return &usageError{err: err, flagError: true}
	}
	if h.Flags.NArg() > 0 {
		return h.Usagef("unexpected argument %q (every setting is a flag)", h.Flags.Arg(0))
	}
	if err := refuseDirty(h.Out, h.AllowDirty, strings.HasSuffix(h.commit, "+dirty")); err != nil {
		return &usageError{err: err}
	}
	if err := checkOut(h.Out, h.OutFolder); err != nil {
		return &usageError{err: fmt.Errorf("-out: %w", err)}
	}
	return nil
}

// checkOut fails when the results could not be written to out later: out
// (a file, or with folder a folder) is a directory or a device, or its
// nearest existing folder is not one or is not writable. It runs at
// Parse, so that a run of hours does not end without its results file.
// It creates nothing that stays: the folders are made when writing.
func checkOut(out string, folder bool) error {
	if out == "" || folder {
		return writableFolder(out, out)
	}
	if err := writableFolder(out, filepath.Dir(out)); err != nil {
		return err
	}
	target, err := atomicfile.Target(out)
	if err != nil {
		return err
	}
	return writableFolder(out, filepath.Dir(target))
}

// CheckPrefix returns a usage error when files named prefix-NAME could
// not be written later (-plot PREFIX): their folder is a file or not
// writable. Call it after Parse, so that the plots drawn at the end of a
// long run do not fail it, and with it the results file.
func (h *Harness) CheckPrefix(flag, prefix string) error {
	if err := writableFolder(prefix, filepath.Dir(prefix)); err != nil {
		return h.Usagef("%s: %v", flag, err)
	}
	return nil
}

// writableFolder is checkOut's test of the folder dir that out is to be
// written in: its nearest existing ancestor (itself, if it exists) must be
// a folder where a file can be created.
func writableFolder(out, dir string) error {
	if out == "" {
		return nil
	}
	for {
		fi, err := os.Stat(dir)
		if err == nil && !fi.IsDir() {
			return fmt.Errorf("cannot write %s: %s is not a folder", out, dir)
		}
		if err == nil {
			break
		}
		parent := filepath.Dir(dir)
		missing := errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
		if !missing || parent == dir {
			return fmt.Errorf("cannot write %s: %w", out, err)
		}
		dir = parent
	}
	f, err := os.CreateTemp(dir, ".wys-out-check-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", out, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// refuseDirty is Parse's decision on -out: an error when a results file
// would be written from a tree with uncommitted changes without
// -allow-dirty.
func refuseDirty(out string, allowDirty, dirty bool) error {
	if out == "" || allowDirty || !dirty {
		return nil
	}
	return fmt.Errorf("-out %s: the working tree has uncommitted changes to tracked files, so the result's commit would not say what ran; commit them first, or pass -allow-dirty", out)
}

// Settings returns a usage error (exit status 2) naming the first of cfgs
// that does not validate: a command checks the configurations its flags
// make before it reads data or trains, so that a bad value does not stop
// it after the runs that came first.
func (h *Harness) Settings(cfgs ...interface{ Validate() error }) error {
	for _, c := range cfgs {
		if err := c.Validate(); err != nil {
			return h.Usagef("%v", err)
		}
	}
	return nil
}

// Usagef returns an error that Main maps to exit code 2.
func (h *Harness) Usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// Header returns the results header: "# title", the machine line (date,
// commit at start with +dirty, Go version, CPU, cores) and the command
// that reproduces the run, with the binary's real build tags and the real
// arguments, each followed by a blank line.
func (h *Harness) Header(title string) string {
	return fmt.Sprintf("# %s\n\n%s\n\nCommand: `%s`\n\n", title, machineLine(h.commit, time.Now()), h.commandLine())
}

// commandLine is "go run [-tags T] ./benchmarks/cmd/NAME args…", each
// argument quoted for a POSIX shell where it needs to be.
func (h *Harness) commandLine() string {
	parts := []string{"go", "run"}
	if h.tags != "" {
		parts = append(parts, "-tags", shellQuote(h.tags))
	}
	parts = append(parts, "./benchmarks/cmd/"+h.Name)
	for _, a := range h.args {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

// WriteResult prints text on Stdout and, when -out is set, writes it
// atomically (a temporary file renamed into place) to -out.
func (h *Harness) WriteResult(text string) error {
	if _, err := io.WriteString(h.Stdout, text); err != nil {
		return err
	}
	if h.Out == "" {
		return nil
	}
	if err := WriteFileAtomic(h.Out, []byte(text)); err != nil {
		return err
	}
	fmt.Fprintf(h.Stderr, "%s: wrote %s\n", h.Name, h.Out)
	return nil
}

// shellQuote returns s as a POSIX shell word.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// buildTags returns the -tags the binary was built with ("" when none).
func buildTags() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-tags" {
				return s.Value
			}
		}
	}
	return ""
}

// startCommit is the checkout's commit when the program started (read
// then, not when the result is written, so that a long run is not labelled
// with commits made while it ran), with "+dirty" when tracked files had
// uncommitted changes.
var startCommit = gitCommit()

func gitCommit() string {
	commit := "unknown"
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
			commit += "+dirty"
		}
	}
	return commit
}

// machineLine describes when and where a result was measured: date,
// commit at start, Go version, CPU and cores.
func machineLine(commit string, now time.Time) string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	return fmt.Sprintf("Measured %s, commit %s, %s, %s, %d cores.",
		now.UTC().Format("2006-01-02 15:04 UTC"), commit, runtime.Version(), cpu, runtime.NumCPU())
}

// Methods returns the methods a -methods value lists (comma-separated),
// or the usage error naming the first that is not one of names.
func (h *Harness) Methods(list string, names []string) (map[string]bool, error) {
	set := map[string]bool{}
	for _, m := range strings.Split(list, ",") {
		if !slices.Contains(names, m) {
			return nil, h.Usagef("-methods: unknown method %q (want %s)", m, strings.Join(names, ", "))
		}
		set[m] = true
	}
	return set, nil
}
