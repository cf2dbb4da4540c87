package interrupt

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// TestNotify sends the process SIGTERM, then SIGINT, each to a fresh
// handling: the context is cancelled within a second and Code names the
// signal.
func TestNotify(t *testing.T) {
	for sig, want := range map[syscall.Signal]int{syscall.SIGTERM: CodeTerminated, syscall.SIGINT: CodeInterrupted} {
		ctx, s := Notify(context.Background())
		if err := syscall.Kill(syscall.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
			t.Fatalf("%v: context not cancelled", sig)
		}
		s.Stop()
		if got := s.Code(); got != want {
			t.Errorf("%v: code %d, want %d", sig, got, want)
		}
	}
}
