package rewrite_test

import (
	"context"
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// correlatedTables creates an outer table o and an inner table i over
// several data files: NULL keys on both sides, outer keys no inner row
// has (empty groups), duplicate keys, groups whose values are all NULL,
// an INT inner key against a BIGINT outer one, and DECIMALs.
func correlatedTables(t *testing.T) *engine.Conn {
	t.Helper()
	ctx := context.Background()
	conn := enginetest.Open(t).Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE o (k INT, k2 BIGINT, s VARCHAR(10), x DECIMAL(10,2), g INT)",
		"CREATE TABLE i (k INT, k2 INT, s VARCHAR(10), v DECIMAL(10,2), f DOUBLE, flag INT)",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rng := rand.New(rand.NewSource(5))
	maybe := func(v string) string {
		if rng.Intn(8) == 0 {
			return "NULL"
		}
		return v
	}
	strs := []string{"'a'", "'b'", "'c'", "''"}
	for file := 0; file < 3; file++ {
		var vals []string
		for r := 0; r < 40; r++ {
			vals = append(vals, fmt.Sprintf("(%s, %s, %s, %s, %s)",
				maybe(fmt.Sprint(rng.Intn(14))), // 10..13: no inner rows
				maybe(fmt.Sprint(rng.Intn(3))),
				maybe(strs[rng.Intn(len(strs))]),
				maybe(fmt.Sprintf("%d.%02d", rng.Intn(60)-10, rng.Intn(100))),
				fmt.Sprint(rng.Intn(4))))
		}
		if err := conn.Exec(ctx, "INSERT INTO o VALUES "+strings.Join(vals, ", ")); err != nil {
			t.Fatal(err)
		}
	}
	for file := 0; file < 3; file++ {
		var vals []string
		for r := 0; r < 60; r++ {
			k := rng.Intn(10)
			v := maybe(fmt.Sprintf("%d.%02d", rng.Intn(60)-10, rng.Intn(100)))
			if k == 9 { // every value of group 9 is NULL
				v = "NULL"
			}
			vals = append(vals, fmt.Sprintf("(%s, %s, %s, %s, %s, %d)",
				maybe(fmt.Sprint(k)),
				maybe(fmt.Sprint(rng.Intn(3))),
				maybe(strs[rng.Intn(len(strs))]),
				v,
				maybe(fmt.Sprint(float64(rng.Intn(80)-20)/4)),
				rng.Intn(2)))
		}
		if err := conn.Exec(ctx, "INSERT INTO i VALUES "+strings.Join(vals, ", ")); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

// corrEq marks a correlation equality in a test query: EQ(a, b) is a = b
// in the query the rule rewrites, and NOT (a <> b) (the same predicate,
// which the rule refuses) in the row-path query it is checked against.
var corrEq = regexp.MustCompile(`EQ\(([^,]+), ([^)]+)\)`)

// corrTrue marks where the row-path query correlates an uncorrelated
// subquery with a predicate that is always true: AND TRUE(c) is c IS NULL
// OR c IS NOT NULL there (the rule refuses it), and nothing in the query
// the rule rewrites; WHERE TRUE(c) likewise.
var corrTrue = regexp.MustCompile(`(AND|WHERE) TRUE\(([^)]+)\)`)

// TestDecorrelate_MatchesRowPath: every decorrelated query returns,
// value and Go type, what GMS's per-row subquery returns.
func TestDecorrelate_MatchesRowPath(t *testing.T) {
	conn := correlatedTables(t)
	for _, q := range []string{
		// Q02's shape: = MIN, over a join inside the subquery.
		"SELECT i.k, i.k2, i.v FROM i WHERE i.v = (SELECT MIN(i2.v) FROM i AS i2 WHERE EQ(i2.k, i.k))",
		"SELECT o.k, o.x FROM o WHERE o.x > (SELECT MIN(i.v) FROM i, o AS o2 WHERE EQ(i.k, o.k) AND i.k2 = o2.k2 AND o2.g = 1)",
		// Q17's shape: < a multiple of AVG, beside an outer join.
		"SELECT o.k, o.x, o.s FROM o, i WHERE o.k = i.k AND i.flag = 1 AND o.x < (SELECT 0.5 * AVG(i2.v) FROM i AS i2 WHERE EQ(i2.k, o.k))",
		"SELECT SUM(o.x), COUNT(*) FROM o WHERE o.x < (SELECT 0.5 * AVG(i.v) FROM i WHERE EQ(i.k, o.k))",
		// Q20's shape: two correlation keys and a local predicate.
		"SELECT o.k, o.k2, o.x FROM o WHERE o.x > (SELECT 0.1 * SUM(i.v) FROM i WHERE EQ(i.k, o.k) AND EQ(i.k2, o.k2) AND i.flag = 1)",
		// INT inner key against BIGINT outer key.
		"SELECT o.k2, o.x FROM o WHERE o.x >= (SELECT MAX(i.v) - 20 FROM i WHERE EQ(i.k, o.k2))",
		// The subquery on the left; <>; <=; a string key.
		"SELECT o.k, o.x FROM o WHERE (SELECT MAX(i.v) FROM i WHERE EQ(i.k, o.k)) >= o.x",
		"SELECT o.k, o.x FROM o WHERE o.x <> (SELECT MAX(i.v) FROM i WHERE EQ(i.k, o.k))",
		"SELECT o.s, o.x FROM o WHERE o.x <= (SELECT AVG(i.v) FROM i WHERE EQ(i.s, o.s))",
		// Several aggregates in one expression; a DOUBLE aggregate.
		"SELECT o.k, o.x FROM o WHERE o.x < (SELECT MAX(i.v) - MIN(i.v) FROM i WHERE EQ(i.k, o.k))",
		"SELECT o.k, o.g FROM o WHERE o.g > (SELECT AVG(i.f) - 4 FROM i WHERE EQ(i.k, o.k))",
		// Two subqueries in one WHERE, and one under an IN subquery (Q20).
		"SELECT o.k, o.x FROM o WHERE o.x > (SELECT MIN(i.v) FROM i WHERE EQ(i.k, o.k)) AND o.x < (SELECT MAX(i.v) FROM i WHERE EQ(i.k, o.k))",
		"SELECT o.k, o.s FROM o WHERE o.k IN (SELECT i.k FROM i WHERE i.v > (SELECT 0.5 * SUM(i2.v) FROM i AS i2 WHERE EQ(i2.k, i.k) AND EQ(i2.k2, i.k2)))",
		// In a derived table (a filter whose schema the alias reads by position).
		"SELECT t.k, t.x FROM (SELECT * FROM o WHERE o.x < (SELECT AVG(i.v) FROM i WHERE EQ(i.k, o.k))) AS t",
		// A per-row subquery left inside the derived table.
		"SELECT o.k, o.x FROM o WHERE o.x > (SELECT MAX(i.v) FROM i WHERE EQ(i.k, o.k) AND i.v > (SELECT AVG(i2.v) FROM i AS i2 WHERE i2.k2 = i.k2))",
		// Under an aggregate and an ORDER BY.
		"SELECT o.g, COUNT(*), SUM(o.x) FROM o WHERE o.x > (SELECT AVG(i.v) FROM i WHERE EQ(i.k, o.k)) GROUP BY o.g",
		// Uncorrelated: one derived row, whatever the aggregate over
		// whatever rows (COUNT of none is 0, MAX of none NULL).
		"SELECT o.k, o.x FROM o WHERE o.x > (SELECT AVG(i.v) FROM i WHERE i.flag = 1 AND TRUE(o.g))",
		"SELECT o.k, o.g FROM o WHERE o.g >= (SELECT COUNT(*) FROM i WHERE i.k = 100 AND TRUE(o.g))",
		"SELECT COUNT(*) FROM o WHERE o.x < (SELECT MAX(i.v) FROM i WHERE i.k = 100 AND TRUE(o.g))",
		"SELECT o.k, o.x FROM o WHERE o.x < (SELECT MAX(i.v) FROM i WHERE TRUE(o.g)) - 30 AND o.x > (SELECT MIN(i.v) FROM i WHERE EQ(i.k, o.k))",
		// Q15's shape: the maximum of a CTE joined to it.
		"WITH r AS (SELECT i.k, SUM(i.v) AS tot FROM i GROUP BY i.k) SELECT o.k, r.tot FROM o, r WHERE o.k = r.k AND r.tot = (SELECT MAX(r2.tot) FROM r AS r2 WHERE TRUE(o.g))",
	} {
		fast := corrTrue.ReplaceAllString(corrEq.ReplaceAllString(q, "$1 = $2"), "")
		slow := corrTrue.ReplaceAllString(corrEq.ReplaceAllString(q, "NOT ($1 <> $2)"), "$1 ($2 IS NULL OR $2 IS NOT NULL)")
		if enginetest.SameAsRowPath(t, conn, "scalarsubquery", fast, slow, false) == "" {
			t.Errorf("%s: no rows, the case tests nothing", slow)
		}
	}
}

// TestDecorrelate_DeleteKeepsRowPath: a DELETE's filter keeps its per-row
// subquery and deletes exactly the rows the SELECT finds.
func TestDecorrelate_DeleteKeepsRowPath(t *testing.T) {
	ctx := context.Background()
	conn := correlatedTables(t)
	where := " WHERE o.x < (SELECT AVG(i.v) FROM i WHERE i.k = o.k)"
	before := enginetest.Render(t, conn, "SELECT COUNT(*) FROM o")
	matched := enginetest.Render(t, conn, "SELECT COUNT(*) FROM o"+where)
	if matched == "0" {
		t.Fatal("no row to delete: the case tests nothing")
	}
	if plan := enginetest.Explain(t, conn, "DELETE FROM o"+where); strings.Contains(plan, "scalarsubquery") {
		t.Errorf("DELETE rewritten:\n%s", plan)
	}
	if err := conn.Exec(ctx, "DELETE FROM o"+where); err != nil {
		t.Fatal(err)
	}
	var n, m, after int
	fmt.Sscan(before, &n)
	fmt.Sscan(matched, &m)
	fmt.Sscan(enginetest.Render(t, conn, "SELECT COUNT(*) FROM o"), &after)
	if after != n-m {
		t.Errorf("DELETE left %d rows of %d, want %d (%d matched)", after, n, n-m, m)
	}
}
