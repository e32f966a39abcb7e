package rewrite

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/mysqlfix"
)

// scalarAgg is a WHERE conjunct decorrelate can rewrite: other op (sq),
// sq a correlated scalar aggregate subquery.
type scalarAgg struct {
	cmp    sql.Expression // the comparison (under NOT for <>)
	not    bool
	sqLeft bool // sq is cmp's left operand
	other  sql.Expression
	sq     *plan.Subquery
	proj   sql.Expression // sq's one projection, its alias removed
	name   string
	gb     *plan.GroupBy
	local  []sql.Expression // the inner WHERE's uncorrelated conjuncts
	src    sql.Node         // below the inner WHERE
	keys   []corrKey
}

// corrKey is one correlation equality in.k = out.k of the inner WHERE.
type corrKey struct {
	inner, outer *expression.GetField
}

// match reports whether conjunct c is a comparison with a scalar
// aggregate subquery, uncorrelated or correlated only by equalities with
// columns of outer (the filtered node's own columns), and exact to
// rewrite.
func (d *decorrelator) match(c sql.Expression, outer sql.ColSet) (*scalarAgg, bool) {
	m := &scalarAgg{cmp: c}
	if n, ok := c.(*expression.Not); ok {
		m.cmp, m.not = n.Child, true
		if _, eq := m.cmp.(*expression.Equals); !eq {
			return nil, false
		}
	}
	switch m.cmp.(type) {
	case *expression.Equals, *expression.LessThan, *expression.LessThanOrEqual,
		*expression.GreaterThan, *expression.GreaterThanOrEqual:
	default: // <=> is not NULL-rejecting; IN, LIKE, … are other shapes
		return nil, false
	}
	ops := m.cmp.Children()
	if sq, ok := ops[1].(*plan.Subquery); ok {
		m.sq, m.other = sq, ops[0]
	} else if sq, ok := ops[0].(*plan.Subquery); ok {
		m.sq, m.other, m.sqLeft = sq, ops[1], true
	} else {
		return nil, false
	}
	corr := m.sq.Correlated()
	if m.sq.Volatile() || !corr.SubsetOf(outer) {
		return nil, false
	}
	// Uncorrelated, the derived table has exactly one row, whatever the
	// value: a cross join with it is exact, COUNT included.
	if !m.shape() || !m.correlation(corr) || !corr.Empty() && !m.nullOnEmpty(d.ctx) {
		return nil, false
	}
	return m, true
}

// shape matches the subquery's plan: Project(one expression) over a
// GroupBy without keys (one row, even over no rows) of aggregates only,
// over an optional Filter.
func (m *scalarAgg) shape() bool {
	p, ok := m.sq.Query.(*plan.Project)
	if !ok || len(p.Projections) != 1 {
		return false
	}
	m.proj, m.name = p.Projections[0], p.Projections[0].String()
	if a, ok := m.proj.(*expression.Alias); ok {
		m.proj, m.name = a.Child, a.Name()
	}
	if m.gb, ok = p.Child.(*plan.GroupBy); !ok || len(m.gb.GroupByExprs) != 0 || len(m.gb.SelectedExprs) == 0 {
		return false
	}
	m.src = m.gb.Child
	if f, ok := m.src.(*plan.Filter); ok {
		m.local, m.src = expression.SplitConjunction(f.Expression), f.Child
	}
	for _, e := range m.gb.SelectedExprs {
		if _, ok := emptyAggValue(e); !ok {
			return false
		}
	}
	return true
}

// correlation moves the inner WHERE's correlation equalities from
// m.local to m.keys: each must be in.col = out.col of comparable types,
// and no other part of the subquery may mention an outer column.
func (m *scalarAgg) correlation(corr sql.ColSet) bool {
	var local []sql.Expression
	for _, c := range m.local {
		if !exprRefers(c, corr) {
			local = append(local, c)
			continue
		}
		k, ok := correlationKey(c, corr)
		if !ok {
			return false
		}
		m.keys = append(m.keys, k)
	}
	m.local = local
	if len(m.keys) == 0 && !corr.Empty() || exprRefers(m.proj, corr) || nodeRefers(m.src, corr) {
		return false
	}
	for _, e := range m.gb.SelectedExprs {
		if exprRefers(e, corr) {
			return false
		}
	}
	return true
}

// correlationKey matches in.col = out.col (either order), out.col in
// corr, in.col not.
func correlationKey(c sql.Expression, corr sql.ColSet) (corrKey, bool) {
	eq, ok := c.(*expression.Equals)
	if !ok {
		return corrKey{}, false
	}
	l, lok := eq.Left().(*expression.GetField)
	r, rok := eq.Right().(*expression.GetField)
	if !lok || !rok {
		return corrKey{}, false
	}
	if corr.Contains(l.Id()) {
		l, r = r, l
	}
	if corr.Contains(l.Id()) || !corr.Contains(r.Id()) || !groupsAsCompared(l.Type(), r.Type()) {
		return corrKey{}, false
	}
	return corrKey{inner: l, outer: r}, true
}

// groupsAsCompared reports whether the derived table can join on the
// inner key: grouping its values must put every inner value equal (=) to
// an outer value in one group (one derived row per outer row at most),
// and GMS's hash join, which looks keys up as Go values, must find every
// equal pair. Both hold for two integer types and for one string type with
// a byte-comparing collation; not, say, for a string compared with a
// number ('1' and '01' are two groups, both = 1), nor for DECIMALs (GMS
// hashes a lone decimal key by its pointer) or case-insensitive strings.
func groupsAsCompared(in, out sql.Type) bool {
	if types.IsInteger(in) && types.IsInteger(out) {
		return true
	}
	tc, ok := in.(sql.TypeWithCollation)
	return ok && types.IsTextOnly(in) && in.Equals(out) && tc.Collation() == sql.Collation_utf8mb4_0900_bin
}

// emptyAggValue is the value of aggregate e over no rows; ok is false for
// an expression that is not one of the aggregates the rule knows.
func emptyAggValue(e sql.Expression) (any, bool) {
	if _, ok := e.(sql.IdExpression); !ok {
		return nil, false
	}
	switch e.(type) {
	case *aggregation.Min, *aggregation.Max, *aggregation.Sum, *aggregation.Avg, *mysqlfix.Sum, *mysqlfix.Avg:
		return nil, true
	case *aggregation.Count, *aggregation.CountDistinct:
		return int64(0), true
	}
	return nil, false
}

// nullOnEmpty reports whether the subquery's value over no inner rows is
// NULL: its projection evaluated with every aggregate at its empty value.
// The projection may use only the aggregates and constants.
func (m *scalarAgg) nullOnEmpty(ctx *sql.Context) bool {
	empty := map[sql.ColumnId]sql.Expression{}
	for _, e := range m.gb.SelectedExprs {
		v, _ := emptyAggValue(e)
		empty[e.(sql.IdExpression).Id()] = expression.NewLiteral(v, e.Type())
	}
	ok := true
	sub, _, err := transform.Expr(m.proj, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch e := e.(type) {
		case *expression.GetField:
			lit, known := empty[e.Id()]
			ok = ok && known
			if known {
				return lit, transform.NewTree, nil
			}
		case *plan.Subquery, sql.NonDeterministicExpression:
			ok = false
		}
		return e, transform.SameTree, nil
	})
	if err != nil || !ok {
		return false
	}
	v, err := sub.Eval(ctx, nil)
	return err == nil && v == nil
}

// compareWith is the rewritten conjunct: the comparison with the derived
// table's value in place of the subquery.
func (m *scalarAgg) compareWith(value sql.Expression) (sql.Expression, error) {
	ops := []sql.Expression{m.other, value}
	if m.sqLeft {
		ops[0], ops[1] = value, m.other
	}
	c, err := m.cmp.WithChildren(ops...)
	if err != nil || !m.not {
		return c, err
	}
	return expression.NewNot(c), nil
}
