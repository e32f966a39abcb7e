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
// the machine's memory. The hash tables, aggregation tables, sorts,
// DISTINCTs, set operations, windows, recursive CTEs and materialised
// results of a query are charged to it; past it a sort, a row-path hash
// join and a DISTINCT spill to disk and anything else fails with 1038.
const SysVarQueryMemory = budget.SysVar

// SysVarServerMemory is the server's memory cap in bytes, global only
// (SET GLOBAL lakesql_server_memory = …); 0 is unlimited. Every query's
// budget draws from it, so concurrent queries together hold at most this
// much whatever their own budgets; a query that finds none left waits
// briefly for others to finish, then spills or fails with 1038 naming
// it. Its default is Config.ServerMemory, else half the machine's memory.
const SysVarServerMemory = budget.ServerSysVar

// newQueryContext is the context factory of every statement, wire and
// embedded: the statement's context carries a fresh budget.Account
// sized by the session's lakesql_query_memory and drawing from the
// engine's pool, so what one statement charges ends with it (endQuery,
// or the builder's EndWith on the wire).
func (e *Engine) newQueryContext(ctx context.Context, opts ...sql.ContextOption) *sql.Context {
	sctx := sql.NewContext(ctx, opts...)
	e.pool.SetLimit(serverMemory())
	return sctx.WithContext(budget.With(sctx.Context, e.pool.NewAccount(queryMemory(sctx))))
}

// endQuery gives back to the server's pool what the statement's operators
// still hold.
func endQuery(sctx *sql.Context) { budget.From(sctx).Close() }

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

// serverMemory reads the global cap.
func serverMemory() int64 {
	_, v, _ := sql.SystemVariables.GetGlobal(SysVarServerMemory)
	if n, ok := rewrite.SysVarInt(v); ok {
		return n
	}
	return budget.DefaultServerLimit()
}

// serverMemoryDefault is Config.ServerMemory, else half of the machine's
// memory.
func serverMemoryDefault(cfg Config) int64 {
	if cfg.ServerMemory > 0 {
		return cfg.ServerMemory
	}
	return budget.DefaultServerLimit()
}

// MemoryInUse is what the running statements hold of the server's cap
// (lakesql_server_memory), in bytes.
func (e *Engine) MemoryInUse() int64 { return e.pool.Used() }
