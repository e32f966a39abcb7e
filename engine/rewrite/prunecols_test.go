package rewrite_test

import (
	"strings"
	"testing"
)

// TestPruneJoinColumns_MatchesGMS: tables below hash joins read only the
// columns the plan uses, and every query answers as with all columns
// read: EXISTS (SELECT *), a Distinct whose result depends on every
// column it sees, derived tables, subqueries reading the outer row,
// unqualified columns.
func TestPruneJoinColumns_MatchesGMS(t *testing.T) {
	conn := residualTables(t)
	for _, c := range []struct {
		q       string
		columns []string // fragments the plan shows with pruning
		empty   bool
	}{
		// Q04's shape.
		{"SELECT l.s, COUNT(*) FROM l WHERE l.k2 < 2 AND EXISTS (SELECT * FROM r WHERE r.k = l.k AND r.w < r.k2) GROUP BY l.s",
			[]string{"columns: [k k2 w]", "columns: [k k2 s]"}, false},
		{"SELECT l.s FROM l WHERE EXISTS (SELECT * FROM r WHERE r.k = l.k)", []string{"columns: [k]"}, false},
		// A Distinct over a join keeps every column it sees.
		{"SELECT DISTINCT l.s, r.s FROM l JOIN r ON l.k = r.k", nil, false},
		{"SELECT COUNT(*) FROM (SELECT DISTINCT l.s, l.c, r.k2 FROM l JOIN r ON l.k = r.k) AS t", nil, false},
		// Derived tables, ORDER BY / LIMIT above the join, expressions.
		{"SELECT t.a, SUM(t.b) FROM (SELECT l.s AS a, r.w * l.v AS b, r.c FROM l JOIN r ON l.k = r.k) AS t GROUP BY t.a", nil, false},
		{"SELECT l.k, r.w FROM l JOIN r ON l.k = r.k ORDER BY r.w DESC, l.k LIMIT 7", nil, false},
		{"SELECT l.k, l.v + r.w, CONCAT(l.s, r.c) FROM l JOIN r ON l.k = r.k AND l.k2 = r.k2 WHERE r.c IS NOT NULL", nil, false},
		// A scalar subquery reading the outer row's columns.
		{"SELECT l.k, (SELECT MAX(e.w) FROM e WHERE e.c = l.c) FROM l JOIN r ON l.k = r.k WHERE l.v > 0", nil, false},
		{"SELECT l.k, r.k2 FROM l JOIN r ON l.k = r.k WHERE l.v > (SELECT MIN(r2.w) FROM r AS r2 WHERE r2.s = l.s)", nil, false},
		// Empty sides.
		{"SELECT l.s FROM l WHERE EXISTS (SELECT * FROM e WHERE e.k = l.k)", nil, true},
		{"SELECT e.s, COUNT(*) FROM e JOIN l ON e.k = l.k GROUP BY e.s", nil, true},
	} {
		t.Run("", func(t *testing.T) {
			if got := sameWithAndWithout(t, conn, "!KeyedLookup(none)", c.q); got == "" && !c.empty {
				t.Errorf("%s: no rows, the case tests nothing", c.q)
			}
			plan := gmsPlan(t, conn, c.q)
			for _, f := range c.columns {
				if !strings.Contains(plan, f) {
					t.Errorf("plan lacks %q: %s\n%s", f, c.q, plan)
				}
			}
		})
	}
}
