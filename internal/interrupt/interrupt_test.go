package interrupt

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// TestNotify sends the process SIGTERM, then SIGINT, each to a fresh
// handling: the context is cancelled within a second, and Code and Word
// name the signal.
func TestNotify(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		word string
	}{{syscall.SIGTERM, CodeTerminated, "terminated"}, {syscall.SIGINT, CodeInterrupted, "interrupted"}} {
		ctx, s := Notify(context.Background())
		if err := syscall.Kill(syscall.Getpid(), c.sig); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
			t.Fatalf("%v: context not cancelled", c.sig)
		}
		s.Stop()
		if got := Code(ctx); got != c.code {
			t.Errorf("%v: code %d, want %d", c.sig, got, c.code)
		}
		if got := Word(ctx); got != c.word {
			t.Errorf("%v: %q, want %q", c.sig, got, c.word)
		}
	}
	// A cancellation without a signal is an interruption.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Code(ctx) != CodeInterrupted || Word(ctx) != "interrupted" {
		t.Errorf("plain cancel: %d %q", Code(ctx), Word(ctx))
	}
}
