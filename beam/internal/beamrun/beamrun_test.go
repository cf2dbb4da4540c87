package beamrun

import (
	"os"
	"path/filepath"
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
