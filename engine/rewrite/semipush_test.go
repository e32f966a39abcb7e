package rewrite_test

import (
	"strings"
	"testing"
)

// TestPushSemiJoins_MatchesGMS: a semi or anti join over a join, whose
// condition reads one input, moves down to that input (below the join
// when it may, never into a left join's NULL-extended side) and answers
// as GMS's plan does: duplicates on both sides, NULL keys, NOT IN's NULL
// rule, empty sides.
func TestPushSemiJoins_MatchesGMS(t *testing.T) {
	conn := residualTables(t)
	for _, c := range []struct {
		q      string
		pushed bool // the semi or anti join ends below another join
		empty  bool
	}{
		// Q18's shape.
		{"SELECT l.k, l.s, SUM(r.w) FROM l, r, u WHERE l.k IN (SELECT k FROM r GROUP BY k HAVING SUM(w) > 0) AND l.k = r.k AND r.k2 = u.k GROUP BY l.k, l.s", true, false},
		{"SELECT l.k, r.k2 FROM l JOIN r ON l.k = r.k WHERE r.k2 IN (SELECT k FROM l GROUP BY k HAVING COUNT(*) > 3)", true, false},
		{"SELECT l.k, r.k2 FROM l JOIN r ON l.k = r.k WHERE EXISTS (SELECT * FROM e WHERE e.k = r.k2) OR l.k = 1", false, false},
		{"SELECT l.k, r.k2 FROM l JOIN r ON l.k = r.k WHERE NOT EXISTS (SELECT * FROM r AS r3 WHERE r3.k = r.k2 AND r3.s <> r.s)", true, false},
		{"SELECT l.k, r.k2 FROM l JOIN r ON l.k = r.k AND l.s = r.s WHERE r.k2 NOT IN (SELECT k FROM l WHERE k IS NOT NULL GROUP BY k HAVING COUNT(*) > 3)", true, true},
		// A left join: the preserved side may take it, the other may not.
		{"SELECT l.k, r.k2 FROM l LEFT JOIN r ON l.k = r.k AND r.w > 0 WHERE l.k2 IN (SELECT k FROM r GROUP BY k HAVING COUNT(*) > 9)", true, false},
		{"SELECT l.k, r.k2 FROM l LEFT JOIN r ON l.k = r.k AND r.w > 0 WHERE r.k2 IN (SELECT k FROM l GROUP BY k HAVING COUNT(*) > 9)", false, false},
		{"SELECT l.k, r.k2 FROM l LEFT JOIN r ON l.k = r.k WHERE NOT EXISTS (SELECT * FROM r AS r3 WHERE r3.k = r.k2)", false, false},
		{"SELECT l.k, r.k2 FROM l LEFT JOIN e AS r ON l.k = r.k WHERE l.k2 IN (SELECT k FROM r GROUP BY k HAVING COUNT(*) > 9)", true, false},
		{"SELECT l.k FROM l JOIN e ON l.k = e.k WHERE l.k2 IN (SELECT k FROM r GROUP BY k HAVING COUNT(*) > 9)", true, true},
	} {
		t.Run("", func(t *testing.T) {
			if got := sameWithAndWithout(t, conn, "!KeyedLookup(none)", c.q); got == "" && !c.empty {
				t.Errorf("%s: no rows, the case tests nothing", c.q)
			}
			plan := gmsPlan(t, conn, c.q)
			if semiBelowJoin(plan) != c.pushed {
				t.Errorf("semi join below a join: %t, want %t: %s\n%s", !c.pushed, c.pushed, c.q, plan)
			}
		})
	}
}

// semiBelowJoin reports whether the plan's first semi or anti join is
// indented below its first other join.
func semiBelowJoin(plan string) bool {
	semi, join := -1, -1
	for i, line := range strings.Split(plan, "\n") {
		trimmed := strings.TrimLeft(line, " │├└─")
		switch {
		case semi < 0 && (strings.HasPrefix(trimmed, "SemiJoin") || strings.HasPrefix(trimmed, "AntiJoin") || strings.HasPrefix(trimmed, "SemiHashJoin") || strings.HasPrefix(trimmed, "AntiHashJoin")):
			semi = i
		case join < 0 && strings.Contains(trimmed, "Join") && !strings.HasPrefix(trimmed, "Semi") && !strings.HasPrefix(trimmed, "Anti"):
			join = i
		}
	}
	return semi >= 0 && join >= 0 && join < semi
}
