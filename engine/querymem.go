package engine

import (
	"context"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/budget"
	"github.com/lakesql/lakesql/engine/rewrite"
)

// SysVarQueryMemory is the per-query memory budget in bytes, settable per
// session and globally (SET [GLOBAL] lakesql_query_memory = 1073741824);
// 0 is unlimited. Its default is Config.QueryMemory, else a quarter of
// the machine's memory. The hash tables, aggregation tables, sorts and
// materialised results of a query are charged to it; past it a sort
// spills to disk and anything else fails with 1038.
const SysVarQueryMemory = budget.SysVar

// newQueryContext is the context factory of every statement, wire and
// embedded: the statement's context carries a fresh budget.Account
// sized by the session's lakesql_query_memory, so what one statement
// charges ends with it.
func newQueryContext(ctx context.Context, opts ...sql.ContextOption) *sql.Context {
	return withBudget(sql.NewContext(ctx, opts...))
}

// withBudget attaches a fresh query budget to sctx.
func withBudget(sctx *sql.Context) *sql.Context {
	return sctx.WithContext(budget.With(sctx.Context, budget.New(queryMemory(sctx))))
}

// queryMemory reads the session's budget; without a session (or a value)
// the global one.
func queryMemory(ctx *sql.Context) int64 {
	var v any
	if ctx.Session != nil {
		v, _ = ctx.GetSessionVariable(ctx, SysVarQueryMemory)
	}
	if v == nil {
		_, v, _ = sql.SystemVariables.GetGlobal(SysVarQueryMemory)
	}
	if n, ok := rewrite.SysVarInt(v); ok {
		return n
	}
	return budget.DefaultLimit()
}
