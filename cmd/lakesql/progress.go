package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/lakesql/lakesql/scan"
)

// progressDelay is how long a statement runs before the REPL shows its
// progress: quick statements print no bar.
const progressDelay = time.Second

// queryProgress draws a bar of the data files a running statement's scans
// have read out of those they planned, once the statement has run for
// progressDelay. Not safe for concurrent use: one goroutine ticks it.
type queryProgress struct {
	pr  *scan.Progress
	w   io.Writer
	bar *progressbar.ProgressBar
}

// update redraws the bar for a statement that has run for elapsed.
func (q *queryProgress) update(elapsed time.Duration) {
	done, total := q.pr.Files()
	if elapsed < progressDelay || total == 0 {
		return
	}
	if q.bar == nil {
		q.bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(q.w), progressbar.OptionSetDescription("files"),
			progressbar.OptionShowCount(), progressbar.OptionSetWidth(30), progressbar.OptionSetPredictTime(false),
			progressbar.OptionThrottle(0))
	}
	if q.bar.GetMax64() != total {
		q.bar.ChangeMax64(total) // a later scan (a join's other side) planned more
	}
	_ = q.bar.Set64(done)
}

// finish removes the bar, if one was drawn.
func (q *queryProgress) finish() {
	if q.bar != nil {
		_ = q.bar.Clear()
		fmt.Fprint(q.w, "\r")
	}
}

// showQueryProgress ticks a queryProgress for the statement running under ctx
// until the returned stop is called.
func showQueryProgress(ctx context.Context, pr *scan.Progress, w io.Writer) (stop func()) {
	q := &queryProgress{pr: pr, w: w}
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				q.finish()
				return
			case <-ctx.Done():
				q.finish()
				return
			case <-t.C:
				q.update(time.Since(start))
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}
