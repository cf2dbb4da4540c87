package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
)

// TestProgressTerminal: on a terminal each redraw clears its line first
// (no stale characters from a longer previous line), and an evaluation
// line erases the bar instead of following it.
func TestProgressTerminal(t *testing.T) {
	var b strings.Builder
	p := &progress{w: &b, mode: "text", tty: true}
	p.Record(pipeline.Event{Kind: pipeline.Progress, Stage: "train", Done: 10, Total: 100, Unit: "batches", Elapsed: 8 * time.Second})
	p.lastDraw = time.Time{} // allow the next redraw at once
	p.Record(pipeline.Event{Kind: pipeline.Progress, Stage: "train", Done: 50, Total: 100, Unit: "batches", Elapsed: 10 * time.Second})
	pt := pipeline.CurvePoint{Epoch: 1, Loss: 2, TrainAUC: 0.9, TestAUC: 0.8, Q: []float64{0.5, 0.5}}
	p.Record(pipeline.Event{Kind: pipeline.Eval, Stage: "train", Done: 50, Total: 100, Unit: "batches", Point: &pt, Elapsed: 10 * time.Second})
	want := clearLine + "[train] [##..................] 10/100 batches  10%  1.2 batches/s  ETA 1m12s" +
		clearLine + "[train] [##########..........] 50/100 batches  50%  5.0 batches/s  ETA 10s" +
		clearLine + "[train] 50/100 batches  50%  5.0 batches/s  ETA 10s  epoch 1.0  loss 2  train AUC 0.9000  test AUC 0.8000  Q1 0.500\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	// With nothing held out the line names no test AUC.
	b.Reset()
	pt.TestAUC = math.NaN()
	p.Record(pipeline.Event{Kind: pipeline.Eval, Stage: "train", Done: 60, Total: 100, Unit: "batches", Point: &pt, Elapsed: 12 * time.Second})
	if got, want := b.String(), "[train] 60/100 batches  60%  5.0 batches/s  ETA 8s  epoch 1.0  loss 2  train AUC 0.9000  Q1 0.500\n"; got != want {
		t.Errorf("without a test set: got\n%q\nwant\n%q", got, want)
	}
}

// TestProgressPlain: off a terminal, one plain line per tenth of a stage,
// counted again from a new stage.
func TestProgressPlain(t *testing.T) {
	var b strings.Builder
	p := &progress{w: &b, mode: "text"}
	for _, stage := range []string{"a", "b"} {
		p.Record(pipeline.Event{Kind: pipeline.StageStart, Stage: stage})
		for done := int64(1); done <= 100; done++ {
			p.Record(pipeline.Event{Kind: pipeline.Progress, Stage: stage, Done: done, Total: 100, Unit: "batches", Elapsed: time.Duration(done) * time.Second})
		}
	}
	got := b.String()
	if n := strings.Count(got, "\n"); n != 20 || strings.Contains(got, "\r") {
		t.Errorf("%d lines (want 20, no carriage returns):\n%s", n, got)
	}
	if !strings.Contains(got, "[b] 10/100 batches  10%  1.0 batches/s  ETA 1m30s\n") {
		t.Errorf("no line at the first tenth of stage b:\n%s", got)
	}
}

// TestRepeatsWording: repeated edge lines are described as what they are
// (for an undirected file mostly the second direction of each edge), with
// the weight rule when weighted, and not at all when there are none.
func TestRepeatsWording(t *testing.T) {
	for _, c := range []struct {
		lr   graphio.LoadReport
		want string
	}{
		{graphio.LoadReport{}, ""},
		{graphio.LoadReport{Duplicates: 3, Directed: true}, ", 3 lines repeated an arc already read (one arc kept)"},
		{graphio.LoadReport{Duplicates: 2}, ", 2 lines named an edge already read, in either direction (as when both u v and v u are listed; one edge kept)"},
		{graphio.LoadReport{Duplicates: 1, Weighted: true}, ", 1 line named an edge already read, in either direction (as when both u v and v u are listed; one edge kept, with the first line's weight)"},
		{graphio.LoadReport{Duplicates: 4, Weighted: true, Format: "mat"}, ", 4 matrix entries named an edge already read, in either direction (as the transposed entry of a symmetric matrix does; one edge kept, with the weight of the entry stored first)"},
		{graphio.LoadReport{Duplicates: 5, Directed: true, Format: "mat"}, ", 5 matrix entries repeated an arc already read (one arc kept)"},
		{graphio.LoadReport{Duplicates: 1, Directed: true, Format: "mat"}, ", 1 matrix entry repeated an arc already read (one arc kept)"},
	} {
		if got := repeats(&c.lr); got != c.want {
			t.Errorf("%+v: %q, want %q", c.lr, got, c.want)
		}
	}
	b, _ := json.Marshal(graphio.LoadReport{EdgesRead: 1})
	if !strings.Contains(string(b), `"edges_read":1`) {
		t.Errorf("the load report's JSON is not snake_case: %s", b)
	}
}

// TestProgressJSON: in json mode a stage's progress objects come at most
// once a second of stage time, besides its first and last, with the rate
// and the ETA; other events all come, and a new stage starts over.
func TestProgressJSON(t *testing.T) {
	var b strings.Builder
	p := &progress{w: &b, mode: "json"}
	for _, stage := range []string{"a", "b"} {
		p.Record(pipeline.Event{Kind: pipeline.StageStart, Stage: stage})
		for done := int64(1); done <= 100; done++ {
			// 0.25 s per unit: 25 s of stage time in all.
			p.Record(pipeline.Event{Kind: pipeline.Progress, Stage: stage, Done: done, Total: 100, Unit: "batches", Elapsed: time.Duration(done) * 250 * time.Millisecond})
			if done == 50 {
				p.Record(pipeline.Event{Kind: pipeline.Note, Stage: stage, Message: "half way"})
			}
		}
	}
	var dones []int64
	kinds := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		var o struct {
			Kind  string   `json:"kind"`
			Stage string   `json:"stage"`
			Done  int64    `json:"done"`
			Rate  float64  `json:"rate"`
			ETA   *float64 `json:"eta_seconds"`
		}
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		kinds[o.Kind]++
		if o.Kind != "progress" {
			continue
		}
		if o.Stage == "b" {
			dones = append(dones, o.Done)
		}
		// Rate: 4 units a second; ETA: what is left at that rate.
		if math.Abs(o.Rate-4) > 1e-9 || o.ETA == nil || math.Abs(*o.ETA-float64(100-o.Done)/4) > 1e-9 {
			t.Errorf("%s: rate %v, ETA %v; want 4 and %v", line, o.Rate, o.ETA, float64(100-o.Done)/4)
		}
	}
	// One object per 4 units (1 s), from the first to the last.
	var want []int64
	for d := int64(1); d <= 100; d += 4 {
		want = append(want, d)
	}
	want = append(want, 100)
	if fmt.Sprint(dones) != fmt.Sprint(want) {
		t.Errorf("stage b's progress objects at done = %v, want %v", dones, want)
	}
	if kinds["stage-start"] != 2 || kinds["note"] != 2 || kinds["progress"] != 2*len(want) {
		t.Errorf("objects by kind %v, want 2 stage-start, 2 note, %d progress", kinds, 2*len(want))
	}
}

// TestProgressEvalLineSteps: an evaluation line of full-batch steps (the
// dense reference) has no epoch, whose number would repeat the step's;
// one of minibatches has it.
func TestProgressEvalLineSteps(t *testing.T) {
	for unit, want := range map[string]bool{"steps": false, "batches": true} {
		var b strings.Builder
		p := &progress{w: &b, mode: "text"}
		p.Record(pipeline.Event{Kind: pipeline.Eval, Stage: "train", Done: 20, Total: 300, Unit: unit, Elapsed: time.Second,
			Point: &pipeline.CurvePoint{Step: 20, Epoch: 20, Loss: 1, TrainAUC: 0.9, TestAUC: 0.8, Q: []float64{1}}})
		if got := strings.Contains(b.String(), "epoch 20.0"); got != want {
			t.Errorf("%s: %q", unit, b.String())
		}
	}
}

// TestProgressJSONRateBeforeETA: in a stage's first second (and
// hundredth) a progress object has its rate, not yet an ETA.
func TestProgressJSONRateBeforeETA(t *testing.T) {
	var b strings.Builder
	p := &progress{w: &b, mode: "json"}
	p.Record(pipeline.Event{Kind: pipeline.Progress, Stage: "train", Done: 2, Total: 1000, Unit: "batches", Elapsed: 100 * time.Millisecond})
	var o struct {
		Rate *float64 `json:"rate"`
		ETA  *float64 `json:"eta_seconds"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(b.String())), &o); err != nil || o.Rate == nil || math.Abs(*o.Rate-20) > 1e-9 || o.ETA != nil {
		t.Errorf("%s: %v; want rate 20 and no ETA", b.String(), err)
	}
}

// TestProgressJSONStagesClosed: in -progress json every stage that starts
// also ends, the command's own (load, split) as the trainer's.
func TestProgressJSONStagesClosed(t *testing.T) {
	code, _, stderr := runCLI(t, "-epochs", "2", "-dim", "8", "-progress", "json")
	if code != 0 {
		t.Fatal(stderr)
	}
	open := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var e struct{ Kind, Stage string }
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		switch e.Kind {
		case "stage-start":
			open[e.Stage]++
		case "stage-end":
			open[e.Stage]--
		}
	}
	for stage, n := range open {
		if n != 0 {
			t.Errorf("stage %s: %d more starts than ends\n%s", stage, n, stderr)
		}
	}
	if _, ok := open["split"]; !ok {
		t.Errorf("no split stage:\n%s", stderr)
	}
	// The last event says the run is done, with its exit code and AUCs.
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	var last struct {
		Kind     string
		ExitCode *int     `json:"exit_code"`
		TestAUC  *float64 `json:"test_auc"`
		Stopped  string
	}
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	if last.Kind != "done" || last.ExitCode == nil || *last.ExitCode != 0 || last.TestAUC == nil || last.Stopped != "length" {
		t.Errorf("last event %s", lines[len(lines)-1])
	}
}

// TestProgressJSONError: under -progress json a failed run ends with an
// event of kind "error" carrying the message and the exit code, so every
// line on stderr parses, a flag the flag package cannot parse included
// (before -progress json or after it); without it, the plain
// "wys-sparse: " line.
func TestProgressJSONError(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(bad, []byte("1 2\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-graph", bad}, {"-graph", bad, "-lr", "-1"}, {"-graph", bad, "-epochs", "abc"}, {"-bogus"}} {
		code, _, stderr := runCLI(t, append([]string{"-progress", "json"}, args...)...)
		// -progress json after the flag that stops the parse.
		if code2, _, stderr2 := runCLI(t, append(slices.Clone(args), "-progress", "json")...); code2 != code || !strings.HasPrefix(stderr2, "{") {
			t.Errorf("%v -progress json: exit %d, %q", args, code2, stderr2)
		}
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		var last struct {
			Kind, Message string
			Exit          int `json:"exit_code"`
		}
		for _, line := range lines {
			if err := json.Unmarshal([]byte(line), &last); err != nil {
				t.Fatalf("%v: %q is not JSON: %v", args, line, err)
			}
		}
		if code == 0 || last.Kind != "error" || last.Exit != code || last.Message == "" {
			t.Errorf("%v: exit %d, last event %+v", args, code, last)
		}
		_, _, plain := runCLI(t, args...)
		if want := "wys-sparse: " + last.Message + "\n"; !strings.HasSuffix(plain, want) && !strings.HasPrefix(last.Message, "invalid value") && !strings.HasPrefix(last.Message, "flag provided") {
			t.Errorf("%v: text mode ends %q, want %q", args, plain, want)
		}
	}
}

// TestETABudget: the training's ETA is what its rate leaves, capped by
// what is left of -time; other stages keep the rate's.
func TestETABudget(t *testing.T) {
	p := &progress{budget: 3 * time.Second}
	e := pipeline.Event{Kind: pipeline.Progress, Stage: "train", Done: 10, Total: 1000, Elapsed: time.Second}
	if got, ok := p.eta(e); !ok || got != 2*time.Second {
		t.Errorf("train: ETA %v, want 2s (the budget's rest, not 99s)", got)
	}
	e.Stage = "factorize"
	if got, _ := p.eta(e); got != 99*time.Second {
		t.Errorf("factorize: ETA %v, want 99s", got)
	}
	p.budget = 0
	e.Stage = "train"
	if got, _ := p.eta(e); got != 99*time.Second {
		t.Errorf("no budget: ETA %v, want 99s", got)
	}
	// Before a second and a hundredth of the stage: none yet.
	e.Done, e.Elapsed = 9, 999*time.Millisecond
	if got, ok := p.eta(e); ok {
		t.Errorf("9 of 1000 at 0.999 s: ETA %v, want none", got)
	}
	e.Done = 10
	if _, ok := p.eta(e); !ok {
		t.Error("10 of 1000 at 0.999 s: no ETA")
	}
}

// TestProgressPlainAfterEval: off a terminal, a tenth's plain line is
// left out when an evaluation line showed nearly the same counts just
// before it (evaluations every 5% of a run land just short of a tenth),
// and printed when the last evaluation is half a tenth or more behind.
func TestProgressPlainAfterEval(t *testing.T) {
	var b strings.Builder
	p := &progress{w: &b, mode: "text"}
	p.Record(pipeline.Event{Kind: pipeline.StageStart, Stage: "train"})
	pt := pipeline.CurvePoint{Epoch: 1, Loss: 2, TrainAUC: 0.9, TestAUC: math.NaN(), Q: []float64{1}}
	for done := int64(1); done <= 1000; done++ {
		e := pipeline.Event{Kind: pipeline.Progress, Stage: "train", Done: done, Total: 1000, Unit: "batches", Elapsed: time.Duration(done) * time.Second}
		p.Record(e)
		if done%50 == 49 && done < 500 { // every 5%, one batch short of it, in the first half
			e.Kind, e.Point = pipeline.Eval, &pt
			p.Record(e)
		}
	}
	got := b.String()
	for _, want := range []string{"[train] 99/1000 batches", "[train] 600/1000 batches"} {
		if !strings.Contains(got, want) {
			t.Errorf("no line %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "[train] 100/1000 batches") || strings.Contains(got, "[train] 500/1000 batches") {
		t.Errorf("a tenth's line repeats the evaluation line just before it:\n%s", got)
	}
	if n := strings.Count(got, "\n"); n != 10+5 {
		t.Errorf("%d lines, want 10 evaluations and the 5 tenths of the second half:\n%s", n, got)
	}
}

// TestLoadProgress reads 40 MiB through a progressReader in pieces of
// at most 64 KiB, some shorter: the bytes pass unchanged, and off a terminal the load stage gets
// one line per tenth of the megabytes, in order, ending at 40/40 MB.
func TestLoadProgress(t *testing.T) {
	data := make([]byte, 40<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	var b strings.Builder
	p := &progress{w: &b, mode: "text"}
	p.Record(pipeline.Event{Kind: pipeline.StageStart, Stage: "load"})
	r := newProgressReader(iotest.HalfReader(bytes.NewReader(data)), p, int64(len(data)))
	// Reads of at most 64 KiB, as the loaders' buffered readers make.
	var got []byte
	buf := make([]byte, 64<<10)
	var err error
	for err == nil {
		var n int
		n, err = r.Read(buf)
		got = append(got, buf[:n]...)
	}
	if err != io.EOF || !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes (error %v), want the %d written", len(got), err, len(data))
	}
	lines := regexp.MustCompile(`(?m)^\[load\] (\d+)/40 MB +\d+%  [0-9.]+ MB/s  ETA \S+$`).FindAllStringSubmatch(b.String(), -1)
	if len(lines) != 10 || strings.Count(b.String(), "\n") != 10 {
		t.Fatalf("%d progress lines, want one per tenth (10):\n%s", len(lines), b.String())
	}
	prev := -1
	for _, l := range lines {
		mb, _ := strconv.Atoi(l[1])
		if mb <= prev {
			t.Errorf("%d MB after %d:\n%s", mb, prev, b.String())
		}
		prev = mb
	}
	if prev != 40 {
		t.Errorf("last line at %d MB, want 40:\n%s", prev, b.String())
	}
}
