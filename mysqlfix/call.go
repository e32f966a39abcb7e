package mysqlfix

import (
	"context"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// GMS v0.20.0's binder dereferences a nil database for a CALL of a
// procedure that is neither an external (engine) procedure nor qualified
// by a database while no database is selected (planbuilder.buildCall): the
// process dies on a typo. MySQL answers 1046 "No database selected" there
// (and 1305 "PROCEDURE ... does not exist" with a database, which sqlerr
// maps). Every other statement kind's binder checks for the missing
// database (FuzzStatementKinds in engine probes them), so the guard is
// on CALL alone, before the binder sees it. The same parser lends the
// binder a database for statements of file functions (tablefuncdb.go).

// Procedures finds engine procedures; *analyzer.Catalog is one.
type Procedures interface {
	ExternalStoredProcedure(ctx *sql.Context, name string, numOfParams int) (*sql.ExternalStoredProcedureDetails, error)
}

// CallGuard is the engine's parser with the CALL guard.
type CallGuard struct {
	sql.Parser
	procs Procedures
}

// NewCallGuard wraps inner.
func NewCallGuard(inner sql.Parser, procs Procedures) *CallGuard {
	return &CallGuard{Parser: inner, procs: procs}
}

var _ sql.Parser = (*CallGuard)(nil)

// noStatementOnError is st, or nil when parsing failed with err: GMS's
// multi-statement handler drops Parse's error and runs the statement it
// got (a GROUPING() refused by the rewrite then ran un-rewritten and
// failed "function: 'grouping' not found"); with no statement it parses
// the query again and reports the error. CallGuard is the outermost
// parser, so this holds for every parser it wraps.
func noStatementOnError(st ast.Statement, err error) ast.Statement {
	if err != nil {
		return nil
	}
	return st
}

// ErrNoDatabase is MySQL's ER_NO_DB_ERROR.
func errNoDatabase() error {
	return mysql.NewSQLError(mysql.ERNoDb, "3D000", "No database selected")
}

func (p *CallGuard) Parse(ctx *sql.Context, query string, multi bool) (ast.Statement, string, string, error) {
	st, parsed, rest, err := p.Parser.Parse(ctx, query, multi)
	scopeFileFunctions(ctx, st)
	if err == nil {
		err = p.checkCall(ctx, st)
	}
	return noStatementOnError(st, err), parsed, rest, err
}

func (p *CallGuard) ParseWithOptions(ctx context.Context, query string, delimiter rune, multi bool, options ast.ParserOptions) (ast.Statement, string, string, error) {
	st, parsed, rest, err := p.Parser.ParseWithOptions(ctx, query, delimiter, multi, options)
	scopeFileFunctions(ctx, st)
	if err == nil {
		err = p.checkCall(ctx, st)
	}
	return noStatementOnError(st, err), parsed, rest, err
}

func (p *CallGuard) ParseOneWithOptions(ctx context.Context, query string, options ast.ParserOptions) (ast.Statement, int, error) {
	st, end, err := p.Parser.ParseOneWithOptions(ctx, query, options)
	scopeFileFunctions(ctx, st)
	if err == nil {
		err = p.checkCall(ctx, st)
	}
	return noStatementOnError(st, err), end, err
}

// checkCall refuses a CALL the binder would crash on. Parsing without a
// session (ParseSimple, re-parsing stored definitions) is not checked.
func (p *CallGuard) checkCall(ctx context.Context, st ast.Statement) error {
	c, ok := st.(*ast.Call)
	if !ok || !c.ProcName.Qualifier.IsEmpty() {
		return nil
	}
	sctx, ok := ctx.(*sql.Context)
	if !ok || sctx.Session == nil || sctx.GetCurrentDatabase() != "" {
		return nil
	}
	esp, err := p.procs.ExternalStoredProcedure(sctx, c.ProcName.Name.String(), len(c.Params))
	if err != nil || esp != nil {
		return nil // GMS runs it or reports the error itself
	}
	return errNoDatabase()
}
