package rewrite

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// joinTree is a tree of inner joins seen as its inputs (leaves) and the
// conjuncts of every join condition and Filter between its root and the
// leaves.
type joinTree struct {
	leaves []joinLeaf
	conds  []sql.Expression
}

// joinLeaf is one input of a join tree.
type joinLeaf struct {
	joinSide
	// path is the child indexes from the replaced GroupBy to the leaf
	// (below any HashLookup): GMS rewrites the plan (exec indexes) after
	// the rule, so the node that runs is found again from the root.
	path []int
}

// flattenJoins collects the inner-join tree n, reached from the GroupBy
// by path, or reports false when n is not one or a leaf is not a single
// table (a leaf that is itself a join, a subquery or an outer join
// stays on the row path with its whole tree).
func flattenJoins(ctx *sql.Context, n sql.Node, path []int, t *joinTree) bool {
	switch x := n.(type) {
	case *plan.JoinNode:
		if x.ScopeLen != 0 || !(innerJoin(x.Op) && x.Filter != nil || x.Op == plan.JoinTypeCross) {
			return false
		}
		if x.Filter != nil {
			t.conds = append(t.conds, expression.SplitConjunction(x.Filter)...)
		}
		for i, c := range x.Children() {
			if !flattenJoins(ctx, c, appendPath(path, i), t) {
				return false
			}
		}
		return true
	case *plan.HashLookup:
		return flattenJoins(ctx, x.Child, appendPath(path, 0), t)
	case *plan.Filter:
		if _, ok := x.Child.(*plan.JoinNode); ok {
			if hasSubquery(x.Expression) {
				return false
			}
			t.conds = append(t.conds, expression.SplitConjunction(x.Expression)...)
			return flattenJoins(ctx, x.Child, appendPath(path, 0), t)
		}
	}
	if !singleTable(n) {
		return false
	}
	s := sideOf(ctx, n)
	if s.name == "" {
		return false
	}
	for _, l := range t.leaves {
		if strings.EqualFold(l.name, s.name) {
			return false // one name for two inputs: columns are ambiguous
		}
	}
	t.leaves = append(t.leaves, joinLeaf{joinSide: s, path: path})
	return true
}

func appendPath(path []int, i int) []int {
	return append(path[:len(path):len(path)], i)
}

func hasSubquery(e sql.Expression) bool {
	return transform.InspectExpr(e, func(e sql.Expression) bool {
		_, sub := e.(*plan.Subquery)
		return sub
	})
}

// leafOf is the leaf a column reference names, -1 if none.
func (t *joinTree) leafOf(gf *expression.GetField) int {
	for i, l := range t.leaves {
		if gf.Table() != "" && strings.EqualFold(gf.Table(), l.name) {
			return i
		}
	}
	return -1
}

// leavesOf is the leaves e reads, ok false if e reads a column of none.
func (t *joinTree) leavesOf(e sql.Expression) (map[int]bool, bool) {
	set, ok := map[int]bool{}, true
	transform.InspectExpr(e, func(x sql.Expression) bool {
		if gf, isField := x.(*expression.GetField); isField {
			i := t.leafOf(gf)
			ok = ok && i >= 0
			set[i] = true
		}
		return false
	})
	return set, ok
}

// joinEdge is an equality of columns of two leaves.
type joinEdge struct {
	a, b   int // leaves
	ea, eb *expression.GetField
}

// classify splits the conditions into filters on leaf probe and
// equalities between leaves, or reports false when one is neither (a
// condition on another single leaf, a residual over several, constants).
func (t *joinTree) classify(probe int) (filters []sql.Expression, edges []joinEdge, ok bool) {
	for _, e := range t.conds {
		set, ok := t.leavesOf(e)
		if !ok || hasSubquery(e) {
			return nil, nil, false
		}
		if len(set) == 1 && set[probe] {
			filters = append(filters, e)
			continue
		}
		eq, isEq := e.(*expression.Equals)
		if !isEq {
			return nil, nil, false
		}
		l, lok := eq.Left().(*expression.GetField)
		r, rok := eq.Right().(*expression.GetField)
		if !lok || !rok || t.leafOf(l) == t.leafOf(r) {
			return nil, nil, false
		}
		edges = append(edges, joinEdge{a: t.leafOf(l), b: t.leafOf(r), ea: l, eb: r})
	}
	return filters, edges, true
}

// buildOrder orders the leaves other than probe so that each has an
// equality with the probe or an earlier one, preferring leaves joined to
// the probe itself (their keys prune the probe scan), or reports false
// when a leaf is joined to none (a cross product).
func buildOrder(n, probe int, edges []joinEdge) ([]int, bool) {
	joined := map[int]bool{probe: true}
	var order []int
	for len(order) < n-1 {
		next := -1
		for i := range n {
			if joined[i] {
				continue
			}
			direct, any := false, false
			for _, e := range edges {
				o := -1
				switch i {
				case e.a:
					o = e.b
				case e.b:
					o = e.a
				}
				any = any || (o >= 0 && joined[o])
				direct = direct || o == probe
			}
			if any && (direct || next < 0) {
				next = i
				if direct {
					break
				}
			}
		}
		if next < 0 {
			return nil, false
		}
		joined[next] = true
		order = append(order, next)
	}
	return order, true
}
