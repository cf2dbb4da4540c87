package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/wys-project/wys/pipeline"
)

// progress prints pipeline events on stderr: human-readable lines (text),
// one JSON object per line (json), or nothing (none). In text mode on a
// terminal a bar (percent, count, rate, ETA) is redrawn in place, each
// time clearing its line; elsewhere (a file, a pipe) a plain line is
// printed at every tenth of a stage.
type progress struct {
	// budget is the training time budget (-time, 0: none), which caps
	// the training's ETA.
	budget   time.Duration
	w        io.Writer
	mode     string
	tty      bool
	lastDraw time.Time
	inLine   bool
	tenth    int64 // the last tenth printed off a terminal
	// evalDone is the stage's count (Done) at its last evaluation line,
	// so that a tenth's plain line does not repeat one just printed.
	evalDone int64
	// jsonAt is the stage time of the last progress object written in
	// json mode, if jsonSome (one was written in this stage).
	jsonAt   time.Duration
	jsonSome bool
	// val says that the model-selection AUC of evaluations is measured
	// on validation pairs (-val-fraction), not on the train pairs.
	val bool
	// stages lists the stages that ended, in order, for the report.
	stages []stage
}

// jsonEvery is the least stage time between two progress objects in json
// mode; the first and the last of a stage are always written.
const jsonEvery = time.Second

// clearLine returns the cursor to the start of the line and erases it.
const clearLine = "\r\x1b[K"

func newProgress(w io.Writer, mode string) *progress {
	p := &progress{w: w, mode: mode}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

// finished writes, under -progress json, the event that ends a run that
// succeeded: kind "done" with exit code 0, the selected model's AUCs,
// what ended the training and the files written, so that a consumer of
// the events needs neither the summary nor the report.
func (p *progress) finished(rep *report) {
	if p.mode != "json" {
		return
	}
	code := exitOK
	je := jsonEvent{Time: time.Now().UTC().Format(time.RFC3339Nano), Kind: "done", ExitCode: &code,
		TrainAUC: rep.Result.TrainAUC, ValAUC: rep.Result.ValAUC, TestAUC: rep.Result.TestAUC, Q: rep.Result.Q,
		Outputs: rep.Outputs, Stopped: rep.Result.Stopped}
	b, _ := json.Marshal(je)
	fmt.Fprintln(p.w, string(b))
}

// stage announces a stage of the command itself.
func (p *progress) stage(name, msg string) {
	p.Record(pipeline.Event{Kind: pipeline.StageStart, Stage: name, Message: msg})
}

// end closes a stage of the command itself that took d.
func (p *progress) end(name string, d time.Duration) {
	p.Record(pipeline.Event{Kind: pipeline.StageEnd, Stage: name, Elapsed: d})
}

// dataNote writes a note about the input to stdout, as "note: …", and
// with -progress json also as a note event of stage, so that a program
// reading the JSON lines sees every note.
func (p *progress) dataNote(stdout io.Writer, stage, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(stdout, "note: %s\n", msg)
	if p.mode == "json" {
		p.Record(pipeline.Event{Kind: pipeline.Note, Stage: stage, Message: msg})
	}
}

// done erases a redrawn bar, so that the next line starts clean.
func (p *progress) done() {
	if p.inLine {
		fmt.Fprint(p.w, clearLine)
		p.inLine = false
	}
}

type jsonEvent struct {
	Time     string    `json:"time"`
	Kind     string    `json:"kind"`
	Stage    string    `json:"stage,omitempty"`
	Done     int64     `json:"done,omitempty"`
	Total    int64     `json:"total,omitempty"`
	Unit     string    `json:"unit,omitempty"`
	Seconds  float64   `json:"seconds,omitempty"`
	Rate     float64   `json:"rate,omitempty"`
	ETA      *float64  `json:"eta_seconds,omitempty"`
	Message  string    `json:"message,omitempty"`
	Epoch    *float64  `json:"epoch,omitempty"`
	Loss     *float64  `json:"loss,omitempty"`
	TrainAUC *float64  `json:"train_auc,omitempty"`
	ValAUC   *float64  `json:"validation_auc,omitempty"`
	TestAUC  *float64  `json:"test_auc,omitempty"`
	Q        []float64 `json:"Q,omitempty"`
	ExitCode *int      `json:"exit_code,omitempty"` // kinds "error" and "done": the run's exit status
	Outputs  []string  `json:"outputs,omitempty"`   // kind "done": the files written
	Stopped  string    `json:"stopped,omitempty"`   // kind "done": what ended the training
}

// Record implements pipeline.Recorder.
func (p *progress) Record(e pipeline.Event) {
	if e.Kind == pipeline.StageEnd {
		p.stages = append(p.stages, stage{e.Stage, e.Elapsed.Seconds()})
	}
	switch p.mode {
	case "none":
		return
	case "json":
		if !p.jsonDue(e) {
			return
		}
		je := jsonEvent{Time: time.Now().UTC().Format(time.RFC3339Nano), Kind: e.Kind.String(), Stage: e.Stage,
			Done: e.Done, Total: e.Total, Unit: e.Unit, Seconds: e.Elapsed.Seconds(), Message: e.Message}
		if e.Kind == pipeline.Progress && e.Total > 0 && e.Done > 0 {
			je.Rate = float64(e.Done) / math.Max(e.Elapsed.Seconds(), 1e-9)
			if eta, ok := p.eta(e); ok { // none in a stage's first second
				s := eta.Seconds()
				je.ETA = &s
			}
		}
		if pt := e.Point; pt != nil {
			je.Epoch, je.Loss, je.TestAUC, je.Q = finite(pt.Epoch), finite(pt.Loss), finite(pt.TestAUC), pt.Q
			je.TrainAUC, je.ValAUC = selectionAUC(pt.TrainAUC, p.val)
		}
		b, _ := json.Marshal(je)
		fmt.Fprintln(p.w, string(b))
		return
	}
	switch e.Kind {
	case pipeline.StageStart, pipeline.Note:
		if e.Kind == pipeline.StageStart {
			p.tenth, p.evalDone = 0, 0
		}
		if e.Message != "" {
			p.done()
			fmt.Fprintf(p.w, "[%s] %s\n", e.Stage, e.Message)
		}
	case pipeline.StageEnd:
		p.done()
		fmt.Fprintf(p.w, "[%s] done in %.1fs\n", e.Stage, e.Elapsed.Seconds())
	case pipeline.Progress:
		p.progressLine(e)
	case pipeline.Eval:
		p.done()
		p.evalDone = e.Done
		pt := e.Point
		test := "  test AUC " + auc(pt.TestAUC)
		if math.IsNaN(pt.TestAUC) {
			test = "" // nothing held out: the whole graph is embedded
		}
		epoch := fmt.Sprintf("  epoch %.1f", pt.Epoch)
		if e.Unit == "steps" {
			epoch = "" // full-batch steps (the dense reference, -refine): each is a pass over the data, counted already
		}
		fmt.Fprintf(p.w, "[%s] %s%s  loss %.4g  %s AUC %s%s  Q1 %.3f\n",
			e.Stage, p.counter(e), epoch, pt.Loss, selectionName(p.val), auc(pt.TrainAUC), test, first(pt.Q))
	}
}

// jsonDue reports whether e is written in json mode: every event but
// progress, and of progress at most one object per jsonEvery of stage
// time, besides the first and last of each stage.
func (p *progress) jsonDue(e pipeline.Event) bool {
	switch {
	case e.Kind == pipeline.StageStart:
		p.jsonSome = false
	case e.Kind != pipeline.Progress:
	case !p.jsonSome || e.Elapsed < p.jsonAt || e.Elapsed-p.jsonAt >= jsonEvery || (e.Total > 0 && e.Done >= e.Total):
		p.jsonAt, p.jsonSome = e.Elapsed, true
	default:
		return false
	}
	return true
}

// progressLine draws the bar on a terminal (at most five times a second)
// and a plain line at each new tenth of the stage elsewhere, unless an
// evaluation line, which shows the same counts, came less than half a
// tenth before.
func (p *progress) progressLine(e pipeline.Event) {
	if !p.tty {
		if e.Total <= 0 {
			return
		}
		if t := 10 * e.Done / e.Total; t > p.tenth {
			p.tenth = t
			if p.evalDone == 0 || 20*(e.Done-p.evalDone) >= e.Total {
				fmt.Fprintf(p.w, "[%s] %s\n", e.Stage, p.counter(e))
			}
		}
		return
	}
	if time.Since(p.lastDraw) < 200*time.Millisecond {
		return
	}
	p.lastDraw = time.Now()
	fmt.Fprintf(p.w, "%s[%s] %s%s", clearLine, e.Stage, bar(e), p.counter(e))
	p.inLine = true
}

// bar draws the share done of a stage as 20 cells.
func bar(e pipeline.Event) string {
	if e.Total <= 0 {
		return ""
	}
	full := int(min(20, 20*e.Done/e.Total))
	return "[" + strings.Repeat("#", full) + strings.Repeat(".", 20-full) + "] "
}

func (p *progress) counter(e pipeline.Event) string {
	if e.Total <= 0 {
		return fmt.Sprintf("%d %s", e.Done, e.Unit)
	}
	frac := float64(e.Done) / float64(e.Total)
	eta := "?"
	if rem, ok := p.eta(e); ok {
		eta = rem.Round(time.Second).String()
	}
	rate := float64(e.Done) / math.Max(e.Elapsed.Seconds(), 1e-9)
	return fmt.Sprintf("%d/%d %s %3.0f%%  %.1f %s/s  ETA %s", e.Done, e.Total, e.Unit, 100*frac, rate, e.Unit, eta)
}

// eta returns the time a stage's progress event e leaves, from its rate
// so far: for the training, at most what is left of the time budget.
// Before a second and a hundredth of the stage have passed there is none:
// the first batches pay one-time costs (on uk-2007-05@100000 the first
// 16 of 29,297 took 0.11 s, a rate that gave 204 s for the 58 s left; at
// 1.1 s the estimate was 57.6 s).
func (p *progress) eta(e pipeline.Event) (time.Duration, bool) {
	if e.Total <= 0 || e.Done <= 0 || (e.Elapsed < time.Second && 100*e.Done < e.Total) {
		return 0, false
	}
	rem := time.Duration(float64(e.Elapsed) * float64(e.Total-e.Done) / float64(e.Done))
	if p.budget > 0 && e.Stage == "train" {
		rem = max(0, min(rem, p.budget-e.Elapsed))
	}
	return rem, true
}

func auc(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.4f", x)
}

func first(q []float64) float64 {
	if len(q) == 0 {
		return math.NaN()
	}
	return q[0]
}

// selectionName names the model-selection AUC of a run.
func selectionName(val bool) string {
	if val {
		return "validation"
	}
	return "train"
}

// Load progress: a file of at least loadProgressMin bytes reports the
// share of its bytes read (compressed bytes for a gzip file) as the load
// stage's progress, in MB, every fortieth of the file or loadProgressStep
// bytes, whichever is less, and at its end.
const (
	loadProgressMin  = 64 << 20
	loadProgressStep = 8 << 20
)

// withLoadProgress returns f, wrapped to report the load's progress to
// prog when it is large enough for the wait to be noticed.
func withLoadProgress(f *os.File, prog *progress) io.Reader {
	st, err := f.Stat()
	if err != nil || st.Size() < loadProgressMin {
		return f
	}
	return newProgressReader(f, prog, st.Size())
}

// progressReader reports the bytes read through it.
type progressReader struct {
	r                       io.Reader
	prog                    *progress
	start                   time.Time
	total, step, done, next int64
}

func newProgressReader(r io.Reader, prog *progress, total int64) *progressReader {
	return &progressReader{r: r, prog: prog, start: time.Now(), total: total, step: min(loadProgressStep, max(1, total/40))}
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	if p.done >= p.next || err == io.EOF && p.done > p.next-p.step {
		p.next = p.done + p.step
		p.prog.Record(pipeline.Event{Kind: pipeline.Progress, Stage: "load", Done: p.done >> 20, Total: p.total >> 20, Unit: "MB", Elapsed: time.Since(p.start)})
	}
	return n, err
}
