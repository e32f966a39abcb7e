package jobs

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
)

// ErrQueueFull: the in-process queue's buffer is full; the job stays in
// the metastore for `lakesql worker`.
var ErrQueueFull = errors.New("refresh queue is full")

// InProcessQueue runs refresh jobs on a pool of goroutines in this process
// (the embedded default, inside serve, the REPL and programs embedding the
// engine). Enqueue never blocks.
type InProcessQueue struct {
	run    func(ctx context.Context, executionID string)
	ch     chan string
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	busy   int // queued + running
	idle   *sync.Cond
	closed bool
}

// NewInProcessQueue starts workers goroutines that call run for each
// enqueued job.
func NewInProcessQueue(workers int, run func(ctx context.Context, executionID string)) *InProcessQueue {
	ctx, cancel := context.WithCancel(context.Background())
	q := &InProcessQueue{run: run, ch: make(chan string, 4096), ctx: ctx, cancel: cancel}
	q.idle = sync.NewCond(&q.mu)
	for range max(1, workers) {
		q.wg.Add(1)
		go q.work()
	}
	return q
}

func (q *InProcessQueue) work() {
	defer q.wg.Done()
	for {
		select {
		case <-q.ctx.Done():
			return
		case id := <-q.ch:
			func() {
				defer func() { _ = recover() }()
				q.run(q.ctx, id)
			}()
			q.mu.Lock()
			q.busy--
			if q.busy == 0 {
				q.idle.Broadcast()
			}
			q.mu.Unlock()
		}
	}
}

// Enqueue implements catalogstore.Queue.
func (q *InProcessQueue) Enqueue(_ context.Context, job *catalogstore.Job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return errors.New("refresh queue is closed")
	}
	select {
	case q.ch <- job.ExecutionID:
		q.busy++
		return nil
	default:
		return ErrQueueFull
	}
}

// Wait blocks until no job is queued or running, or ctx ends.
func (q *InProcessQueue) Wait(ctx context.Context) error {
	select {
	case <-q.idleSignal():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// idleSignal returns a channel closed once no job is queued or running
// (a sync.Cond cannot be selected on together with a deadline).
func (q *InProcessQueue) idleSignal() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		q.mu.Lock()
		for q.busy > 0 {
			q.idle.Wait()
		}
		q.mu.Unlock()
		close(done)
	}()
	return done
}

// closeGrace bounds how long Close waits for queued and running jobs.
const closeGrace = 30 * time.Second

// Close refuses new jobs, lets the queued and running ones finish (for at
// most closeGrace, so a REPL or `lakesql -e` exiting right after a commit
// still refreshes), then stops the workers. A job cut off stays pending
// (or running) in the metastore, for `lakesql worker`.
func (q *InProcessQueue) Close() {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.closed = true
	q.mu.Unlock()
	select {
	case <-q.idleSignal():
	case <-time.After(closeGrace):
	}
	q.cancel()
	q.wg.Wait()
}

// InlineQueue runs each job in the goroutine that enqueues it: after the
// firing commit, before the statement returns. Deterministic, for tests
// and scripts.
type InlineQueue func(ctx context.Context, executionID string)

// Enqueue implements catalogstore.Queue.
func (f InlineQueue) Enqueue(ctx context.Context, job *catalogstore.Job) error {
	f(context.WithoutCancel(ctx), job.ExecutionID)
	return nil
}
