package budget

import (
	"context"
	"sync"
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
	pool  *Pool // the server's cap it draws from; nil: none

	mu     sync.Mutex
	drawn  int64       // what it holds of the pool
	closed bool        // the query ended: the pool has what it drew back
	stop   func() bool // stops the context.AfterFunc of EndWith
	armed  bool
	locals map[any]any
}

// New returns an account with limit bytes; limit <= 0 is unlimited (the
// account still counts, for Used and Peak).
func New(limit int64) *Account { return &Account{limit: limit} }

// NewAccount returns an account with limit bytes (<= 0: unlimited) that
// draws what it charges from the pool as well, so it fails when either
// its own limit or the server's is reached. The query must Close it (or
// EndWith its context) so what its operators never gave back returns to
// the pool.
func (p *Pool) NewAccount(limit int64) *Account { return &Account{limit: limit, pool: p} }

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
	if !a.draw(n) {
		a.used.Add(-n)
		return &ExceededError{Op: op, Limit: a.pool.Limit(), Used: a.pool.Used(), Want: n, Server: true}
	}
	for {
		p := a.peak.Load()
		if used <= p || a.peak.CompareAndSwap(p, used) {
			return nil
		}
	}
}

// draw takes n bytes from the pool (waiting briefly for other queries
// to give some back); false when the server has none left.
func (a *Account) draw(n int64) bool {
	if a.pool == nil {
		return true
	}
	a.mu.Lock()
	closed := a.closed
	a.mu.Unlock()
	if closed {
		return true // the query is over: a late charge is not the server's
	}
	if !a.pool.acquire(n) {
		return false
	}
	a.mu.Lock()
	if a.closed {
		a.pool.release(n)
	} else {
		a.drawn += n
	}
	a.mu.Unlock()
	return true
}

// Shrink gives n bytes back.
func (a *Account) Shrink(n int64) {
	if a == nil || n <= 0 {
		return
	}
	a.used.Add(-n)
	if a.pool == nil {
		return
	}
	a.mu.Lock()
	k := min(n, a.drawn)
	a.drawn -= k
	a.mu.Unlock()
	a.pool.release(k)
}

// Fits reports whether n more bytes would stay within the limit (and the
// server's), without charging them (an operator choosing between memory
// and disk).
func (a *Account) Fits(n int64) bool {
	return a == nil || (a.limit <= 0 || a.used.Load()+n <= a.limit) && (a.pool == nil || a.pool.fits(n))
}

// Close ends the account's query: what it still holds of the pool goes
// back (an operator that keeps its table to the end never shrinks it).
// Later charges count for the account alone. Close may be called more
// than once.
func (a *Account) Close() {
	if a == nil || a.pool == nil {
		return
	}
	a.mu.Lock()
	a.closed = true
	k, stop := a.drawn, a.stop
	a.drawn, a.stop = 0, nil
	a.mu.Unlock()
	a.pool.release(k)
	if stop != nil {
		stop()
	}
}

// Local is the query's value for key, made by init on first use: state
// that operators share across one query and that must not outlive it
// (a materialised CTE's rows). It lives as long as the account; nil for
// a nil account.
func (a *Account) Local(key any, init func() any) any {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	v, ok := a.locals[key]
	if !ok {
		if a.locals == nil {
			a.locals = map[any]any{}
		}
		v = init()
		a.locals[key] = v
	}
	return v
}

// EndWith closes the account when ctx ends (the server cancels a
// statement's context when it is done). Only the first call counts: the
// statement's context is the first one its plan is built with.
func (a *Account) EndWith(ctx context.Context) {
	if a == nil || a.pool == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.armed || a.closed {
		return
	}
	a.armed = true
	a.stop = context.AfterFunc(ctx, a.Close)
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
