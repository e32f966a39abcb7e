package ddl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/catalogstore"
)

// Session is what lakehouse statements need from the engine's session.
// Nodes find it as ctx.Session.(Session).
type Session interface {
	Catalog() *catalogstore.Catalog
	CurrentWorkspace() string
	// SetCurrentWorkspace switches the session; it fails with
	// catalogstore.ErrWorkspaceNotFound for a missing one. What becomes of
	// the session's current database (a collection of the old workspace)
	// is the session's decision.
	SetCurrentWorkspace(ctx context.Context, ws string) error
	Author() string // the authenticated user
}

func sessionOf(ctx *sql.Context) (Session, error) {
	if ctx == nil || ctx.Session == nil {
		return nil, fmt.Errorf("%w: no session in the context", ErrNotLakesqlSession)
	}
	s, ok := ctx.Session.(Session)
	if !ok {
		return nil, fmt.Errorf("%w: %T does not implement ddl.Session", ErrNotLakesqlSession, ctx.Session)
	}
	return s, nil
}

// Result schemas.
var (
	showWorkspacesSchema = sql.Schema{
		{Name: "Workspace", Type: types.LongText},
		{Name: "egress_protection", Type: types.LongText},
		{Name: "deletion_protection", Type: types.LongText},
		{Name: "created_at", Type: types.DatetimeMaxPrecision, Nullable: true},
		{Name: "author", Type: types.LongText, Nullable: true},
	}
	showWorkspacePropertiesSchema = sql.Schema{
		{Name: "property", Type: types.LongText},
		{Name: "value", Type: types.LongText},
	}
)

func okResult(rowsAffected int) (sql.RowIter, error) {
	return sql.RowsToRowIter(sql.Row{types.NewOkResult(rowsAffected)}), nil
}

// note records a MySQL "Note" warning, as MySQL does for IF [NOT] EXISTS
// statements that change nothing.
func note(ctx *sql.Context, code int, format string, args ...any) {
	ctx.Session.Warn(&sql.Warning{Level: "Note", Code: code, Message: fmt.Sprintf(format, args...)})
}

func (s *CreateWorkspace) schema() sql.Schema { return types.OkResultSchema }
func (s *CreateWorkspace) readOnly() bool     { return false }

func (s *CreateWorkspace) exec(ctx *sql.Context, sess Session) (sql.RowIter, error) {
	_, err := sess.Catalog().CreateWorkspace(ctx, s.Name, sess.Author())
	if s.IfNotExists && errors.Is(err, catalogstore.ErrWorkspaceExists) {
		note(ctx, mysql.ERDbCreateExists, "Can't create workspace %s; workspace exists", s.Name)
		return okResult(0)
	}
	if err != nil {
		return nil, err
	}
	return okResult(1)
}

func (s *UseWorkspace) schema() sql.Schema { return types.OkResultSchema }
func (s *UseWorkspace) readOnly() bool     { return true }

func (s *UseWorkspace) exec(ctx *sql.Context, sess Session) (sql.RowIter, error) {
	if err := catalogstore.CheckWorkspaceName(s.Name); err != nil {
		return nil, err
	}
	if err := sess.SetCurrentWorkspace(ctx, s.Name); err != nil {
		return nil, err
	}
	return okResult(0)
}

func (s *ShowWorkspaces) schema() sql.Schema { return showWorkspacesSchema }
func (s *ShowWorkspaces) readOnly() bool     { return true }

func (s *ShowWorkspaces) exec(ctx *sql.Context, sess Session) (sql.RowIter, error) {
	wss, err := sess.Catalog().ListWorkspaces(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, 0, len(wss))
	for i := range wss {
		w := &wss[i]
		var created any
		if !w.CreatedAt.IsZero() {
			created = w.CreatedAt.UTC().Truncate(time.Microsecond)
		}
		var author any
		if w.Author != "" {
			author = w.Author
		}
		rows = append(rows, sql.Row{w.Name, onOff(w.EgressRestricted()), onOff(w.DeletionProtected()), created, author})
	}
	return sql.RowsToRowIter(rows...), nil
}

func (s *DropWorkspace) schema() sql.Schema { return types.OkResultSchema }
func (s *DropWorkspace) readOnly() bool     { return false }

func (s *DropWorkspace) exec(ctx *sql.Context, sess Session) (sql.RowIter, error) {
	if cur := sess.CurrentWorkspace(); cur != "" && cur == s.Name {
		return nil, fmt.Errorf("%w: workspace %q is this session's workspace; switch to another workspace first (USE WORKSPACE other)",
			ErrDropCurrentWorkspace, s.Name)
	}
	err := sess.Catalog().DropWorkspace(ctx, s.Name, sess.Author(), s.Cascade)
	if s.IfExists && errors.Is(err, catalogstore.ErrWorkspaceNotFound) {
		note(ctx, mysql.ERDbDropExists, "Can't drop workspace %s; workspace doesn't exist", s.Name)
		return okResult(0)
	}
	if err != nil {
		return nil, err
	}
	return okResult(1)
}

func (s *AlterWorkspace) schema() sql.Schema { return types.OkResultSchema }
func (s *AlterWorkspace) readOnly() bool     { return false }

func (s *AlterWorkspace) exec(ctx *sql.Context, sess Session) (sql.RowIter, error) {
	// SetWorkspaceProperty does not check the name itself.
	if err := catalogstore.CheckWorkspaceName(s.Name); err != nil {
		return nil, err
	}
	if err := sess.Catalog().SetWorkspaceProperty(ctx, s.Name, s.Property, s.Value, sess.Author()); err != nil {
		return nil, err
	}
	return okResult(1)
}

func (s *ShowWorkspaceProperties) schema() sql.Schema { return showWorkspacePropertiesSchema }
func (s *ShowWorkspaceProperties) readOnly() bool     { return true }

func (s *ShowWorkspaceProperties) exec(ctx *sql.Context, sess Session) (sql.RowIter, error) {
	name := s.Name
	if name == "" {
		if name = sess.CurrentWorkspace(); name == "" {
			return nil, fmt.Errorf("%w: name one (SHOW WORKSPACE PROPERTIES FOR w) or run USE WORKSPACE w first", ErrNoWorkspace)
		}
	}
	w, err := sess.Catalog().Workspace(ctx, name)
	if err != nil {
		return nil, err
	}
	// The guards as they are enforced: fail-closed, ON unless a real false.
	return sql.RowsToRowIter(
		sql.Row{catalogstore.PropEgressProtection, onOff(w.EgressRestricted())},
		sql.Row{catalogstore.PropDeletionProtection, onOff(w.DeletionProtected())},
	), nil
}
