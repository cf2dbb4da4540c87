package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wys-project/wys/beam/wysbeam"
)

// TestWatchRounds writes the rounds' q files of a 20-round job one by one
// and checks the progress lines: rounds at least a tenth apart, the last
// one's line, and nothing after stop.
func TestWatchRounds(t *testing.T) {
	// Not parallel: it sets the package's timing variables.
	defer func(p, q, e time.Duration) { progressPoll, progressQuiet, progressEvery = p, q, e }(progressPoll, progressQuiet, progressEvery)
	progressPoll, progressQuiet, progressEvery = 5*time.Millisecond, 50*time.Millisecond, time.Hour
	job := wysbeam.Job{Dir: t.TempDir()}
	var out syncBuffer
	stop := watchRounds(context.Background(), job, 20, &out)
	write := func(v int) {
		p := filepath.Join(job.Dir, fmt.Sprintf("v%06d", v), "q.json")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("{}"), 0o644)
	}
	write(1)
	time.Sleep(20 * time.Millisecond)
	for v := 2; v <= 20; v++ {
		write(v)
		time.Sleep(10 * time.Millisecond)
	}
	// Wait for the last round's line (the watcher may be slow to run on
	// a busy machine), then stop.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), "round 20/20") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	text := out.String()
	lines := regexp.MustCompile(`(?m)^\[train\] round (\d+)/20 +\d+%  [0-9.]+ s per round  ETA \S+$`).FindAllStringSubmatch(text, -1)
	if len(lines) < 1 || len(lines) > 11 || strings.Count(text, "\n") != len(lines) {
		t.Fatalf("%d progress lines, want 1 to 11 (a tenth of the rounds apart) and nothing else:\n%s", len(lines), text)
	}
	prev := 0
	for _, l := range lines {
		r, _ := strconv.Atoi(l[1])
		if r-prev < 2 {
			t.Errorf("round %d after %d: less than a tenth of the rounds apart:\n%s", r, prev, text)
		}
		prev = r
	}
	if prev != 20 {
		t.Errorf("last line at round %d, want 20:\n%s", prev, text)
	}
	n := len(out.String())
	time.Sleep(30 * time.Millisecond)
	if len(out.String()) != n {
		t.Error("progress written after stop")
	}
}

// syncBuffer is a bytes.Buffer the watcher writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
