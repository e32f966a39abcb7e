package difftest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Gen writes random SELECTs over generated tables. It is deterministic for
// a seed, so a mismatch is reproduced by the seed and the query's index.
type Gen struct {
	r      *rand.Rand
	tables []Table
	noDiv  bool // see withoutDiv
}

// Query is a generated statement. Ordered results are compared in order;
// the generator only orders by every selected column, so the order is
// total and both servers must agree on it.
type Query struct {
	SQL     string
	Ordered bool
}

// NewGen makes a generator over tables.
func NewGen(r *rand.Rand, tables []Table) *Gen { return &Gen{r: r, tables: tables} }

// tableScope is t's columns under alias.
func tableScope(t Table, alias string) scope {
	s := make(scope, len(t.Cols))
	for i, c := range t.Cols {
		s[i] = ref{sql: alias + "." + c.Name, t: c.Type}
	}
	return s
}

func (g *Gen) table() Table { return g.tables[g.r.IntN(len(g.tables))] }

// from writes a FROM clause of one table or a join of two or three, and
// returns the columns it makes visible.
func (g *Gen) from() (string, scope) {
	t := g.table()
	clause, s := t.Name+" a", tableScope(t, "a")
	n := g.r.IntN(3)
	if g.r.IntN(2) == 0 {
		n = 0
	}
	for i := 0; i < n; i++ {
		u := g.table()
		alias := string(rune('b' + i))
		us := tableScope(u, alias)
		both := append(append(scope{}, s...), us...)
		// An integer column: a hash join of a DATE with an INT fails with
		// 1366 (incorrect datetime value) where MySQL compares them as
		// numbers.
		prev := "a.k"
		if ints := s.operands(KindInt); g.r.IntN(3) == 0 {
			prev = ints[g.r.IntN(len(ints))].sql
		}
		on := fmt.Sprintf("%s = %s.k", prev, alias)
		if s[0].sql != prev && g.r.IntN(2) == 0 {
			// A join on a column of the same kind, not only the key.
			on = g.joinOn(s, us)
		}
		if g.r.IntN(4) == 0 {
			on += " AND " + g.onCond(us, both)
		}
		kind := pick(g.r, "JOIN", "JOIN", "LEFT JOIN", "RIGHT JOIN")
		// A CROSS JOIN only last: GMS fails `a CROSS JOIN b RIGHT JOIN c
		// ON a.k = c.x WHERE (b.y <> a.z OR …)` with 1105 "unable to find
		// field with index 14 in row of 6 columns".
		if i == n-1 && g.r.IntN(8) == 0 {
			clause += fmt.Sprintf(" CROSS JOIN %s %s", u.Name, alias)
		} else {
			clause += fmt.Sprintf(" %s %s %s ON %s", kind, u.Name, alias, on)
		}
		s = both
	}
	return clause, s
}

// joinOn equates a column of left with a column of the same kind in right
// (falling back to the keys).
func (g *Gen) joinOn(left, right scope) string {
	l := left[g.r.IntN(len(left))]
	if cands := comparable(l, right); len(cands) > 0 && l.t.Kind != KindBool {
		return l.sql + " = " + cands[g.r.IntN(len(cands))].sql
	}
	return left[0].sql + " = " + right[0].sql
}

// comparable are the columns of s of l's kind.
func comparable(l ref, s scope) []ref {
	return s.ofKind(l.t.Kind)
}

// inComparable are the columns an IN subquery may compare l with: of the
// same kind (any widths, DECIMALs of any precision and scale), strings
// only of the same type.
func inComparable(l ref, s scope) []ref {
	var out []ref
	for _, c := range s.ofKind(l.t.Kind) {
		if l.t.Kind != KindString || c.t.SQL == l.t.SQL {
			out = append(out, c)
		}
	}
	return out
}

// Next writes the next random query.
func (g *Gen) Next() Query {
	switch g.r.IntN(10) {
	case 0, 1, 2:
		return g.aggregate()
	case 3:
		return g.globalAggregate()
	default:
		return g.plain()
	}
}

// plain is SELECT [DISTINCT] exprs FROM … [WHERE] [ORDER BY all LIMIT].
func (g *Gen) plain() Query {
	from, s := g.from()
	n := 1 + g.r.IntN(4)
	items := make([]string, n)
	for i := range items {
		var e string
		if g.r.IntN(10) == 0 {
			e = g.scalarSubquery(s)
		} else if g.r.IntN(3) == 0 {
			e = s[g.r.IntN(len(s))].sql
		} else {
			e, _ = g.exprOfScope(s, 2)
		}
		items[i] = fmt.Sprintf("%s AS x%d", e, i)
	}
	q := "SELECT "
	if g.r.IntN(6) == 0 {
		q += "DISTINCT "
	}
	q += joinList(items) + " FROM " + from
	if g.r.IntN(3) != 0 {
		q += " WHERE " + g.where(s)
	}
	return g.orderLimit(q, n)
}

// where is a condition, sometimes with a subquery.
func (g *Gen) where(s scope) string {
	switch g.r.IntN(8) {
	case 0:
		return g.inSubquery(s)
	case 1:
		return g.exists(s)
	default:
		return g.cond(s, 2)
	}
}

// inSubquery is `x [NOT] IN (SELECT y FROM t WHERE …)` with x and y of one kind.
func (g *Gen) inSubquery(s scope) string {
	outer := s[g.r.IntN(len(s))]
	t := g.table()
	ts := tableScope(t, "s")
	cands := inComparable(outer, ts)
	if len(cands) == 0 {
		outer, cands = s[0], ts[:1]
	}
	inner := cands[g.r.IntN(len(cands))]
	not := pick(g.r, "", "NOT ")
	if not != "" && (inner.t.Kind == KindInt || inner.t.Kind == KindDecimal) && inner.t.SQL != outer.t.SQL {
		// NOT IN between columns of one numeric type only: MariaDB
		// answers TRUE for a probe outside the subquery column's range
		// (-1 NOT IN a TINYINT UNSIGNED column, -486.2 NOT IN a
		// DECIMAL(2,1) one) even when the column holds a NULL, where
		// MySQL 8 (and lakesql) answer NULL.
		not = ""
	}
	sub := fmt.Sprintf("SELECT %s FROM %s s", inner.sql, t.Name)
	switch g.r.IntN(4) {
	case 0, 1:
		sub += " WHERE " + g.colCond(ts)
	case 2:
		// A condition on no column (decided when planned), alone or
		// with one on a column.
		sub += " WHERE " + g.cond(scope{}, 1)
		if g.r.IntN(2) == 0 {
			sub += " AND " + g.colCond(ts)
		}
	}
	return fmt.Sprintf("%s %sIN (%s)", outer.sql, not, sub)
}

// colCond is a condition on a column of s.
func (g *Gen) colCond(s scope) string {
	c := s[g.r.IntN(len(s))]
	if c.t.Kind == KindBool {
		return c.sql + pick(g.r, "", " IS NULL", " = FALSE")
	}
	if g.r.IntN(4) == 0 {
		return c.sql + pick(g.r, " IS NULL", " IS NOT NULL")
	}
	return fmt.Sprintf("%s %s %s", c.sql, pick(g.r, "=", "<>", "<", ">="), g.lit(scope{c}, c.t.Kind))
}

// onCond is an ON's extra conjunct: over the joined table's columns, over
// both sides' (a disjunction, which no side can take alone), or a
// constant.
func (g *Gen) onCond(joined, both scope) string {
	switch g.r.IntN(5) {
	case 0, 1:
		return g.colCond(joined)
	case 2, 3:
		return fmt.Sprintf("(%s OR %s)", g.colCond(both), g.colCond(joined))
	}
	return pick(g.r, "1e0 > 1e0", "1 = 1")
}

// exists is a correlated [NOT] EXISTS on the key.
func (g *Gen) exists(s scope) string {
	t := g.table()
	ts := tableScope(t, "s")
	cond := fmt.Sprintf("s.k = %s", s[0].sql)
	if g.r.IntN(2) == 0 {
		cond += " AND " + g.colCond(ts)
	}
	return fmt.Sprintf("%sEXISTS (SELECT 1 FROM %s s WHERE %s)", pick(g.r, "", "NOT "), t.Name, cond)
}

// scalarSubquery is an aggregate of another table, correlated on the key
// half the time.
func (g *Gen) scalarSubquery(s scope) string {
	t := g.table()
	ts := tableScope(t, "s")
	c := ts[g.r.IntN(len(ts))]
	agg := fmt.Sprintf("%s(%s)", pick(g.r, "MAX", "MIN", "COUNT"), c.sql)
	if c.t.Kind == KindInt || c.t.Kind == KindDecimal {
		agg = fmt.Sprintf("%s(%s)", pick(g.r, "MAX", "MIN", "COUNT", "SUM"), c.sql)
	}
	q := fmt.Sprintf("(SELECT %s FROM %s s", agg, t.Name)
	if g.r.IntN(2) == 0 {
		q += fmt.Sprintf(" WHERE s.k = %s", s[0].sql)
	}
	return q + ")"
}

// aggregate is SELECT cols, aggs FROM … GROUP BY cols [HAVING] [ORDER BY].
func (g *Gen) aggregate() Query {
	from, s := g.from()
	ng := 1 + g.r.IntN(2)
	var items, keys []string
	for i := 0; i < ng; i++ {
		c := s[g.r.IntN(len(s))].sql
		keys = append(keys, c)
		items = append(items, fmt.Sprintf("%s AS x%d", c, len(items)))
	}
	for i, na := 0, 1+g.r.IntN(3); i < na; i++ {
		items = append(items, fmt.Sprintf("%s AS x%d", g.agg(s), len(items)))
	}
	q := "SELECT " + joinList(items) + " FROM " + from
	if g.r.IntN(2) == 0 {
		q += " WHERE " + g.where(s)
	}
	q += " GROUP BY " + strings.Join(keys, ", ")
	if g.r.IntN(3) == 0 {
		q += " HAVING " + g.having(s)
	}
	return g.orderLimit(q, len(items))
}

// globalAggregate is aggregates over the whole (filtered) input: one row.
func (g *Gen) globalAggregate() Query {
	from, s := g.from()
	var items []string
	for i, na := 0, 1+g.r.IntN(4); i < na; i++ {
		items = append(items, fmt.Sprintf("%s AS x%d", g.agg(s), i))
	}
	q := "SELECT " + joinList(items) + " FROM " + from
	if g.r.IntN(2) == 0 {
		q += " WHERE " + g.where(s)
	}
	return Query{SQL: q}
}

// agg is an aggregate call over s.
func (g *Gen) agg(s scope) string {
	c := s[g.r.IntN(len(s))]
	switch g.r.IntN(8) {
	case 0:
		return "COUNT(*)"
	case 1:
		return fmt.Sprintf("COUNT(%s%s)", pick(g.r, "", "DISTINCT "), c.sql)
	case 2, 3:
		return fmt.Sprintf("%s(%s)", pick(g.r, "MIN", "MAX"), c.sql)
	default:
		// SUM/AVG of numeric columns and expressions (AVG and SUM print
		// a DECIMAL expression's scale: mysqlfix/decimal*.go).
		k := g.numKind()
		arg := g.withoutDiv(func() string { return g.expr(s, k, 1) })
		if num := s.ofKind(k); len(num) > 0 && g.r.IntN(2) == 0 {
			if len(num) == 0 {
				return "COUNT(*)"
			}
			arg = num[g.r.IntN(len(num))].sql
		}
		return fmt.Sprintf("%s(%s)", pick(g.r, "SUM", "AVG", "SUM", "MIN", "MAX"), arg)
	}
}

// having compares an aggregate with a literal.
func (g *Gen) having(s scope) string {
	if g.r.IntN(2) == 0 {
		return fmt.Sprintf("COUNT(*) %s %d", pick(g.r, ">", ">=", "=", "<"), 1+g.r.IntN(3))
	}
	// Columns of the first table only: GMS fails a HAVING aggregate over
	// the inner side of a LEFT JOIN with 1146 "table not found: b".
	var num []ref
	for _, c := range append(s.ofKind(KindInt), s.ofKind(KindDecimal)...) {
		if strings.HasPrefix(c.sql, "a.") {
			num = append(num, c)
		}
	}
	if len(num) == 0 {
		return "COUNT(*) > 0"
	}
	c := num[g.r.IntN(len(num))]
	// A literal that fits the column: the binder converts a literal
	// compared with MAX(c) to c's type (see lit).
	return fmt.Sprintf("%s(%s) %s %s", pick(g.r, "SUM", "MAX", "MIN", "AVG"), c.sql, pick(g.r, ">", "<", "<>"), pick(g.r, "0", "1", g.lit(scope{c}, c.t.Kind)))
}

// orderLimit adds, half the time, ORDER BY every selected column (a total
// order over the result) and sometimes a LIMIT.
func (g *Gen) orderLimit(q string, n int) Query {
	if g.r.IntN(2) == 0 {
		return Query{SQL: q}
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("%d%s", i+1, pick(g.r, "", " DESC"))
	}
	q += " ORDER BY " + joinList(keys)
	if g.r.IntN(2) == 0 {
		q += fmt.Sprintf(" LIMIT %d", 1+g.r.IntN(5))
		// No OFFSET after DISTINCT: MariaDB 10.11 ignores it when the
		// DISTINCT result is one constant row (MySQL 8 and lakesql
		// return no row for `SELECT DISTINCT 1 … LIMIT 3 OFFSET 1`).
		if !strings.HasPrefix(q, "SELECT DISTINCT") && g.r.IntN(3) == 0 {
			q += fmt.Sprintf(" OFFSET %d", g.r.IntN(3))
		}
	}
	return Query{SQL: q, Ordered: true}
}
