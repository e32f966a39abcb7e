package provider

import (
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/arrowrow"
	"github.com/lakesql/lakesql/catalogstore/txn"
	"github.com/lakesql/lakesql/sqlerr"
)

// WriteSet is a session's write transaction: the staged rows, files and
// deletes of its open transaction, committed by the engine's session
// (catalogstore/txn does the work; the editors below only convert GMS rows
// to Arrow records for it).
type WriteSet = txn.Txn

// NewWriteSet returns an empty write-set.
func NewWriteSet() *WriteSet { return txn.New() }

// batchRows is how many rows an editor converts before handing them to
// the transaction as one record.
const batchRows = 8192

// SysVarDeferredStats is the session variable that makes INSERTs register
// their files with deferred statistics: SET lakesql_deferred_stats = ON.
// Writes skip collecting nothing (Parquet footers always carry stats); the
// manifest simply lists the files as pending until the background
// hydrator fills them in, as CALL add_files(…, deferred) does.
const SysVarDeferredStats = "lakesql_deferred_stats"

// DeferredStats reports the session's lakesql_deferred_stats (false when
// it is not registered).
func DeferredStats(ctx *sql.Context) bool {
	v, err := ctx.GetSessionVariable(ctx, SysVarDeferredStats)
	if err != nil {
		return false
	}
	switch x := v.(type) {
	case int8:
		return x != 0
	case bool:
		return x
	}
	return false
}

// stage returns t's staged work in the session's transaction, pinning t's
// incarnation at the first write.
func stage(w *WriteSet, t *Table) (*txn.Table, error) {
	return w.Table(t.db.p.cat, t.ds, t.schema, t.snapshot)
}

// stmtWrites is a statement's writes to one table, shared by every
// editor GMS opens for the statement (INSERT … ON DUPLICATE KEY UPDATE
// opens an inserter and an updater, which must see each other's rows).
type stmtWrites struct {
	ins  *arrowrow.Builder // rows to insert, not yet handed over
	del  *arrowrow.Builder // rows to delete, not yet handed over
	keys *keyIndex         // the table's keys, from the first keyed write
	// shared: keys is the transaction's index (kept with its staged work
	// across statements); wrote: the statement wrote before keys loaded.
	shared, wrote bool
}

func (sw *stmtWrites) release() {
	for _, b := range []*arrowrow.Builder{sw.ins, sw.del} {
		if b != nil {
			b.Release()
		}
	}
	sw.ins, sw.del, sw.keys = nil, nil, nil
}

// end ends the statement for the key index: a shared index keeps or
// reverts the statement's changes.
func (sw *stmtWrites) end(ctx *sql.Context, keep bool) {
	if sw.keys == nil || !sw.shared {
		return
	}
	if keep {
		sw.keys.complete()
	} else {
		sw.keys.discard(ctx)
	}
}

// editor is a GMS row editor of a table (the shape of GMS's
// memory/table_editor.go): inserts and deletes of the running statement
// are converted to Arrow records and staged in the session's transaction.
// UPDATE stages a delete of the old row and an insert of the new one. On a
// table with a primary key every write keeps the key unique: a duplicate
// is MySQL's 1062, carrying the row that holds the key, which is how GMS
// runs REPLACE (delete it, insert again) and ON DUPLICATE KEY UPDATE
// (update it instead).
type editor struct {
	t       *Table
	w       *WriteSet
	noStats bool
	keyed   bool
	zone    zoneShift   // rows arrive in the session's zone (timezone.go)
	tt      *txn.Table  // the staged work, from the statement's first write
	sw      *stmtWrites // the statement's writes, shared with its other editors
}

var (
	_ sql.RowInserter = (*editor)(nil)
	_ sql.RowDeleter  = (*editor)(nil)
	_ sql.RowUpdater  = (*editor)(nil)
	_ sql.RowReplacer = (*editor)(nil)
)

func newEditor(ctx *sql.Context, t *Table) (*editor, error) {
	sess, err := sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := t.checkWritable(); err != nil {
		return nil, err
	}
	z, err := shiftFor(ctx, t.full)
	if err != nil {
		return nil, err
	}
	return &editor{t: t, w: sess.Writes(), noStats: DeferredStats(ctx), keyed: len(t.schema.Key()) > 0, zone: z}, nil
}

// editorOrFailing returns t's editor, or one that fails every write.
func editorOrFailing(ctx *sql.Context, t *Table) interface {
	sql.RowReplacer
	sql.RowUpdater
} {
	e, err := newEditor(ctx, t)
	if err != nil {
		return &failingEditor{err: err}
	}
	return e
}

// table returns the staged work, starting the statement on first use.
func (e *editor) table() (*txn.Table, error) {
	if e.tt != nil {
		return e.tt, nil
	}
	tt, err := stage(e.w, e.t)
	if err != nil {
		return nil, err
	}
	if err := tt.Begin(); err != nil {
		return nil, err
	}
	v, err := tt.StatementValue(func() any { return &stmtWrites{} })
	if err != nil {
		return nil, err
	}
	tt.SetDeferredStats(e.noStats)
	e.tt, e.sw = tt, v.(*stmtWrites)
	if ki, ok := tt.Value().(*keyIndex); ok && e.sw.keys == nil && ki.valid(e.t) {
		e.sw.keys, e.sw.shared = ki, true
	}
	return tt, nil
}

// keys returns the statement's key index, loading it at first use. An
// index loaded before the statement wrote anything is kept with the
// transaction for its later statements; one loaded later would miss the
// statement's earlier writes, so it serves this statement only.
func (e *editor) keys(ctx *sql.Context) (*keyIndex, error) {
	tt, err := e.table()
	if err != nil {
		return nil, err
	}
	if e.sw.keys == nil {
		ki, err := newKeyIndex(ctx, e.w, e.t)
		if err != nil {
			return nil, err
		}
		e.sw.keys = ki
		if !e.sw.wrote {
			tt.SetValue(ki)
			e.sw.shared = true
		}
	}
	return e.sw.keys, nil
}

// StatementBegin implements sql.EditOpenerCloser.
func (e *editor) StatementBegin(ctx *sql.Context) {
	if _, err := e.table(); err != nil {
		ctx.GetLogger().Warnf("lakesql: begin statement on %s: %v", e.t, err)
	}
}

// DiscardChanges implements sql.EditOpenerCloser: the statement's work is
// dropped, the transaction's stays.
func (e *editor) DiscardChanges(ctx *sql.Context, _ error) error {
	if e.sw != nil {
		e.sw.end(ctx, false)
	}
	e.release()
	if e.tt != nil {
		e.tt.Discard()
	}
	e.tt, e.sw = nil, nil // the next statement pins again: a COMMIT may come between
	return nil
}

// StatementComplete implements sql.EditOpenerCloser. Of the statement's
// editors the first to complete hands the shared writes over.
func (e *editor) StatementComplete(ctx *sql.Context) error {
	if err := e.flush(ctx); err != nil {
		return sqlerr.Wrap(err)
	}
	var err error
	if e.tt != nil {
		err = e.tt.Complete(ctx)
	}
	if e.sw != nil {
		e.sw.end(ctx, err == nil)
	}
	e.release()
	e.tt, e.sw = nil, nil
	return sqlerr.Wrap(err)
}

// Insert implements sql.RowInserter (and sql.RowReplacer): a row whose key
// the table holds is refused with the holder (1062).
func (e *editor) Insert(ctx *sql.Context, row sql.Row) error {
	shown := row
	row = e.zone.toUTC(row)
	if e.keyed {
		ki, err := e.keys(ctx)
		if err != nil {
			return sqlerr.Wrap(err)
		}
		ex, err := ki.existing(ctx, row)
		if err != nil {
			return sqlerr.Wrap(err)
		}
		if ex != nil {
			return ki.duplicate(ctx, shown, e.zone.fromUTC(ex))
		}
		if err := ki.insert(ctx, row.Copy()); err != nil {
			return sqlerr.Wrap(err)
		}
	}
	return sqlerr.Wrap(e.add(ctx, false, row))
}

// Delete implements sql.RowDeleter (and sql.RowReplacer).
func (e *editor) Delete(ctx *sql.Context, row sql.Row) error {
	row = e.zone.toUTC(row)
	if _, err := e.table(); err != nil {
		return sqlerr.Wrap(err)
	}
	if e.sw.keys != nil {
		if err := e.sw.keys.remove(ctx, row); err != nil {
			return sqlerr.Wrap(err)
		}
	}
	return sqlerr.Wrap(e.add(ctx, true, row))
}

// Update implements sql.RowUpdater: a new key the table holds is refused
// (1062), as MySQL checks each row as it updates it.
func (e *editor) Update(ctx *sql.Context, old, new sql.Row) error {
	shown := new
	old, new = e.zone.toUTC(old), e.zone.toUTC(new)
	if err := e.checkUpdate(ctx, old, new, shown); err != nil {
		return err
	}
	if err := e.add(ctx, true, old); err != nil {
		return sqlerr.Wrap(err)
	}
	return sqlerr.Wrap(e.add(ctx, false, new))
}

// checkUpdate keeps the key unique across an update of old to new. An
// update that keeps the key cannot break it: the index is loaded only
// when a key changes, and otherwise only told of the new row (if an
// earlier write of the statement or transaction loaded it).
func (e *editor) checkUpdate(ctx *sql.Context, old, new, shown sql.Row) error {
	if !e.keyed {
		return nil
	}
	if _, err := e.table(); err != nil {
		return sqlerr.Wrap(err)
	}
	same, err := sameKey(ctx, e.t, old, new)
	if err != nil {
		return sqlerr.Wrap(err)
	}
	ki := e.sw.keys
	if ki == nil && same {
		return nil
	}
	if ki == nil {
		if ki, err = e.keys(ctx); err != nil {
			return sqlerr.Wrap(err)
		}
	}
	if err := ki.remove(ctx, old); err != nil {
		return sqlerr.Wrap(err)
	}
	if !same {
		ex, err := ki.existing(ctx, new)
		if err != nil {
			return sqlerr.Wrap(err)
		}
		if ex != nil {
			return ki.duplicate(ctx, shown, e.zone.fromUTC(ex))
		}
	}
	return sqlerr.Wrap(ki.insert(ctx, new.Copy()))
}

// sameKey reports whether rows a and b hold the same key of t.
func sameKey(ctx *sql.Context, t *Table, a, b sql.Row) (bool, error) {
	for _, c := range t.schema.Key() {
		cmp, err := t.full[c].Type.Compare(ctx, a[c], b[c])
		if err != nil || cmp != 0 {
			return false, err
		}
	}
	return true, nil
}

// Close implements sql.Closer.
func (e *editor) Close(*sql.Context) error {
	e.release()
	return nil
}

// add converts row into the statement's deletes (del) or inserts,
// handing a full batch over.
func (e *editor) add(ctx *sql.Context, del bool, row sql.Row) error {
	if _, err := e.table(); err != nil {
		return err
	}
	e.sw.wrote = true
	b := &e.sw.ins
	if del {
		b = &e.sw.del
	}
	if *b == nil {
		*b = arrowrow.NewBuilder(e.t.schema)
	}
	if err := (*b).Append(row); err != nil {
		return err
	}
	if (*b).Len() >= batchRows {
		return e.flush(ctx)
	}
	return nil
}

// flush hands the converted rows to the transaction.
func (e *editor) flush(ctx *sql.Context) error {
	if e.sw == nil {
		return nil
	}
	if b := e.sw.ins; b != nil && b.Len() > 0 {
		rec := b.Record()
		err := e.tt.Append(ctx, rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	if b := e.sw.del; b != nil && b.Len() > 0 {
		rec := b.Record()
		err := e.tt.Delete(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// release frees the statement's unconverted rows (shared: the first
// editor to finish frees them for all).
func (e *editor) release() {
	if e.sw != nil {
		e.sw.release()
	}
}

// failingEditor reports an error from every write.
type failingEditor struct{ err error }

func (f *failingEditor) StatementBegin(*sql.Context)                 {}
func (f *failingEditor) DiscardChanges(*sql.Context, error) error    { return nil }
func (f *failingEditor) StatementComplete(*sql.Context) error        { return nil }
func (f *failingEditor) Insert(*sql.Context, sql.Row) error          { return f.err }
func (f *failingEditor) Delete(*sql.Context, sql.Row) error          { return f.err }
func (f *failingEditor) Update(*sql.Context, sql.Row, sql.Row) error { return f.err }
func (f *failingEditor) Close(*sql.Context) error                    { return nil }
