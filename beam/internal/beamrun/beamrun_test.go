package beamrun

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
)

// TestPrivateTemp checks that TMPDIR points at a new directory inside the
// old one until restore, which puts TMPDIR back and removes the directory
// with a file left in it.
func TestPrivateTemp(t *testing.T) {
	old := t.TempDir()
	t.Setenv("TMPDIR", old)
	restore, err := PrivateTemp()
	if err != nil {
		t.Fatal(err)
	}
	dir := os.TempDir()
	if filepath.Dir(dir) != old {
		t.Fatalf("TMPDIR %s, want a directory inside %s", dir, old)
	}
	f, err := os.CreateTemp("", "beamloopbackworker-*")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	restore()
	if got := os.TempDir(); got != old {
		t.Errorf("TMPDIR after restore %s, want %s", got, old)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s not removed: %v", dir, err)
	}
}

func TestSetLogLevel(t *testing.T) {
	defer func(l string) { beamlog.LogLevel = l }(beamlog.LogLevel)
	if err := SetLogLevel("warn"); err != nil || beamlog.LogLevel != "warn" {
		t.Errorf("warn: %v, level %s", err, beamlog.LogLevel)
	}
	if err := SetLogLevel("WARN"); err == nil || beamlog.LogLevel != "warn" {
		t.Errorf("WARN: %v, level %s", err, beamlog.LogLevel)
	}
}

// TestHoldErrors: records are held while a pipeline runs, written in
// order when it succeeds, and dropped, with every later one, when it
// fails; between pipelines they pass.
func TestHoldErrors(t *testing.T) {
	defer slog.SetDefault(slog.Default())
	defer func() { quiet = nil }()
	var b strings.Builder
	slog.SetDefault(slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}})))
	HoldErrors()(false) // nothing to hold before QuietFailures
	QuietFailures()
	log := slog.Default().With("job", 1)
	done := HoldErrors()
	log.Warn("w1")
	log.Error("e1")
	slog.Error("e2")
	if b.String() != "" {
		t.Fatalf("while holding: %q", b.String())
	}
	done(false)
	// A channel's cancelled read as the worker stops is dropped, after a
	// pipeline that succeeded too; other errors are not.
	log.Error("[SDK] StateChannel[localhost:45131].read bad: rpc error: code = Canceled desc = context canceled")
	log.Error("e3")
	want := "level=WARN msg=w1 job=1\nlevel=ERROR msg=e1 job=1\nlevel=ERROR msg=e2\nlevel=ERROR msg=e3 job=1\n"
	if b.String() != want {
		t.Fatalf("after a pipeline that succeeded: %q, want %q", b.String(), want)
	}
	b.Reset()
	done = HoldErrors()
	log.Error("e4")
	done(true)
	log.Error("e5")
	log.Warn("w2")
	if b.String() != "" {
		t.Fatalf("after a pipeline that failed: %q", b.String())
	}
}
