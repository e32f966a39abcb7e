package jobs

import (
	"context"
	"log/slog"
	"sync"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/maintenance"
)

// Hydrator fills in deferred statistics in the background: a commit that
// adds files (add-files, append) queues its dataset, and one goroutine
// hydrates queued datasets with maintenance.HydrateStats. A full queue
// drops the request; the files stay pending (never pruned) until the next
// commit or CALL hydrate_statistics.
type Hydrator struct {
	cat    *catalogstore.Catalog
	log    *slog.Logger
	ch     chan catalogstore.Ident
	cancel context.CancelFunc
	wg     sync.WaitGroup
	idle   sync.WaitGroup // counts queued, unfinished requests (for tests)
}

// StartHydrator starts the goroutine that hydrates cat's datasets.
func StartHydrator(cat *catalogstore.Catalog, log *slog.Logger) *Hydrator {
	ctx, cancel := context.WithCancel(context.Background())
	h := &Hydrator{cat: cat, log: log, ch: make(chan catalogstore.Ident, 64), cancel: cancel}
	h.wg.Add(1)
	go h.run(ctx)
	return h
}

// AfterCommit is the catalog hook: queue datasets that may have gained
// pending files.
func (h *Hydrator) AfterCommit(_ context.Context, ds *catalogstore.Dataset, snap *catalogstore.Snapshot) {
	if snap.Operation != catalogstore.OpAddFiles && snap.Operation != catalogstore.OpAppend || snap.Summary.AddedPending == 0 {
		return
	}
	h.idle.Add(1)
	select {
	case h.ch <- ds.Ident():
	default:
		h.idle.Done()
	}
}

func (h *Hydrator) run(ctx context.Context) {
	defer h.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case id := <-h.ch:
			h.hydrate(ctx, id)
			h.idle.Done()
		}
	}
}

func (h *Hydrator) hydrate(ctx context.Context, id catalogstore.Ident) {
	ds, err := h.cat.Dataset(ctx, id)
	if err != nil {
		return // dropped since
	}
	res, err := maintenance.HydrateStats(ctx, h.cat, ds, "lakesql-hydrator")
	if err != nil {
		if ctx.Err() == nil { // not a shutdown
			h.log.Warn("statistics hydration failed; files stay pending", "dataset", id.String(), "err", err)
		}
		return
	}
	if res.Failed > 0 {
		h.log.Warn("statistics hydration: some footers unreadable", "dataset", id.String(), "failed", res.Failed)
	}
}

// Close stops the goroutine (a hydration in progress is cancelled; its
// files stay pending).
func (h *Hydrator) Close() error {
	h.cancel()
	h.wg.Wait()
	return nil
}

// chainCommitHooks runs each hook in turn.
func chainCommitHooks(hooks ...func(context.Context, *catalogstore.Dataset, *catalogstore.Snapshot)) func(context.Context, *catalogstore.Dataset, *catalogstore.Snapshot) {
	return func(ctx context.Context, ds *catalogstore.Dataset, snap *catalogstore.Snapshot) {
		for _, h := range hooks {
			if h != nil {
				h(ctx, ds, snap)
			}
		}
	}
}
