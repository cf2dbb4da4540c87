package benchmarks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// PythonModule is a module a comparison script imports, the oldest major
// version it works with (0: any) and the Debian package that installs it.
type PythonModule struct {
	Import string
	Major  int
	Debian string
}

// The modules of the comparison scripts. The scripts call gensim 4's API
// (vector_size, index_to_key): Debian 12's python3-gensim, not Debian
// 11's 3.8.
var (
	NumPy   = PythonModule{"numpy", 0, "python3-numpy"}
	Gensim4 = PythonModule{"gensim", 4, "python3-gensim"}
	Sklearn = PythonModule{"sklearn", 0, "python3-sklearn"}
)

// MinPython is the oldest Python the scripts run with (gensim 4's).
const MinPython = "3.6"

// pythonProbe runs under any Python, 2 included. Its arguments are
// "module:major"; it exits 3 with the version when Python is older than
// MinPython, 4 with "module: error" when a module does not import, 5 with
// "module version" when a module is older than its major version.
const pythonProbe = `import sys
if sys.version_info < (3, 6):
    sys.stdout.write("%d.%d" % sys.version_info[:2])
    sys.exit(3)
import importlib
for arg in sys.argv[1:]:
    name, major = arg.split(":")
    try:
        mod = importlib.import_module(name)
    except Exception as e:
        sys.stdout.write("%s: %s" % (name, str(e).splitlines()[0] if str(e) else type(e).__name__))
        sys.exit(4)
    version = str(getattr(mod, "__version__", "0"))
    head = version.split(".")[0]
    if int(major) > 0 and (not head.isdigit() or int(head) < int(major)):
        sys.stdout.write("%s %s" % (name, version))
        sys.exit(5)
`

// WaitDelay is how long a Python command's Wait waits for its output
// pipes to close once it exited or was killed (exec.Cmd.WaitDelay): a
// python3 that is a shell wrapper leaves its children holding them, and
// Wait would otherwise hang after a timeout or an interrupt until they
// end.
const WaitDelay = 2 * time.Second

// pythonCheckTimeout bounds CheckPython's run: importing gensim takes a
// few seconds, a Python that hangs must not hang the command.
var pythonCheckTimeout = 60 * time.Second

// CheckPython runs python once, before any work, and fails with one line
// saying what to install when it is missing, older than MinPython, or
// lacks one of the modules; flag names the flag that gives python.
func CheckPython(ctx context.Context, flag, python string, modules ...PythonModule) error {
	if python == "" {
		return fmt.Errorf("%s is empty: give the python3 to run the comparison with (Debian: apt-get install python3)", flag)
	}
	ctx, cancel := context.WithTimeout(ctx, pythonCheckTimeout)
	defer cancel()
	args := []string{"-c", pythonProbe}
	for _, m := range modules {
		args = append(args, fmt.Sprintf("%s:%d", m.Import, m.Major))
	}
	cmd := exec.CommandContext(ctx, python, args...)
	cmd.WaitDelay = WaitDelay
	out, err := cmd.Output()
	text := strings.TrimSpace(string(out))
	var exit *exec.ExitError
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%s %s: no answer within %v to a check of its modules", flag, python, pythonCheckTimeout)
		}
		return ctx.Err()
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s %s: not found (Debian: apt-get install python3, or give %s)", flag, python, flag)
	case !errors.As(err, &exit):
		return fmt.Errorf("%s %s: %v", flag, python, err)
	case exit.ExitCode() == 3:
		return fmt.Errorf("%s %s is Python %s; the comparison scripts want Python %s or newer (Debian: apt-get install python3)", flag, python, text, MinPython)
	case exit.ExitCode() == 4 || exit.ExitCode() == 5:
		name, version, _ := strings.Cut(text, " ")
		name = strings.TrimSuffix(name, ":")
		for _, m := range modules {
			switch {
			case m.Import != name:
			case exit.ExitCode() == 4:
				return fmt.Errorf("%s %s cannot import %s (Debian: apt-get install %s)", flag, python, text, m.Debian)
			default:
				return fmt.Errorf("%s %s has %s %s; the comparison scripts want %s %d or newer (Debian 12 or later: apt-get install %s)", flag, python, name, version, name, m.Major, m.Debian)
			}
		}
	}
	return fmt.Errorf("%s %s: %v: %s", flag, python, err, lastLine(exit))
}

// lastLine returns the last non-empty line of a failed command's stderr:
// the exception of a Python traceback.
func lastLine(exit *exec.ExitError) string {
	if exit == nil {
		return ""
	}
	return LastLine(string(exit.Stderr))
}

// LastLine returns the last non-empty line of a script's stderr (the
// exception of a Python traceback), trimmed.
func LastLine(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
