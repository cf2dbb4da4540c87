// Package interrupt turns SIGINT and SIGTERM into the cancellation of a
// context, for the commands: long work stops at its next check of the
// context, and the command exits with the shell's code for the signal.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// Exit codes of a command stopped by a signal: 128 + its number.
const (
	CodeInterrupted = 130 // SIGINT
	CodeTerminated  = 143 // SIGTERM
)

// Signals is the signal handling that Notify starts.
type Signals struct {
	sigs       chan os.Signal
	terminated atomic.Bool
}

// Notify returns a context that is cancelled at the first SIGINT or
// SIGTERM, and the handling, which Stop ends.
func Notify(parent context.Context) (context.Context, *Signals) {
	ctx, cancel := context.WithCancel(parent)
	s := &Signals{sigs: make(chan os.Signal, 1)}
	signal.Notify(s.sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig, ok := <-s.sigs
		if ok {
			s.terminated.Store(sig == syscall.SIGTERM)
			cancel()
		}
	}()
	return ctx, s
}

// Stop ends the handling: a later signal has its default effect.
func (s *Signals) Stop() { signal.Stop(s.sigs) }

// Code returns the exit code of a run that the signal stopped:
// CodeTerminated after SIGTERM, else CodeInterrupted.
func (s *Signals) Code() int {
	if s.terminated.Load() {
		return CodeTerminated
	}
	return CodeInterrupted
}
