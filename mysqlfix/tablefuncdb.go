package mysqlfix

import (
	"context"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// GMS v0.20.0's binder resolves the current database for every table
// function (planbuilder buildTableFunc → currentDb), so with no database
// selected `SELECT * FROM read_parquet('…')` fails 1046, though the
// function names its files and reads no database. When a statement's
// tables are all lakesql file functions (read_parquet, read_csv) or
// qualified names, and no database is selected, the parser asks the
// session to answer the binder with a stand-in database for that
// statement's planning (FileFunctionScope); the engine ends it before
// the plan runs. A statement with an unqualified table still gets 1046.

// fileFunctions are the table functions that read files, not a database.
var fileFunctions = map[string]bool{"read_parquet": true, "read_csv": true}

// FileFunctionScope is what a session implements to lend the binder a
// database while a statement of file functions is planned.
type FileFunctionScope interface {
	ScopeFileFunctions(on bool)
}

// scopeFileFunctions sets the session's stand-in for st (and clears it
// for any other statement).
func scopeFileFunctions(ctx context.Context, st ast.Statement) {
	sctx, ok := ctx.(*sql.Context)
	if !ok || sctx.Session == nil {
		return
	}
	s, ok := sctx.Session.(FileFunctionScope)
	if !ok {
		return
	}
	s.ScopeFileFunctions(false)
	if st == nil || sctx.GetCurrentDatabase() != "" {
		return
	}
	s.ScopeFileFunctions(onlyFileFunctions(st))
}

// onlyFileFunctions reports whether st reads a file function and names
// no table without its database.
func onlyFileFunctions(st ast.Statement) bool {
	// The written table of CREATE TABLE … AS SELECT and INSERT … SELECT
	// must be qualified too; the walk does not reach a CTAS's SELECT.
	var written *ast.TableName
	switch x := st.(type) {
	case *ast.DDL:
		if x.OptSelect == nil {
			return false
		}
		written, st = &x.Table, x.OptSelect.Select
	case *ast.Insert:
		written = &x.Table
	}
	if written != nil && written.DbQualifier.IsEmpty() {
		return false
	}
	files, bare := false, false
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *ast.TableFuncExpr:
			if fileFunctions[strings.ToLower(x.Name)] {
				files = true
			} else {
				bare = true // another table function may need the database
			}
		case *ast.AliasedTableExpr:
			if tn, ok := x.Expr.(ast.TableName); ok && tn.DbQualifier.IsEmpty() {
				bare = true
			}
		}
		return !bare, nil
	}, st)
	return files && !bare
}
