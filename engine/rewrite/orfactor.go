package rewrite

import (
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// factorOr rewrites the OR expressions of WHERE, HAVING and join
// conditions before GMS plans joins, so that its planner sees the
// equalities and single-table filters an OR hides (TPC-H Q19 repeats
// p_partkey = l_partkey in every branch, and GMS then finds no equi-join
// and runs part × lineitem as a nested loop):
//
//   - a conjunct common to every branch moves out of the OR:
//     (A AND B) OR (A AND C) = A AND (B OR C). Distributivity holds in
//     SQL's three-valued logic, so this is an equivalence wherever the
//     expression is.
//   - in a Filter (or an inner, left or semi join's condition, where also
//     only TRUE counts), for each table that every branch of a top-level OR
//     constrains by conjuncts on it alone, the OR of those conjuncts is
//     added beside the OR: (p.x AND l.y) OR (p.z AND l.w) implies
//     (p.x OR p.z) and (l.y OR l.w). A Filter keeps only rows whose
//     condition is TRUE, and a TRUE OR makes some branch, and so each of
//     its conjuncts, TRUE: the added conjunct is TRUE whenever the OR is,
//     so the rows kept do not change. GMS then pushes it to the table.
//
// Only deterministic conjuncts without subqueries are moved or copied.
func factorOr(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if !joinRewritesOn(ctx) {
		return n, transform.SameTree, nil
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch x := n.(type) {
		case *plan.Filter:
			e, same := factorOrs(x.Expression)
			e, derived := withDerivedFilters(e)
			if same && !derived {
				return n, transform.SameTree, nil
			}
			return plan.NewFilter(e, x.Child), transform.NewTree, nil
		case *plan.Having:
			e, same := factorOrs(x.Cond)
			if same {
				return n, transform.SameTree, nil
			}
			return plan.NewHaving(e, x.Child), transform.NewTree, nil
		case *plan.JoinNode:
			if x.Filter == nil {
				return n, transform.SameTree, nil
			}
			e, same := factorOrs(x.Filter)
			derived := false
			switch x.Op {
			case plan.JoinTypeInner, plan.JoinTypeCross, plan.JoinTypeLeftOuter, plan.JoinTypeSemi:
				// only a TRUE condition counts (not an anti join's NULL)
				e, derived = withDerivedFilters(e)
			}
			if same && !derived {
				return n, transform.SameTree, nil
			}
			nj, err := x.WithExpressions(e)
			return nj, transform.NewTree, err
		}
		return n, transform.SameTree, nil
	})
}

// factorOrs moves the conjuncts common to all branches out of every OR
// in e. An OR is flattened with the ORs directly under it before its
// branches are factored, so that a conjunct common to all of them is
// found however the ORs nest.
func factorOrs(e sql.Expression) (sql.Expression, bool) {
	if or, ok := e.(*expression.Or); ok {
		branches := expression.SplitDisjunction(or)
		same := true
		for i, b := range branches {
			nb, s := factorOrs(b)
			branches[i], same = nb, same && s
		}
		f, changed := factorBranches(branches)
		if !changed && same {
			return e, true
		}
		return f, false
	}
	children := e.Children()
	if len(children) == 0 {
		return e, true
	}
	nc := make([]sql.Expression, len(children))
	same := true
	for i, c := range children {
		var s bool
		nc[i], s = factorOrs(c)
		same = same && s
	}
	if same {
		return e, true
	}
	ne, err := e.WithChildren(nc...)
	if err != nil {
		return e, true
	}
	return ne, false
}

// factorBranches factors the OR of branches (none an OR itself).
func factorBranches(branches []sql.Expression) (sql.Expression, bool) {
	conj := make([][]sql.Expression, len(branches))
	for i, b := range branches {
		conj[i] = expression.SplitConjunction(b)
	}
	var common []sql.Expression
	for _, c := range conj[0] {
		if !movable(c) || containsExpr(common, c) {
			continue
		}
		inAll := true
		for _, other := range conj[1:] {
			inAll = inAll && containsExpr(other, c)
		}
		if inAll {
			common = append(common, c)
		}
	}
	if len(common) == 0 {
		return expression.JoinOr(branches...), false
	}
	rests := make([]sql.Expression, 0, len(conj))
	for _, cs := range conj {
		var rest []sql.Expression
		for _, c := range cs {
			if !containsExpr(common, c) {
				rest = append(rest, c)
			}
		}
		if len(rest) == 0 { // this branch is the common part alone: A OR (A AND …) = A
			return expression.JoinAnd(common...), true
		}
		rests = append(rests, expression.JoinAnd(rest...))
	}
	return expression.JoinAnd(append(common, expression.JoinOr(rests...))...), true
}

// withDerivedFilters adds, for each top-level OR conjunct of a Filter's
// condition, the single-table ORs it implies (see factorOr).
func withDerivedFilters(e sql.Expression) (sql.Expression, bool) {
	conj := expression.SplitConjunction(e)
	var added []sql.Expression
	for _, c := range conj {
		or, ok := c.(*expression.Or)
		if !ok {
			continue
		}
		for _, d := range impliedByOr(or) {
			if !containsExpr(conj, d) && !containsExpr(added, d) {
				added = append(added, d)
			}
		}
	}
	if len(added) == 0 {
		return e, false
	}
	return expression.JoinAnd(append(conj, added...)...), true
}

// impliedByOr returns, per table every branch of or constrains alone,
// the OR over the branches of their conjuncts on that table. An OR over
// one table only implies itself, which is not returned.
func impliedByOr(or *expression.Or) []sql.Expression {
	branches := expression.SplitDisjunction(or)
	perBranch := make([]map[string][]sql.Expression, len(branches))
	for i, b := range branches {
		perBranch[i] = map[string][]sql.Expression{}
		for _, c := range expression.SplitConjunction(b) {
			if t, ok := singleTable1(c); ok && movable(c) {
				perBranch[i][t] = append(perBranch[i][t], c)
			}
		}
	}
	var out []sql.Expression
	for _, t := range tablesInOrder(perBranch[0]) {
		parts := make([]sql.Expression, 0, len(branches))
		for _, m := range perBranch {
			cs, ok := m[t]
			if !ok {
				parts = nil
				break
			}
			parts = append(parts, expression.JoinAnd(cs...))
		}
		if parts == nil {
			continue
		}
		d := expression.JoinOr(parts...)
		if d.String() != or.String() {
			out = append(out, d)
		}
	}
	return out
}

// tablesInOrder lists m's tables sorted, so that plans are stable.
func tablesInOrder(m map[string][]sql.Expression) []string {
	out := make([]string, 0, len(m))
	for t := range m {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// singleTable1 reports the one table whose columns e references.
func singleTable1(e sql.Expression) (string, bool) {
	table, ok := "", true
	transform.InspectExpr(e, func(e sql.Expression) bool {
		gf, isGF := e.(*expression.GetField)
		if !isGF {
			return false
		}
		t := strings.ToLower(gf.Table())
		if t == "" || (table != "" && t != table) {
			ok = false
			return true
		}
		table = t
		return false
	})
	return table, ok && table != ""
}

// movable reports whether e can be evaluated once instead of once per
// branch, or copied: deterministic, without subqueries.
func movable(e sql.Expression) bool {
	return !transform.InspectExpr(e, func(e sql.Expression) bool {
		switch x := e.(type) {
		case *plan.Subquery, *plan.ExistsSubquery, *plan.InSubquery:
			return true
		case sql.NonDeterministicExpression:
			return x.IsNonDeterministic()
		}
		return false
	})
}

// containsExpr reports whether list holds an expression printed as e
// (an equality also in its commuted form).
func containsExpr(list []sql.Expression, e sql.Expression) bool {
	s := canonical(e)
	for _, x := range list {
		if canonical(x) == s {
			return true
		}
	}
	return false
}

// canonical prints e, an equality with its sides in a fixed order.
func canonical(e sql.Expression) string {
	if eq, ok := e.(*expression.Equals); ok {
		l, r := eq.Left().String(), eq.Right().String()
		if r < l {
			l, r = r, l
		}
		return "(" + l + " = " + r + ")"
	}
	return e.String()
}
