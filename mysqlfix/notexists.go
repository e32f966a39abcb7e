package mysqlfix

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// GMS v0.20.0 turns WHERE … AND NOT EXISTS (correlated subquery) into an
// anti join whose condition is the subquery's correlated conjuncts, and
// its anti join rejects an outer row when the condition is NULL for some
// inner row: NOT IN's rule. NOT EXISTS only asks whether some inner row
// makes its WHERE TRUE, so an inner row with a NULL key (b.k = a.k is
// NULL) wrongly removes every outer row, and an outer row with a NULL
// key is removed whenever the inner table has rows. The fix wraps each
// correlated conjunct of such a subquery in IS TRUE before GMS unnests
// it: a subquery's WHERE keeps only TRUE rows, so the subquery is the
// same, and the anti join's condition is never NULL. The conjuncts that
// read only the subquery's tables stay as they are (GMS keeps them as
// the inner side's filter).

// fixNotExists wraps the correlated conjuncts of every NOT EXISTS
// subquery that is a conjunct of a Filter (the ones GMS unnests).
func fixNotExists(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		f, ok := n.(*plan.Filter)
		if !ok {
			return n, transform.SameTree, nil
		}
		conj := expression.SplitConjunction(f.Expression)
		changed := false
		for i, c := range conj {
			not, ok := c.(*expression.Not)
			if !ok {
				continue
			}
			ex, ok := not.Child.(*plan.ExistsSubquery)
			if !ok {
				continue
			}
			q, same := guardCorrelated(ex.Query.Query, ex.Query.Correlated())
			if same {
				continue
			}
			conj[i] = expression.NewNot(plan.NewExistsSubquery(ex.Query.WithQuery(q)))
			changed = true
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		return plan.NewFilter(expression.JoinAnd(conj...), f.Child), transform.NewTree, nil
	})
}

// guardCorrelated wraps in IS TRUE each conjunct of q's Filters that
// reads a column of corr (the outer query's columns the subquery uses),
// as GMS's decorrelation finds them.
func guardCorrelated(q sql.Node, corr sql.ColSet) (sql.Node, bool) {
	if corr.Empty() {
		return q, true
	}
	out, same, err := transform.Node(q, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		f, ok := n.(*plan.Filter)
		if !ok {
			return n, transform.SameTree, nil
		}
		conj := expression.SplitConjunction(f.Expression)
		changed := false
		for i, c := range conj {
			if IsTrueGuard(c) || !readsOuter(c, corr) {
				continue
			}
			conj[i] = expression.NewIsTrue(c)
			changed = true
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		return plan.NewFilter(expression.JoinAnd(conj...), f.Child), transform.NewTree, nil
	})
	if err != nil { // the callback returns no error
		return q, true
	}
	return out, same == transform.SameTree
}

// readsOuter reports whether e reads a column of corr, directly or in a
// subquery.
func readsOuter(e sql.Expression, corr sql.ColSet) bool {
	return transform.InspectExpr(e, func(e sql.Expression) bool {
		switch x := e.(type) {
		case *expression.GetField:
			return corr.Contains(x.Id())
		case *plan.Subquery:
			return !x.Correlated().Intersection(corr).Empty()
		}
		return false
	})
}

// IsTrueGuard reports whether e is "x IS TRUE" (not IS FALSE): the
// guard fixNotExists puts on a NOT EXISTS subquery's correlated
// conjuncts. Join planning may look through it: x IS TRUE is TRUE
// exactly when x is, and never NULL.
func IsTrueGuard(e sql.Expression) bool {
	it, ok := e.(*expression.IsTrue)
	return ok && strings.HasSuffix(it.String(), " "+expression.IsTrueStr)
}
