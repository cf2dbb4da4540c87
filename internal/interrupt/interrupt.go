// Package interrupt turns SIGINT and SIGTERM into the cancellation of a
// context, for the commands: long work stops at its next check of the
// context, and the command exits with the shell's code for the signal.
package interrupt

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes of a command stopped by a signal: 128 + its number.
const (
	CodeInterrupted = 130 // SIGINT
	CodeTerminated  = 143 // SIGTERM
)

// Stopped is the cause (context.Cause) of a context that Notify cancels:
// the signal that cancelled it.
type Stopped struct{ Signal os.Signal }

func (s *Stopped) Error() string { return "stopped by " + s.Signal.String() }

// Signals is the signal handling that Notify starts.
type Signals struct{ sigs chan os.Signal }

// Notify returns a context that is cancelled, with cause *Stopped, at the
// first SIGINT or SIGTERM, and the handling, which Stop ends. The first
// signal ends the handling itself, so that a second one has its default
// effect and stops a command that is slow to wind down.
func Notify(parent context.Context) (context.Context, *Signals) {
	ctx, cancel := context.WithCancelCause(parent)
	s := &Signals{sigs: make(chan os.Signal, 1)}
	signal.Notify(s.sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig, ok := <-s.sigs
		if ok {
			signal.Stop(s.sigs)
			cancel(&Stopped{Signal: sig})
		}
	}()
	return ctx, s
}

// Stop ends the handling: a later signal has its default effect.
func (s *Signals) Stop() { signal.Stop(s.sigs) }

// Code returns the exit code of work that the cancellation of ctx
// stopped: CodeTerminated when SIGTERM cancelled it, else
// CodeInterrupted (SIGINT, or a cancellation without a signal, as in
// tests).
func Code(ctx context.Context) int {
	if stoppedBy(ctx) == syscall.SIGTERM {
		return CodeTerminated
	}
	return CodeInterrupted
}

// Word returns how the cancellation of ctx is told: "terminated" after
// SIGTERM, else "interrupted".
func Word(ctx context.Context) string {
	if stoppedBy(ctx) == syscall.SIGTERM {
		return "terminated"
	}
	return "interrupted"
}

// stoppedBy returns the signal that cancelled ctx, or nil.
func stoppedBy(ctx context.Context) os.Signal {
	var s *Stopped
	if errors.As(context.Cause(ctx), &s) {
		return s.Signal
	}
	return nil
}
