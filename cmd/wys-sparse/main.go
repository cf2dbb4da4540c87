package main

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var terminated atomic.Bool
	go func() {
		s := <-sigs
		terminated.Store(s == syscall.SIGTERM)
		cancel()
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	signal.Stop(sigs)
	if code == exitInterrupted && terminated.Load() {
		code = exitTerminated
	}
	os.Exit(code)
}
