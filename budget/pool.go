package budget

import (
	"sync"
	"sync/atomic"
	"time"
)

// ServerSysVar is the global variable holding the server's memory cap in
// bytes: what all running queries' budgets together may hold.
const ServerSysVar = "lakesql_server_memory"

// poolWait is how long a charge waits for other queries to give memory
// back before it fails: long enough to ride out another query's end,
// short enough that KILL QUERY and the client see an answer at once.
const poolWait = 250 * time.Millisecond

// Pool is the server's memory cap, which every query's Account draws
// from: N concurrent queries together hold at most its limit, whatever
// each one's own budget. It is safe for concurrent use. A nil *Pool is
// unlimited.
type Pool struct {
	limit atomic.Int64
	used  atomic.Int64

	mu      sync.Mutex
	waiters atomic.Int32
	freed   chan struct{} // closed (and replaced) when memory comes back; under mu
}

// NewPool returns a pool of limit bytes (<= 0: unlimited).
func NewPool(limit int64) *Pool {
	p := &Pool{freed: make(chan struct{})}
	p.limit.Store(limit)
	return p
}

// SetLimit changes the cap (SET GLOBAL lakesql_server_memory); what the
// queries hold is kept, new charges meet the new cap.
func (p *Pool) SetLimit(limit int64) {
	if p != nil {
		p.limit.Store(limit)
	}
}

// Limit is the cap in bytes (<= 0: unlimited).
func (p *Pool) Limit() int64 {
	if p == nil {
		return 0
	}
	return p.limit.Load()
}

// Used is what all queries hold now.
func (p *Pool) Used() int64 {
	if p == nil {
		return 0
	}
	return p.used.Load()
}

// fits reports whether n more bytes stay within the cap.
func (p *Pool) fits(n int64) bool {
	lim := p.Limit()
	return lim <= 0 || p.used.Load()+n <= lim
}

// tryAcquire takes n bytes if they fit.
func (p *Pool) tryAcquire(n int64) bool {
	lim := p.limit.Load()
	if p.used.Add(n) <= lim || lim <= 0 {
		return true
	}
	p.used.Add(-n)
	return false
}

// acquire takes n bytes, waiting up to poolWait for other queries to give
// some back; false when they did not.
func (p *Pool) acquire(n int64) bool {
	if p == nil || p.tryAcquire(n) {
		return true
	}
	deadline := time.NewTimer(poolWait)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		p.waiters.Add(1)
		freed := p.freed
		p.mu.Unlock()
		ok, late := p.tryAcquire(n), false // memory may have come back before we registered
		if !ok {
			select {
			case <-freed:
				ok = p.tryAcquire(n)
			case <-deadline.C:
				late = true
			}
		}
		p.waiters.Add(-1)
		if ok || late {
			return ok
		}
	}
}

// release gives n bytes back and wakes the charges waiting for memory.
func (p *Pool) release(n int64) {
	if p == nil || n <= 0 {
		return
	}
	p.used.Add(-n)
	if p.waiters.Load() == 0 {
		return
	}
	p.mu.Lock()
	close(p.freed)
	p.freed = make(chan struct{})
	p.mu.Unlock()
}
