package ddl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/catalogstore"
)

// QuerySession is what the materialized-view statements need beyond
// Session: the engine running SQL as the session's user. The engine's
// session implements it.
type QuerySession interface {
	Session
	// PlanSources analyzes query, a SELECT, as the session's user in its
	// workspace and current database, and returns the datasets the planned
	// query reads (views expanded). Privileges are checked as for running
	// it.
	PlanSources(ctx *sql.Context, query string) ([]catalogstore.Ident, error)
	// RunSQL runs one statement as the session's user, in a sub-session
	// with the session's workspace and current database; what it writes
	// commits when it ends.
	RunSQL(ctx *sql.Context, query string) error
	// CreateMaterializedView creates the view id whole (definition,
	// statements and triggers in one metastore transaction), then fills it
	// as a refresh, as the session's user. When the fill fails it returns
	// the view it created (for the caller to drop) with the error.
	CreateMaterializedView(ctx *sql.Context, id catalogstore.Ident, spec catalogstore.MaterializedViewSpec) (*catalogstore.Dataset, *catalogstore.Refresh, error)
	// RefreshMaterializedView recomputes a materialized view now, as the
	// session's user, and records the refresh (also when it fails).
	RefreshMaterializedView(ctx *sql.Context, id catalogstore.Ident) (*catalogstore.Refresh, error)
}

func querySessionOf(sess Session) (QuerySession, error) {
	qs, ok := sess.(QuerySession)
	if !ok {
		return nil, fmt.Errorf("%w: %T cannot run materialized-view statements (no ddl.QuerySession)", ErrNotLakesqlSession, sess)
	}
	return qs, nil
}

// resolveTable turns a SQL table name into a catalog identifier.
func resolveTable(ctx *sql.Context, sess Session, n TableName) (catalogstore.Ident, error) {
	ws := sess.CurrentWorkspace()
	db := n.DB
	if db == "" {
		db = ctx.GetCurrentDatabase()
		if db == "" {
			return catalogstore.Ident{}, sql.ErrNoDatabaseSelected.New()
		}
	}
	if i := strings.IndexByte(db, '.'); i > 0 {
		ws, db = db[:i], db[i+1:]
	}
	if ws == "" {
		return catalogstore.Ident{}, fmt.Errorf("%w: run USE WORKSPACE w first", ErrNoWorkspace)
	}
	id := catalogstore.Ident{Workspace: ws, Collection: db, Name: n.Name}
	return id, id.Check("table")
}

// sqlName renders id as SQL from a session in workspace ws.
func sqlName(id catalogstore.Ident, ws string) string {
	db := id.Collection
	if id.Workspace != ws {
		db = id.Workspace + "." + id.Collection
	}
	return quoteName(db) + "." + quoteName(id.Name)
}

// Result schemas.
var (
	showMaterializedViewsSchema = sql.Schema{
		{Name: "Collection", Type: types.LongText},
		{Name: "Materialized_view", Type: types.LongText},
		{Name: "Source_tables", Type: types.LongText},
		{Name: "Last_refresh_status", Type: types.LongText, Nullable: true},
		{Name: "Last_refresh_at", Type: types.DatetimeMaxPrecision, Nullable: true},
		{Name: "Records", Type: types.Int64},
		{Name: "Statement_id", Type: types.LongText, Nullable: true},
		{Name: "Comment", Type: types.LongText, Nullable: true},
	}
	showTriggersForSchema = sql.Schema{
		{Name: "Trigger", Type: types.LongText},
		{Name: "Kind", Type: types.LongText},
		{Name: "Target_view", Type: types.LongText},
		{Name: "Statement_id", Type: types.LongText, Nullable: true},
		{Name: "Author", Type: types.LongText, Nullable: true},
		{Name: "Created_at", Type: types.DatetimeMaxPrecision, Nullable: true},
		{Name: "Last_fired_at", Type: types.DatetimeMaxPrecision, Nullable: true},
		{Name: "Last_fired_status", Type: types.LongText, Nullable: true},
		{Name: "Last_execution_id", Type: types.LongText, Nullable: true},
	}
)

func (s *CreateMaterializedView) schema() sql.Schema { return types.OkResultSchema }
func (s *CreateMaterializedView) readOnly() bool     { return false }

// exec validates everything before writing anything (the planned sources,
// the stacking, cycle and egress rules), then creates the view whole —
// its definition, statements and triggers in one metastore transaction —
// and fills it. A fill that fails drops the view again; a process killed
// before the fill commits leaves the whole view, pending a refresh, never
// a plain table (issue 18). OR REPLACE replaces the old view in that same
// transaction.
func (s *CreateMaterializedView) exec(ctx *sql.Context, sess Session) (sql.RowIter, error) {
	qs, err := querySessionOf(sess)
	if err != nil {
		return nil, err
	}
	id, err := resolveTable(ctx, sess, s.Name)
	if err != nil {
		return nil, err
	}
	cat := sess.Catalog()
	existing, err := cat.Dataset(ctx, id)
	switch {
	case err == nil && s.IfNotExists:
		note(ctx, mysql.ERTableExists, "Table '%s' already exists", id.Short())
		return okResult(0)
	case err == nil && !s.OrReplace:
		return nil, fmt.Errorf("%w: %s", catalogstore.ErrDatasetExists, id.Short())
	case err == nil && !existing.IsMaterializedView():
		return nil, fmt.Errorf("%w: %s is a table; OR REPLACE replaces only a materialized view", catalogstore.ErrDatasetExists, id.Short())
	case err != nil && !errors.Is(err, catalogstore.ErrDatasetNotFound):
		return nil, err
	case err != nil:
		existing = nil
	}
	sources, err := qs.PlanSources(ctx, s.Select)
	if err != nil {
		return nil, err
	}
	for _, src := range sources {
		if src == id {
			return nil, fmt.Errorf("%w: materialized view %s cannot read itself", catalogstore.ErrNotSupported, id.Short())
		}
	}
	if err := cat.CheckMaterializedView(ctx, id, sources); err != nil {
		return nil, err
	}
	var history []catalogstore.Statement
	if existing != nil {
		if history, err = cat.MaterializedViewStatements(ctx, id); err != nil {
			return nil, err
		}
	}
	// OR REPLACE swaps the old view for the new one in the transaction
	// that registers the new one: until then the old view stays whole.
	mv, rec, err := qs.CreateMaterializedView(ctx, id, catalogstore.MaterializedViewSpec{
		SQL: s.Select, Sources: sources, Comment: s.Comment, History: history, Replaces: existing,
		SQLWorkspace: sess.CurrentWorkspace(), SQLDatabase: ctx.GetCurrentDatabase(),
	})
	if err != nil {
		// A replacement whose fill failed keeps the new view, whole and
		// not filled (its status says so; a refresh fills it): the old
		// one is gone with the swap, and dropping the new one would leave
		// neither.
		if mv != nil && existing == nil {
			dropLeftover(ctx, cat, mv, sess.Author())
		}
		return nil, err
	}
	return okResult(int(rec.Records))
}

// dropLeftover drops the view a failed CREATE MATERIALIZED VIEW created
// (that incarnation only), also when the statement failed because it was
// killed (its context is cancelled then, and the view would stay).
func dropLeftover(ctx *sql.Context, cat *catalogstore.Catalog, mv *catalogstore.Dataset, author string) {
	if err := cat.DropDatasetIncarnation(context.WithoutCancel(ctx), mv.Ident(), mv.UUID, author); err != nil {
		ctx.GetLogger().Warnf("lakesql: drop %s left by a failed CREATE MATERIALIZED VIEW: %v", mv.Ident(), err)
	}
}

func (s *RefreshMaterializedView) schema() sql.Schema { return types.OkResultSchema }
func (s *RefreshMaterializedView) readOnly() bool     { return false }

func (s *RefreshMaterializedView) exec(ctx *sql.Context, sess Session) (sql.RowIter, error) {
	qs, err := querySessionOf(sess)
	if err != nil {
		return nil, err
	}
	id, err := resolveTable(ctx, sess, s.Name)
	if err != nil {
		return nil, err
	}
	if _, err := sess.Catalog().MaterializedView(ctx, id); err != nil {
		return nil, err
	}
	r, err := qs.RefreshMaterializedView(ctx, id)
	if err != nil {
		return nil, err
	}
	return okResult(int(r.Records))
}

func (s *DropMaterializedView) schema() sql.Schema { return types.OkResultSchema }
func (s *DropMaterializedView) readOnly() bool     { return false }

func (s *DropMaterializedView) exec(ctx *sql.Context, sess Session) (sql.RowIter, error) {
	id, err := resolveTable(ctx, sess, s.Name)
	if err != nil {
		return nil, err
	}
	err = sess.Catalog().DropMaterializedView(ctx, id, sess.Author())
	if s.IfExists && errors.Is(err, catalogstore.ErrDatasetNotFound) {
		note(ctx, mysql.ERBadTable, "Unknown materialized view '%s'", id.Short())
		return okResult(0)
	}
	if err != nil {
		return nil, err
	}
	return okResult(0)
}

func (s *ShowMaterializedViews) schema() sql.Schema { return showMaterializedViewsSchema }
func (s *ShowMaterializedViews) readOnly() bool     { return true }

func (s *ShowMaterializedViews) exec(ctx *sql.Context, sess Session) (sql.RowIter, error) {
	cat := sess.Catalog()
	ws := sess.CurrentWorkspace()
	db := s.DB
	if db == "" {
		db = ctx.GetCurrentDatabase()
	}
	if i := strings.IndexByte(db, '.'); i > 0 {
		ws, db = db[:i], db[i+1:]
	}
	if ws == "" {
		return nil, fmt.Errorf("%w: run USE WORKSPACE w first", ErrNoWorkspace)
	}
	var colls []string
	if db != "" {
		if _, err := cat.Collection(ctx, ws, db); err != nil {
			return nil, err
		}
		colls = []string{db}
	} else {
		cs, err := cat.ListCollections(ctx, ws)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			colls = append(colls, c.Name)
		}
	}
	var rows []sql.Row
	for _, coll := range colls {
		mvs, err := cat.ListMaterializedViews(ctx, ws, coll)
		if err != nil {
			return nil, err
		}
		for _, mv := range mvs {
			rows = append(rows, sql.Row{coll, mv.Name, strings.Join(mv.SourceTables, ","), nullStr(mv.LastRefreshStatus),
				nullTime(mv.LastRefreshAt), mv.CurrentRecords, nullStr(mv.StatementID), nullStr(mv.Comment)})
		}
	}
	return sql.RowsToRowIter(rows...), nil
}

func (s *ShowTriggersFor) schema() sql.Schema { return showTriggersForSchema }
func (s *ShowTriggersFor) readOnly() bool     { return true }

func (s *ShowTriggersFor) exec(ctx *sql.Context, sess Session) (sql.RowIter, error) {
	id, err := resolveTable(ctx, sess, s.Name)
	if err != nil {
		return nil, err
	}
	trigs, err := sess.Catalog().Triggers(ctx, id)
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, 0, len(trigs))
	for _, t := range trigs {
		target := t.TargetView
		if tid, err := t.Target(); err == nil && tid.Workspace == sess.CurrentWorkspace() {
			target = tid.Short()
		}
		created := t.CreatedAt
		rows = append(rows, sql.Row{t.Name, t.Kind, target, nullStr(t.StatementID), nullStr(t.Author),
			nullTime(&created), nullTime(t.LastFiredAt), nullStr(t.LastFiredStatus), nullStr(t.LastExecutionID)})
	}
	return sql.RowsToRowIter(rows...), nil
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullTime(t *time.Time) any {
	if t == nil || t.IsZero() {
		return nil
	}
	return t.UTC().Truncate(time.Microsecond)
}
