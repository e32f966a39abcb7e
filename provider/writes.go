package provider

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/scan"
	"github.com/lakesql/lakesql/sqlerr"
)

// flushRows is how many staged rows are written out as one data file
// before the statement ends, so a large INSERT … SELECT streams instead of
// holding the table in memory.
const flushRows = 256 * 1024

// WriteSet is a session's staged writes: per dataset, the rows and files a
// transaction adds, the rows it deletes, and whether it truncates. Nothing
// in it is visible to other sessions until Commit. It is safe for
// concurrent use, though a session runs one statement at a time.
type WriteSet struct {
	mu     sync.Mutex
	tables map[string]*pending
}

// pending is the staged work on one dataset.
type pending struct {
	t        *Table // the table as first written in the transaction
	truncate bool
	records  map[string]*partRecords // completed statements' rows, by partition tuple
	rows     int
	files    []manifest.DataFile
	deletes  []sql.Row
	stmt     *stmtState
	parter   *partitioner // nil for an unpartitioned table
	// noStats writes files with deferred statistics (pending until the
	// hydrator reads their footers): the session's lakesql_deferred_stats
	// as of the last statement that wrote rows.
	noStats bool
}

// partRecords are the staged rows of one partition tuple.
type partRecords struct {
	values []*string
	recs   []arrow.Record
}

// stmtState is the work of the running statement, discarded if it fails.
type stmtState struct {
	parts   map[string]*part
	files   []manifest.DataFile
	deletes []sql.Row
}

// part is the running statement's rows of one partition tuple.
type part struct {
	values []*string
	b      *rowBuilder
}

// NewWriteSet returns an empty write-set.
func NewWriteSet() *WriteSet { return &WriteSet{tables: map[string]*pending{}} }

// get returns the staged work on t, pinning t's incarnation (its table
// uuid) at the transaction's first touch. A later touch that finds another
// incarnation under the same name is refused: the staged work belongs to
// the dropped table, and replacing it would lose acknowledged rows.
func (w *WriteSet) get(t *Table) (*pending, error) {
	key := t.ds.Ident().String()
	p, ok := w.tables[key]
	if ok && p.t.ds.UUID != t.ds.UUID {
		return nil, &IncarnationError{Table: t.ds.Ident().Short(), Statement: true}
	}
	if !ok {
		p = &pending{t: t, records: map[string]*partRecords{}}
		if len(t.ds.Spec.Fields) > 0 {
			parter, err := newPartitioner(t.schema, t.ds.Spec)
			if err != nil {
				return nil, err
			}
			p.parter = parter
		}
		w.tables[key] = p
	}
	return p, nil
}

// Empty reports whether nothing is staged.
func (w *WriteSet) Empty() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.tables) == 0
}

// Forget drops staged work on a dataset (after it was dropped).
func (w *WriteSet) Forget(id catalogstore.Ident) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if p, ok := w.tables[id.String()]; ok {
		p.release()
		delete(w.tables, id.String())
	}
}

// Truncate stages a truncate and returns the row count it removes.
func (w *WriteSet) Truncate(t *Table) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, err := w.get(t)
	if err != nil {
		return 0, err
	}
	removed := int(t.ds.CurrentRecords) + p.rows
	if p.truncate {
		removed = p.rows
	}
	p.releaseRecords()
	p.truncate, p.files, p.deletes = true, nil, nil
	return removed, nil
}

// Rollback discards everything staged. Files already written for staged
// rows are orphans for cleanup; they are never referenced.
func (w *WriteSet) Rollback() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, p := range w.tables {
		p.release()
		delete(w.tables, k)
	}
}

func (p *pending) releaseRecords() {
	for _, pr := range p.records {
		for _, r := range pr.recs {
			r.Release()
		}
	}
	p.records, p.rows = map[string]*partRecords{}, 0
}

func (p *pending) release() {
	p.releaseRecords()
	p.stmt.release()
	p.stmt = nil
}

func (st *stmtState) release() {
	if st == nil {
		return
	}
	for _, pt := range st.parts {
		pt.b.Release()
	}
	st.parts = nil
}

// begin starts the statement's staging on t.
func (w *WriteSet) begin(t *Table) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, err := w.get(t)
	if err != nil {
		return err
	}
	if p.stmt == nil {
		p.stmt = &stmtState{parts: map[string]*part{}}
	}
	return nil
}

func (p *pending) statement() *stmtState {
	if p.stmt == nil {
		p.stmt = &stmtState{parts: map[string]*part{}}
	}
	return p.stmt
}

func (w *WriteSet) insert(ctx context.Context, t *Table, row sql.Row, noStats bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, err := w.get(t)
	if err != nil {
		return err
	}
	p.noStats = noStats
	st := p.statement()
	key, values := "", []*string(nil)
	if p.parter != nil {
		if key, values, err = p.parter.tuple(row); err != nil {
			return err
		}
	}
	pt, ok := st.parts[key]
	if !ok {
		pt = &part{values: values, b: newRowBuilder(p.t.schema)}
		st.parts[key] = pt
	}
	if err := pt.b.Append(row); err != nil {
		return err
	}
	if pt.b.Len() >= flushRows {
		rec := pt.b.Record()
		defer rec.Release()
		f, err := writeFile(ctx, p.t, []arrow.Record{rec}, pt.values, p.noStats)
		if err != nil {
			return err
		}
		st.files = append(st.files, f)
	}
	return nil
}

func (w *WriteSet) delete(t *Table, row sql.Row) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, err := w.get(t)
	if err != nil {
		return err
	}
	st := p.statement()
	st.deletes = append(st.deletes, row.Copy())
	return nil
}

// complete folds the statement's staging into the transaction.
func (w *WriteSet) complete(t *Table) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, err := w.get(t)
	if err != nil {
		return err
	}
	st := p.stmt
	p.stmt = nil
	if st == nil {
		return nil
	}
	for key, pt := range st.parts {
		if pt.b.Len() > 0 {
			p.stageRecord(key, pt.values, pt.b.Record())
		}
		pt.b.Release()
	}
	p.files = append(p.files, st.files...)
	for _, f := range st.files {
		p.rows += int(f.RecordCount)
	}
	p.deletes = append(p.deletes, st.deletes...)
	return nil
}

// discard drops the statement's staging.
func (w *WriteSet) discard(t *Table) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, err := w.get(t)
	if err != nil {
		return
	}
	p.stmt.release()
	p.stmt = nil
	if p.rows == 0 && len(p.files) == 0 && len(p.deletes) == 0 && !p.truncate {
		delete(w.tables, p.t.ds.Ident().String())
	}
}

// Commit makes one catalog commit per dataset with staged work, in name
// order, and empties the write-set. A failure leaves the datasets after it
// uncommitted and reports which.
func (w *WriteSet) Commit(ctx context.Context, author string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	keys := make([]string, 0, len(w.tables))
	for k := range w.tables {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	defer func() {
		for _, k := range keys {
			if p, ok := w.tables[k]; ok {
				p.release()
				delete(w.tables, k)
			}
		}
	}()
	if len(keys) > 1 {
		// One table refused after another committed would half-commit
		// the transaction: check every pinned incarnation first. (A race
		// after this check is still refused by each commit's guard.)
		for _, k := range keys {
			if err := w.tables[k].checkIncarnation(ctx); err != nil {
				return err
			}
		}
	}
	var committed []string
	for _, k := range keys {
		p := w.tables[k]
		if err := p.commit(ctx, author); err != nil {
			if errors.Is(err, catalogstore.ErrIncarnationChanged) || errors.Is(err, catalogstore.ErrDatasetNotFound) {
				return &IncarnationError{Table: p.t.ds.Ident().Short(), Committed: committed}
			}
			return err
		}
		committed = append(committed, p.t.ds.Ident().Short())
	}
	return nil
}

// checkIncarnation refuses the commit when p's table is gone or is another
// incarnation than the one the transaction first wrote.
func (p *pending) checkIncarnation(ctx context.Context) error {
	ds, err := p.t.db.p.cat.Dataset(ctx, p.t.ds.Ident())
	if errors.Is(err, catalogstore.ErrDatasetNotFound) || (err == nil && ds.UUID != p.t.ds.UUID) {
		return &IncarnationError{Table: p.t.ds.Ident().Short()}
	}
	return err
}

func (p *pending) commit(ctx context.Context, author string) error {
	if len(p.records) == 0 && len(p.files) == 0 && len(p.deletes) == 0 && !p.truncate {
		return nil
	}
	if len(p.deletes) > 0 {
		if err := p.cancelStaged(ctx); err != nil {
			return err
		}
		if len(p.records) == 0 && len(p.files) == 0 && len(p.deletes) == 0 && !p.truncate {
			return nil // what it added, it deleted: no snapshot
		}
	}
	cat := p.t.db.p.cat
	added := p.files
	keys := make([]string, 0, len(p.records))
	for k := range p.records {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		pr := p.records[k]
		f, err := writeFile(ctx, p.t, pr.recs, pr.values, p.noStats)
		if err != nil {
			return err
		}
		added = append(added, f)
	}
	cm := catalogstore.Commit{
		Operation: catalogstore.OpAppend, Author: author, Added: added,
		ExpectedUUID: p.t.ds.UUID, BaseSnapshotID: p.t.snapshot,
		// Files were split under the spec current at the read snapshot: a
		// spec change since refuses the commit (re-prepare), never a silent
		// recompute.
		CheckSpec: true, ExpectedSpecID: p.t.ds.Spec.ID,
	}
	switch {
	case p.truncate && len(added) > 0:
		cm.Operation, cm.ReplaceAll = catalogstore.OpOverwrite, true
	case p.truncate:
		cm.Operation, cm.ReplaceAll = catalogstore.OpTruncate, true
	case len(p.deletes) > 0:
		removed, rewritten, err := p.applyDeletes(ctx)
		if err != nil {
			return err
		}
		if len(removed) == 0 && len(added) == 0 {
			return nil // nothing matched: no snapshot
		}
		cm.Removed, cm.Added = removed, append(added, rewritten...)
		cm.Operation = catalogstore.OpOverwrite
		if len(added) == 0 {
			cm.Operation = catalogstore.OpDelete
		}
	}
	_, err := cat.Commit(ctx, p.t.ds.Ident(), cm)
	return err
}

// cancelStaged applies the staged deletes to the transaction's own staged
// rows first, so a row inserted and then deleted in one transaction is
// never written (equal rows are indistinguishable: which copy a delete
// takes does not change the result). The deletes left are of committed
// rows. A staged file that loses rows is dropped (an orphan, as after a
// rollback) and its other rows staged again as records.
func (p *pending) cancelStaged(ctx context.Context) error {
	want := rowMultiset(p.deletes)
	take := func(rows []sql.Row) (keep []sql.Row, hit bool) {
		for _, r := range rows {
			if k := rowKey(r); want[k] > 0 {
				want[k]--
				hit = true
				continue
			}
			keep = append(keep, r)
		}
		return keep, hit
	}
	ids := p.t.schema.FieldIDs()
	cols := make([]int, len(ids))
	types := make([]schema.Type, len(ids))
	for i, c := range p.t.schema.Columns {
		cols[i], types[i] = i, c.Type
	}
	var again []sql.Row // rows of dropped staged files, to stage as records
	var files []manifest.DataFile
	for _, f := range p.files {
		rows, err := scan.ReadAll(ctx, scan.Request{Store: p.t.db.p.cat.Blob(), Files: []manifest.DataFile{f}, Schema: p.t.schema, FieldIDs: ids})
		if err != nil {
			return err
		}
		keep, hit := take(rows)
		if !hit {
			files = append(files, f)
			continue
		}
		p.rows -= int(f.RecordCount)
		again = append(again, keep...)
	}
	p.files = files
	for key, pr := range p.records {
		var recs []arrow.Record
		for _, rec := range pr.recs {
			rows, err := scan.RecordRows(rec, cols, types)
			if err != nil {
				return err
			}
			keep, hit := take(rows)
			if !hit {
				recs = append(recs, rec)
				continue
			}
			p.rows -= int(rec.NumRows())
			rec.Release()
			again = append(again, keep...)
		}
		if pr.recs = recs; len(recs) == 0 {
			delete(p.records, key)
		}
	}
	if err := p.restage(again); err != nil {
		return err
	}
	var rest []sql.Row
	for _, d := range p.deletes {
		if k := rowKey(d); want[k] > 0 {
			want[k]--
			rest = append(rest, d)
		}
	}
	p.deletes = rest
	return nil
}

// restage adds rows to the staged records, by partition tuple.
func (p *pending) restage(rows []sql.Row) error {
	builders := map[string]*part{}
	defer func() {
		for _, pt := range builders {
			pt.b.Release()
		}
	}()
	for _, r := range rows {
		key, values := "", []*string(nil)
		if p.parter != nil {
			var err error
			if key, values, err = p.parter.tuple(r); err != nil {
				return err
			}
		}
		pt, ok := builders[key]
		if !ok {
			pt = &part{values: values, b: newRowBuilder(p.t.schema)}
			builders[key] = pt
		}
		if err := pt.b.Append(r); err != nil {
			return err
		}
	}
	for key, pt := range builders {
		p.stageRecord(key, pt.values, pt.b.Record())
	}
	return nil
}

// stageRecord adds rec to the staged records of partition tuple key.
func (p *pending) stageRecord(key string, values []*string, rec arrow.Record) {
	pr, ok := p.records[key]
	if !ok {
		pr = &partRecords{values: values}
		p.records[key] = pr
	}
	pr.recs = append(pr.recs, rec)
	p.rows += int(rec.NumRows())
}

// applyDeletes rewrites every live file holding a deleted row (copy on
// write) and returns the files it replaces and their rewrites. Rows match
// as multisets: deleting one of two equal rows keeps the other.
func (p *pending) applyDeletes(ctx context.Context) (removed []string, rewritten []manifest.DataFile, err error) {
	want := map[string]int{}
	for _, r := range p.deletes {
		want[rowKey(r)]++
	}
	cat := p.t.db.p.cat
	files, _, err := cat.Files(ctx, p.t.ds, p.t.snapshot)
	if err != nil {
		return nil, nil, err
	}
	ids := p.t.schema.FieldIDs()
	for _, f := range files {
		rows, err := scan.ReadAll(ctx, scan.Request{Store: cat.Blob(), Files: []manifest.DataFile{f}, Schema: p.t.schema, FieldIDs: ids})
		if err != nil {
			return nil, nil, err
		}
		keep := rows[:0]
		hit := false
		for _, r := range rows {
			k := rowKey(r)
			if want[k] > 0 {
				want[k]--
				hit = true
				continue
			}
			keep = append(keep, r)
		}
		if !hit {
			continue
		}
		removed = append(removed, f.Path)
		if len(keep) == 0 {
			continue
		}
		b := newRowBuilder(p.t.schema)
		for _, r := range keep {
			if err := b.Append(r); err != nil {
				b.Release()
				return nil, nil, err
			}
		}
		rec := b.Record()
		nf, err := writeFile(ctx, p.t, []arrow.Record{rec}, f.PartitionValues, p.noStats)
		rec.Release()
		b.Release()
		if err != nil {
			return nil, nil, err
		}
		nf.SpecID = f.SpecID // a rewrite keeps the file's partition
		rewritten = append(rewritten, nf)
	}
	return removed, rewritten, nil
}

// rowMultiset counts rows by rowKey.
func rowMultiset(rows []sql.Row) map[string]int {
	m := make(map[string]int, len(rows))
	for _, r := range rows {
		m[rowKey(r)]++
	}
	return m
}

// rowKey is a canonical text form of a row for multiset matching.
func rowKey(r sql.Row) string {
	var sb strings.Builder
	for _, v := range r {
		switch x := v.(type) {
		case nil:
			sb.WriteString("N|")
		case time.Time:
			fmt.Fprintf(&sb, "t%d|", x.UnixMicro())
		case decimal.Decimal:
			fmt.Fprintf(&sb, "d%s|", x.String())
		case []byte:
			fmt.Fprintf(&sb, "b%q|", x)
		default:
			fmt.Fprintf(&sb, "%T%v|", x, x)
		}
	}
	return sb.String()
}

// writeFile writes records as one data file under the dataset's location
// (step 1 of the commit protocol: the file is not referenced until the
// commit lands). With noStats the file is registered pending: its stats
// are filled later by the hydrator, and it is never pruned until then.
func writeFile(ctx context.Context, t *Table, recs []arrow.Record, partValues []*string, noStats bool) (manifest.DataFile, error) {
	key := fmt.Sprintf("%s/data/%s.parquet", t.ds.Location, uuid.NewString())
	f, err := datafile.Write(ctx, t.db.p.cat.Blob(), key, t.schema, recs, datafile.WriteOptions{NoStats: noStats})
	if err != nil {
		return manifest.DataFile{}, fmt.Errorf("write data file for %s: %w", t.ds.Ident().Short(), err)
	}
	f.SpecID, f.PartitionValues = t.ds.Spec.ID, partValues
	return f, nil
}

// inserter stages rows for one INSERT statement.
type inserter struct {
	t       *Table
	w       *WriteSet
	noStats bool
}

func newInserter(ctx *sql.Context, t *Table) sql.RowInserter {
	sess, err := sessionOf(ctx)
	if err != nil {
		return &failingEditor{err: err}
	}
	if err := t.checkWritable(); err != nil {
		return &failingEditor{err: err}
	}
	return &inserter{t: t, w: sess.Writes(), noStats: DeferredStats(ctx)}
}

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

func (i *inserter) StatementBegin(ctx *sql.Context) {
	if err := i.w.begin(i.t); err != nil {
		ctx.GetLogger().Warnf("lakesql: begin statement on %s: %v", i.t, err)
	}
}
func (i *inserter) DiscardChanges(*sql.Context, error) error {
	i.w.discard(i.t)
	return nil
}
func (i *inserter) StatementComplete(*sql.Context) error {
	return sqlerr.Wrap(i.w.complete(i.t))
}
func (i *inserter) Insert(ctx *sql.Context, row sql.Row) error {
	return sqlerr.Wrap(i.w.insert(ctx, i.t, row, i.noStats))
}
func (i *inserter) Close(*sql.Context) error { return nil }

// deleter stages deleted rows; updater stages an update as a delete of the
// old row and an insert of the new one.
type deleter struct{ inserter }

func newDeleter(ctx *sql.Context, t *Table) sql.RowDeleter {
	ins := newInserter(ctx, t)
	if fe, ok := ins.(*failingEditor); ok {
		return fe
	}
	return &deleter{*ins.(*inserter)}
}

func (d *deleter) Delete(_ *sql.Context, row sql.Row) error {
	return sqlerr.Wrap(d.w.delete(d.t, row))
}

type updater struct{ inserter }

func newUpdater(ctx *sql.Context, t *Table) sql.RowUpdater {
	ins := newInserter(ctx, t)
	if fe, ok := ins.(*failingEditor); ok {
		return fe
	}
	return &updater{*ins.(*inserter)}
}

func (u *updater) Update(ctx *sql.Context, old, new sql.Row) error {
	if err := u.w.delete(u.t, old); err != nil {
		return sqlerr.Wrap(err)
	}
	return sqlerr.Wrap(u.w.insert(ctx, u.t, new, u.noStats))
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

// staged is what t's open transaction has staged in completed statements
// (read-your-writes): whether it truncated t, the rows it added, and the
// full rows (in schema order) it deleted, which a read subtracts from the
// table's rows and the added ones as a multiset. The added rows are
// projected to the fieldIDs asked for, except with deletes: then they are
// full rows too, to match them against.
type staged struct {
	truncated bool
	rows      []sql.Row
	deletes   []sql.Row
}

// pendingRows returns t's staged work (see staged for the rows'
// columns). Work staged under another schema version (an ALTER inside the
// transaction) is not visible.
func (w *WriteSet) pendingRows(ctx context.Context, t *Table, fieldIDs []int) (staged, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.tables[t.ds.Ident().String()]
	if !ok || p.t.ds.UUID != t.ds.UUID || p.t.schema.ID != t.schema.ID {
		return staged{}, nil
	}
	if len(p.deletes) > 0 {
		fieldIDs = p.t.schema.FieldIDs()
	}
	rows, err := p.stagedRows(ctx, fieldIDs)
	return staged{truncated: p.truncate, rows: rows, deletes: p.deletes}, err
}

// stagedRows are the rows of p's completed statements projected to
// fieldIDs (none when one is not in p's schema).
func (p *pending) stagedRows(ctx context.Context, fieldIDs []int) ([]sql.Row, error) {
	cols := make([]int, len(fieldIDs))
	types := make([]schema.Type, len(fieldIDs))
	for i, id := range fieldIDs {
		cols[i] = -1
		for j, c := range p.t.schema.Columns {
			if c.ID == id {
				cols[i], types[i] = j, c.Type
			}
		}
		if cols[i] < 0 {
			return nil, nil
		}
	}
	var out []sql.Row
	if len(p.files) > 0 {
		rows, err := scan.ReadAll(ctx, scan.Request{Store: p.t.db.p.cat.Blob(), Files: p.files, Schema: p.t.schema, FieldIDs: fieldIDs})
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	keys := make([]string, 0, len(p.records))
	for k := range p.records {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, rec := range p.records[k].recs {
			rows, err := scan.RecordRows(rec, cols, types)
			if err != nil {
				return nil, err
			}
			out = append(out, rows...)
		}
	}
	return out, nil
}

// has reports whether anything is staged on t.
func (w *WriteSet) has(t *Table) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.tables[t.ds.Ident().String()]
	return ok && p.t.ds.UUID == t.ds.UUID
}
