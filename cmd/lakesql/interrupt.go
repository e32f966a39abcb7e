package main

import (
	"context"
	"sync"
)

// interrupter routes Ctrl-C (SIGINT). While the REPL runs a statement it
// cancels that statement only; the REPL then reads the next one. Outside
// a statement the REPL ignores it (readline reports a Ctrl-C typed at the
// prompt itself, which clears the line). In every other mode (-e, a
// script, serve) it cancels the whole run. Safe for concurrent use.
type interrupter struct {
	root context.CancelFunc

	mu      sync.Mutex
	repl    bool
	query   context.CancelFunc // the running REPL statement's, or nil
	started chan struct{}      // closed when a statement starts (tests wait on it)
}

type interrupterKey struct{}

func newInterrupter(root context.CancelFunc) *interrupter {
	return &interrupter{root: root, started: make(chan struct{})}
}

// withInterrupter returns ctx carrying in, for the REPL run under ctx.
func withInterrupter(ctx context.Context, in *interrupter) context.Context {
	return context.WithValue(ctx, interrupterKey{}, in)
}

// interrupterFrom returns ctx's interrupter, or a new one that cancels
// nothing beyond the statement (a REPL started without main's signal
// handler: tests).
func interrupterFrom(ctx context.Context) *interrupter {
	if in, ok := ctx.Value(interrupterKey{}).(*interrupter); ok {
		return in
	}
	return newInterrupter(func() {})
}

// replMode makes interrupts cancel statements only.
func (in *interrupter) replMode() {
	in.mu.Lock()
	in.repl = true
	in.mu.Unlock()
}

// begin starts a statement: its context, cancelled by an interrupt, and
// the function that ends it.
func (in *interrupter) begin(ctx context.Context) (context.Context, func()) {
	qctx, cancel := context.WithCancel(ctx)
	in.mu.Lock()
	in.query = cancel
	close(in.started)
	in.mu.Unlock()
	return qctx, func() {
		in.mu.Lock()
		in.query = nil
		in.started = make(chan struct{})
		in.mu.Unlock()
		cancel()
	}
}

// whenStarted returns a channel closed when the next (or the running)
// statement has started.
func (in *interrupter) whenStarted() <-chan struct{} {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.started
}

// interrupt handles one Ctrl-C.
func (in *interrupter) interrupt() {
	in.mu.Lock()
	defer in.mu.Unlock()
	switch {
	case in.query != nil:
		in.query()
	case !in.repl:
		in.root()
	}
}
