package rewrite_test

import "testing"

// TestFactorOr_MatchesGMS: ORs whose branches share conjuncts (Q19's
// shape and others: nested ORs, a branch that is only the common part,
// NULLs in every column, single-table ORs) answer as GMS's plan of the
// query as written does.
func TestFactorOr_MatchesGMS(t *testing.T) {
	conn := residualTables(t)
	for _, c := range []struct {
		node, q string
		empty   bool
	}{
		// Q19's shape: the key in every branch, single-table parts on both sides.
		{"HashJoin", "SELECT l.k, l.s, r.s, SUM(r.w) FROM l, r WHERE (l.k = r.k AND l.s = 'a' AND r.w > 0 AND l.k2 IN (0, 1)) OR (l.k = r.k AND l.s = 'b' AND r.w < 5 AND r.c LIKE '%special%') OR (r.k = l.k AND l.s IS NULL AND r.c IS NULL) GROUP BY l.k, l.s, r.s", false},
		{"KeyedLookup", "SELECT COUNT(*), SUM(l.v * (1 - r.w)) FROM l JOIN r ON (l.k = r.k AND l.s = 'a' AND r.w BETWEEN -3 AND 3) OR (l.k = r.k AND l.s = 'b' AND r.w BETWEEN 0 AND 9)", false},
		// A branch with no single-table part on r: nothing derived for r.
		{"KeyedLookup", "SELECT l.k, r.k2 FROM l, r WHERE (l.k = r.k AND l.s = 'a') OR (l.k = r.k AND l.v > r.w)", false},
		// Common part alone in one branch: A OR (A AND B) = A.
		{"HashJoin", "SELECT l.k, r.k2 FROM l, r WHERE (l.k = r.k AND l.k2 = r.k2) OR (l.k = r.k AND l.k2 = r.k2 AND l.s = 'c')", false},
		// Two common conjuncts, nested ORs, a NOT around a factored OR.
		{"", "SELECT k, s, v FROM l WHERE (k2 = 1 AND s = 'a' AND v > 0) OR ((k2 = 1 AND s = 'a' AND v IS NULL) OR (s = 'a' AND k2 = 1 AND c LIKE '%special%'))", false},
		{"", "SELECT k, s, v FROM l WHERE NOT ((k2 = 1 AND v > 0) OR (k2 = 1 AND v < -2))", false},
		{"", "SELECT k, s, v FROM l WHERE (k2 = 1 AND v > 0) OR (k2 = 1 AND v < -2) OR (s = 'b')", false},
		// In a LEFT JOIN's ON and in a HAVING.
		{"KeyedLookup", "SELECT l.k, l.s, r.w FROM l LEFT JOIN r ON (l.k = r.k AND r.s = 'a') OR (l.k = r.k AND r.w > l.v)", false},
		{"", "SELECT k2, COUNT(*) AS n FROM l GROUP BY k2 HAVING (COUNT(*) > 3 AND MAX(v) > 0) OR (COUNT(*) > 3 AND MIN(v) < 0)", false},
		// Empty sides.
		{"", "SELECT l.k FROM l, e WHERE (l.k = e.k AND e.s = 'a') OR (l.k = e.k AND l.s = 'b')", true},
	} {
		t.Run("", func(t *testing.T) {
			node := c.node
			if node == "" {
				node = "!KeyedLookup(none)"
			}
			if got := sameWithAndWithout(t, conn, node, c.q); got == "" && !c.empty {
				t.Errorf("%s: no rows, the case tests nothing", c.q)
			}
		})
	}
}
