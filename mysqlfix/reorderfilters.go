package mysqlfix

import (
	"github.com/dolthub/go-mysql-server/sql/memo"
)

// ReorderLosesFilter reports whether rel, a join GMS's join reordering
// added to its memo group, applies fewer conditions than the join the
// group was built from. The coster prices such a plan out of reach.
//
// GMS v0.20.0's joinOrderBuilder.addPlans collects the inner join
// conditions that apply across a split and hands them to addJoin as
// selFilters when a LEFT JOIN edge also spans that split; memoize and
// addJoinToGroup ignore selFilters. So for `a LEFT JOIN b ON a.k = b.k
// JOIN c ON a.k = c.k AND c.v IS NULL` the reordered `(a JOIN c ON a.k =
// c.k) LEFT JOIN b` loses `c.v IS NULL` and returns rows failing it (any
// conjunct GMS's moveJoinConditionsToFilter leaves in the ON: IS NULL,
// <=>, one spanning both sides, a constant). MySQL applies every
// conjunct.
//
// A group's first-built expression (the last in its list: GMS prepends
// alternatives) is the original join, or for a group the reordering
// created, the join that defined it; the conditions rel applies (its own
// and its inputs') must include all of those. Conditions are compared by
// text, so an equivalent condition written differently costs an
// alternative, never an answer.
func ReorderLosesFilter(rel memo.RelExpr) bool {
	if _, ok := rel.(memo.JoinRel); !ok {
		return false
	}
	orig := firstBuilt(rel.Group())
	if orig == nil || orig == rel {
		return false
	}
	have := map[string]bool{}
	conditions(rel, have, 0)
	need := map[string]bool{}
	conditions(orig, need, 0)
	for c := range need {
		if !have[c] {
			return true
		}
	}
	return false
}

// maxDepth bounds the walk over nested groups (a join tree of at most 64
// tables, with filters and projections between).
const maxDepth = 256

// conditions adds the join and filter conditions rel and its inputs'
// first-built expressions apply to into out.
func conditions(rel memo.RelExpr, out map[string]bool, depth int) {
	if rel == nil || depth > maxDepth {
		return
	}
	var children []*memo.ExprGroup
	switch x := rel.(type) {
	case memo.JoinRel:
		jp := x.JoinPrivate()
		for _, f := range jp.Filter {
			out[f.String()] = true
		}
		children = []*memo.ExprGroup{jp.Left, jp.Right}
	case *memo.Filter:
		for _, f := range x.Filters {
			out[f.String()] = true
		}
		children = []*memo.ExprGroup{x.Child}
	default:
		children = rel.Children()
	}
	for _, g := range children {
		conditions(firstBuilt(g), out, depth+1)
	}
}

// firstBuilt returns the expression g was created with: the last of its
// list.
func firstBuilt(g *memo.ExprGroup) memo.RelExpr {
	if g == nil {
		return nil
	}
	var last memo.RelExpr
	for n := g.First; n != nil; n = n.Next() {
		last = n
	}
	return last
}
