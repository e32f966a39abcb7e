package budget

import (
	"context"
	"sync/atomic"
)

// Account is one query's memory budget: a limit and what the query's
// operators hold. It is safe for concurrent use (a query's scan workers
// charge it in parallel). A nil *Account is an unlimited budget that
// accounts nothing, so code below the engine runs the same without one.
type Account struct {
	limit int64
	used  atomic.Int64
	peak  atomic.Int64
}

// New returns an account with limit bytes; limit <= 0 is unlimited (the
// account still counts, for Used and Peak).
func New(limit int64) *Account { return &Account{limit: limit} }

// Limit is the budget in bytes (<= 0: unlimited).
func (a *Account) Limit() int64 {
	if a == nil {
		return 0
	}
	return a.limit
}

// Used is what the query's operators hold now.
func (a *Account) Used() int64 {
	if a == nil {
		return 0
	}
	return a.used.Load()
}

// Peak is the most the query's operators held at once.
func (a *Account) Peak() int64 {
	if a == nil {
		return 0
	}
	return a.peak.Load()
}

// Grow charges n bytes for op, or returns an *ExceededError (wrapping
// ErrExceeded) and charges nothing when the query would hold more than
// its limit.
func (a *Account) Grow(op string, n int64) error {
	if a == nil || n <= 0 {
		return nil
	}
	used := a.used.Add(n)
	if a.limit > 0 && used > a.limit {
		a.used.Add(-n)
		return &ExceededError{Op: op, Limit: a.limit, Used: used - n, Want: n}
	}
	for {
		p := a.peak.Load()
		if used <= p || a.peak.CompareAndSwap(p, used) {
			return nil
		}
	}
}

// Shrink gives n bytes back.
func (a *Account) Shrink(n int64) {
	if a == nil || n <= 0 {
		return
	}
	a.used.Add(-n)
}

// Fits reports whether n more bytes would stay within the limit, without
// charging them (an operator choosing between memory and disk).
func (a *Account) Fits(n int64) bool {
	return a == nil || a.limit <= 0 || a.used.Load()+n <= a.limit
}

type ctxKey struct{}

// With returns ctx carrying a.
func With(ctx context.Context, a *Account) context.Context {
	return context.WithValue(ctx, ctxKey{}, a)
}

// From returns the account ctx carries, or nil (unlimited) when it
// carries none.
func From(ctx context.Context) *Account {
	if ctx == nil {
		return nil
	}
	a, _ := ctx.Value(ctxKey{}).(*Account)
	return a
}
