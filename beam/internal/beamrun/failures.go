package beamrun

import (
	"context"
	"log/slog"
	"strings"
	"sync"
)

// QuietFailures wraps slog's default handler, which beam.Init sets up for
// the SDK and Prism, so that HoldErrors can keep a failed pipeline's
// records off standard error. Prism logs a failed step four or five
// times as errors, each with the plan of its stage (kilobytes), and the
// bundles it stops as warnings, before the pipeline returns the error
// whose last line the command prints; below info that line is all a user
// needs (info and debug show the records). Call it once, after
// beam.Init, for the warn and error levels.
func QuietFailures() {
	h := &holdHandler{next: slog.Default().Handler(), s: &holdState{}}
	slog.SetDefault(slog.New(h))
	quiet = h.s
}

// quiet is the state of QuietFailures' handler, nil without it.
var quiet *holdState

// HoldErrors holds back the records logged from now on (those the level
// lets through: warnings and errors), for a pipeline about to run, and
// returns the function to call when it has ended: done(false) writes
// them, as they would have been; done(true), for a pipeline that failed,
// drops them and every record logged after it (the runner's goroutines
// can log the failure after Run has returned it; the command is about to
// print it and exit). Without QuietFailures it holds nothing.
func HoldErrors() (done func(failed bool)) {
	s := quiet
	if s == nil {
		return func(bool) {}
	}
	s.mu.Lock()
	s.holding = true
	s.mu.Unlock()
	return func(failed bool) {
		s.mu.Lock()
		held := s.held
		s.held, s.holding = nil, false
		s.dropping = s.dropping || failed
		s.mu.Unlock()
		if failed {
			return
		}
		for _, r := range held {
			r.h.Handle(context.Background(), r.r)
		}
	}
}

// holdState is what the handlers derived from one holdHandler share.
type holdState struct {
	mu       sync.Mutex
	holding  bool // a pipeline runs: records are held
	dropping bool // a pipeline failed: records are dropped
	held     []heldRecord
}

// heldRecord is a record and the handler to write it with.
type heldRecord struct {
	h slog.Handler
	r slog.Record
}

// holdHandler passes records to next, except while its state holds or
// drops them.
type holdHandler struct {
	next slog.Handler
	s    *holdState
}

func (h *holdHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *holdHandler) Handle(ctx context.Context, r slog.Record) error {
	if teardown(r) || h.s.keep(h.next, r) {
		return nil
	}
	return h.next.Handle(ctx, r)
}

// teardown reports whether r is the SDK harness's error for a state or
// data channel whose read was cancelled ("[SDK] StateChannel[…].read bad:
// rpc error: code = Canceled desc = context canceled"): the worker's
// channels closing as it stops after a pipeline, which it may log after
// the pipeline has returned. Under load it came between a finished
// preprocessing pipeline and the command's own error line.
func teardown(r slog.Record) bool {
	return r.Level >= slog.LevelError && strings.Contains(r.Message, "Channel[") &&
		strings.Contains(r.Message, "read bad: rpc error: code = Canceled")
}

// keep holds record r for h, or drops it, and reports whether it did
// either.
func (s *holdState) keep(h slog.Handler, r slog.Record) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holding && !s.dropping {
		s.held = append(s.held, heldRecord{h, r.Clone()})
	}
	return s.holding || s.dropping
}

func (h *holdHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &holdHandler{next: h.next.WithAttrs(attrs), s: h.s}
}

func (h *holdHandler) WithGroup(name string) slog.Handler {
	return &holdHandler{next: h.next.WithGroup(name), s: h.s}
}
