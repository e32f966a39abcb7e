package provider

import (
	"errors"
	"io"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/arrowrow"
	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/txn"
	"github.com/lakesql/lakesql/sqlerr"
)

// Materialized views: the writer of a refresh's files, and the
// `mv$refreshes` metadata table.

// MaterializeRows writes the rows of iter (in the view's column order) as
// data files of materialized view mv, split by its partition spec, and
// returns them with the row count: step 1 of a refresh's commit (the files
// are not referenced until the truncate-and-add-files commit lands). iter
// is closed.
func (p *Provider) MaterializeRows(ctx *sql.Context, mv *catalogstore.Dataset, iter sql.RowIter) (files []manifest.DataFile, records int64, err error) {
	defer func() {
		if cerr := iter.Close(ctx); err == nil && cerr != nil {
			err = cerr
		}
	}()
	t := newTable(newDatabase(p, mv.Workspace, mv.Collection, mv.Collection), mv)
	w, err := txn.NewWriter(p.cat, mv, t.schema)
	if err != nil {
		return nil, 0, err
	}
	defer w.Release()
	b := arrowrow.NewBuilder(t.schema)
	defer b.Release()
	flush := func() error {
		rec := b.Record()
		defer rec.Release()
		return w.Append(ctx, rec)
	}
	for {
		row, err := iter.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, err
		}
		if err := b.Append(row); err != nil {
			return nil, 0, sqlerr.Wrap(err)
		}
		if b.Len() >= batchRows {
			if err := flush(); err != nil {
				return nil, 0, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, 0, err
	}
	return w.Close(ctx)
}

// refreshesColumns are the columns of `mv$refreshes`: one row per refresh
// of the view, oldest first, successful or not.
var refreshesColumns = []*sql.Column{
	{Name: "refreshed_at", Type: types.DatetimeMaxPrecision},
	{Name: "status", Type: types.LongText},
	{Name: "execution_id", Type: types.LongText},
	{Name: "trigger", Type: types.LongText},
	{Name: "author", Type: types.LongText},
	{Name: "source_snapshots", Type: types.JSON, Nullable: true},
	{Name: "snapshot_id", Type: types.Int64, Nullable: true},
	{Name: "records", Type: types.Int64},
	{Name: "duration_ms", Type: types.Int64},
	{Name: "stale", Type: types.Boolean},
	{Name: "commits_behind", Type: types.Int64},
	{Name: "statement_id", Type: types.LongText, Nullable: true},
	{Name: "message", Type: types.LongText, Nullable: true},
}

// NewRefreshesTable returns `mv$refreshes` of materialized view mv, a table
// of database d: the metadata table kind "refreshes". The rows come from
// catalogstore.Catalog.Refreshes (refresh time, status, execution id, the
// source snapshots it read, staleness against the sources' current
// snapshots). A plain table has no refreshes: ErrNotMaterializedView.
func (d *Database) NewRefreshesTable(mv *catalogstore.Dataset) (sql.Table, error) {
	if !mv.IsMaterializedView() {
		return nil, sqlerr.Wrap(catalogstoreNotMV(mv))
	}
	t := &refreshesTable{db: d, mv: mv}
	t.full = make(sql.Schema, len(refreshesColumns))
	for i, c := range refreshesColumns {
		cc := *c
		cc.Source, cc.DatabaseSource = t.Name(), d.name
		t.full[i] = &cc
	}
	return t, nil
}

func catalogstoreNotMV(ds *catalogstore.Dataset) error {
	return &notMVError{name: ds.Ident().Short()}
}

type notMVError struct{ name string }

func (e *notMVError) Error() string {
	return e.name + " is a table, not a materialized view: it has no `" + e.name + "$refreshes`"
}
func (e *notMVError) Unwrap() error { return catalogstore.ErrNotMaterializedView }

// refreshesTable is `mv$refreshes`.
type refreshesTable struct {
	db   *Database
	mv   *catalogstore.Dataset
	full sql.Schema
	proj []string
}

var (
	_ sql.Table           = (*refreshesTable)(nil)
	_ sql.ProjectedTable  = (*refreshesTable)(nil)
	_ sql.PrimaryKeyTable = (*refreshesTable)(nil)
)

func (t *refreshesTable) Name() string               { return t.mv.Name + "$refreshes" }
func (t *refreshesTable) String() string             { return t.db.name + "." + t.Name() }
func (t *refreshesTable) Collation() sql.CollationID { return sql.Collation_Default }
func (t *refreshesTable) PrimaryKeySchema() sql.PrimaryKeySchema {
	return sql.NewPrimaryKeySchema(t.full)
}
func (t *refreshesTable) Projections() []string { return t.proj }

func (t *refreshesTable) WithProjections(cols []string) sql.Table {
	cp := *t
	cp.proj = cols
	return &cp
}

func (t *refreshesTable) Schema() sql.Schema {
	return projectedSchema(t.full, t.proj)
}

func (t *refreshesTable) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(scanPartition{}), nil
}

func (t *refreshesTable) PartitionRows(ctx *sql.Context, _ sql.Partition) (sql.RowIter, error) {
	refs, err := t.db.p.cat.Refreshes(ctx, t.mv.Ident())
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	idx := projectedIndexes(t.full, t.proj)
	rows := make([]sql.Row, 0, len(refs))
	for _, r := range refs {
		var srcs any
		if len(r.SourceSnapshots) > 0 {
			m := make(map[string]any, len(r.SourceSnapshots))
			for k, v := range r.SourceSnapshots {
				m[k] = v
			}
			srcs = types.JSONDocument{Val: m}
		}
		var snap any
		if r.SnapshotID != 0 {
			snap = r.SnapshotID
		}
		full := sql.Row{
			r.FinishedAt.UTC().Truncate(time.Microsecond), r.Status, r.ExecutionID, r.Trigger, r.Author, srcs, snap, r.Records,
			r.FinishedAt.Sub(r.StartedAt).Milliseconds(), r.Stale, r.CommitsBehind, mvNullStr(r.StatementID), mvNullStr(r.Message),
		}
		out := make(sql.Row, len(idx))
		for j, i := range idx {
			out[j] = full[i]
		}
		rows = append(rows, out)
	}
	return sql.RowsToRowIter(rows...), nil
}

func mvNullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}
