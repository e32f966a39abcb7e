package rewrite

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// SysVarDecorrelate turns decorrelate off (SET lakesql_decorrelate = 0):
// GMS's per-row subquery, to compare answers or plans with.
const SysVarDecorrelate = "lakesql_decorrelate"

// decorrelate rewrites a WHERE conjunct comparing with a correlated scalar
// aggregate subquery,
//
//	x op (SELECT f(agg(...)) FROM src WHERE in.k = out.k [AND in.k2 = out.k2 …] [AND local])
//
// into a join with the derived table
//
//	(SELECT f(agg(...)), in.k, in.k2 … FROM src WHERE local GROUP BY in.k, in.k2 …)
//
// on out.k = in.k …, the conjunct becoming x op value. GMS v0.20 runs the
// subquery once per outer row (TPC-H Q02, Q17, Q20), re-reading src each
// time; the derived table is read once and hash-joined.
//
// The rewrite is exact when the subquery's value on an empty group (an
// outer row no inner row matches, or one with a NULL key) is NULL, since
// the comparison is then NULL and the row is filtered out, as the inner
// join drops it: MIN, MAX, SUM, AVG and expressions that keep their NULL.
// COUNT's 0 needs an outer join, which this rule does not build: it
// refuses, as it refuses every shape it does not prove (see matchScalarAgg
// and correlationKeys), leaving GMS's plan.
//
// It runs before GMS's analysis, on the planbuilder's tree, so that the
// derived table is planned like a FROM-clause subquery (join order, hash
// join, its own aggregation). Only at the top scope: it allocates column
// and table ids above every id in the statement, which a rule called on a
// subquery alone cannot see. Subqueries nested in expressions are
// rewritten from there.
func decorrelate(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	// Not in DML: GMS locates the rows an UPDATE or DELETE changes under
	// its filter, where a join would hide them.
	if scope != nil && !scope.IsEmpty() || qFlags == nil || !qFlags.IsSet(sql.QFlagScalarSubquery) || qFlags.DmlIsSet() || !decorrelateOn(ctx) {
		return n, transform.SameTree, nil
	}
	d := &decorrelator{ctx: ctx, ids: newIDAllocator(n)}
	out, same, err := d.node(n, false)
	if err != nil || same {
		return n, transform.SameTree, err
	}
	qFlags.Set(sql.QFlagRelSubquery)
	qFlags.Set(sql.QFlagInnerJoin)
	qFlags.Set(sql.QFlagCrossJoin)
	return out, transform.NewTree, nil
}

// decorrelator carries one statement's rewrite: the id allocator shared
// by every derived table it adds.
type decorrelator struct {
	ctx *sql.Context
	ids *idAllocator
}

// node rewrites n's filters bottom-up, in derived tables and subquery
// expressions too. byID says n's parent reads n's columns by id (it
// computes its own output), so n's schema may gain columns.
func (d *decorrelator) node(n sql.Node, byID bool) (sql.Node, transform.TreeIdentity, error) {
	children := n.Children()
	var nc []sql.Node
	for i, c := range children {
		c2, same, err := d.node(c, readsByID(n))
		if err != nil {
			return n, transform.SameTree, err
		}
		if !same {
			if nc == nil {
				nc = append([]sql.Node{}, children...)
			}
			nc[i] = c2
		}
	}
	same := transform.SameTree
	if nc != nil {
		var err error
		if n, err = n.WithChildren(nc...); err != nil {
			return n, transform.SameTree, err
		}
		same = transform.NewTree
	}
	n, sameExprs, err := d.subqueries(n)
	if err != nil {
		return n, transform.SameTree, err
	}
	same = same && sameExprs
	if f, ok := n.(*plan.Filter); ok {
		out, changed, err := d.filter(f, !byID)
		if err != nil {
			return n, transform.SameTree, err
		}
		if changed {
			return out, transform.NewTree, nil
		}
	}
	return n, same, nil
}

// readsByID reports whether n computes its output from expressions that
// name its child's columns by id, never by position.
func readsByID(n sql.Node) bool {
	switch n.(type) {
	case *plan.Project, *plan.GroupBy, *plan.Window:
		return true
	}
	return false
}

// subqueries rewrites the queries of the subquery expressions of n.
func (d *decorrelator) subqueries(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	if _, ok := n.(sql.Expressioner); !ok {
		return n, transform.SameTree, nil
	}
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		sq, ok := e.(*plan.Subquery)
		if !ok {
			return e, transform.SameTree, nil
		}
		q, same, err := d.node(sq.Query, false)
		if err != nil || same {
			return e, transform.SameTree, err
		}
		return sq.WithQuery(q), transform.NewTree, nil
	})
}

// filter decorrelates the conjuncts of f it can; changed is false when it
// could not rewrite any. The join adds the derived tables' columns: with
// keepSchema, a projection of the filter's own keeps the schema the node
// above reads by position.
func (d *decorrelator) filter(f *plan.Filter, keepSchema bool) (sql.Node, bool, error) {
	cols, ok := outputColumns(f.Child)
	if keepSchema && !ok {
		return f, false, nil
	}
	// Not inside a correlated subquery: GMS's join planner fails on a
	// join tree whose filters read an outer scope's columns beside a
	// derived table ("vertex not found").
	if !selfContained(f) || !innerJoinsOnly(f.Child) {
		return f, false, nil
	}
	outer := definedColumns(f.Child)
	var rest, cmps []sql.Expression
	type join struct {
		derived sql.Node
		on      sql.Expression
	}
	var joins []join
	for _, c := range expression.SplitConjunction(f.Expression) {
		m, ok := d.match(c, outer)
		var q sql.Node
		if ok {
			q = m.derivedQuery()
			ok = selfContained(q)
		}
		if !ok {
			rest = append(rest, c)
			continue
		}
		derived, value, keys := m.build(q, d.ids)
		cmp, err := m.compareWith(value)
		if err != nil {
			return nil, false, err
		}
		cmps = append(cmps, cmp)
		on := make([]sql.Expression, len(m.keys))
		for i, k := range m.keys {
			on[i] = expression.NewEquals(k.outer, keys[i])
		}
		var cond sql.Expression
		if len(on) > 0 {
			cond = expression.JoinAnd(on...)
		}
		joins = append(joins, join{derived, cond})
	}
	if len(joins) == 0 {
		return f, false, nil
	}
	// Filter(rest AND comparisons) over InnerJoin(child, derived, keys),
	// as the planbuilder builds FROM child JOIN derived ON keys WHERE …:
	// the join's condition holds only the key equalities, which GMS can
	// plan as a hash join (it plans none for a condition with anything
	// else); the comparisons filter the joined rows above it. Uncorrelated,
	// the join is ON TRUE, not a cross join, which GMS would turn into a
	// join on the comparison (a hash join on a DECIMAL key loses rows).
	out := f.Child
	for _, j := range joins {
		on := j.on
		if on == nil {
			on = expression.NewLiteral(true, types.Boolean)
		}
		out = plan.NewInnerJoin(out, j.derived, on)
	}
	out = plan.NewFilter(expression.JoinAnd(append(rest, cmps...)...), out)
	if keepSchema {
		out = plan.NewProject(cols, out)
	}
	return out, true, nil
}

// decorrelateOn reads SysVarDecorrelate (on when unset).
func decorrelateOn(ctx *sql.Context) bool { return switchOn(ctx, SysVarDecorrelate) }

// innerJoinsOnly reports whether n is a tree of inner and cross joins
// (over anything): GMS's join reorderer moves a join with the derived
// table below an outer join and drops its condition on the NULL-extended
// side, so the rule leaves filters over outer joins alone.
func innerJoinsOnly(n sql.Node) bool {
	j, ok := n.(*plan.JoinNode)
	if !ok {
		return true
	}
	switch j.Op {
	case plan.JoinTypeInner, plan.JoinTypeCross:
		return innerJoinsOnly(j.Left()) && innerJoinsOnly(j.Right())
	}
	return false
}
