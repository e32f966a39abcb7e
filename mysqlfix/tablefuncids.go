package mysqlfix

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// GMS's planbuilder gives a table function's columns ids only on the
// TableAlias it wraps the function's node in (buildTableFunc). lakesql's
// file functions return a ResolvedTable (read_parquet) or their own node
// (read_csv), which keep no ids, and
// assignExecIndexes takes a TableAlias's ids from its child unless the
// child is a sql.TableFunction: a join with the file function on the left
// contributed no ids for its columns, so the right side's columns matched
// by id at offset 0 and read the function's columns (wrong rows). The
// rule gives such a node its alias's table id and column ids, as the
// planbuilder does for a stored table under an alias.

// tableFuncIds is the pre-analyze rule.
func tableFuncIds(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return withTableFuncIds(n)
}

// withTableFuncIds fixes n, its opaque nodes and its subqueries.
func withTableFuncIds(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	out, same, err := transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		ta, ok := n.(*plan.TableAlias)
		if !ok {
			return n, transform.SameTree, nil
		}
		rt, ok := ta.Child.(plan.TableIdNode)
		if !ok || rt.Columns().Len() > 0 || ta.Columns().Len() != len(rt.Schema()) {
			return n, transform.SameTree, nil
		}
		child := rt.WithId(ta.Id()).WithColumns(ta.Columns())
		out, err := ta.WithChildren(child)
		return out, transform.NewTree, err
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	out, sameSub, err := transform.NodeExprsWithOpaque(out, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		sq, ok := e.(*plan.Subquery)
		if !ok {
			return e, transform.SameTree, nil
		}
		q, qSame, err := withTableFuncIds(sq.Query)
		if err != nil || qSame {
			return e, transform.SameTree, err
		}
		return sq.WithQuery(q), transform.NewTree, nil
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	return out, same && sameSub, nil
}
