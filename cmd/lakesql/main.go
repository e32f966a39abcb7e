// Command lakesql queries and changes a lakehouse with SQL: a REPL, a
// script runner and a MySQL-wire server over the lakesql engine.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "lakesql:", err)
		os.Exit(1)
	}
}
