package engine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// One naming rule for privileges: a bare collection name means the
// current workspace's collection, `ws.coll` names any workspace's. Grants
// are stored under the canonical `ws.coll` (canonicalGrants rewrites GRANT
// and REVOKE), the checks GMS makes on the statement's names are made on
// the canonical name too (authFactory), and table access is checked on
// the database's AliasedName, which is `ws.coll` — so GRANT SELECT ON d.*
// covers SELECT, INSERT … and CALL on d's tables alike, whatever the
// statement's kind.

// ruleCanonicalGrants is the id of the grant-naming rule.
const ruleCanonicalGrants analyzer.RuleId = 10101

// canonicalName returns the canonical database name of name for the
// session: ws.name for a bare collection name of the current workspace.
// System databases, names already qualified and the global level (""
// or "*") are unchanged.
func canonicalName(ctx *sql.Context, name string) string {
	if name == "" || name == "*" || strings.Contains(name, ".") || strings.Contains(name, "/") {
		return name
	}
	switch strings.ToLower(name) {
	case "mysql", "information_schema", "performance_schema", "sys":
		return name
	}
	sess, ok := ctx.Session.(*Session)
	if !ok {
		return name
	}
	ws := sess.CurrentWorkspace()
	if ws == "" {
		return name
	}
	return ws + "." + name
}

// canonicalGrants is the analyzer rule that stores grants under the
// canonical database name.
func canonicalGrants(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	switch g := n.(type) {
	case *plan.Grant:
		db := g.PrivilegeLevel.Database
		if db == "" && g.PrivilegeLevel.TableRoutine != "*" {
			db = ctx.GetCurrentDatabase() // GRANT … ON t: the current database's t
		}
		if c := canonicalName(ctx, db); c != g.PrivilegeLevel.Database {
			ng := *g
			ng.PrivilegeLevel.Database = c
			return &ng, transform.NewTree, nil
		}
	case *plan.Revoke:
		db := g.PrivilegeLevel.Database
		if db == "" && g.PrivilegeLevel.TableRoutine != "*" {
			db = ctx.GetCurrentDatabase()
		}
		if c := canonicalName(ctx, db); c != g.PrivilegeLevel.Database {
			ng := *g
			ng.PrivilegeLevel.Database = c
			return &ng, transform.NewTree, nil
		}
	}
	return n, transform.SameTree, nil
}

// authFactory wraps GMS's authorization so every check is made on
// canonical database names.
type authFactory struct {
	inner sql.AuthorizationHandlerFactory
}

func (f authFactory) CreateHandler(cat sql.Catalog) sql.AuthorizationHandler {
	return authHandler{inner: f.inner.CreateHandler(cat)}
}

// installAuth wraps the process's authorization factory once (GMS keeps
// it in a package variable and reads it when an analyzer is built).
func installAuth() {
	if _, ok := sql.GetAuthorizationHandlerFactory().(authFactory); !ok {
		sql.SetAuthorizationHandlerFactory(authFactory{inner: sql.GetAuthorizationHandlerFactory()})
	}
}

type authHandler struct{ inner sql.AuthorizationHandler }

func (h authHandler) NewQueryState(ctx *sql.Context) sql.AuthorizationQueryState {
	return h.inner.NewQueryState(ctx)
}

func (h authHandler) HandleAuth(ctx *sql.Context, state sql.AuthorizationQueryState, auth ast.AuthInformation) error {
	names := append([]string(nil), auth.TargetNames...)
	canon := func(i int) {
		if i < len(names) {
			db := names[i]
			if db == "" {
				db = ctx.GetCurrentDatabase()
			}
			names[i] = canonicalName(ctx, db)
		}
	}
	switch auth.TargetType {
	case ast.AuthTargetType_DatabaseIdentifiers:
		for i := range names {
			canon(i)
		}
	case ast.AuthTargetType_MultipleTableIdentifiers:
		for i := 0; i < len(names); i += 2 {
			canon(i)
		}
	case ast.AuthTargetType_SingleTableIdentifier, ast.AuthTargetType_TableColumn:
		canon(0)
	default:
		if auth.AuthType == ast.AuthType_CALL {
			canon(0) // database, procedure, argument count
		}
	}
	auth.TargetNames = names
	return h.inner.HandleAuth(ctx, state, auth)
}

func (h authHandler) HandleAuthNode(ctx *sql.Context, state sql.AuthorizationQueryState, node sql.AuthorizationCheckerNode) error {
	return h.inner.HandleAuthNode(ctx, state, node)
}

func (h authHandler) CheckDatabase(ctx *sql.Context, state sql.AuthorizationQueryState, dbName string) error {
	return h.inner.CheckDatabase(ctx, state, canonicalName(ctx, orCurrent(ctx, dbName)))
}

func (h authHandler) CheckSchema(ctx *sql.Context, state sql.AuthorizationQueryState, dbName, schemaName string) error {
	return h.inner.CheckSchema(ctx, state, canonicalName(ctx, orCurrent(ctx, dbName)), schemaName)
}

func (h authHandler) CheckTable(ctx *sql.Context, state sql.AuthorizationQueryState, dbName, schemaName, tableName string) error {
	return h.inner.CheckTable(ctx, state, canonicalName(ctx, orCurrent(ctx, dbName)), schemaName, tableName)
}

func orCurrent(ctx *sql.Context, db string) string {
	if db == "" {
		return ctx.GetCurrentDatabase()
	}
	return db
}
