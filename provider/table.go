package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/scan"
	"github.com/lakesql/lakesql/sqlerr"
)

// Table is a dataset (or materialized view) at one snapshot. It is an
// immutable value: WithProjections and WithFilters return copies.
type Table struct {
	db       *Database
	ds       *catalogstore.Dataset
	schema   *schema.Schema // the schema of the snapshot read
	snapshot int64          // 0: the empty table
	asOf     bool           // pinned by AS OF: read-only
	full     sql.Schema     // every column of schema
	proj     []string       // nil: every column
	filters  []sql.Expression
	limit    int64 // > 0: the query reads at most this many rows
	// ext, if set, is a file set read in place of the dataset's snapshot
	// (read_parquet): the table is read-only and ds is synthetic.
	ext *fileSet
}

var (
	_ sql.Table                    = (*Table)(nil)
	_ sql.ProjectedTable           = (*Table)(nil)
	_ sql.PrimaryKeyTable          = (*Table)(nil)
	_ sql.InsertableTable          = (*Table)(nil)
	_ sql.TruncateableTable        = (*Table)(nil)
	_ sql.AlterableTable           = (*Table)(nil)
	_ sql.IndexAlterableTable      = (*Table)(nil)
	_ sql.CommentedTable           = (*Table)(nil)
	_ sql.StatisticsTable          = (*Table)(nil)
	_ sql.DeletableTable           = (*Table)(nil)
	_ sql.IndexAddressable         = (*Table)(nil)
	_ sql.ReplaceableTable         = (*Table)(nil)
	_ sql.UpdatableTable           = (*Table)(nil)
	_ sql.PrimaryKeyAlterableTable = (*Table)(nil)
)

func newTable(db *Database, ds *catalogstore.Dataset) *Table {
	s := ds.Schema
	return newTableAt(db, ds, &s, ds.CurrentSnapshotID)
}

func newTableAt(db *Database, ds *catalogstore.Dataset, s *schema.Schema, snap int64) *Table {
	return &Table{db: db, ds: ds, schema: s, snapshot: snap, full: sqlSchema(nil, s, ds.Name, db.name)}
}

// Dataset returns the dataset document the table was loaded from.
func (t *Table) Dataset() *catalogstore.Dataset { return t.ds }

// ReadsFiles reports whether t is read_parquet's table over files rather
// than a dataset.
func (t *Table) ReadsFiles() bool { return t.ext != nil }

// SnapshotID is the snapshot the table reads.
func (t *Table) SnapshotID() int64 { return t.snapshot }

// CatalogSchema is the catalog schema of the snapshot read.
func (t *Table) CatalogSchema() *schema.Schema { return t.schema }

// Name implements sql.Nameable.
func (t *Table) Name() string { return t.ds.Name }

// String implements fmt.Stringer.
func (t *Table) String() string { return t.db.name + "." + t.ds.Name }

// ReportScan logs what a pushed-down scan of t read, at debug level (how
// far each pruning step cut it), and as a warning what it found wrong but
// worked around: row groups read whole because their page index is
// damaged.
func (t *Table) ReportScan(ctx context.Context, st scan.Stats) {
	log := t.db.p.cat.Logger()
	log.DebugContext(ctx, "scan", "table", t.String(), "files", st.Files, "files_read", st.FilesRead,
		"row_groups", st.RowGroups, "row_groups_read", st.RowGroupsRead, "row_groups_dict_pruned", st.RowGroupsDictPruned,
		"rows", st.Rows, "rows_skipped_by_page_index", st.RowsSkipped)
	if st.PageIndexUnreadable > 0 {
		log.WarnContext(ctx, "scan: damaged page index, row groups read without it",
			"table", t.String(), "row_groups", st.PageIndexUnreadable, "hint", "run `lakesql fsck` on the table")
	}
}

// Collation implements sql.Table.
func (t *Table) Collation() sql.CollationID { return sql.Collation_Default }

// Comment implements sql.CommentedTable.
func (t *Table) Comment() string { return t.ds.Comment }

// Schema implements sql.Table: the projected columns.
func (t *Table) Schema() sql.Schema {
	return projectedSchema(t.full, t.proj)
}

// PrimaryKeySchema implements sql.PrimaryKeyTable: the declared key, in
// key order (writes keep it unique, keyindex.go).
func (t *Table) PrimaryKeySchema() sql.PrimaryKeySchema {
	return sql.NewPrimaryKeySchema(t.full, t.schema.Key()...)
}

// WithProjections implements sql.ProjectedTable.
func (t *Table) WithProjections(cols []string) sql.Table {
	cp := *t
	cp.proj = cols
	return &cp
}

// Projections implements sql.ProjectedTable.
func (t *Table) Projections() []string { return t.proj }

// WithFilters returns a copy that prunes files and row groups with the
// given conjuncts. The filters are a hint: the plan keeps its Filter node,
// so pruning only needs to be a superset.
func (t *Table) WithFilters(filters []sql.Expression) *Table {
	cp := *t
	cp.filters = filters
	return &cp
}

// Filters returns the pushed conjuncts.
func (t *Table) Filters() []sql.Expression { return t.filters }

// WithLimit returns a copy whose rows stop after the first n (n > 0): the
// plan reads no more than n rows of it (a bare LIMIT), so the readers
// need not decode further.
func (t *Table) WithLimit(n int64) *Table {
	cp := *t
	cp.limit = n
	return &cp
}

// Limit is the row limit set by WithLimit (0: none).
func (t *Table) Limit() int64 { return t.limit }

// fieldIDs returns the field ids of the projected columns, in output order.
func (t *Table) fieldIDs() []int {
	cols := t.Schema()
	ids := make([]int, len(cols))
	for i, c := range cols {
		col, _ := t.schema.Column(c.Name)
		ids[i] = col.ID
	}
	return ids
}

type scanPartition struct{}

func (scanPartition) Key() []byte { return []byte("all") }

// Partitions implements sql.Table. There is one partition: GMS reads
// partitions one at a time, so the fan-out over files happens inside
// PartitionRows.
func (t *Table) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(scanPartition{}), nil
}

// PartitionRows implements sql.Table: plan from the manifest, prune, and
// read the files in parallel. Closing the iterator stops the readers.
func (t *Table) PartitionRows(ctx *sql.Context, _ sql.Partition) (sql.RowIter, error) {
	// An open transaction reads its own staged writes.
	var st staged
	if sess, err := sessionOf(ctx); err == nil && !t.asOf {
		if st, err = pendingRows(ctx, sess.Writes(), t, t.fieldIDs()); err != nil {
			return nil, sqlerr.Wrap(err)
		}
	}
	var it sql.RowIter
	var err error
	if len(st.deletes) > 0 {
		it, err = t.rowsLessDeletes(ctx, st)
	} else {
		it, err = t.rowsWith(ctx, t.fieldIDs(), st, t.limit)
	}
	if err != nil {
		return nil, err
	}
	return inSessionZone(ctx, it, t.Schema())
}

// rowsWith reads the table's files (projected to ids) followed by the
// staged rows st.rows (projected the same way).
func (t *Table) rowsWith(ctx *sql.Context, ids []int, st staged, limit int64) (sql.RowIter, error) {
	if t.snapshot == 0 || st.truncated {
		return sql.RowsToRowIter(st.rows...), nil
	}
	files, prune, err := t.liveFiles(ctx)
	if err != nil {
		return nil, err
	}
	filters, err := t.prunable(ctx)
	if err != nil {
		return nil, err
	}
	if len(filters) < len(t.filters) {
		// The limit counts rows passing every pushed filter: with some
		// not given to the readers, they cannot count.
		limit = 0
	}
	preds := scan.Predicates(t.schema, filters)
	kept := prune(files, t.ds.Specs, preds)
	prof := scan.ProfileFor(ctx, t)
	prof.Pruned(files, kept, t.ds.Specs, preds)
	files = kept
	req := scan.Request{
		Profile:  prof,
		Store:    t.db.p.cat.Blob(),
		Files:    files,
		Schema:   t.schema,
		FieldIDs: ids,
		Cache:    t.db.p.cache,
		Footers:  t.db.p.footers,
		Filters:  filters,
		Limit:    limit,
	}
	if t.ext != nil {
		// Files outside the catalog may change between queries: no caches.
		req.Store, req.Cache, req.Footers = t.ext.store, nil, nil
	}
	it := scan.NewRowIter(ctx, req)
	if len(st.rows) == 0 {
		return it, nil
	}
	return scan.ConcatIter(it, st.rows), nil
}

// rowsLessDeletes reads the table whole, followed by the staged rows (full
// rows, as the deletes are), drops the staged deletes as a multiset and
// projects what is left. No LIMIT reaches the readers: dropped rows do
// not count.
func (t *Table) rowsLessDeletes(ctx *sql.Context, st staged) (sql.RowIter, error) {
	all := t.schema.FieldIDs()
	it, err := t.rowsWith(ctx, all, st, 0)
	if err != nil {
		return nil, err
	}
	proj := make([]int, 0, len(t.fieldIDs()))
	for _, id := range t.fieldIDs() {
		proj = append(proj, slices.Index(all, id))
	}
	return &minusIter{it: it, drop: rowMultiset(st.deletes), proj: proj}, nil
}

// minusIter passes the rows of it less those in drop (each key as many
// times as counted), projected to proj.
type minusIter struct {
	it   sql.RowIter
	drop map[string]int
	proj []int
}

func (m *minusIter) Next(ctx *sql.Context) (sql.Row, error) {
	for {
		r, err := m.it.Next(ctx)
		if err != nil {
			return nil, err
		}
		if k := rowKey(r); m.drop[k] > 0 {
			m.drop[k]--
			continue
		}
		out := make(sql.Row, len(m.proj))
		for i, j := range m.proj {
			out[i] = r[j]
		}
		return out, nil
	}
}

func (m *minusIter) Close(ctx *sql.Context) error { return m.it.Close(ctx) }

// RowCount implements sql.StatisticsTable from the dataset document.
func (t *Table) RowCount(*sql.Context) (uint64, bool, error) {
	if t.snapshot != t.ds.CurrentSnapshotID {
		return 0, false, nil
	}
	return uint64(t.ds.CurrentRecords), true, nil
}

// DataLength implements sql.StatisticsTable from the dataset document.
func (t *Table) DataLength(*sql.Context) (uint64, error) {
	return uint64(t.ds.CurrentBytes), nil
}

func (t *Table) checkWritable() error {
	if t.ext != nil {
		return fmt.Errorf("%w: %s reads files; it cannot be written", catalogstore.ErrNotSupported, t.ext.key)
	}
	if t.asOf {
		return fmt.Errorf("%w: %s is read AS OF snapshot %d; time travel is read-only", catalogstore.ErrNotSupported, t.ds.Name, t.snapshot)
	}
	if t.ds.IsMaterializedView() {
		// Wrapped here: the write editors hand it to GMS as they get it.
		return sqlerr.Wrap(fmt.Errorf("%w: %s is a materialized view; only REFRESH MATERIALIZED VIEW writes it", catalogstore.ErrMaterializedViewReadOnly, t.ds.Ident().Short()))
	}
	return nil
}

// Inserter implements sql.InsertableTable.
func (t *Table) Inserter(ctx *sql.Context) sql.RowInserter {
	return editorOrFailing(ctx, t)
}

// Replacer implements sql.ReplaceableTable: REPLACE deletes the row
// holding a new row's primary key (the editor reports it as the 1062 that
// GMS acts on); without a key it inserts.
func (t *Table) Replacer(ctx *sql.Context) sql.RowReplacer { return editorOrFailing(ctx, t) }

// Truncate implements sql.TruncateableTable: the session stages a
// truncate, committed with the statement.
func (t *Table) Truncate(ctx *sql.Context) (int, error) {
	if err := t.checkWritable(); err != nil {
		return 0, sqlerr.Wrap(err)
	}
	sess, err := sessionOf(ctx)
	if err != nil {
		return 0, sqlerr.Wrap(err)
	}
	n, err := truncate(sess.Writes(), t)
	return n, sqlerr.Wrap(err)
}

// Deleter implements sql.DeletableTable.
func (t *Table) Deleter(ctx *sql.Context) sql.RowDeleter { return editorOrFailing(ctx, t) }

// Updater implements sql.UpdatableTable.
func (t *Table) Updater(ctx *sql.Context) sql.RowUpdater { return editorOrFailing(ctx, t) }

// AddColumn implements sql.AlterableTable: metadata only (a column with a
// DEFAULT or NOT NULL on a table with rows goes through the rewrite
// instead, rewrite.go).
func (t *Table) AddColumn(ctx *sql.Context, column *sql.Column, order *sql.ColumnOrder) error {
	col, err := columnFromSQL(column)
	if err != nil {
		return sqlerr.Wrap(err)
	}
	if column.PrimaryKey {
		return sqlerr.Wrap(fmt.Errorf("%w: ADD COLUMN %s … PRIMARY KEY; add the column, then ADD PRIMARY KEY", catalogstore.ErrNotSupported, column.Name))
	}
	if !column.Nullable && column.Default == nil {
		// Old files have no value for the column: it must read as NULL.
		return sqlerr.Wrap(fmt.Errorf("%w: ADD COLUMN %s NOT NULL needs a DEFAULT; old rows would have no value", catalogstore.ErrSchema, column.Name))
	}
	ch := catalogstore.SchemaChange{Kind: catalogstore.AddColumn, Column: col.Name, Type: col.Type, Comment: col.Comment,
		SQLType: col.SQLType, Default: col.Default, NotNull: !col.Nullable}
	if order != nil {
		ch.First, ch.After = order.First, order.AfterColumn
	}
	return t.alter(ctx, ch)
}

// DropColumn implements sql.AlterableTable: metadata only.
func (t *Table) DropColumn(ctx *sql.Context, name string) error {
	return t.alter(ctx, catalogstore.SchemaChange{Kind: catalogstore.DropColumn, Column: name})
}

// ModifyColumn implements sql.AlterableTable: a rename, a safe widening, a
// new default, as metadata (a change the data must be checked for goes
// through the rewrite, rewrite.go).
func (t *Table) ModifyColumn(ctx *sql.Context, name string, column *sql.Column, order *sql.ColumnOrder) error {
	if order != nil {
		return sqlerr.Wrap(fmt.Errorf("%w: moving a column (FIRST/AFTER) is not supported", catalogstore.ErrNotSupported))
	}
	old, ok := t.schema.Column(name)
	if !ok {
		return sql.ErrTableColumnNotFound.New(t.ds.Name, name)
	}
	col, err := columnFromSQL(column)
	if err != nil {
		return sqlerr.Wrap(err)
	}
	if !col.Nullable && old.Nullable {
		return sqlerr.Wrap(fmt.Errorf("%w: MODIFY %s NOT NULL must check the rows", catalogstore.ErrSchema, name))
	}
	changes := []catalogstore.SchemaChange{{Kind: catalogstore.ModifyColumn, Column: name, Type: col.Type,
		SQLType: col.SQLType, Default: col.Default, NotNull: !col.Nullable}}
	if column.Name != old.Name {
		changes = append(changes, catalogstore.SchemaChange{Kind: catalogstore.RenameColumn, Column: name, NewName: column.Name})
	}
	if col.Type == old.Type && col.SQLType == old.SQLType && col.Default == old.Default && col.Nullable == old.Nullable && column.Name == old.Name {
		return nil
	}
	return t.alter(ctx, changes...)
}

// alter commits the schema changes as one new schema version, in one
// metastore transaction.
func (t *Table) alter(ctx *sql.Context, changes ...catalogstore.SchemaChange) error {
	if err := t.checkWritable(); err != nil {
		return sqlerr.Wrap(err)
	}
	sess, err := sessionOf(ctx)
	if err != nil {
		return sqlerr.Wrap(err)
	}
	_, err = t.db.p.cat.AlterSchema(ctx, t.ds.Ident(), sess.Author(), changes...)
	return sqlerr.Wrap(err)
}

// CreateIndex implements sql.IndexAlterableTable. Lakehouse tables have no
// secondary indexes; the definition is recorded so DDL scripts run, and
// scans prune by file and row-group statistics instead.
func (t *Table) CreateIndex(ctx *sql.Context, def sql.IndexDef) error {
	return t.setIndexProp(ctx, def.Name, indexColumns(def))
}

// DropIndex implements sql.IndexAlterableTable.
func (t *Table) DropIndex(ctx *sql.Context, name string) error {
	if _, ok := t.ds.Properties[indexProp(name)]; !ok {
		return sql.ErrIndexNotFound.New(name)
	}
	return t.setIndexProp(ctx, name, "")
}

// RenameIndex implements sql.IndexAlterableTable.
func (t *Table) RenameIndex(ctx *sql.Context, from, to string) error {
	cols, ok := t.ds.Properties[indexProp(from)]
	if !ok {
		return sql.ErrIndexNotFound.New(from)
	}
	if err := t.setIndexProp(ctx, from, ""); err != nil {
		return sqlerr.Wrap(err)
	}
	return t.setIndexProp(ctx, to, cols)
}

func indexProp(name string) string { return "index." + strings.ToLower(name) }

func indexColumns(def sql.IndexDef) string {
	names := make([]string, len(def.Columns))
	for i, c := range def.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, ",")
}

func (t *Table) setIndexProp(ctx *sql.Context, name, cols string) error {
	sess, err := sessionOf(ctx)
	if err != nil {
		return sqlerr.Wrap(err)
	}
	_, err = t.db.p.cat.UpdateDataset(ctx, t.ds.Ident(), sess.Author(), func(d *catalogstore.Dataset) error {
		if d.Properties == nil {
			d.Properties = map[string]string{}
		}
		if cols == "" {
			delete(d.Properties, indexProp(name))
		} else {
			d.Properties[indexProp(name)] = cols
		}
		return nil
	})
	return sqlerr.Wrap(err)
}

// Files returns the live data files of the snapshot the table reads
// (through the manifest cache; no Parquet I/O).
func (t *Table) Files(ctx *sql.Context) ([]manifest.DataFile, error) {
	if t.snapshot == 0 {
		return nil, nil
	}
	files, _, err := t.liveFiles(ctx)
	return files, err
}

// liveFiles returns the files of the snapshot t reads (or its file set)
// and the pruner bound to them.
func (t *Table) liveFiles(ctx *sql.Context) ([]manifest.DataFile, scan.PruneFunc, error) {
	if t.ext != nil {
		return t.ext.files, t.ext.pruner.For(t.ext.key), nil
	}
	files, snap, err := t.db.p.cat.Files(ctx, t.ds, t.snapshot)
	if err != nil {
		return nil, nil, sqlerr.Wrap(err)
	}
	return files, t.db.p.pruner.For(snap.ManifestKey()), nil
}

// AggInput is what a vectorised aggregate over t reads: the files of the
// table's snapshot, unpruned, with the provider's cached pruner bound to
// that snapshot's manifest (plans prune by their own predicates) and the
// caches its scans share.
func (t *Table) AggInput(ctx *sql.Context) (scan.AggInput, error) {
	p := t.db.p
	in := scan.AggInput{Store: p.cat.Blob(), Specs: t.ds.Specs, Mem: p.mem, Footers: p.footers, Profile: scan.ProfileFor(ctx, t)}
	if t.ext != nil {
		in.Store, in.Footers = t.ext.store, nil
	}
	if t.snapshot == 0 {
		return in, nil
	}
	files, prune, err := t.liveFiles(ctx)
	if err != nil {
		return in, err
	}
	in.Files, in.Prune = files, prune
	return in, nil
}

// TopNInput is AggInput for a top-N, which keeps no pooled buffers (its
// rows alias the batches' strings).
func (t *Table) TopNInput(ctx *sql.Context) (scan.TopNInput, error) {
	in, err := t.AggInput(ctx)
	return scan.TopNInput{Store: in.Store, Files: in.Files, Specs: in.Specs, Prune: in.Prune, Footers: in.Footers, Profile: in.Profile}, err
}

// GetIndexes implements sql.IndexAddressable with no indexes: recorded
// index definitions are metadata only, and exposing sql.Indexes would make
// the planner trust lookups that file pruning cannot make exact.
func (t *Table) GetIndexes(*sql.Context) ([]sql.Index, error) { return nil, nil }

// IndexedAccess implements sql.IndexAddressable: never.
func (t *Table) IndexedAccess(*sql.Context, sql.IndexLookup) sql.IndexedTable { return nil }

// PreciseMatch implements sql.IndexAddressable.
func (t *Table) PreciseMatch() bool { return false }

// HasStagedWrites reports whether the session's open transaction has
// staged writes on this table, which only PartitionRows merges in: plan
// rewrites that answer from files alone must not apply then.
func (t *Table) HasStagedWrites(ctx *sql.Context) bool {
	sess, err := sessionOf(ctx)
	if err != nil || t.ext != nil {
		return false
	}
	return sess.Writes().Has(t.ds.Ident(), t.ds.UUID)
}

// PlanScan records into prof the file pruning a scan of t with its
// pushed filters would do: the manifest's files considered and those the
// partition values and column bounds rule out (no Parquet I/O; EXPLAIN
// without ANALYZE).
func (t *Table) PlanScan(ctx *sql.Context, prof *scan.Profile) error {
	if t.snapshot == 0 {
		return nil
	}
	files, prune, err := t.liveFiles(ctx)
	if err != nil {
		return err
	}
	filters, err := t.prunable(ctx)
	if err != nil {
		return err
	}
	preds := scan.Predicates(t.schema, filters)
	prof.Pruned(files, prune(files, t.ds.Specs, preds), t.ds.Specs, preds)
	return nil
}
