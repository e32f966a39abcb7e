package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lakesql/lakesql/alerts"
	"github.com/lakesql/lakesql/catalogstore"
)

// Config says how refresh jobs run and where alerts go. cmd/lakesql fills
// it from LAKESQL_JOBS, LAKESQL_JOBS_WORKERS, LAKESQL_TRIGGER_MIN_INTERVAL,
// LAKESQL_TASKS_* and LAKESQL_ALERTS_*; the zero value is the embedded
// default.
type Config struct {
	// Mode picks the queue:
	//
	//	inprocess (default)  a worker goroutine pool in this process
	//	inline               the refresh runs in the committing goroutine, after the commit (tests, scripts)
	//	http                 a Cloud-Tasks-style POST with a signed bearer token to `lakesql worker --listen`
	//	none                 jobs are written and left pending for `lakesql worker`
	Mode string
	// Workers sizes the in-process pool (0: 2).
	Workers int
	// TriggerMinInterval coalesces repeated fires (0: 2s; negative: never
	// coalesce).
	TriggerMinInterval time.Duration
	// HTTP configures the http mode's queue.
	HTTP HTTPConfig
	// Alerts names the alert sinks.
	Alerts alerts.Settings
}

// Jobs is an engine's job machinery: the queue trigger fires go to (which
// can be swapped at run time), the in-process pool and the alert reporter.
type Jobs struct {
	queue    atomic.Value // queueBox
	pool     *InProcessQueue
	alerter  *alerts.Reporter
	alertFn  atomic.Value // func(context.Context, error)
	closeOne sync.Once
}

type queueBox struct{ q catalogstore.Queue }

// currentQueue is the queue the firing path uses; it follows SetQueue.
type currentQueue struct{ js *Jobs }

func (c currentQueue) Enqueue(ctx context.Context, job *catalogstore.Job) error {
	b, _ := c.js.queue.Load().(queueBox)
	if b.q == nil {
		return errors.New("no job queue is configured")
	}
	return b.q.Enqueue(ctx, job)
}

// noQueue leaves jobs pending for `lakesql worker`.
type noQueue struct{}

func (noQueue) Enqueue(context.Context, *catalogstore.Job) error { return nil }

// Start wires trigger firing and alerting into cat's hooks (after
// afterCommit, the engine's other commit hook) and starts the queue cfg
// names, whose jobs run is called for. Close stops it.
func Start(cat *catalogstore.Catalog, cfg Config, run func(ctx context.Context, executionID string),
	afterCommit func(context.Context, *catalogstore.Dataset, *catalogstore.Snapshot)) (*Jobs, error) {
	js := &Jobs{}
	min := cfg.TriggerMinInterval
	switch {
	case min == 0:
		min = 2 * time.Second
	case min < 0:
		min = 0
	}
	workers := cfg.Workers
	if workers == 0 {
		workers = 2
	}
	if workers < 1 {
		return nil, fmt.Errorf("LAKESQL_JOBS_WORKERS: %d is not a positive number", workers)
	}
	var q catalogstore.Queue
	switch mode := strings.ToLower(cfg.Mode); mode {
	case "", "inprocess", "in-process":
		js.pool = NewInProcessQueue(workers, run)
		q = js.pool
	case "inline":
		q = InlineQueue(run)
	case "none":
		q = noQueue{}
	case "http":
		hq, err := NewHTTPTaskQueue(cfg.HTTP)
		if err != nil {
			return nil, err
		}
		q = hq
	default:
		return nil, fmt.Errorf("LAKESQL_JOBS=%q: use inprocess, inline, http or none", mode)
	}
	rep, err := alerts.FromSettings(cfg.Alerts)
	if err != nil {
		if js.pool != nil {
			js.pool.Close()
		}
		return nil, err
	}
	js.alerter = rep
	js.alertFn.Store(rep.Report)
	js.SetQueue(q)
	cat.SetHooks(catalogstore.Hooks{
		AfterCommit: chainCommitHooks(cat.TriggerHook(currentQueue{js}, catalogstore.FireOptions{MinInterval: min}), afterCommit),
		Alert: func(ctx context.Context, err error) {
			js.alertFn.Load().(func(context.Context, error))(ctx, err)
		},
	})
	return js, nil
}

// Close stops the in-process pool (waiting for running refreshes) and
// flushes the alert sinks.
func (js *Jobs) Close() error {
	js.closeOne.Do(func() {
		if js.pool != nil {
			js.pool.Close()
		}
		js.alerter.Close()
	})
	return nil
}

// SetQueue replaces the queue refresh jobs go to.
func (js *Jobs) SetQueue(q catalogstore.Queue) { js.queue.Store(queueBox{q}) }

// Queue returns the queue refresh jobs go to.
func (js *Jobs) Queue() catalogstore.Queue {
	b, _ := js.queue.Load().(queueBox)
	return b.q
}

// SetAlertHook replaces where alerts go (nil: the configured sinks).
func (js *Jobs) SetAlertHook(fn func(ctx context.Context, err error)) {
	if fn == nil {
		fn = js.alerter.Report
	}
	js.alertFn.Store(fn)
}

// Wait waits until the in-process pool has no queued or running job, or
// ctx ends; with another queue it returns at once.
func (js *Jobs) Wait(ctx context.Context) error {
	if q, ok := js.Queue().(*InProcessQueue); ok {
		return q.Wait(ctx)
	}
	return nil
}
