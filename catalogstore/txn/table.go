package txn

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// Table is a transaction's staged work on one dataset: the shape of
// iceberg-go's Transaction on one table. Its methods lock the Txn.
type Table struct {
	x        *Txn
	tg       target // the dataset as first written, its pinned incarnation
	snapshot int64  // the read snapshot at the first write
	truncate bool
	staged   *parts // completed statements' rows in memory
	files    []manifest.DataFile
	rows     int // rows in staged and files
	deletes  []arrow.Record
	// keyCols and keyDeletes are the upserts' key columns and the keys
	// whose committed rows the commit deletes (see Upsert).
	keyCols    []int
	keyDeletes map[string]bool
	stmt       *stmtState
	value      any // see Value
}

// stmtState is the work of the running statement, discarded if it fails.
type stmtState struct {
	ps         *parts
	files      []manifest.DataFile
	deletes    []arrow.Record
	keyDeletes map[string]bool // keys the statement's upserts replace
	value      any             // see StatementValue
}

func (st *stmtState) release() {
	if st == nil {
		return
	}
	st.ps.release()
	release(st.deletes)
	st.deletes = nil
}

func (t *Table) statement() (*stmtState, error) {
	if t.stmt == nil {
		ps, err := newParts(t.tg.schema, t.tg.ds)
		if err != nil {
			return nil, err
		}
		t.stmt = &stmtState{ps: ps}
	}
	return t.stmt, nil
}

// StatementValue returns the value the running statement keeps for the
// layer above (the SQL editors' shared state: GMS opens an inserter and an
// updater for one INSERT … ON DUPLICATE KEY UPDATE), made by mk at the
// statement's first call. It is forgotten when the statement completes or
// is discarded.
func (t *Table) StatementValue(mk func() any) (any, error) {
	t.x.mu.Lock()
	defer t.x.mu.Unlock()
	st, err := t.statement()
	if err != nil {
		return nil, err
	}
	if st.value == nil {
		st.value = mk()
	}
	return st.value, nil
}

// Value returns the value the layer above keeps with the transaction's
// staged work on the table (the SQL layer's primary-key index, kept across
// statements so that INSERT IGNORE, one statement per row, does not
// rebuild it per row), nil until SetValue. Truncate forgets it.
func (t *Table) Value() any {
	t.x.mu.Lock()
	defer t.x.mu.Unlock()
	return t.value
}

// SetValue sets the value Value returns.
func (t *Table) SetValue(v any) {
	t.x.mu.Lock()
	defer t.x.mu.Unlock()
	t.value = v
}

// Begin starts a statement's staging.
func (t *Table) Begin() error {
	t.x.mu.Lock()
	defer t.x.mu.Unlock()
	_, err := t.statement()
	return err
}

// SetDeferredStats makes files written from now on register with pending
// statistics (filled later by the hydrator).
func (t *Table) SetDeferredStats(on bool) {
	t.x.mu.Lock()
	defer t.x.mu.Unlock()
	t.tg.noStats = on
}

// Append stages rec's rows (full rows in schema column order) in the
// running statement; every FlushRows rows of one partition tuple are
// written out as a data file. The caller releases rec.
func (t *Table) Append(ctx context.Context, rec arrow.Record) error {
	t.x.mu.Lock()
	defer t.x.mu.Unlock()
	st, err := t.statement()
	if err != nil {
		return err
	}
	return t.appendLocked(ctx, st, rec)
}

// appendLocked is Append with the Txn locked.
func (t *Table) appendLocked(ctx context.Context, st *stmtState, rec arrow.Record) error {
	grown, err := st.ps.add(ctx, rec)
	if err != nil {
		return err
	}
	for _, pr := range grown {
		if pr.rows < FlushRows {
			continue
		}
		f, err := t.tg.writeFile(ctx, pr.recs, pr.values)
		release(pr.recs)
		pr.recs, pr.rows = nil, 0
		if err != nil {
			return err
		}
		st.files = append(st.files, f)
	}
	return nil
}

// Delete stages the deletion of rec's rows (full rows in schema column
// order), matched at commit as a multiset against the table's rows. The
// caller releases rec.
func (t *Table) Delete(rec arrow.Record) error {
	t.x.mu.Lock()
	defer t.x.mu.Unlock()
	st, err := t.statement()
	if err != nil {
		return err
	}
	rec.Retain()
	st.deletes = append(st.deletes, rec)
	return nil
}

// Complete folds the running statement's staging into the transaction.
// It fails only when the statement upserted and the rows staged before
// could not be read back; the statement's work is then dropped.
func (t *Table) Complete(ctx context.Context) error {
	t.x.mu.Lock()
	defer t.x.mu.Unlock()
	st := t.stmt
	t.stmt = nil
	if st == nil {
		return nil
	}
	if len(st.keyDeletes) > 0 {
		// The statement's upserts replace the rows earlier statements
		// staged with their keys.
		if err := t.replaceStaged(ctx, st.keyDeletes); err != nil {
			st.release()
			return err
		}
		if t.keyDeletes == nil {
			t.keyDeletes = map[string]bool{}
		}
		for k := range st.keyDeletes {
			t.keyDeletes[k] = true
		}
	}
	for k, pr := range st.ps.m {
		for _, rec := range pr.recs {
			t.staged.put(k, pr.values, rec)
			t.rows += int(rec.NumRows())
		}
	}
	st.ps.m = map[string]*partRecords{}
	t.files = append(t.files, st.files...)
	for _, f := range st.files {
		t.rows += int(f.RecordCount)
	}
	t.deletes = append(t.deletes, st.deletes...)
	return nil
}

// replaceStaged drops the staged rows (of earlier statements) whose key is
// in set.
func (t *Table) replaceStaged(ctx context.Context, set map[string]bool) error {
	for _, k := range t.staged.keys() {
		pr := t.staged.m[k]
		kept, dropped, err := t.dropKeys(ctx, pr.recs, set)
		if err != nil {
			return err
		}
		if !dropped {
			release(kept)
			continue
		}
		t.rows -= pr.rows
		release(pr.recs)
		pr.recs, pr.rows = kept, rowsOf(kept)
		t.rows += pr.rows
		if pr.rows == 0 {
			delete(t.staged.m, k)
		}
	}
	before := 0
	for _, f := range t.files {
		before += int(f.RecordCount)
	}
	n := t.staged.rows()
	files, err := t.dropKeysInFiles(ctx, t.files, set, t.staged)
	if err != nil {
		return err
	}
	after := 0
	for _, f := range files {
		after += int(f.RecordCount)
	}
	t.files = files
	t.rows += after - before + t.staged.rows() - n
	return nil
}

// Discard drops the running statement's staging; the transaction's other
// work stays. A table left with nothing staged leaves the transaction.
func (t *Table) Discard() {
	t.x.mu.Lock()
	defer t.x.mu.Unlock()
	t.stmt.release()
	t.stmt = nil
	if t.rows == 0 && len(t.files) == 0 && len(t.deletes) == 0 && len(t.keyDeletes) == 0 && !t.truncate {
		if cur, ok := t.x.tables[t.tg.ds.Ident().String()]; ok && cur == t {
			delete(t.x.tables, t.tg.ds.Ident().String())
		}
	}
}

// Truncate stages the removal of every row and returns how many rows
// that removes (the dataset's at the read snapshot plus those staged).
func (t *Table) Truncate() int {
	t.x.mu.Lock()
	defer t.x.mu.Unlock()
	removed := int(t.tg.ds.CurrentRecords) + t.rows
	if t.truncate {
		removed = t.rows
	}
	t.staged.release()
	release(t.deletes)
	t.rows, t.truncate, t.files, t.deletes, t.keyDeletes = 0, true, nil, nil, nil
	t.value = nil
	return removed
}

func (t *Table) release() {
	t.staged.release()
	release(t.deletes)
	t.deletes = nil
	t.stmt.release()
	t.stmt = nil
}

func (t *Table) empty() bool {
	return len(t.staged.m) == 0 && len(t.files) == 0 && len(t.deletes) == 0 && len(t.keyDeletes) == 0 && !t.truncate
}

// checkIncarnation refuses the commit when the table is gone or is
// another incarnation than the one the transaction first wrote.
func (t *Table) checkIncarnation(ctx context.Context) error {
	ds, err := t.tg.cat.Dataset(ctx, t.tg.ds.Ident())
	if errors.Is(err, catalogstore.ErrDatasetNotFound) || (err == nil && ds.UUID != t.tg.ds.UUID) {
		return &IncarnationError{Table: t.tg.ds.Ident().Short()}
	}
	return err
}

// commit makes the table's catalog commit: append, overwrite, truncate or
// delete by what is staged.
func (t *Table) commit(ctx context.Context, author string) error {
	cm, ok, err := t.prepare(ctx, author)
	if err != nil || !ok {
		return err
	}
	_, err = t.tg.cat.Commit(ctx, t.tg.ds.Ident(), cm)
	if refused(err) {
		// Nothing references the files of a refused commit: delete them
		// now rather than leave them to orphan cleanup (a statement that
		// is run again writes its files anew each time).
		t.tg.discard(ctx, cm.Added)
	}
	return err
}

// prepare writes the staged rows out (and, for deletes, the rewritten
// files) and returns the table's catalog commit; ok is false when there is
// nothing to commit. A caller whose commit is refused discards cm.Added.
func (t *Table) prepare(ctx context.Context, author string) (cm catalogstore.Commit, ok bool, err error) {
	if t.empty() {
		return cm, false, nil
	}
	if len(t.deletes) > 0 {
		if err := t.cancelStaged(ctx); err != nil {
			return cm, false, err
		}
		if t.empty() {
			return cm, false, nil // what it added, it deleted: no snapshot
		}
	}
	added := t.files
	for _, k := range t.staged.keys() {
		pr := t.staged.m[k]
		f, err := t.tg.writeFile(ctx, pr.recs, pr.values)
		if err != nil {
			t.tg.discard(ctx, added)
			return cm, false, err
		}
		added = append(added, f)
	}
	return t.commitOf(ctx, author, added)
}

// commitOf is the catalog commit of the added files and the staged
// deletes.
func (t *Table) commitOf(ctx context.Context, author string, added []manifest.DataFile) (catalogstore.Commit, bool, error) {
	ds := t.tg.ds
	cm := catalogstore.Commit{
		Operation: catalogstore.OpAppend, Author: author, Added: added,
		ExpectedUUID: ds.UUID, BaseSnapshotID: t.snapshot,
		// Files were split under the spec current at the read snapshot: a
		// spec change since refuses the commit (re-prepare), never a silent
		// recompute.
		CheckSpec: true, ExpectedSpecID: ds.Spec.ID,
		// Rows were built under the schema at the first touch: an ALTER
		// since refuses the commit (a column's default would be missing).
		CheckSchema: true, ExpectedSchemaID: t.tg.schema.ID,
		// Rows of a keyed table were checked unique against the read
		// snapshot: rows committed since could duplicate them.
		NoRebase: len(t.tg.schema.Key()) > 0,
	}
	if cm.NoRebase && !t.truncate && len(t.deletes) == 0 && len(t.keyDeletes) == 0 {
		cm.Recheck = t.keyRecheck(added)
	}
	switch {
	case t.truncate && len(added) > 0:
		cm.Operation, cm.ReplaceAll = catalogstore.OpOverwrite, true
	case t.truncate:
		cm.Operation, cm.ReplaceAll = catalogstore.OpTruncate, true
	case len(t.deletes) > 0 || len(t.keyDeletes) > 0:
		removed, rewritten, err := t.applyDeletes(ctx)
		if err != nil {
			return cm, false, err
		}
		if len(removed) == 0 && len(added) == 0 {
			return cm, false, nil // nothing matched: no snapshot
		}
		cm.Removed, cm.Added = removed, append(added, rewritten...)
		cm.Operation = catalogstore.OpOverwrite
		if len(added) == 0 {
			cm.Operation = catalogstore.OpDelete
		}
	}
	return cm, true, nil
}

// refused reports whether err is a definite refusal: the commit did not
// land (a guard refused it). An unknown outcome (a metastore error) is
// not one: its files may be referenced.
func refused(err error) bool {
	return errors.Is(err, catalogstore.ErrCommitConflict) || errors.Is(err, catalogstore.ErrIncarnationChanged) ||
		errors.Is(err, catalogstore.ErrDatasetNotFound) || errors.Is(err, catalogstore.ErrManifestUnreadable)
}
