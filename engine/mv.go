package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/transform"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/ddl"
	"github.com/lakesql/lakesql/engine/jobs"
	"github.com/lakesql/lakesql/provider"
)

// Materialized views: the refresh runner, the engine side of
// ddl.QuerySession, and the engine's handles on its job machinery (package
// jobs runs the queues; the refresh runs SQL, so it is here).

// SetJobQueue replaces the queue refresh jobs go to (a
// *jobs.InProcessQueue, jobs.InlineQueue, *jobs.HTTPTaskQueue or any
// catalogstore.Queue).
func (e *Engine) SetJobQueue(q catalogstore.Queue) { e.jobs.SetQueue(q) }

// UseInlineJobs makes refreshes run in the committing goroutine, right
// after the commit that fired them (deterministic: tests and scripts).
func (e *Engine) UseInlineJobs() { e.SetJobQueue(jobs.InlineQueue(e.runJobByID)) }

// JobQueue returns the queue refresh jobs go to.
func (e *Engine) JobQueue() catalogstore.Queue { return e.jobs.Queue() }

// SetAlertHook replaces where alerts go (default: the sinks of
// Config.Jobs.Alerts). Tests use it to see alerts.
func (e *Engine) SetAlertHook(fn func(ctx context.Context, err error)) { e.jobs.SetAlertHook(fn) }

// WaitForJobs waits until the in-process pool has no queued or running
// job, or ctx ends.
func (e *Engine) WaitForJobs(ctx context.Context) error { return e.jobs.Wait(ctx) }

// NewWorker returns the HTTP task target of `lakesql worker --listen`,
// running this engine's jobs.
func (e *Engine) NewWorker(v *jobs.TokenVerifier) *jobs.Worker {
	return jobs.NewWorker(e.cat, e.RunJob, v, e.log)
}

// RunJob runs one refresh job: it claims it (pending → running, so one
// worker runs it), refreshes the view as the job's author and records the
// final status. A job that is no longer pending is returned unchanged.
func (e *Engine) RunJob(ctx context.Context, executionID string) (*catalogstore.Job, error) {
	job, claimed, err := e.cat.ClaimJob(ctx, executionID)
	if err != nil || !claimed {
		return job, err
	}
	status, msg := catalogstore.JobFailed, ""
	target, err := job.TargetIdent()
	if err == nil {
		_, err = e.refresh(ctx, target, job.Author, job.Trigger, job.ExecutionID)
		status = catalogstore.JobStatusOf(catalogstore.RefreshStatusOf(err))
	}
	if err != nil {
		msg = err.Error()
	}
	if ferr := e.cat.FinishJob(ctx, executionID, status, msg); ferr != nil {
		return job, ferr
	}
	return e.cat.Job(ctx, executionID)
}

func (e *Engine) runJobByID(ctx context.Context, id string) {
	if _, err := e.RunJob(ctx, id); err != nil {
		e.log.Error("refresh job", "execution_id", id, "err", err)
	}
}

// DrainJobs runs every pending job, oldest first, and returns how many it
// ran (the `lakesql worker` verb without --listen).
func (e *Engine) DrainJobs(ctx context.Context) (int, error) {
	pending, err := e.cat.PendingJobs(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, j := range pending {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		job, err := e.RunJob(ctx, j.ExecutionID)
		if err != nil {
			return n, err
		}
		if job != nil && job.Status.Final() {
			n++
		}
	}
	return n, nil
}

// RefreshMaterializedView implements ddl.QuerySession: a manual refresh as
// the session's user.
func (s *Session) RefreshMaterializedView(ctx *sql.Context, id catalogstore.Ident) (*catalogstore.Refresh, error) {
	return s.e.refreshAs(ctx, id, s.Client(), "manual", catalogstore.NewExecutionID())
}

// PlanSources implements ddl.QuerySession.
func (s *Session) PlanSources(ctx *sql.Context, query string) ([]catalogstore.Ident, error) {
	e := s.e
	sub := e.subSession(s.Client(), s.CurrentWorkspace(), ctx.GetCurrentDatabase())
	defer e.gms.CloseSession(sub.ID())
	tables, err := e.planSelect(e.queryContext(ctx, sub, query), query)
	if err != nil {
		return nil, err
	}
	ids := make([]catalogstore.Ident, 0, len(tables))
	for _, t := range tables {
		if id := t.Dataset().Ident(); !containsIdent(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// CreateMaterializedView implements ddl.QuerySession: it plans the view's
// SELECT as the session's user, creates the view with the SELECT's
// columns, empty and registered whole in one metastore transaction
// (catalogstore.CreateMaterializedView), then fills it as a refresh does
// and records that fill as its first refresh (trigger "create"). A fill
// that fails is returned with the view, which the caller drops; a process
// that dies before the fill commits leaves a whole view whose status is
// pending, never a plain table.
func (s *Session) CreateMaterializedView(ctx *sql.Context, id catalogstore.Ident, spec catalogstore.MaterializedViewSpec) (*catalogstore.Dataset, *catalogstore.Refresh, error) {
	cols, err := s.ctasColumns(ctx, id, spec.SQL)
	if err != nil {
		return nil, nil, err
	}
	mv, err := s.e.cat.CreateMaterializedView(ctx, id, schema.Schema{Columns: cols}, s.Author(), spec)
	if err != nil {
		return nil, nil, err
	}
	e := s.e
	rec := &catalogstore.Refresh{ExecutionID: catalogstore.NewExecutionID(), Trigger: "create", Author: s.Client().User, StartedAt: time.Now().UTC(), ViewUUID: mv.UUID}
	if err := e.doRefresh(ctx, id, s.Client(), rec); err != nil {
		return mv, nil, err
	}
	rec.FinishedAt, rec.Status = time.Now().UTC(), catalogstore.RefreshOK
	if err := e.cat.RecordRefresh(context.WithoutCancel(ctx), id, *rec); err != nil {
		// The fill committed: the view is whole, only its status says
		// pending until the next refresh.
		e.cat.Alert(ctx, catalogstore.MarkAlertable(fmt.Errorf("the fill of materialized view %s committed but was not recorded: %w", id, err),
			catalogstore.SeverityWarning, "refresh-unrecorded:"+id.String(), map[string]string{"materialized_view": id.String()}))
	}
	return mv, rec, nil
}

// ctasColumns are the columns CREATE TABLE id AS query would create: the
// CTAS is analysed (never run), as the session's user, so the view gets
// exactly a CTAS's types, with every correction mysqlfix makes to them.
func (s *Session) ctasColumns(ctx *sql.Context, id catalogstore.Ident, query string) ([]schema.Column, error) {
	e := s.e
	sub := e.subSession(s.Client(), s.CurrentWorkspace(), ctx.GetCurrentDatabase())
	defer e.gms.CloseSession(sub.ID())
	db := id.Collection
	if id.Workspace != s.CurrentWorkspace() {
		db = id.Workspace + "." + id.Collection
	}
	q := "CREATE TABLE " + quoteIdent(db) + "." + quoteIdent(id.Name) + " AS " + query
	node, err := e.gms.AnalyzeQuery(e.queryContext(ctx, sub, q), q)
	if err != nil {
		return nil, err
	}
	var ct *plan.CreateTable
	transform.Inspect(node, func(n sql.Node) bool {
		if tc, ok := n.(*plan.TableCopier); ok {
			ct, _ = tc.Destination.(*plan.CreateTable)
		}
		return ct == nil
	})
	if ct == nil {
		return nil, fmt.Errorf("%w: a materialized view is defined by a SELECT", catalogstore.ErrNotSupported)
	}
	return provider.ColumnsOfCreate(ct.PkSchema())
}

// quoteIdent backquotes a MySQL identifier.
func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// RunSQL implements ddl.QuerySession.
func (s *Session) RunSQL(ctx *sql.Context, query string) error {
	e := s.e
	sub := e.subSession(s.Client(), s.CurrentWorkspace(), ctx.GetCurrentDatabase())
	defer e.gms.CloseSession(sub.ID())
	sctx := e.queryContext(ctx, sub, query)
	defer endQuery(sctx)
	_, iter, _, err := e.gms.Query(sctx, query)
	if err != nil {
		return err
	}
	return drain(sctx, iter)
}

var _ ddl.QuerySession = (*Session)(nil)

func drain(ctx *sql.Context, iter sql.RowIter) error {
	for {
		_, err := iter.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			iter.Close(ctx)
			return err
		}
	}
	return iter.Close(ctx)
}

// subSession is a session of its own for SQL the engine runs on a user's
// behalf (a CTAS, a refresh): the user's rights, the given workspace and
// current database, its own write-set.
func (e *Engine) subSession(client sql.Client, ws, db string) *Session {
	if client.User == "" {
		client.User = "root"
	}
	if client.Address == "" {
		client.Address = "localhost"
	}
	base := sql.NewBaseSessionWithClientServer("lakesql", client, connIDs.Add(1))
	s := newSession(base, e, ws)
	if db != "" {
		s.BaseSession.SetCurrentDatabase(db)
	}
	return s
}

func (e *Engine) queryContext(ctx context.Context, s *Session, query string) *sql.Context {
	sctx := e.newQueryContext(ctx, sql.WithSession(s), sql.WithQuery(query),
		sql.WithProcessList(e.gms.ProcessList), sql.WithMemoryManager(e.gms.MemoryManager))
	sctx.SetCurrentDatabase(s.GetCurrentDatabase())
	return sctx
}

// planSelect binds query (which must be a SELECT) as the context's user and
// returns the lakesql tables it reads. It walks the bound plan, before the
// analyzer's rewrites (which may answer a table from its manifest and drop
// the scan), so every table the query names is found; views are expanded.
func (e *Engine) planSelect(ctx *sql.Context, query string) ([]*provider.Table, error) {
	stmt, err := e.parser.ParseSimple(query)
	if err != nil {
		return nil, err
	}
	if _, ok := stmt.(ast.SelectStatement); !ok {
		return nil, fmt.Errorf("%w: a materialized view is defined by a SELECT, not %T", catalogstore.ErrNotSupported, stmt)
	}
	b := planbuilder.New(ctx, e.gms.Analyzer.Catalog, e.gms.EventScheduler, e.gms.Parser)
	node, _, _, _, err := b.Parse(query, nil, false)
	if err != nil {
		return nil, err
	}
	return readTables(node), nil
}

// readTables returns the lakesql tables a plan reads: every table node,
// through wrappers, subqueries and the sources of writes.
func readTables(n sql.Node) []*provider.Table {
	var out []*provider.Table
	var visit func(sql.Node)
	visit = func(n sql.Node) {
		if n == nil {
			return
		}
		transform.Inspect(n, func(n sql.Node) bool {
			if n == nil {
				return false
			}
			switch x := n.(type) {
			case *plan.InsertInto:
				visit(x.Source)
			case *plan.TableCopier:
				visit(x.Source)
			}
			// read_parquet's table is files, not a dataset of any
			// workspace: no egress, no refresh trigger.
			if t := providerTable(n); t != nil && !t.ReadsFiles() {
				out = append(out, t)
			}
			if ex, ok := n.(sql.Expressioner); ok {
				for _, e := range ex.Expressions() {
					transform.InspectExpr(e, func(e sql.Expression) bool {
						if sq, ok := e.(*plan.Subquery); ok {
							visit(sq.Query)
						}
						return false
					})
				}
			}
			return true
		})
	}
	visit(n)
	return out
}

// providerTable unwraps a table node to its lakesql table, if it is one.
func providerTable(n sql.Node) *provider.Table {
	var t sql.Table
	switch x := n.(type) {
	case *plan.ResolvedTable:
		t = x.Table
	case sql.TableNode:
		t = x.UnderlyingTable()
	default:
		return nil
	}
	return asProviderTable(t)
}

func containsIdent(ids []catalogstore.Ident, id catalogstore.Ident) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// refresh recomputes a materialized view as user author (a job's
// invoker). See refreshAs.
func (e *Engine) refresh(ctx context.Context, id catalogstore.Ident, author, trigger, execID string) (*catalogstore.Refresh, error) {
	return e.refreshAs(ctx, id, sql.Client{User: author, Address: "localhost"}, trigger, execID)
}

// refreshAs recomputes a materialized view with client's rights, re-read
// now: egress protection first (every source workspace must allow the
// copy), then SELECT on every source and INSERT on the view, then the
// view's SQL, committed as ONE truncate-and-add-files snapshot. Every
// outcome is recorded (last-refresh-status, `mv$refreshes`); a blocked or
// denied refresh fired by a trigger also raises an alert.
func (e *Engine) refreshAs(ctx context.Context, id catalogstore.Ident, client sql.Client, trigger, execID string) (*catalogstore.Refresh, error) {
	rec := &catalogstore.Refresh{ExecutionID: execID, Trigger: trigger, Author: client.User, StartedAt: time.Now().UTC()}
	err := e.doRefresh(ctx, id, client, rec)
	rec.FinishedAt = time.Now().UTC()
	rec.Status = catalogstore.RefreshStatusOf(err)
	if err != nil {
		rec.Message = err.Error()
	}
	if rerr := e.cat.RecordRefresh(ctx, id, *rec); rerr != nil {
		if err == nil {
			e.cat.Alert(ctx, catalogstore.MarkAlertable(fmt.Errorf("refresh of %s committed but was not recorded: %w", id, rerr),
				catalogstore.SeverityWarning, "refresh-unrecorded:"+id.String(), map[string]string{"materialized_view": id.String()}))
		} else {
			e.log.Warn("refresh not recorded", "materialized_view", id.String(), "err", rerr)
		}
	}
	if err != nil && trigger != "manual" {
		sev := catalogstore.SeverityError
		if rec.Status != catalogstore.RefreshFailed {
			sev = catalogstore.SeverityWarning
		}
		e.cat.Alert(ctx, catalogstore.MarkAlertable(fmt.Errorf("refresh of materialized view %s (execution %s) %s: %w", id, execID, rec.Status, err),
			sev, "refresh-"+rec.Status+":"+id.String(),
			map[string]string{"materialized_view": id.String(), "status": rec.Status, "execution_id": execID}))
	}
	return rec, err
}

// refreshAttempts bounds the recomputes when another refresh commits
// first.
const refreshAttempts = 3

func (e *Engine) doRefresh(ctx context.Context, id catalogstore.Ident, client sql.Client, rec *catalogstore.Refresh) error {
	var lastErr error
	for attempt := 0; attempt < refreshAttempts; attempt++ {
		err := e.refreshOnce(ctx, id, client, rec)
		var ce *catalogstore.CommitError
		if err == nil || !errors.As(err, &ce) || !errors.Is(err, catalogstore.ErrCommitConflict) {
			return err
		}
		lastErr = err
	}
	return lastErr
}

func (e *Engine) refreshOnce(ctx context.Context, id catalogstore.Ident, client sql.Client, rec *catalogstore.Refresh) error {
	mv, err := e.cat.MaterializedView(ctx, id)
	if err != nil {
		return err
	}
	// A refresh is for one incarnation of the view: an attempt after the
	// view was dropped and created again under its name stops, and its
	// record is refused (RecordRefresh).
	if rec.ViewUUID == "" {
		rec.ViewUUID = mv.UUID
	} else if mv.UUID != rec.ViewUUID {
		return fmt.Errorf("%w: materialized view %s was dropped and created again during the refresh", catalogstore.ErrIncarnationChanged, id.Short())
	}
	rec.StatementID = mv.StatementID
	sources, err := mv.Sources()
	if err != nil {
		return err
	}
	op := "refresh materialized view " + id.String()
	if err := catalogstore.EnforceEgress(ctx, e.cat, sources, id.Workspace, op); err != nil {
		return err
	}
	ws := mv.SQLWorkspace
	if ws == "" {
		ws = id.Workspace
	}
	sess := e.subSession(client, ws, mv.SQLDatabase)
	defer e.gms.CloseSession(sess.ID())
	sctx := e.queryContext(ctx, sess, mv.SQL)
	defer endQuery(sctx)
	if err := e.checkRefreshRights(sctx, id, sources, ws); err != nil {
		return err
	}
	tables, err := e.planSelect(sctx, mv.SQL)
	if err != nil {
		return denial(err)
	}
	rec.SourceSnapshots = map[string]int64{}
	planned := make([]catalogstore.Ident, 0, len(tables))
	for _, t := range tables {
		tid := t.Dataset().Ident()
		planned = append(planned, tid)
		name := tid.Short()
		if tid.Workspace != id.Workspace {
			name = tid.String()
		}
		rec.SourceSnapshots[name] = t.SnapshotID()
	}
	// The SQL may read more than source-tables says (a view it reads was
	// redefined): the gate sees what the plan reads.
	if err := catalogstore.EnforceEgress(ctx, e.cat, planned, id.Workspace, op); err != nil {
		return err
	}
	_, iter, _, err := e.gms.Query(sctx, mv.SQL)
	if err != nil {
		return denial(err)
	}
	files, records, err := e.prov.MaterializeRows(sctx, mv, iter)
	if err != nil {
		return err
	}
	// The first fill of a view (created empty) appends, as the CTAS that
	// created views before did; later ones replace every row.
	kind, replace := catalogstore.OpTruncateAndAdd, true
	if mv.CurrentSnapshotID == 0 {
		kind, replace = catalogstore.OpAppend, false
	}
	snap, err := e.cat.Commit(ctx, id, catalogstore.Commit{
		Operation: kind, ReplaceAll: replace, Added: files,
		Author:       client.User,
		Message:      fmt.Sprintf("refresh materialized view (%s, execution %s)", rec.Trigger, rec.ExecutionID),
		ExpectedUUID: mv.UUID, BaseSnapshotID: mv.CurrentSnapshotID,
	})
	if err != nil {
		return err
	}
	rec.SnapshotID, rec.Records = snap.ID, records
	return nil
}

// denial classifies GMS's access errors as a refresh denial.
func denial(err error) error {
	if sql.ErrPrivilegeCheckFailed.Is(err) || sql.ErrDatabaseAccessDeniedForUser.Is(err) || sql.ErrTableAccessDeniedForUser.Is(err) {
		return fmt.Errorf("%w: %v", catalogstore.ErrRefreshDenied, err)
	}
	return err
}

// checkRefreshRights checks the invoker's rights against the engine's
// MySQL privilege set, directly: SELECT on every source, INSERT on the
// view. A grant counts on the canonical database name `ws.coll` and, for a
// collection of the workspace the view's SQL runs in, on the plain
// collection name.
func (e *Engine) checkRefreshRights(ctx *sql.Context, mv catalogstore.Ident, sources []catalogstore.Ident, ws string) error {
	mdb := e.gms.Analyzer.Catalog.MySQLDb
	if mdb == nil || !mdb.Enabled() {
		return nil
	}
	has := func(id catalogstore.Ident, priv sql.PrivilegeType) bool {
		names := []string{id.Workspace + "." + id.Collection}
		if id.Workspace == ws {
			names = append(names, id.Collection)
		}
		for _, db := range names {
			if mdb.UserHasPrivileges(ctx, sql.NewPrivilegedOperation(sql.PrivilegeCheckSubject{Database: db, Table: id.Name}, priv)) {
				return true
			}
		}
		return false
	}
	var missing []string
	for _, s := range sources {
		if !has(s, sql.PrivilegeType_Select) {
			missing = append(missing, "SELECT on "+s.String())
		}
	}
	if !has(mv, sql.PrivilegeType_Insert) {
		missing = append(missing, "INSERT on "+mv.String())
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: user '%s' lacks %s (rights are those of the author of the commit that fired the refresh, read when it runs)",
			catalogstore.ErrRefreshDenied, ctx.Session.Client().User, strings.Join(missing, ", "))
	}
	return nil
}
