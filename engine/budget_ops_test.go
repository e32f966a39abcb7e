package engine_test

import (
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// budgetOpsScript: past a 1 MiB budget, set operations, window functions
// and recursive CTEs either spill and answer as without a budget
// (UNION / EXCEPT DISTINCT's DISTINCT partitions to disk) or fail with
// 1038 naming the budget; the session answers its next query.
var budgetOpsScript = scriptTest{
	name:  "query memory budget: set operations, windows, recursive CTEs",
	setup: budgetSetup,
	checks: []check{
		{query: smallBudget},
		// UNION DISTINCT: 30,000 remembered hashes do not fit: it spills.
		{query: "SELECT COUNT(*), SUM(a), MIN(s) = MIN(LPAD('0', 8, '0')) FROM (SELECT a, s FROM d.t UNION SELECT a, s FROM d.t WHERE g < 50) q",
			want: []string{"30000|450015000|0"}},
		{query: "SELECT COUNT(*), SUM(a) FROM (SELECT a, g FROM d.t UNION DISTINCT SELECT a + 15000, g FROM d.t) q",
			want: []string{"45000|1012522500"}},
		// EXCEPT DISTINCT: both sides' DISTINCTs spill, the right side's
		// counts fit.
		{query: "SELECT COUNT(*), SUM(a) FROM (SELECT a, s FROM d.t EXCEPT SELECT a, s FROM d.t WHERE g < 10) q",
			want: []string{"27000|405121500"}},
		// INTERSECT of the whole table: its right side's counts do not fit.
		{query: "SELECT COUNT(*) FROM (SELECT s FROM d.t INTERSECT SELECT s FROM d.t) q", wantErr: budgetErr},
		{query: "SELECT COUNT(*) FROM (SELECT s FROM d.t INTERSECT SELECT s FROM d.t WHERE g < 10) q", want: []string{"3000"}},
		// A window over the table does not fit; over a part it does.
		{query: "SELECT COUNT(*), SUM(r) FROM (SELECT a, ROW_NUMBER() OVER (PARTITION BY g ORDER BY a) AS r FROM d.t) q", wantErr: budgetErr},
		{query: "SELECT COUNT(*), SUM(r) FROM (SELECT a, ROW_NUMBER() OVER (PARTITION BY g ORDER BY a) AS r FROM d.t WHERE g < 3) q",
			want: []string{"900|135450"}},
		// A recursive CTE's iteration and remembered hashes.
		{query: "WITH RECURSIVE r(n, s) AS (SELECT a, s FROM d.t UNION ALL SELECT n + 1, s FROM r WHERE n < 2) SELECT COUNT(*) FROM r", wantErr: budgetErr},
		{query: "WITH RECURSIVE r(n) AS (SELECT a FROM d.t WHERE a <= 3000 UNION SELECT n + 3000 FROM r WHERE n <= 27000) SELECT COUNT(*), SUM(n) FROM r", wantErr: budgetErr},
		{query: "WITH RECURSIVE r(n) AS (SELECT a FROM d.t WHERE a <= 300 UNION SELECT n + 300 FROM r WHERE n <= 2700) SELECT COUNT(*), SUM(n) FROM r",
			want: []string{"3000|4501500"}},
		{query: "SELECT COUNT(*) FROM d.t WHERE g = 7", want: []string{"300"}},
		{query: "SET lakesql_query_memory = DEFAULT"},
		{query: "SELECT COUNT(*) FROM (SELECT s FROM d.t INTERSECT SELECT s FROM d.t) q", want: []string{"30000"}},
		{query: "SELECT COUNT(*), SUM(r) FROM (SELECT a, ROW_NUMBER() OVER (PARTITION BY g ORDER BY a) AS r FROM d.t) q", want: []string{"30000|4515000"}},
		{query: "WITH RECURSIVE r(n) AS (SELECT a FROM d.t WHERE a <= 3000 UNION SELECT n + 3000 FROM r WHERE n <= 27000) SELECT COUNT(*), SUM(n) FROM r",
			want: []string{"30000|450015000"}},
	},
}

func TestQueryBudget_SetOpsWindowsRecursiveCTEs(t *testing.T) {
	t.Run("embedded", func(t *testing.T) {
		runScript(t, budgetOpsScript.name, embedded(t, enginetest.Open(t)), budgetOpsScript)
	})
	t.Run("wire", func(t *testing.T) {
		h, _ := serve(t, enginetest.Open(t), "")
		runScript(t, budgetOpsScript.name, wire(t, h), budgetOpsScript)
	})
}

// TestQueryBudget_OpsArePlannedAsTested: the queries above reach the
// operators they test (a plan change would make them test nothing).
func TestQueryBudget_OpsArePlannedAsTested(t *testing.T) {
	e := enginetest.Open(t)
	conn := e.Connect("root")
	defer conn.Close()
	run := embedded(t, e)
	for _, q := range budgetSetup {
		if _, err := run(q); err != nil {
			t.Fatal(q, err)
		}
	}
	for _, c := range []struct{ query, op string }{
		{budgetOpsScript.checks[1].query, "Union distinct"},
		{budgetOpsScript.checks[3].query, "Except distinct"},
		{budgetOpsScript.checks[4].query, "Intersect distinct"},
		{budgetOpsScript.checks[6].query, "Window"},
		{budgetOpsScript.checks[9].query, "RecursiveCTE"},
	} {
		if plan := enginetest.Explain(t, conn, c.query); !strings.Contains(plan, c.op) {
			t.Errorf("%s: no %s in the plan:\n%s", c.query, c.op, plan)
		}
	}
}

// TestSharedCTE_EvaluatedOnce: a CTE referenced twice (TPC-H Q15's shape)
// is evaluated once, its rows replayed for the second reference; under a
// budget its rows do not fit it is evaluated twice, with the same answer;
// a CTE over RAND() is never shared.
func TestSharedCTE_EvaluatedOnce(t *testing.T) {
	e := enginetest.Open(t)
	conn := e.Connect("root")
	defer conn.Close()
	run := embedded(t, e)
	for _, q := range budgetSetup {
		if _, err := run(q); err != nil {
			t.Fatal(q, err)
		}
	}
	const q15 = "WITH r AS (SELECT g, SUM(a) AS s FROM d.t GROUP BY g) " +
		"SELECT COUNT(*), SUM(r.s) FROM r JOIN (SELECT MAX(s) AS m FROM r) x ON r.s <= x.m"
	const wide = "WITH r AS (SELECT a, s FROM d.t WHERE g >= 0) " +
		"SELECT COUNT(*), SUM(r.a) FROM r JOIN (SELECT MAX(a) AS m FROM r) x ON r.a <= x.m"
	const random = "WITH r AS (SELECT a, RAND() AS x FROM d.t WHERE g = 0) " +
		"SELECT COUNT(*) FROM r JOIN (SELECT MAX(a) AS m FROM r) x ON r.a <= x.m"
	plan := enginetest.Render(t, conn, "EXPLAIN ANALYZE "+q15)
	if got := strings.Count(plan, "never executed"); got == 0 {
		t.Fatalf("the second reference ran:\n%s", plan)
	}
	if plan := enginetest.Render(t, conn, "EXPLAIN ANALYZE "+random); strings.Contains(plan, "never executed") {
		t.Fatalf("a CTE over RAND() was shared:\n%s", plan)
	}
	// Equal but for a filter the vectorised aggregate holds: not shared.
	const twoFilters = "WITH a AS (SELECT g, SUM(a) AS s FROM d.t WHERE a > 100 GROUP BY g), " +
		"b AS (SELECT g, SUM(a) AS s FROM d.t WHERE a > 200 GROUP BY g) " +
		"SELECT x.s, y.s FROM (SELECT SUM(s) AS s FROM a) x JOIN (SELECT SUM(s) AS s FROM b) y"
	runScript(t, "shared CTE", run, scriptTest{checks: []check{
		{query: q15, want: []string{"100|450015000"}},
		{query: twoFilters, want: []string{"450009950|449994900"}},
		{query: wide, want: []string{"30000|450015000"}},
		{query: random, want: []string{"300"}},
		{query: smallBudget},
		{query: q15, want: []string{"100|450015000"}},
		{query: wide, want: []string{"30000|450015000"}},
	}})
}
