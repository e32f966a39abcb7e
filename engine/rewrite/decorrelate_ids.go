package rewrite

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// The planbuilder names every column and table of a statement with ids
// (sql.ColumnId, sql.TableId) that GMS's join planner and its exec-index
// assignment resolve by; these helpers read them from a tree, including
// the trees of subquery expressions.

// walkTree calls node on every node of n and expr on every expression,
// descending into subquery expressions' queries.
func walkTree(n sql.Node, node func(sql.Node), expr func(sql.Expression)) {
	transform.Inspect(n, func(n sql.Node) bool {
		node(n)
		if ex, ok := n.(sql.Expressioner); ok {
			for _, e := range ex.Expressions() {
				walkExpr(e, node, expr)
			}
		}
		return true
	})
}

// walkExpr is walkTree for an expression.
func walkExpr(e sql.Expression, node func(sql.Node), expr func(sql.Expression)) {
	transform.InspectExpr(e, func(e sql.Expression) bool {
		expr(e)
		if en, ok := e.(sql.ExpressionWithNodes); ok {
			for _, c := range en.NodeChildren() {
				walkTree(c, node, expr)
			}
		}
		return false
	})
}

// idAllocator hands out column and table ids above every id of the
// statement it was made from.
type idAllocator struct {
	col   sql.ColumnId
	table sql.TableId
}

func newIDAllocator(n sql.Node) *idAllocator {
	a := &idAllocator{}
	seeCol := func(id sql.ColumnId) { a.col = max(a.col, id) }
	seeTable := func(id sql.TableId) { a.table = max(a.table, id) }
	walkTree(n, func(n sql.Node) {
		if t, ok := n.(plan.TableIdNode); ok {
			seeTable(t.Id())
			cols := t.Columns()
			for id, ok := cols.Next(1); ok; id, ok = cols.Next(id + 1) {
				seeCol(id)
			}
		}
	}, func(e sql.Expression) {
		if gf, ok := e.(*expression.GetField); ok {
			seeTable(gf.TableId())
		}
		if ie, ok := e.(sql.IdExpression); ok {
			seeCol(ie.Id())
		}
	})
	return a
}

func (a *idAllocator) column() sql.ColumnId {
	a.col++
	return a.col
}

func (a *idAllocator) tableID() sql.TableId {
	a.table++
	return a.table
}

// definedColumns are the ids n's tables (and aggregates, aliases) define,
// in n and the subqueries under it: a superset of what n's rows carry.
func definedColumns(n sql.Node) sql.ColSet {
	var set sql.ColSet
	walkTree(n, func(n sql.Node) {
		if t, ok := n.(plan.TableIdNode); ok {
			set = set.Union(t.Columns())
		}
	}, func(e sql.Expression) {
		if ie, ok := e.(sql.IdExpression); ok {
			if _, gf := e.(*expression.GetField); !gf && ie.Id() != 0 {
				set.Add(ie.Id())
			}
		}
	})
	return set
}

// referencedColumns are the column ids n's expressions read, in n and
// the subqueries under it.
func referencedColumns(n sql.Node) sql.ColSet {
	var set sql.ColSet
	walkTree(n, func(sql.Node) {}, func(e sql.Expression) {
		if gf, ok := e.(*expression.GetField); ok {
			set.Add(gf.Id())
		}
	})
	return set
}

// exprRefers reports whether e reads a column of set.
func exprRefers(e sql.Expression, set sql.ColSet) bool {
	found := false
	walkExpr(e, func(sql.Node) {}, func(e sql.Expression) {
		if gf, ok := e.(*expression.GetField); ok && set.Contains(gf.Id()) {
			found = true
		}
	})
	return found
}

// nodeRefers reports whether n reads a column of set.
func nodeRefers(n sql.Node, set sql.ColSet) bool {
	return referencedColumns(n).Intersects(set)
}

// outputColumns are GetFields (with ids) of n's schema, in order, for a
// tree of tables, aliases, joins and filters; ok is false for any other
// node, whose columns' ids are not in its schema.
func outputColumns(n sql.Node) ([]sql.Expression, bool) {
	switch n := n.(type) {
	case *plan.Filter:
		return outputColumns(n.Child)
	case *plan.JoinNode:
		l, ok := outputColumns(n.Left())
		if !ok {
			return nil, false
		}
		r, ok := outputColumns(n.Right())
		out := append(l, r...)
		return out, ok && len(out) == len(n.Schema()) // not a semi or anti join
	case plan.TableIdNode:
		sch := n.Schema()
		cols := n.Columns()
		if cols.Len() != len(sch) {
			return nil, false
		}
		out := make([]sql.Expression, 0, len(sch))
		id, _ := cols.Next(1)
		for _, c := range sch {
			out = append(out, expression.NewGetFieldWithTable(int(id), int(n.Id()), c.Type, c.DatabaseSource, c.Source, c.Name, c.Nullable))
			id, _ = cols.Next(id + 1)
		}
		return out, true
	}
	return nil, false
}
