package mysqlfix

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// exprsWithSubqueries applies f to every expression of n, bottom up, and
// to those of the subqueries below it: transform.NodeExprs walks each
// node's expression trees but stops at a subquery's plan, so the walk
// descends into it here. f is never called with a *plan.Subquery.
func exprsWithSubqueries(n sql.Node, f transform.ExprFunc) (sql.Node, transform.TreeIdentity, error) {
	var walk transform.ExprFunc
	walk = func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		sq, ok := e.(*plan.Subquery)
		if !ok {
			return f(e)
		}
		q, same, err := exprsWithSubqueries(sq.Query, f)
		if err != nil || same == transform.SameTree {
			return e, transform.SameTree, err
		}
		return sq.WithQuery(q), transform.NewTree, nil
	}
	return transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		return transform.NodeExprs(n, walk)
	})
}
