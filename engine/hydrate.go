package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/maintenance"
	"github.com/lakesql/lakesql/sqlerr"
)

// hydrator fills in deferred statistics in the background: a commit that
// adds files (add-files, append) queues its dataset, and one goroutine
// hydrates queued datasets with maintenance.HydrateStats. A full queue
// drops the request; the files stay pending (never pruned) until the next
// commit or CALL hydrate_statistics.
type hydrator struct {
	cat    *catalogstore.Catalog
	e      *Engine
	ch     chan catalogstore.Ident
	cancel context.CancelFunc
	wg     sync.WaitGroup
	idle   sync.WaitGroup // counts queued, unfinished requests (for tests)
}

func startHydrator(e *Engine) *hydrator {
	ctx, cancel := context.WithCancel(context.Background())
	h := &hydrator{cat: e.cat, e: e, ch: make(chan catalogstore.Ident, 64), cancel: cancel}
	h.wg.Add(1)
	go h.run(ctx)
	return h
}

// afterCommit is the catalog hook: queue datasets that may have gained
// pending files.
func (h *hydrator) afterCommit(_ context.Context, ds *catalogstore.Dataset, snap *catalogstore.Snapshot) {
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

func (h *hydrator) run(ctx context.Context) {
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

func (h *hydrator) hydrate(ctx context.Context, id catalogstore.Ident) {
	ds, err := h.cat.Dataset(ctx, id)
	if err != nil {
		return // dropped since
	}
	res, err := maintenance.HydrateStats(ctx, h.cat, ds, "lakesql-hydrator")
	if err != nil {
		if ctx.Err() == nil { // not a shutdown
			h.e.log.Warn("statistics hydration failed; files stay pending", "dataset", id.String(), "err", err)
		}
		return
	}
	if res.Failed > 0 {
		h.e.log.Warn("statistics hydration: some footers unreadable", "dataset", id.String(), "failed", res.Failed)
	}
}

// close stops the goroutine (a hydration in progress is cancelled; its
// files stay pending).
func (h *hydrator) close() error {
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

// ingestProcedures registers files and fills deferred statistics:
//
//	CALL add_files('c.t', 'key1,key2' [, deferred])
//	CALL hydrate_statistics('c.t')
func ingestProcedures() []sql.ExternalStoredProcedureDetails {
	addSchema := sql.Schema{
		{Name: "snapshot_id", Type: types.Int64},
		{Name: "added_files", Type: types.Int64},
		{Name: "added_records", Type: types.Int64},
		{Name: "stats", Type: types.LongText},
	}
	return []sql.ExternalStoredProcedureDetails{
		{Name: "add_files", Schema: addSchema, Function: procAddFiles},
		{Name: "add_files", Schema: addSchema, Function: procAddFilesDeferred},
		{Name: "hydrate_statistics", Function: procHydrate, Schema: sql.Schema{
			{Name: "pending_files", Type: types.Int64},
			{Name: "provided_files", Type: types.Int64},
			{Name: "failed_files", Type: types.Int64},
			{Name: "snapshot_id", Type: types.Int64, Nullable: true},
		}},
	}
}

func procAddFiles(ctx *sql.Context, table, paths string) (sql.RowIter, error) {
	return procAddFilesDeferred(ctx, table, paths, false)
}

func procAddFilesDeferred(ctx *sql.Context, table, paths string, deferred bool) (sql.RowIter, error) {
	env, ds, err := maintained(ctx, table, "given files")
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, p := range strings.Split(paths, ",") {
		if p = strings.TrimSpace(p); p != "" {
			keys = append(keys, p)
		}
	}
	if len(keys) == 0 {
		return nil, sqlerr.Wrap(fmt.Errorf("%w: add_files needs one or more object keys, comma-separated", catalogstore.ErrBadValue))
	}
	snap, err := env.cat.AddFiles(ctx, ds.Ident(), keys, env.sess.Author(), deferred)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	state := "provided"
	if deferred {
		state = "pending"
	}
	return sql.RowsToRowIter(sql.Row{snap.ID, snap.Summary.AddedFiles, snap.Summary.AddedRecords, state}), nil
}

func procHydrate(ctx *sql.Context, table string) (sql.RowIter, error) {
	env, ds, err := maintained(ctx, table, "hydrated")
	if err != nil {
		return nil, err
	}
	res, err := maintenance.HydrateStats(ctx, env.cat, ds, env.sess.Author())
	if err != nil {
		return nil, maintErr(ctx, env, err)
	}
	var snap any
	if res.Snapshot != nil {
		snap = res.Snapshot.ID
	}
	return sql.RowsToRowIter(sql.Row{int64(res.Pending), int64(res.Provided), int64(res.Failed), snap}), nil
}
