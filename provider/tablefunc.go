package provider

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/scan"
	"github.com/lakesql/lakesql/sqlerr"
)

// The change feed: SELECT * FROM table_changes('c.t', from, to) returns the
// rows that the commits in the window (from, to] inserted and deleted.
// from and to are snapshot ids, tags or timestamps (a time selects the
// latest snapshot committed at or before it); to may be omitted or NULL for
// the head. Each row carries the table's columns (as the schema of snapshot
// to names them) and then
//
//	_change_type       'insert' or 'delete'
//	_commit_version    the snapshot id of the commit
//	_commit_timestamp  its commit time, DATETIME(6) UTC
//
// Appends yield inserts; overwrites and deletes (copy-on-write rewrites)
// yield exactly the rows they changed: a rewritten file's surviving rows
// cancel out. Compaction and other housekeeping never appear. A window
// below the retention floor or across a truncate is refused
// (catalogstore.ErrChangesUnavailable): reconcile from a full scan.

// TableChangesName is the change feed's table function name.
const TableChangesName = "table_changes"

// withHistoryFunctions registers the history table functions on p.
func (p *Provider) withHistoryFunctions() *Provider {
	p.fns[TableChangesName] = &changesFunction{p: p}
	return p
}

// changesFunction is the table_changes table function; NewInstance plans
// one call.
type changesFunction struct {
	p    *Provider
	db   sql.Database
	ds   *catalogstore.Dataset
	sch  *schema.Schema
	plan *catalogstore.ChangePlan
	out  sql.Schema
	desc string
}

var (
	_ sql.TableFunction      = (*changesFunction)(nil)
	_ sql.ExecSourceRel      = (*changesFunction)(nil)
	_ sql.CollationCoercible = (*changesFunction)(nil)

	_ sql.AuthorizationCheckerNode = (*changesFunction)(nil)
)

// Change types.
const (
	ChangeInsert = "insert"
	ChangeDelete = "delete"
)

// NewInstance implements sql.TableFunction: it resolves the table and the
// window and plans the changes.
func (f *changesFunction) NewInstance(ctx *sql.Context, db sql.Database, args []sql.Expression) (sql.Node, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, sqlerr.Wrap(fmt.Errorf("%w: table_changes('collection.table', from, to) takes 2 or 3 arguments, not %d",
			catalogstore.ErrBadValue, len(args)))
	}
	vals := make([]any, 3)
	for i, a := range args {
		v, err := a.Eval(ctx, nil)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	name, ok := vals[0].(string)
	if !ok {
		return nil, sqlerr.Wrap(fmt.Errorf("%w: table_changes: the first argument names the table, as 'collection.table'", catalogstore.ErrBadValue))
	}
	sess, err := sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	id, err := f.ident(ctx, sess.CurrentWorkspace(), name)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	cat := f.p.cat
	ds, err := cat.Dataset(ctx, id)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	from, err := cat.ResolveChangeBound(ctx, ds, boundValue(vals[1]), false)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	to, err := cat.ResolveChangeBound(ctx, ds, boundValue(vals[2]), true)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	plan, err := cat.PlanChanges(ctx, ds, from, to)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	s, err := cat.SchemaByID(ctx, ds, plan.SchemaID)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	dbName := ""
	if db != nil {
		dbName = db.Name()
	}
	out := sqlSchema(ctx, s, TableChangesName, dbName)
	for _, c := range out {
		c.PrimaryKey = false
		c.Nullable = true
	}
	out = append(out,
		&sql.Column{Name: "_change_type", Type: types.LongText, Source: TableChangesName, DatabaseSource: dbName},
		&sql.Column{Name: "_commit_version", Type: types.Int64, Source: TableChangesName, DatabaseSource: dbName},
		&sql.Column{Name: "_commit_timestamp", Type: types.DatetimeMaxPrecision, Source: TableChangesName, DatabaseSource: dbName},
	)
	return &changesFunction{p: f.p, db: db, ds: ds, sch: s, plan: plan, out: out,
		desc: fmt.Sprintf("table_changes(%s, %d, %d)", id.Short(), from, to)}, nil
}

// ident resolves 'c.t' or 'ws.c.t'; a bare 't' is in the current database.
func (f *changesFunction) ident(ctx *sql.Context, ws, name string) (catalogstore.Ident, error) {
	if !strings.Contains(strings.Trim(name, "`"), ".") {
		cur := ctx.GetCurrentDatabase()
		if cur == "" {
			return catalogstore.Ident{}, fmt.Errorf("%w: table_changes(%q): name the table as 'collection.table' (no database is selected)",
				catalogstore.ErrBadIdentifier, name)
		}
		name = cur + "." + name
	}
	return catalogstore.ParseIdent(ws, name)
}

// boundValue turns GMS's zone-naive datetimes into UTC instants.
func boundValue(v any) any {
	if t, ok := v.(time.Time); ok {
		return naiveUTC(t)
	}
	return v
}

// Name implements sql.Nameable.
func (f *changesFunction) Name() string { return TableChangesName }

// Description describes the function.
func (f *changesFunction) Description() string {
	return "the rows inserted and deleted by the commits of a window (from, to]"
}

// Database implements sql.Databaser.
func (f *changesFunction) Database() sql.Database { return f.db }

// WithDatabase implements sql.Databaser.
func (f *changesFunction) WithDatabase(db sql.Database) (sql.Node, error) {
	cp := *f
	cp.db = db
	return &cp, nil
}

// Expressions implements sql.Expressioner: the arguments were evaluated
// when the call was planned.
func (f *changesFunction) Expressions() []sql.Expression { return nil }

// WithExpressions implements sql.Expressioner.
func (f *changesFunction) WithExpressions(e ...sql.Expression) (sql.Node, error) {
	if len(e) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(e), 0)
	}
	return f, nil
}

// Resolved implements sql.Resolvable.
func (f *changesFunction) Resolved() bool { return true }

// IsReadOnly implements sql.Node.
func (f *changesFunction) IsReadOnly() bool { return true }

// String implements fmt.Stringer.
func (f *changesFunction) String() string {
	if f.desc == "" {
		return TableChangesName
	}
	return f.desc
}

// Schema implements sql.Node.
func (f *changesFunction) Schema() sql.Schema { return f.out }

// Children implements sql.Node.
func (f *changesFunction) Children() []sql.Node { return nil }

// WithChildren implements sql.Node.
func (f *changesFunction) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 0)
	}
	return f, nil
}

// CollationCoercibility implements sql.CollationCoercible.
func (f *changesFunction) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 7
}

// CheckAuth implements sql.AuthorizationCheckerNode: reading the change
// feed needs SELECT on the table, granted on its collection as SQL names it
// (coll in the session's workspace, or ws.coll).
func (f *changesFunction) CheckAuth(ctx *sql.Context, checker sql.PrivilegedOperationChecker) bool {
	if f.ds == nil {
		return true
	}
	dbs := []string{f.ds.Workspace + "." + f.ds.Collection}
	if sess, err := sessionOf(ctx); err == nil && sess.CurrentWorkspace() == f.ds.Workspace {
		dbs = append(dbs, f.ds.Collection)
	}
	for _, db := range dbs {
		op := sql.NewPrivilegedOperation(sql.PrivilegeCheckSubject{Database: db, Table: f.ds.Name}, sql.PrivilegeType_Select)
		if checker.UserHasPrivileges(ctx, op) {
			return true
		}
	}
	return false
}

// RowIter implements sql.ExecSourceRel: commit by commit, in commit order,
// deletes before inserts.
func (f *changesFunction) RowIter(ctx *sql.Context, _ sql.Row) (sql.RowIter, error) {
	if f.plan == nil {
		return nil, fmt.Errorf("table_changes was not planned")
	}
	ids := make([]int, len(f.sch.Columns))
	for i, c := range f.sch.Columns {
		ids[i] = c.ID
	}
	return &changesIter{f: f, ids: ids}, nil
}

// changesIter reads one commit at a time.
type changesIter struct {
	f    *changesFunction
	ids  []int
	next int // next commit of the plan
	rows []sql.Row
	pos  int
}

func (it *changesIter) Next(ctx *sql.Context) (sql.Row, error) {
	for it.pos >= len(it.rows) {
		if it.next >= len(it.f.plan.Commits) {
			return nil, io.EOF
		}
		rows, err := it.f.commitRows(ctx, it.f.plan.Commits[it.next], it.ids)
		if err != nil {
			return nil, sqlerr.Wrap(err)
		}
		it.next++
		it.rows, it.pos = rows, 0
	}
	r := it.rows[it.pos]
	it.pos++
	return r, nil
}

func (it *changesIter) Close(*sql.Context) error { return nil }

// commitRows returns one commit's changed rows: the multiset difference of
// the rows of its removed and added files.
func (f *changesFunction) commitRows(ctx context.Context, cm catalogstore.ChangeCommit, ids []int) ([]sql.Row, error) {
	read := func(files []manifest.DataFile) ([]sql.Row, error) {
		if len(files) == 0 {
			return nil, nil
		}
		return scan.ReadAll(ctx, scan.Request{Store: f.p.cat.Blob(), Files: files, Schema: f.sch, FieldIDs: ids, Cache: f.p.cache, Footers: f.p.footers})
	}
	added, err := read(cm.Added)
	if err != nil {
		return nil, err
	}
	removed, err := read(cm.Removed)
	if err != nil {
		return nil, err
	}
	if len(added) > 0 && len(removed) > 0 {
		count := make(map[string]int, len(removed))
		for _, r := range removed {
			count[rowKey(r)]++
		}
		ins := added[:0:0]
		for _, r := range added {
			k := rowKey(r)
			if count[k] > 0 {
				count[k]-- // survived a rewrite: not a change
				continue
			}
			ins = append(ins, r)
		}
		del := removed[:0:0]
		for _, r := range removed {
			k := rowKey(r)
			if count[k] > 0 {
				count[k]--
				del = append(del, r)
			}
		}
		added, removed = ins, del
	}
	ts := datetime(cm.Snapshot.Timestamp)
	out := make([]sql.Row, 0, len(added)+len(removed))
	tag := func(r sql.Row, kind string) sql.Row {
		row := make(sql.Row, 0, len(r)+3)
		row = append(row, r...)
		return append(row, kind, cm.Snapshot.ID, ts)
	}
	for _, r := range removed {
		out = append(out, tag(r, ChangeDelete))
	}
	for _, r := range added {
		out = append(out, tag(r, ChangeInsert))
	}
	return out, nil
}
