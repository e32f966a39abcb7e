package bounded

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
)

// NewBuilder returns GMS's row builder with the bounded operators in
// place of GMS's own; sorts past the budget spill into spillDir (empty:
// the OS's temporary folder).
func NewBuilder(spillDir string) sql.NodeExecBuilder {
	o := &override{spillDir: spillDir}
	o.base = rowexec.NewOverrideBuilder(o)
	return o.base
}

// NewOverride returns the bounded operators as an override for a builder
// of the caller's (EXPLAIN ANALYZE's measuring one): it builds the nodes
// it bounds, their children through base, and answers nil for the rest.
func NewOverride(base sql.NodeExecBuilder, spillDir string) sql.NodeExecBuilder {
	return &override{base: base, spillDir: spillDir}
}

// override is the rowexec override: it builds the operators it bounds
// (their children through base, so they are bounded too) and answers nil
// for every other node, which GMS then builds itself.
type override struct {
	base     sql.NodeExecBuilder
	spillDir string
}

// checkEvery is how many rows a build loop reads between looks at the
// query's context (KILL QUERY, a client gone).
const checkEvery = 1024

func (o *override) Build(ctx *sql.Context, n sql.Node, row sql.Row) (sql.RowIter, error) {
	// The query's first build is of its whole plan: find the derived
	// tables evaluated once (shared.go).
	shares := o.queryShares(ctx, n)
	switch n := n.(type) {
	case *plan.SubqueryAlias:
		if shares != nil {
			return o.buildShared(ctx, shares, n)
		}
	case *plan.Filter:
		return o.buildFilter(ctx, "plan.Filter", n.Expression, n.Child, row)
	case *plan.Having:
		return o.buildFilter(ctx, "plan.Having", n.Cond, n.Child, row)
	case *plan.Sort:
		return o.buildSort(ctx, n, row)
	case *plan.JoinNode:
		return o.buildHashJoin(ctx, n, row)
	case *plan.HashLookup:
		return o.buildHashLookup(ctx, n, row)
	case *plan.GroupBy:
		return o.buildGroupBy(ctx, n, row)
	case *plan.CachedResults:
		return o.buildCachedResults(ctx, n, row)
	case *plan.Distinct:
		return o.buildDistinct(ctx, n, row)
	case *plan.SetOp:
		return o.buildSetOp(ctx, n, row)
	case *plan.RecursiveCte:
		return o.buildRecursiveCte(ctx, n, row)
	case *plan.Window:
		return o.buildWindow(ctx, n, row)
	case *windowInput:
		return o.buildWindowInput(ctx, n, row)
	}
	return nil, nil
}
