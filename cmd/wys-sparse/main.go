package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/wys-project/wys/internal/interrupt"
)

func main() {
	if len(os.Args) < 2 || subcommands[os.Args[1]] == nil {
		// A run's outputs are files and its stdout a summary: a closed
		// stdout (… | head) must not kill it, so its writes just fail.
		// The subcommands write their results to stdout, and stop there.
		signal.Ignore(syscall.SIGPIPE)
	}
	ctx, sigs := interrupt.Notify(context.Background())
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	sigs.Stop()
	os.Exit(code)
}
