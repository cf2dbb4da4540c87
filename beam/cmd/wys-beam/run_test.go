package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/wys-project/wys/pipeline/graphio"
	"github.com/wys-project/wys/pipeline/train"
)

func TestMain(m *testing.M) {
	ptest.MainWithDefault(m, "prism")
}

// TestRun runs the command on a small edge list with P = 3 on Prism and
// checks its report's q against the plain loop of the same schedule, on
// the graph as the command's reader loads it.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for range 400 {
		fmt.Fprintf(&b, "%d %d\n", rng.IntN(100), rng.IntN(100))
	}
	graph := filepath.Join(dir, "g.txt")
	if err := os.WriteFile(graph, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &config{graph: graph, partitions: 3, perRnd: 2, out: filepath.Join(dir, "e.tsv"), report: filepath.Join(dir, "r.json"),
		Sparse: train.Config{Dim: 8, Epochs: 12, Seed: 4}}
	var stdout bytes.Buffer
	if err := run(context.Background(), c, &stdout); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(c.report)
	if err != nil {
		t.Fatal(err)
	}
	var rep report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	g, _, err := graphio.LoadEdgeList(context.Background(), graph, graphio.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := train.NewSchedule(g, c.Sparse, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Train(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.QLogits, m.Q.Logits) || rep.Rounds != s.Rounds() {
		t.Fatalf("report: q %v after %d rounds, plain loop %v after %d", rep.QLogits, rep.Rounds, m.Q.Logits, s.Rounds())
	}
	if _, err := os.Stat(c.out); err != nil {
		t.Fatalf("no embeddings: %v (stdout %s)", err, stdout.String())
	}
}

// TestRunNeedsOneInput refuses a run without -graph or -split.
func TestRunNeedsOneInput(t *testing.T) {
	err := run(context.Background(), &config{partitions: 2}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "-graph FILE or -split DIR") {
		t.Fatalf("error %v, want one naming the inputs", err)
	}
}
