package engine

import (
	"log/slog"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
)

// Go keeps the heap a finished query grew: until the next garbage
// collection its garbage is not even free, and with no queries running
// nothing allocates, so no collection comes (a server that a 12 GB query
// grew stayed at 12 GB). The memory releaser watches the heap the runtime
// retains and, when the engine is idle and that heap has grown well past
// what it was after the last release, collects and returns the free pages
// to the OS (debug.FreeOSMemory). It never runs during a query, where the
// forced collection would mark the query's whole live heap, and at most
// once per releaseGap.

const (
	releaseEvery  = time.Second     // how often the heap is looked at
	releaseGap    = 3 * time.Second // at least this long between releases
	releaseGrowth = 64 << 20        // retained heap growth that warrants one
)

var heapMetrics = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/unused:bytes",
}

// retainedHeap is the heap memory the runtime holds and has not returned
// to the OS: objects (live or garbage), free spans and fragmentation.
func retainedHeap() uint64 {
	s := make([]metrics.Sample, len(heapMetrics))
	for i, name := range heapMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	var n uint64
	for _, x := range s {
		if x.Value.Kind() == metrics.KindUint64 {
			n += x.Value.Uint64()
		}
	}
	return n
}

// memReleaser is the background releaser; Close stops it.
type memReleaser struct {
	busy      func() bool
	log       *slog.Logger
	stop      chan struct{}
	closeOnce sync.Once
	done      chan struct{}
	// Releases counts the releases made, for tests and logs.
	releases atomic.Int64
}

func startMemReleaser(busy func() bool, log *slog.Logger) *memReleaser {
	m := &memReleaser{busy: busy, log: log, stop: make(chan struct{}), done: make(chan struct{})}
	go m.run()
	return m
}

func (m *memReleaser) run() {
	defer close(m.done)
	t := time.NewTicker(releaseEvery)
	defer t.Stop()
	baseline := retainedHeap()
	var last time.Time
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
		}
		held := retainedHeap()
		if held < baseline {
			baseline = held // the scavenger got there first
		}
		if held < baseline+releaseGrowth || time.Since(last) < releaseGap || m.busy() {
			continue
		}
		debug.FreeOSMemory()
		last = time.Now()
		after := retainedHeap()
		m.releases.Add(1)
		m.log.Debug("memory returned to the OS", "retained_before", held, "retained_after", after)
		baseline = after
	}
}

// Close stops the releaser. Engine.Close may run more than once (tests
// and the CLI both close), so only the first call closes stop.
func (m *memReleaser) Close() error {
	m.closeOnce.Do(func() { close(m.stop) })
	<-m.done
	return nil
}

// busy reports whether a statement is running, on the wire (GMS's process
// list) or embedded (Conn.run counts them).
func (e *Engine) busy() bool {
	if e.running.Load() > 0 {
		return true
	}
	for _, p := range e.gms.ProcessList.Processes() {
		if p.Command == sql.ProcessCommandQuery {
			return true
		}
	}
	return false
}
