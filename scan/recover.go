package scan

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"

	"golang.org/x/sync/errgroup"
)

// ErrWorkerPanic marks a scan worker that panicked. The statement guard
// in the engine recovers panics on the statement's own goroutine only; a
// panic on one of the scan's worker goroutines would otherwise end the
// whole server, so each worker turns it into this error and the query
// fails alone.
var ErrWorkerPanic = errors.New("internal error in a scan worker")

// goSafe runs f on g like g.Go, returning a panic in f as an error.
func goSafe(g *errgroup.Group, f func() error) {
	g.Go(func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				slog.Error("scan worker panicked; the query fails with an error", "panic", p, "stack", string(debug.Stack()))
				err = fmt.Errorf("%w: %v", ErrWorkerPanic, p)
			}
		}()
		return f()
	})
}
