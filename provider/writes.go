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

// editor is the one GMS row editor of a table (the shape of GMS's
// memory/table_editor.go): inserts and deletes of the running statement
// are converted to Arrow records and staged in the session's transaction.
// UPDATE stages a delete of the old row and an insert of the new one.
type editor struct {
	t       *Table
	w       *WriteSet
	noStats bool
	tt      *txn.Table        // the staged work, from the statement's first write
	ins     *arrowrow.Builder // rows to insert, not yet handed over
	del     *arrowrow.Builder // rows to delete, not yet handed over
}

var (
	_ sql.RowInserter = (*editor)(nil)
	_ sql.RowDeleter  = (*editor)(nil)
	_ sql.RowUpdater  = (*editor)(nil)
)

func newEditor(ctx *sql.Context, t *Table) (*editor, error) {
	sess, err := sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := t.checkWritable(); err != nil {
		return nil, err
	}
	return &editor{t: t, w: sess.Writes(), noStats: DeferredStats(ctx)}, nil
}

func newInserter(ctx *sql.Context, t *Table) sql.RowInserter {
	e, err := newEditor(ctx, t)
	if err != nil {
		return &failingEditor{err: err}
	}
	return e
}

func newDeleter(ctx *sql.Context, t *Table) sql.RowDeleter {
	e, err := newEditor(ctx, t)
	if err != nil {
		return &failingEditor{err: err}
	}
	return e
}

func newUpdater(ctx *sql.Context, t *Table) sql.RowUpdater {
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
	tt.SetDeferredStats(e.noStats)
	e.tt = tt
	return tt, nil
}

// StatementBegin implements sql.EditOpenerCloser.
func (e *editor) StatementBegin(ctx *sql.Context) {
	if _, err := e.table(); err != nil {
		ctx.GetLogger().Warnf("lakesql: begin statement on %s: %v", e.t, err)
	}
}

// DiscardChanges implements sql.EditOpenerCloser: the statement's work is
// dropped, the transaction's stays.
func (e *editor) DiscardChanges(*sql.Context, error) error {
	e.release()
	if e.tt != nil {
		e.tt.Discard()
	}
	e.tt = nil // the next statement pins again: a COMMIT may come between
	return nil
}

// StatementComplete implements sql.EditOpenerCloser.
func (e *editor) StatementComplete(ctx *sql.Context) error {
	if err := e.flush(ctx); err != nil {
		return sqlerr.Wrap(err)
	}
	var err error
	if e.tt != nil {
		err = e.tt.Complete(ctx)
	}
	e.tt = nil
	return sqlerr.Wrap(err)
}

// Insert implements sql.RowInserter.
func (e *editor) Insert(ctx *sql.Context, row sql.Row) error {
	return sqlerr.Wrap(e.add(ctx, &e.ins, row))
}

// Delete implements sql.RowDeleter.
func (e *editor) Delete(ctx *sql.Context, row sql.Row) error {
	return sqlerr.Wrap(e.add(ctx, &e.del, row))
}

// Update implements sql.RowUpdater.
func (e *editor) Update(ctx *sql.Context, old, new sql.Row) error {
	if err := e.add(ctx, &e.del, old); err != nil {
		return sqlerr.Wrap(err)
	}
	return sqlerr.Wrap(e.add(ctx, &e.ins, new))
}

// Close implements sql.Closer.
func (e *editor) Close(*sql.Context) error {
	e.release()
	return nil
}

// add converts row into *b, handing a full batch over.
func (e *editor) add(ctx *sql.Context, b **arrowrow.Builder, row sql.Row) error {
	if _, err := e.table(); err != nil {
		return err
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
	if e.ins != nil && e.ins.Len() > 0 {
		rec := e.ins.Record()
		err := e.tt.Append(ctx, rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	if e.del != nil && e.del.Len() > 0 {
		rec := e.del.Record()
		err := e.tt.Delete(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *editor) release() {
	for _, b := range []*arrowrow.Builder{e.ins, e.del} {
		if b != nil {
			b.Release()
		}
	}
	e.ins, e.del = nil, nil
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
