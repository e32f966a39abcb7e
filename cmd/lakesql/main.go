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
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Ctrl-C cancels the REPL's running statement, or else the run.
	intr := newInterrupter(cancel)
	sigint := make(chan os.Signal, 1)
	signal.Notify(sigint, os.Interrupt)
	go func() {
		for range sigint {
			intr.interrupt()
		}
	}()
	if err := run(withInterrupter(ctx, intr), os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "lakesql:", err)
		os.Exit(1)
	}
}
