package mysqlfix

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// GMS v0.20.0 panics ("vertex not found") planning `x [NOT] IN (SELECT y
// FROM t WHERE c)` when a conjunct c of the subquery's WHERE reads no
// column: unnested into a semi (anti) join, the conjunct stays a Filter
// above t, and the join-order builder looks for t's columns among the
// join's table vertices. MySQL answers it. constInSubquery decides such
// conjuncts when the statement is planned, as MySQL's optimizer does: a
// TRUE conjunct is dropped; a FALSE or NULL one empties the subquery, so
// x IN (…) is FALSE (NOT IN TRUE) whatever x is. Only deterministic
// conjuncts without subqueries or parameters are decided, and only under
// a plain SELECT (no GROUP BY, whose aggregates answer an empty input).

// constInSubquery is the analyzer rule.
func constInSubquery(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return exprsWithSubqueries(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		return constInExpr(ctx, e)
	})
}

func constInExpr(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	switch x := e.(type) {
	case *plan.InSubquery:
		sq, ok := x.Right().(*plan.Subquery)
		if !ok {
			return e, transform.SameTree, nil
		}
		// The subquery's own IN subqueries were decided first: the walk
		// is bottom up and goes into subqueries (exprsWithSubqueries).
		q, empty, decided, err := decideConstWhere(ctx, sq.Query)
		if err != nil {
			return e, transform.SameTree, err
		}
		if empty {
			return expression.NewLiteral(false, types.Boolean), transform.NewTree, nil
		}
		if !decided {
			return e, transform.SameTree, nil
		}
		out, err := x.WithChildren(x.Left(), sq.WithQuery(q))
		return out, transform.NewTree, err
	}
	return e, transform.SameTree, nil
}

// decideConstWhere decides the column-free conjuncts of the WHERE of the
// SELECT n: n without the TRUE ones (decided), or empty when one is FALSE
// or NULL.
func decideConstWhere(ctx *sql.Context, n sql.Node) (out sql.Node, empty, decided bool, err error) {
	switch x := n.(type) {
	case *plan.Project, *plan.Distinct, *plan.Sort, *plan.Limit:
		c, empty, decided, err := decideConstWhere(ctx, n.Children()[0])
		if err != nil || empty || !decided {
			return n, empty, false, err
		}
		out, err := n.WithChildren(c)
		return out, false, err == nil, err
	case *plan.Filter:
		if _, grouped := x.Child.(*plan.GroupBy); grouped {
			return n, false, false, nil
		}
		var keep []sql.Expression
		for _, c := range expression.SplitConjunction(x.Expression) {
			if !decidable(c) {
				keep = append(keep, c)
				continue
			}
			v, err := c.Eval(ctx, nil)
			if err != nil {
				return n, false, false, err
			}
			if t, err := sql.ConvertToBool(ctx, v); v == nil || err != nil || !t {
				return n, true, true, nil
			}
			decided = true
		}
		switch {
		case !decided:
			return n, false, false, nil
		case len(keep) == 0:
			return x.Child, false, true, nil
		}
		return plan.NewFilter(expression.JoinAnd(keep...), x.Child), false, true, nil
	}
	return n, false, false, nil
}

// decidable reports whether e's value is known when the statement is
// planned: it reads no column, subquery, parameter or non-deterministic
// function.
func decidable(e sql.Expression) bool {
	ok := true
	transform.InspectExpr(e, func(e sql.Expression) bool {
		switch x := e.(type) {
		case *expression.GetField, *plan.Subquery, *expression.BindVar, *expression.ProcedureParam,
			*expression.UnresolvedColumn, *expression.UserVar, *expression.SystemVar:
			ok = false
		case sql.NonDeterministicExpression:
			if x.IsNonDeterministic() {
				ok = false
			}
		}
		return !ok
	})
	return ok
}
