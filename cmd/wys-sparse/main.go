package main

import (
	"context"
	"os"

	"github.com/wys-project/wys/internal/interrupt"
)

func main() {
	ctx, sigs := interrupt.Notify(context.Background())
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	sigs.Stop()
	os.Exit(code)
}
