package rewrite

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"github.com/lakesql/lakesql/mysqlfix"
	"github.com/lakesql/lakesql/scan"
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
	// kind is how the leaf joins: inner, or the right side of a semi or
	// anti join with the conditions conds (equalities with the leaves
	// on its left).
	kind      scan.JoinKind
	conds     []sql.Expression
	residuals []joinResidual // of conds, those not key equalities
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
		if x.ScopeLen == 0 && x.Filter != nil && (x.Op.IsSemi() || x.Op.IsAnti()) {
			return flattenPartial(ctx, x, path, t)
		}
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
	case *plan.HashLookup, *keyedLookup:
		c, down := underLookup(x)
		return flattenJoins(ctx, c, append(path[:len(path):len(path)], down...), t)
	case *plan.Project:
		// Plain columns of a join (GMS narrows the rows of EXISTS and IN
		// joins so): conditions above read columns by name.
		if !joinBelow(x.Child) {
			break
		}
		for _, e := range x.Projections {
			if _, ok := e.(*expression.GetField); !ok {
				return false
			}
		}
		return flattenJoins(ctx, x.Child, appendPath(path, 0), t)
	case *plan.Filter:
		if joinBelow(x.Child) {
			if hasSubquery(x.Expression) {
				return false
			}
			t.conds = append(t.conds, expression.SplitConjunction(x.Expression)...)
			return flattenJoins(ctx, x.Child, appendPath(path, 0), t)
		}
	}
	return t.addLeaf(ctx, n, path, scan.JoinInner, nil)
}

// flattenPartial collects a semi or anti join: its left side is part of
// the tree, its right side a leaf joined by kind. NOT EXISTS is an anti
// join whose equalities mysqlfix guards with IS TRUE (never NULL); NOT
// IN's one bare equality is NULL-aware. Other anti joins keep GMS's plan.
func flattenPartial(ctx *sql.Context, j *plan.JoinNode, path []int, t *joinTree) bool {
	conds := expression.SplitConjunction(j.Filter)
	kind := scan.JoinSemi
	if j.Op.IsAnti() {
		kind = scan.JoinAnti
		for _, c := range conds {
			if !mysqlfix.IsTrueGuard(c) {
				kind = scan.JoinAntiNulls
			}
		}
		if kind == scan.JoinAntiNulls && len(conds) != 1 {
			return false
		}
	}
	for k, c := range conds {
		if mysqlfix.IsTrueGuard(c) {
			conds[k] = c.(*expression.IsTrue).Child
		}
	}
	right, down := underLookup(j.Right())
	rpath := append(appendPath(path, 1), down...) // appendPath copies
	return flattenJoins(ctx, j.Left(), appendPath(path, 0), t) && t.addLeaf(ctx, right, rpath, kind, conds)
}

// addLeaf adds n as a leaf, or reports false when it is not a single
// table or its name is another leaf's.
func (t *joinTree) addLeaf(ctx *sql.Context, n sql.Node, path []int, kind scan.JoinKind, conds []sql.Expression) bool {
	s, ok := leafSide(ctx, n)
	if !ok || s.name == "" {
		return false
	}
	for _, l := range t.leaves {
		if strings.EqualFold(l.name, s.name) {
			return false // one name for two inputs: columns are ambiguous
		}
	}
	t.leaves = append(t.leaves, joinLeaf{joinSide: s, path: path, kind: kind, conds: conds})
	return true
}

// joinBelow reports whether n is a join, under any Filters and Projects.
func joinBelow(n sql.Node) bool {
	switch x := n.(type) {
	case *plan.JoinNode:
		return true
	case *plan.Filter:
		return joinBelow(x.Child)
	case *plan.Project:
		return joinBelow(x.Child)
	}
	return false
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

// classify splits the conditions into filters on leaf probe,
// equalities between leaves and conditions on the join's tuples (post:
// ANDs and ORs of conditions on one inner build leaf each), or reports
// false when one is none of them (a residual over several leaves'
// columns, a condition on the probe inside an OR, constants).
// A semi or anti leaf's conditions must all be equalities between it
// and inner leaves.
func (t *joinTree) classify(probe int) (filters []sql.Expression, edges []joinEdge, post []sql.Expression, ok bool) {
	for _, e := range t.conds {
		set, ok := t.leavesOf(e)
		if !ok || hasSubquery(e) {
			return nil, nil, nil, false
		}
		if len(set) == 1 && set[probe] {
			filters = append(filters, e)
			continue
		}
		edge, ok := t.edge(e)
		if !ok && t.innerResidual(probe, e) {
			continue
		}
		if !ok && t.postCondition(e, probe) {
			post = append(post, e)
			continue
		}
		if !ok || t.leaves[edge.a].kind != scan.JoinInner || t.leaves[edge.b].kind != scan.JoinInner {
			return nil, nil, nil, false
		}
		edges = append(edges, edge)
	}
	for i := range t.leaves {
		l := &t.leaves[i]
		for _, e := range l.conds {
			edge, ok := t.edge(e)
			if !ok {
				r, ok := t.residual(i, e)
				if !ok || l.kind == scan.JoinAntiNulls {
					return nil, nil, nil, false
				}
				l.residuals = append(l.residuals, r)
				continue
			}
			if (edge.a == i) == (edge.b == i) {
				return nil, nil, nil, false
			}
			other := edge.a + edge.b - i
			if t.leaves[other].kind != scan.JoinInner {
				return nil, nil, nil, false
			}
			edges = append(edges, edge)
		}
	}
	return filters, edges, post, true
}

// joinResidual is a comparison of a semi or anti leaf's column with a
// column of an inner leaf, beside the key equalities (Q21's
// l2.l_suppkey <> l1.l_suppkey).
type joinResidual struct {
	mine, other *expression.GetField
	op          scan.Op
	not         bool
}

// residual reads e as a comparison of a column of leaf with a column of
// an inner leaf: =, <, <=, >, >= or NOT(=).
func (t *joinTree) residual(leaf int, e sql.Expression) (joinResidual, bool) {
	var r joinResidual
	if n, ok := e.(*expression.Not); ok {
		if _, eq := n.Child.(*expression.Equals); !eq {
			return r, false
		}
		e, r.not = n.Child, true
	}
	c, ok := e.(expression.Comparer)
	if !ok {
		return r, false
	}
	var flipped scan.Op
	switch c.(type) {
	case *expression.Equals:
		r.op, flipped = scan.OpEq, scan.OpEq
	case *expression.LessThan:
		r.op, flipped = scan.OpLt, scan.OpGt
	case *expression.LessThanOrEqual:
		r.op, flipped = scan.OpLe, scan.OpGe
	case *expression.GreaterThan:
		r.op, flipped = scan.OpGt, scan.OpLt
	case *expression.GreaterThanOrEqual:
		r.op, flipped = scan.OpGe, scan.OpLe
	default:
		return r, false
	}
	l, lok := c.Left().(*expression.GetField)
	rt, rok := c.Right().(*expression.GetField)
	if !lok || !rok {
		return r, false
	}
	r.mine, r.other = l, rt
	if t.leafOf(rt) == leaf {
		r.mine, r.other, r.op = rt, l, flipped
	}
	o := t.leafOf(r.other)
	return r, t.leafOf(r.mine) == leaf && o >= 0 && o != leaf && t.leaves[o].kind == scan.JoinInner
}

// edge reads an equality of columns of two leaves.
func (t *joinTree) edge(e sql.Expression) (joinEdge, bool) {
	eq, isEq := e.(*expression.Equals)
	if !isEq {
		return joinEdge{}, false
	}
	l, lok := eq.Left().(*expression.GetField)
	r, rok := eq.Right().(*expression.GetField)
	if !lok || !rok || t.leafOf(l) < 0 || t.leafOf(r) < 0 || t.leafOf(l) == t.leafOf(r) {
		return joinEdge{}, false
	}
	return joinEdge{a: t.leafOf(l), b: t.leafOf(r), ea: l, eb: r}, true
}

// buildOrder orders the leaves other than probe: the inner ones so that
// each has an equality with the probe or an earlier one, preferring
// leaves joined to the probe itself (their keys prune the probe scan),
// then the semi and anti ones (filters on the inner join's rows); it
// reports false when an inner leaf is joined to none (a cross product).
func (t *joinTree) buildOrder(probe int, edges []joinEdge) ([]int, bool) {
	joined := map[int]bool{probe: true}
	var order, partial []int
	inner := 0
	for i, l := range t.leaves {
		switch {
		case l.kind != scan.JoinInner:
			partial = append(partial, i)
		case i != probe:
			inner++
		}
	}
	for len(order) < inner {
		next, best := -1, -1
		for i, l := range t.leaves {
			if joined[i] || l.kind != scan.JoinInner {
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
			if score := l.orderScore(direct); any && score > best {
				next, best = i, score
			}
		}
		if next < 0 {
			return nil, false
		}
		joined[next] = true
		order = append(order, next)
	}
	return append(order, partial...), true
}
