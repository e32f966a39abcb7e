package scan

import (
	"context"
	"sync/atomic"
)

// Progress counts the data files a statement's scans have planned and
// finished, for a progress display (the REPL's bar). A scan adds its
// files once pruned, and marks each done as it is read, so Done never
// exceeds Total. Safe for concurrent use; a nil *Progress counts nothing.
type Progress struct {
	total, done atomic.Int64
}

type progressKey struct{}

// WithProgress returns ctx carrying pr: the scans run under it count into
// pr.
func WithProgress(ctx context.Context, pr *Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, pr)
}

// progressFrom returns ctx's Progress, or nil.
func progressFrom(ctx context.Context) *Progress {
	pr, _ := ctx.Value(progressKey{}).(*Progress)
	return pr
}

// Files returns the files finished and planned so far.
func (pr *Progress) Files() (done, total int64) {
	if pr == nil {
		return 0, 0
	}
	// Done first: a file planned between the loads only makes total larger.
	done = pr.done.Load()
	return done, pr.total.Load()
}

func (pr *Progress) plan(n int) {
	if pr != nil {
		pr.total.Add(int64(n))
	}
}

func (pr *Progress) fileDone() {
	if pr != nil {
		pr.done.Add(1)
	}
}
