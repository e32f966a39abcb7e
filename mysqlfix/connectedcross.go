package mysqlfix

import (
	"slices"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// GMS v0.20.0 turns FROM a, b, c … WHERE into joins by giving each WHERE
// conjunct to the lowest cross join that holds its tables. When the FROM
// order is not connected (FROM t1, t2, t3 WHERE t3.x = t1.a AND t2.y =
// t3.b: nothing joins t1 to t2 alone), cross joins stay under the inner
// joins, and GMS's join planner (memo dbSube) can then drop a join
// condition: a chain of ten tables so listed lost one equality and
// returned rows it excludes (GMS's enginetest "many joins with chain of
// ANDs"). The fix lists the tables of such a FROM in a connected order
// before GMS plans the joins: each next table is the first one a WHERE
// conjunct joins to the tables before it. Every cross join then gets a
// condition and becomes an inner join. The WHERE stays as it is, and the
// result is the same set of rows (an inner join's tables commute).
// Multi-table UPDATE and DELETE are left alone: they split a joined row
// into its tables by the join's column order.

// connectCrossJoins reorders the tables of every Filter over a tree of
// plain cross joins of tables into a connected order.
func connectCrossJoins(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if writesRows(n) {
		return n, transform.SameTree, nil
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		f, ok := n.(*plan.Filter)
		if !ok {
			return n, transform.SameTree, nil
		}
		j, ok := f.Child.(*plan.JoinNode)
		if !ok || j.Op != plan.JoinTypeCross {
			return n, transform.SameTree, nil
		}
		leaves, ok := crossLeaves(j, nil)
		if !ok {
			return n, transform.SameTree, nil
		}
		order := connectedOrder(leaves, conjunctTables(f.Expression, leaves))
		if slices.IsSorted(order) {
			return n, transform.SameTree, nil
		}
		var joined sql.Node = leaves[order[0]]
		for _, i := range order[1:] {
			joined = plan.NewCrossJoin(joined, leaves[i])
		}
		if c := j.Comment(); c != "" {
			joined = joined.(*plan.JoinNode).WithComment(c)
		}
		return plan.NewFilter(f.Expression, joined), transform.NewTree, nil
	})
}

// crossLeaves flattens a tree of plain cross joins into its tables, in
// FROM order; ok is false when a leaf is not a table (a derived table,
// a table function or a lateral join may read the tables before it).
func crossLeaves(n sql.Node, into []plan.TableIdNode) ([]plan.TableIdNode, bool) {
	switch n := n.(type) {
	case *plan.JoinNode:
		if n.Op != plan.JoinTypeCross {
			return nil, false
		}
		into, ok := crossLeaves(n.Left(), into)
		if !ok {
			return nil, false
		}
		return crossLeaves(n.Right(), into)
	case *plan.ResolvedTable:
		return append(into, n), true
	case *plan.TableAlias:
		if _, ok := n.Child.(*plan.ResolvedTable); ok {
			return append(into, n), true
		}
	}
	return nil, false
}

// conjunctTables lists, for each WHERE conjunct, the leaves it reads.
func conjunctTables(where sql.Expression, leaves []plan.TableIdNode) [][]int {
	byID := map[sql.TableId]int{}
	for i, l := range leaves {
		byID[l.Id()] = i
	}
	var out [][]int
	for _, c := range expression.SplitConjunction(where) {
		var reads []int
		transform.InspectExpr(c, func(e sql.Expression) bool {
			if gf, ok := e.(*expression.GetField); ok {
				if i, ok := byID[gf.TableId()]; ok && !slices.Contains(reads, i) {
					reads = append(reads, i)
				}
			}
			return false
		})
		if len(reads) > 1 {
			out = append(out, reads)
		}
	}
	return out
}

// connectedOrder starts from the first table and adds, each time, the
// first table in FROM order that some conjunct joins to the tables
// already placed (a conjunct whose other tables are all placed); when
// none is, the first table left (a real cross join). Run on its own
// result it returns the same order.
func connectedOrder(leaves []plan.TableIdNode, conjuncts [][]int) []int {
	placed := make([]bool, len(leaves))
	order := []int{0}
	placed[0] = true
	for len(order) < len(leaves) {
		next := -1
		for i := range leaves {
			if !placed[i] && joinsPlaced(i, placed, conjuncts) {
				next = i
				break
			}
		}
		if next < 0 {
			next = slices.Index(placed, false)
		}
		placed[next] = true
		order = append(order, next)
	}
	return order
}

func joinsPlaced(i int, placed []bool, conjuncts [][]int) bool {
	for _, c := range conjuncts {
		if !slices.Contains(c, i) {
			continue
		}
		all := true
		for _, t := range c {
			all = all && (t == i || placed[t])
		}
		if all {
			return true
		}
	}
	return false
}

// writesRows reports whether n updates or deletes rows.
func writesRows(n sql.Node) bool {
	found := false
	transform.Inspect(n, func(n sql.Node) bool {
		switch n.(type) {
		case *plan.Update, *plan.UpdateJoin, *plan.DeleteFrom:
			found = true
		}
		return !found
	})
	return found
}
