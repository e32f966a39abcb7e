package ddl

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/catalogstore/meta/sqlite"
	"github.com/lakesql/lakesql/sqlerr"
)

// testNow is the catalog's pinned clock.
var testNow = time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.UTC)

func newTestCatalog(t *testing.T) *catalogstore.Catalog {
	t.Helper()
	dir := t.TempDir()
	m, err := sqlite.Open(context.Background(), filepath.Join(dir, "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	b, err := local.Open(filepath.Join(dir, "lake"))
	if err != nil {
		t.Fatal(err)
	}
	return catalogstore.New(m, b, catalogstore.Options{NoAudit: true, Now: func() time.Time { return testNow }})
}

// fakeSession is the smallest lakesql session.
type fakeSession struct {
	*sql.BaseSession
	cat    *catalogstore.Catalog
	ws     string
	author string
}

var _ Session = (*fakeSession)(nil)

func (s *fakeSession) Catalog() *catalogstore.Catalog { return s.cat }
func (s *fakeSession) CurrentWorkspace() string       { return s.ws }
func (s *fakeSession) Author() string                 { return s.author }
func (s *fakeSession) SetCurrentWorkspace(ctx context.Context, ws string) error {
	if _, err := s.cat.Workspace(ctx, ws); err != nil {
		return err
	}
	s.ws = ws
	return nil
}

func newTestSession(t *testing.T) (*sql.Context, *fakeSession) {
	sess := &fakeSession{BaseSession: sql.NewBaseSession(), cat: newTestCatalog(t), author: "alice"}
	ctx := sql.NewEmptyContext()
	ctx.Session = sess
	return ctx, sess
}

// run parses q with the wrapper and executes its node through RowIter.
func run(t *testing.T, ctx *sql.Context, q string) ([]sql.Row, sql.Schema, error) {
	t.Helper()
	st, err := NewParser(nil).ParseSimple(q)
	if err != nil {
		t.Fatalf("parse %q: %v", q, err)
	}
	inj, ok := st.(ast.InjectedStatement)
	if !ok {
		t.Fatalf("%q parsed to %T", q, st)
	}
	n := inj.Statement.(*Node)
	iter, err := n.RowIter(ctx, nil)
	if err != nil {
		return nil, n.Schema(), err
	}
	rows, err := sql.RowIterToRows(ctx, iter)
	return rows, n.Schema(), err
}

func mustRun(t *testing.T, ctx *sql.Context, q string) []sql.Row {
	t.Helper()
	rows, _, err := run(t, ctx, q)
	if err != nil {
		t.Fatalf("%q: %v", q, err)
	}
	return rows
}

func okRows(n uint64) []sql.Row { return []sql.Row{{types.OkResult{RowsAffected: n}}} }

func assertRows(t *testing.T, q string, got, want []sql.Row) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %v\nwant %v", q, got, want)
	}
}

// isErr reports whether err is the catalog's sentinel as the wire sees it:
// Node.RowIter gives lakesql errors their MySQL code (sqlerr.Wrap), keeping
// the message.
func isErr(err, sentinel error) bool {
	if errors.Is(err, sentinel) {
		return true
	}
	var se *mysql.SQLError
	code, ok := sqlerr.Lookup(sentinel)
	return ok && errors.As(err, &se) && se.Num == code.Num && strings.Contains(se.Message, sentinel.Error())
}

func lastWarning(ctx *sql.Context) *sql.Warning {
	if ws := ctx.Session.Warnings(); len(ws) > 0 {
		return ws[0]
	}
	return nil
}

func TestExec_Workspaces(t *testing.T) {
	ctx, sess := newTestSession(t)

	assertRows(t, "SHOW WORKSPACES", mustRun(t, ctx, "SHOW WORKSPACES"), nil)
	assertRows(t, "CREATE", mustRun(t, ctx, "CREATE WORKSPACE sales"), okRows(1))
	assertRows(t, "CREATE", mustRun(t, ctx, "create workspace `ops`"), okRows(1))

	// A second CREATE fails with the catalog's error; IF NOT EXISTS is a
	// note and changes nothing.
	_, _, err := run(t, ctx, "CREATE WORKSPACE sales")
	if !isErr(err, catalogstore.ErrWorkspaceExists) {
		t.Fatalf("create twice: %v", err)
	}
	assertRows(t, "IF NOT EXISTS", mustRun(t, ctx, "CREATE WORKSPACE IF NOT EXISTS sales"), okRows(0))
	if w := lastWarning(ctx); w == nil || w.Code != mysql.ERDbCreateExists || w.Level != "Note" {
		t.Fatalf("warning %+v", w)
	}

	// Bad names are the catalog's ErrBadIdentifier.
	if _, _, err := run(t, ctx, "CREATE WORKSPACE Upper"); !isErr(err, catalogstore.ErrBadIdentifier) {
		t.Fatalf("bad name: %v", err)
	}

	rows, schema, err := run(t, ctx, "SHOW WORKSPACES")
	if err != nil {
		t.Fatal(err)
	}
	created := testNow.Truncate(time.Microsecond)
	assertRows(t, "SHOW WORKSPACES", rows, []sql.Row{
		{"ops", "ON", "ON", created, "alice"},
		{"sales", "ON", "ON", created, "alice"},
	})
	var names []string
	for _, c := range schema {
		names = append(names, c.Name)
	}
	if want := []string{"Workspace", "egress_protection", "deletion_protection", "created_at", "author"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("schema %v", names)
	}

	// USE WORKSPACE switches the session; a missing workspace is the
	// catalog's ErrWorkspaceNotFound and leaves it where it was.
	assertRows(t, "USE", mustRun(t, ctx, "USE WORKSPACE sales"), okRows(0))
	if sess.ws != "sales" {
		t.Fatalf("current workspace %q", sess.ws)
	}
	if _, _, err := run(t, ctx, "USE WORKSPACE nowhere"); !isErr(err, catalogstore.ErrWorkspaceNotFound) {
		t.Fatalf("use missing: %v", err)
	}
	if sess.ws != "sales" {
		t.Fatalf("current workspace %q after a failed USE", sess.ws)
	}
}

func TestExec_GuardsAndDrop(t *testing.T) {
	ctx, sess := newTestSession(t)
	mustRun(t, ctx, "CREATE WORKSPACE sales")
	mustRun(t, ctx, "CREATE WORKSPACE ops")
	mustRun(t, ctx, "USE WORKSPACE ops")

	props := func(q string) []sql.Row { return mustRun(t, ctx, q) }
	assertRows(t, "props", props("SHOW WORKSPACE PROPERTIES FOR sales"), []sql.Row{
		{"egress_protection", "ON"}, {"deletion_protection", "ON"},
	})

	// Deletion protection makes DROP a two-step act.
	if _, _, err := run(t, ctx, "DROP WORKSPACE sales"); !isErr(err, catalogstore.ErrDeletionProtected) {
		t.Fatalf("drop protected: %v", err)
	}
	assertRows(t, "ALTER", mustRun(t, ctx, "ALTER WORKSPACE sales SET deletion_protection TO OFF"), okRows(1))
	assertRows(t, "ALTER", mustRun(t, ctx, "alter workspace sales set EGRESS_PROTECTION = false"), okRows(1))
	assertRows(t, "props", props("SHOW WORKSPACE PROPERTIES sales"), []sql.Row{
		{"egress_protection", "OFF"}, {"deletion_protection", "OFF"},
	})
	assertRows(t, "SHOW WORKSPACES", mustRun(t, ctx, "SHOW WORKSPACES"), []sql.Row{
		{"ops", "ON", "ON", testNow.Truncate(time.Microsecond), "alice"},
		{"sales", "OFF", "OFF", testNow.Truncate(time.Microsecond), "alice"},
	})
	// The current workspace's properties, with no name.
	assertRows(t, "props", props("SHOW WORKSPACE PROPERTIES"), []sql.Row{
		{"egress_protection", "ON"}, {"deletion_protection", "ON"},
	})
	if _, _, err := run(t, ctx, "ALTER WORKSPACE nowhere SET egress_protection TO OFF"); !isErr(err, catalogstore.ErrWorkspaceNotFound) {
		t.Fatalf("alter missing: %v", err)
	}
	if _, _, err := run(t, ctx, "ALTER WORKSPACE `a/b` SET egress_protection TO OFF"); !isErr(err, catalogstore.ErrBadIdentifier) {
		t.Fatalf("alter bad name: %v", err)
	}

	assertRows(t, "DROP", mustRun(t, ctx, "DROP WORKSPACE sales"), okRows(1))
	assertRows(t, "SHOW WORKSPACES", mustRun(t, ctx, "SHOW WORKSPACES"), []sql.Row{
		{"ops", "ON", "ON", testNow.Truncate(time.Microsecond), "alice"},
	})
	if _, _, err := run(t, ctx, "DROP WORKSPACE sales"); !isErr(err, catalogstore.ErrWorkspaceNotFound) {
		t.Fatalf("drop missing: %v", err)
	}
	assertRows(t, "IF EXISTS", mustRun(t, ctx, "DROP WORKSPACE IF EXISTS sales"), okRows(0))
	if w := lastWarning(ctx); w == nil || w.Code != mysql.ERDbDropExists {
		t.Fatalf("warning %+v", w)
	}
	if _, _, err := run(t, ctx, "SHOW WORKSPACE PROPERTIES FOR sales"); !isErr(err, catalogstore.ErrWorkspaceNotFound) {
		t.Fatalf("props of a dropped workspace: %v", err)
	}

	// The current workspace cannot be dropped, even unprotected.
	mustRun(t, ctx, "ALTER WORKSPACE ops SET deletion_protection TO OFF")
	_, _, err := run(t, ctx, "DROP WORKSPACE IF EXISTS ops")
	if !errors.Is(err, ErrDropCurrentWorkspace) || !strings.Contains(err.Error(), "switch to another workspace first") {
		t.Fatalf("drop current: %v", err)
	}
	if _, err := sess.cat.Workspace(ctx, "ops"); err != nil {
		t.Fatalf("ops is gone: %v", err)
	}
}

func TestExec_FailClosedGuards(t *testing.T) {
	ctx, sess := newTestSession(t)
	mustRun(t, ctx, "CREATE WORKSPACE w")
	// Anything but a real false reads as ON: here the string "OFF".
	err := sess.cat.Meta().RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		return tx.Merge("w/$properties", map[string]any{"properties": map[string]any{
			"egress_protection": "OFF", "deletion_protection": false,
		}})
	})
	if err != nil {
		t.Fatal(err)
	}
	assertRows(t, "props", mustRun(t, ctx, "SHOW WORKSPACE PROPERTIES FOR w"), []sql.Row{
		{"egress_protection", "ON"}, {"deletion_protection", "OFF"},
	})
}

func TestExec_NoWorkspaceOrSession(t *testing.T) {
	ctx, _ := newTestSession(t)
	if _, _, err := run(t, ctx, "SHOW WORKSPACE PROPERTIES"); !errors.Is(err, ErrNoWorkspace) {
		t.Fatalf("no workspace: %v", err)
	}
	plain := sql.NewEmptyContext() // a GMS session, not a lakesql one
	_, _, err := run(t, plain, "SHOW WORKSPACES")
	if !errors.Is(err, ErrNotLakesqlSession) || !strings.Contains(err.Error(), "*sql.BaseSession") {
		t.Fatalf("plain session: %v", err)
	}
}

func TestNode_Interface(t *testing.T) {
	for _, tt := range []struct {
		sql      string
		readOnly bool
		ok       bool
	}{
		{"CREATE WORKSPACE w", false, true},
		{"USE WORKSPACE w", true, true},
		{"SHOW WORKSPACES", true, false},
		{"DROP WORKSPACE w", false, true},
		{"ALTER WORKSPACE w SET egress_protection TO ON", false, true},
		{"SHOW WORKSPACE PROPERTIES", true, false},
	} {
		stmt, err := Parse(tt.sql, ast.ParserOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n, err := newNode(stmt)
		if err != nil {
			t.Fatal(err)
		}
		if n.IsReadOnly() != tt.readOnly || !n.Resolved() || n.Children() != nil || n.String() != stmt.String() {
			t.Errorf("%q: read-only %v resolved %v children %v string %q", tt.sql, n.IsReadOnly(), n.Resolved(), n.Children(), n.String())
		}
		if types.IsOkResultSchema(n.Schema()) != tt.ok {
			t.Errorf("%q: schema %v", tt.sql, n.Schema())
		}
		if same, err := n.WithChildren(); err != nil || same != n {
			t.Errorf("%q: WithChildren() = %v, %v", tt.sql, same, err)
		}
		if _, err := n.WithChildren(n); err == nil {
			t.Errorf("%q: WithChildren accepted a child", tt.sql)
		}
	}
}

func TestProperties_MatchCatalog(t *testing.T) {
	if propEgressProtection != catalogstore.PropEgressProtection || propDeletionProtection != catalogstore.PropDeletionProtection {
		t.Fatal("the grammar's property names differ from catalogstore's")
	}
}

// TestEngine_RunsStatements runs the statements through a GMS engine with
// the wrapper installed: planbuilder, analyzer and executor accept the
// nodes, and a multi-statement batch mixes lakehouse and MySQL statements.
func TestEngine_RunsStatements(t *testing.T) {
	ctx, sess := newTestSession(t)
	pro := memory.NewDBProvider()
	e := sqle.NewDefault(pro)
	e.Parser = NewParser(nil)

	query := func(q string) ([]sql.Row, error) {
		_, iter, _, err := e.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		return sql.RowIterToRows(ctx, iter)
	}
	for _, q := range []string{"CREATE WORKSPACE w", "USE WORKSPACE w", "ALTER WORKSPACE w SET egress_protection TO OFF"} {
		if _, err := query(q); err != nil {
			t.Fatalf("%q: %v", q, err)
		}
	}
	if sess.ws != "w" {
		t.Fatalf("workspace %q", sess.ws)
	}
	rows, err := query("SHOW WORKSPACE PROPERTIES")
	if err != nil {
		t.Fatal(err)
	}
	assertRows(t, "props", rows, []sql.Row{{"egress_protection", "OFF"}, {"deletion_protection", "ON"}})
	_, err = query("ALTER WORKSPACE w SET egress_protection TO maybe")
	if err == nil || !strings.Contains(err.Error(), "syntax error at position 49 near 'maybe': expected ON or OFF") {
		t.Fatalf("bad value: %v", err)
	}

	// A batch, parsed statement by statement as the wire handler does.
	var got []string
	for q := "CREATE WORKSPACE v; SELECT 41 + 1; SHOW WORKSPACES"; q != ""; {
		st, parsed, rem, err := e.Parser.Parse(ctx, q, true)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		_, iter, _, err := e.QueryWithBindings(ctx, parsed, st, nil, nil)
		if err != nil {
			t.Fatalf("%q: %v", parsed, err)
		}
		rows, err := sql.RowIterToRows(ctx, iter)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if len(r) > 0 {
				if s, ok := r[0].(string); ok {
					got = append(got, s)
				} else if n, ok := r[0].(int64); ok && n == 42 {
					got = append(got, "42")
				}
			}
		}
		q = rem
	}
	if want := []string{"42", "v", "w"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("batch results %q, want %q", got, want)
	}
}
