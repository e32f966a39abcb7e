package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// queryGen writes random SELECTs over the tables genSchema creates:
// multi-way joins of every kind, derived tables, correlated and
// uncorrelated subqueries, aggregates and nested expressions. It is seeded,
// so a failing statement is reproduced by its seed and index.
type queryGen struct {
	r     *rand.Rand
	depth int
}

// genTables are the tables genSchema makes, each with columns a, b (INT),
// c (VARCHAR) and d (DECIMAL(7,2)); g3 and g4 have a primary key on a,
// which gives GMS's join planner functional dependencies to work with.
var genTables = []string{"g1", "g2", "g3", "g4"}

// genSchema creates and fills genTables: a few rows each, NULLs in every
// column, overlapping keys so that joins match.
func genSchema() []string {
	stmts := []string{"CREATE DATABASE fz", "USE fz"}
	for i, t := range genTables {
		keyed := i >= 2
		pk := ""
		if keyed {
			pk = " PRIMARY KEY"
		}
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s (a INT%s, b INT, c VARCHAR(10), d DECIMAL(7,2))", t, pk))
		var vals []string
		for k := 0; k < 6+i; k++ {
			a := fmt.Sprint(k % (3 + i))
			if keyed {
				a = fmt.Sprint(k)
			}
			b := fmt.Sprint((k * 7) % 5)
			c := fmt.Sprintf("'s%d'", k%3)
			d := fmt.Sprintf("%d.%02d", k*13%100, k*17%100)
			switch (k + i) % 5 {
			case 0:
				if !keyed {
					a = "NULL"
				}
			case 2:
				c = "NULL"
			case 4:
				d = "NULL"
			}
			vals = append(vals, fmt.Sprintf("(%s, %s, %s, %s)", a, b, c, d))
		}
		stmts = append(stmts, fmt.Sprintf("INSERT INTO %s VALUES %s", t, strings.Join(vals, ", ")))
	}
	return stmts
}

func newQueryGen(seed uint64) *queryGen {
	return &queryGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (g *queryGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// scope is the aliases visible to an expression.
type scope []string

func (g *queryGen) col(s scope) string {
	return s[g.r.IntN(len(s))] + "." + g.pick("a", "b", "c", "d")
}

func (g *queryGen) numCol(s scope) string {
	return s[g.r.IntN(len(s))] + "." + g.pick("a", "b", "d")
}

// Select is one random SELECT statement.
func (g *queryGen) Select() string {
	g.depth = 0
	return g.selectStmt(nil)
}

func (g *queryGen) selectStmt(outer scope) string {
	g.depth++
	defer func() { g.depth-- }()
	from, s := g.from()
	all := append(append(scope{}, s...), outer...)
	var b strings.Builder
	grouped := g.r.IntN(3) == 0
	b.WriteString("SELECT ")
	if g.r.IntN(6) == 0 {
		b.WriteString("DISTINCT ")
	}
	n := 1 + g.r.IntN(3)
	var groupBy []string
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		if grouped {
			if i == 0 {
				c := g.col(s)
				groupBy = append(groupBy, c)
				b.WriteString(c)
			} else {
				b.WriteString(g.aggregate(s))
			}
		} else {
			b.WriteString(g.expr(all, 2))
		}
		fmt.Fprintf(&b, " AS x%d", i)
	}
	b.WriteString(" FROM ")
	b.WriteString(from)
	if g.r.IntN(2) == 0 {
		b.WriteString(" WHERE ")
		b.WriteString(g.cond(all, 2))
	}
	if grouped {
		b.WriteString(" GROUP BY " + strings.Join(groupBy, ", "))
		if g.r.IntN(3) == 0 {
			b.WriteString(" HAVING " + g.aggregate(s) + g.pick(" > ", " < ", " = ", " <> ") + g.literal())
		}
	}
	if outer == nil && g.r.IntN(2) == 0 {
		b.WriteString(" ORDER BY 1")
		if g.r.IntN(2) == 0 {
			fmt.Fprintf(&b, " LIMIT %d", g.r.IntN(5))
		}
	}
	return b.String()
}

// from is a join tree of 1–5 tables (or derived tables) and the aliases
// it brings into scope.
func (g *queryGen) from() (string, scope) {
	n := 1 + g.r.IntN(5)
	if g.depth > 1 {
		n = 1 + g.r.IntN(2)
	}
	var s scope
	var b strings.Builder
	for i := 0; i < n; i++ {
		alias := fmt.Sprintf("t%d_%d", g.depth, i)
		src := genTables[g.r.IntN(len(genTables))]
		if g.depth < 3 && g.r.IntN(8) == 0 {
			src = "(" + g.selectStar() + ")"
		}
		if i == 0 {
			fmt.Fprintf(&b, "%s AS %s", src, alias)
			s = append(s, alias)
			continue
		}
		kind := g.pick("JOIN", "INNER JOIN", "LEFT JOIN", "RIGHT JOIN", "CROSS JOIN", "LEFT OUTER JOIN", "STRAIGHT_JOIN", ",")
		fmt.Fprintf(&b, " %s %s AS %s", kind, src, alias)
		s = append(s, alias)
		if kind == "," || kind == "CROSS JOIN" {
			continue
		}
		if kind == "STRAIGHT_JOIN" && g.r.IntN(2) == 0 {
			continue
		}
		b.WriteString(" ON " + g.joinCond(s))
	}
	return b.String(), s
}

// selectStar is a derived table with the base tables' column names.
func (g *queryGen) selectStar() string {
	t := genTables[g.r.IntN(len(genTables))]
	switch g.r.IntN(3) {
	case 0:
		return "SELECT a, b, c, d FROM " + t
	case 1:
		return "SELECT a, b, c, d FROM " + t + " WHERE a IS NOT NULL"
	default:
		return "SELECT a, MAX(b) AS b, MIN(c) AS c, SUM(d) AS d FROM " + t + " GROUP BY a"
	}
}

// joinCond relates the newest alias to earlier ones.
func (g *queryGen) joinCond(s scope) string {
	last := s[len(s)-1]
	other := s[g.r.IntN(len(s)-1)]
	c := fmt.Sprintf("%s.a = %s.%s", other, last, g.pick("a", "b"))
	switch g.r.IntN(6) {
	case 0:
		c += fmt.Sprintf(" AND %s.b = %s.b", s[g.r.IntN(len(s))], last)
	case 1:
		c += " AND " + g.cond(s, 1)
	case 2:
		c = fmt.Sprintf("(%s OR %s.c = %s.c)", c, other, last)
	case 3:
		if len(s) > 2 {
			c += fmt.Sprintf(" AND %s.b = %s.a", s[0], s[len(s)-2])
		}
	case 4:
		c += fmt.Sprintf(" AND %s.a IN (SELECT a FROM %s)", last, genTables[g.r.IntN(len(genTables))])
	}
	return c
}

func (g *queryGen) literal() string {
	return g.pick("0", "1", "2", "-1", "NULL", "'s1'", "'x'", "1.5", "99999.99", "''", "3")
}

func (g *queryGen) aggregate(s scope) string {
	switch g.r.IntN(7) {
	case 0:
		return "COUNT(*)"
	case 1:
		return "COUNT(DISTINCT " + g.col(s) + ")"
	case 2:
		return "SUM(" + g.numCol(s) + " * " + g.numCol(s) + ")"
	case 3:
		return "AVG(" + g.numCol(s) + ")"
	case 4:
		return g.pick("MIN", "MAX") + "(" + g.col(s) + ")"
	case 5:
		return "GROUP_CONCAT(" + g.col(s) + ")"
	default:
		return "SUM(" + g.numCol(s) + ")"
	}
}

// expr is a scalar expression of at most depth levels.
func (g *queryGen) expr(s scope, depth int) string {
	if depth <= 0 {
		if g.r.IntN(4) == 0 {
			return g.literal()
		}
		return g.col(s)
	}
	d := depth - 1
	switch g.r.IntN(14) {
	case 0:
		return "(" + g.expr(s, d) + g.pick(" + ", " - ", " * ", " / ", " DIV ", " % ") + g.expr(s, d) + ")"
	case 1:
		return "CASE WHEN " + g.cond(s, d) + " THEN " + g.expr(s, d) + " ELSE " + g.expr(s, d) + " END"
	case 2:
		return "COALESCE(" + g.expr(s, d) + ", " + g.expr(s, d) + ")"
	case 3:
		return "IF(" + g.cond(s, d) + ", " + g.expr(s, d) + ", " + g.expr(s, d) + ")"
	case 4:
		return "CAST(" + g.expr(s, d) + " AS " + g.pick("SIGNED", "CHAR", "DECIMAL(10,2)", "DOUBLE", "UNSIGNED", "DATE") + ")"
	case 5:
		return g.pick("CONCAT", "IFNULL", "NULLIF", "GREATEST", "LEAST") + "(" + g.expr(s, d) + ", " + g.expr(s, d) + ")"
	case 6:
		return g.pick("ABS", "LENGTH", "UPPER", "ROUND", "FLOOR", "HEX", "-") + "(" + g.expr(s, d) + ")"
	case 7:
		if g.depth < 3 {
			// A scalar subquery, correlated on one of the outer aliases.
			t := genTables[g.r.IntN(len(genTables))]
			return fmt.Sprintf("(SELECT %s(z.b) FROM %s AS z WHERE z.a = %s)", g.pick("MAX", "MIN", "SUM", "COUNT"), t, g.numCol(s))
		}
		return g.col(s)
	case 8:
		return "(" + g.cond(s, d) + ")"
	case 9:
		return g.pick("SUBSTRING", "LEFT", "RIGHT", "REPEAT") + "(" + g.expr(s, d) + ", " + g.pick("1", "2", "0", "-1") + ")"
	default:
		return g.col(s)
	}
}

// cond is a boolean expression.
func (g *queryGen) cond(s scope, depth int) string {
	d := depth - 1
	if depth <= 0 {
		return g.col(s) + g.pick(" = ", " < ", " > ", " <> ", " <=> ", " >= ") + g.literal()
	}
	switch g.r.IntN(11) {
	case 0:
		return "(" + g.cond(s, d) + g.pick(" AND ", " OR ", " XOR ") + g.cond(s, d) + ")"
	case 1:
		return "NOT " + g.cond(s, d)
	case 2:
		return g.expr(s, d) + " IS " + g.pick("NULL", "NOT NULL", "TRUE", "FALSE")
	case 3:
		return g.expr(s, d) + " BETWEEN " + g.literal() + " AND " + g.literal()
	case 4:
		return g.expr(s, d) + " IN (" + g.literal() + ", " + g.literal() + ", " + g.expr(s, d) + ")"
	case 5:
		if g.depth < 3 {
			return g.numCol(s) + g.pick(" IN ", " NOT IN ") + "(SELECT " + g.pick("a", "b") + " FROM " + genTables[g.r.IntN(len(genTables))] + ")"
		}
		return g.col(s) + " IS NULL"
	case 6:
		if g.depth < 3 {
			return g.pick("EXISTS ", "NOT EXISTS ") + "(" + g.selectStmt(s) + ")"
		}
		return g.col(s) + " IS NOT NULL"
	case 7:
		return g.expr(s, d) + " LIKE " + g.pick("'s%'", "'%1'", "'_'", "NULL")
	default:
		return g.expr(s, d) + g.pick(" = ", " < ", " > ", " <> ", " <=> ", " >= ") + g.expr(s, d)
	}
}
