package rewrite

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// pushSemiJoins moves a semi or anti join whose condition reads only one
// input of the join below it down to that input. GMS keeps an unnested
// IN / EXISTS where the query wrote it when its reorderer refuses the
// tree (TPC-H Q18: o_orderkey IN (SELECT … GROUP BY … HAVING …) is
// applied to the whole customer ⋈ orders ⋈ lineitem join, 600k rows at
// SF 0.1, instead of to orders).
//
// A semi (anti) join keeps or drops each left row by that row's own
// columns, so when those columns all come from one input B of an inner
// join A ⋈ B (or from the preserved side of a left join, or the left of a
// semi or anti join), filtering B first keeps and drops the same rows and
// their multiplicities: SEMI(A ⋈ B, S) = A ⋈ SEMI(B, S). The join moves
// as deep as one input covers its columns, through hash lookups.
func pushSemiJoins(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if (scope != nil && !scope.IsEmpty()) || !joinRewritesOn(ctx) {
		return n, transform.SameTree, nil
	}
	return gmsNodes(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		j, ok := n.(*plan.JoinNode)
		if !ok || j.ScopeLen != 0 || j.Filter == nil || !(j.Op.IsSemi() || j.Op.IsAnti()) {
			return n, transform.SameTree, nil
		}
		tables, ok := leftTablesRead(j)
		if !ok {
			return n, transform.SameTree, nil
		}
		nl, pushed, err := pushInto(j.Left(), tables, func(b sql.Node) (sql.Node, error) {
			return j.WithChildren(b, j.Right())
		})
		if err != nil || !pushed {
			return n, transform.SameTree, err
		}
		return nl, transform.NewTree, nil
	})
}

// leftTablesRead is the tables of j's left input its condition reads;
// false when it reads none or a column without its table.
func leftTablesRead(j *plan.JoinNode) (map[string]bool, bool) {
	right := sideNames(j.Right())
	out := map[string]bool{}
	ok := true
	transform.InspectExpr(j.Filter, func(e sql.Expression) bool {
		switch x := e.(type) {
		case *expression.GetField:
			t := strings.ToLower(x.Table())
			if t == "" {
				ok = false
			} else if !right[t] {
				out[t] = true
			}
		case *plan.Subquery:
			ok = false
		}
		return !ok
	})
	return out, ok && len(out) > 0
}

// covers reports whether n outputs every table of tables.
func covers(n sql.Node, tables map[string]bool) bool {
	have := sideNames(n)
	for t := range tables {
		if !have[t] {
			return false
		}
	}
	return true
}

// pushInto places the semi join wrap builds at the deepest input of n
// that covers tables; pushed is false when that is n itself.
func pushInto(n sql.Node, tables map[string]bool, wrap func(sql.Node) (sql.Node, error)) (sql.Node, bool, error) {
	var child sql.Node
	idx := -1
	switch x := n.(type) {
	case *plan.JoinNode:
		if x.ScopeLen != 0 {
			return n, false, nil
		}
		switch {
		case covers(x.Left(), tables) && filtersLeftRows(x.Op):
			child, idx = x.Left(), 0
		case covers(x.Right(), tables) && innerOp(x.Op):
			child, idx = x.Right(), 1
		}
	case *plan.HashLookup, *keyedLookup:
		child, idx = n.Children()[0], 0
	}
	if child == nil {
		return n, false, nil
	}
	nc, pushed, err := pushInto(child, tables, wrap)
	if err != nil {
		return n, false, err
	}
	if !pushed {
		if nc, err = wrap(child); err != nil {
			return n, false, err
		}
	}
	children := append([]sql.Node(nil), n.Children()...)
	children[idx] = nc
	out, err := n.WithChildren(children...)
	return out, err == nil, err
}

// innerOp reports whether op is an inner or cross join (nested loop or
// hash): filtering either input filters the result.
func innerOp(op plan.JoinType) bool {
	switch op {
	case plan.JoinTypeInner, plan.JoinTypeCross, plan.JoinTypeHash, plan.JoinTypeCrossHash:
		return true
	}
	return false
}

// filtersLeftRows reports whether op's result rows are each made from
// one left row and depend on its columns only through the join: dropping
// a left row drops exactly its result rows (inner, left outer, semi, anti
// and lookup joins; not merge or range joins, whose inputs are ordered,
// nor lateral ones).
func filtersLeftRows(op plan.JoinType) bool {
	switch op {
	case plan.JoinTypeLeftOuter, plan.JoinTypeLeftOuterHash, plan.JoinTypeLeftOuterExcludeNulls,
		plan.JoinTypeLeftOuterHashExcludeNulls, plan.JoinTypeLeftOuterLookup, plan.JoinTypeLookup,
		plan.JoinTypeSemi, plan.JoinTypeSemiHash, plan.JoinTypeAnti, plan.JoinTypeAntiHash:
		return true
	}
	return innerOp(op)
}
