package rewrite_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// multiJoinTables creates a fact table p (six files, each a band of k so
// runtime filters prune some) and dimensions: a (keyed by p.k, duplicate
// and NULL keys, more distinct keys than an IN filter lists), c (keyed
// by a.an), b (keyed by every other key type of p, few distinct keys)
// and e (empty).
func multiJoinTables(t *testing.T) *engine.Conn {
	t.Helper()
	ctx := context.Background()
	conn := enginetest.Open(t).Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE p (k INT, k2 BIGINT, s VARCHAR(8), dt DATE, v DECIMAL(12,2), ts DATETIME, u BIGINT UNSIGNED, ti TINYINT, x DOUBLE, i INT)",
		"CREATE TABLE a (ak BIGINT, an INT, aname VARCHAR(20), aw DECIMAL(10,3))",
		"CREATE TABLE c (ck INT, cname VARCHAR(10), cw DECIMAL(8,1))",
		"CREATE TABLE b (bs VARCHAR(8), bd DATE, bv DECIMAL(12,2), bts DATETIME, bu BIGINT UNSIGNED, bti SMALLINT, tag VARCHAR(5), bn INT)",
		"CREATE TABLE e (ek INT, ename VARCHAR(5))",
		"CREATE TABLE m (ms VARCHAR(8), md DATE, mv DECIMAL(12,2), mts DATETIME, mtag VARCHAR(5), md2 DATE, mv2 DECIMAL(12,2), mts2 DATETIME)",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rng := rand.New(rand.NewSource(11))
	maybe := func(v string) string {
		if rng.Intn(8) == 0 {
			return "NULL"
		}
		return v
	}
	strs := []string{"'a'", "'bb'", "''", "'a longer'", "'zz'"}
	dates := []string{"'1999-12-31'", "'2000-01-01'", "'2000-02-29'", "'1970-01-01'"}
	decs := []string{"1.50", "-2.25", "0.00", "99.99", "1.05"}
	times := []string{"'2000-01-01 10:00:00'", "'2000-01-01 10:00:01'", "'1999-06-30 23:59:59'"}
	uints := []string{"0", "7", "18446744073709551615", "9223372036854775808"}
	exec := func(table string, rows []string) {
		if err := conn.Exec(ctx, "INSERT INTO "+table+" VALUES "+strings.Join(rows, ", ")); err != nil {
			t.Fatal(err)
		}
	}
	for file := range 6 {
		var rows []string
		for range 60 + file*13 {
			rows = append(rows, fmt.Sprintf("(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
				maybe(fmt.Sprint(file*10+rng.Intn(14)-3)),
				maybe(fmt.Sprint(rng.Intn(5))),
				maybe(strs[rng.Intn(len(strs))]),
				maybe(dates[rng.Intn(len(dates))]),
				maybe(decs[rng.Intn(len(decs))]),
				maybe(times[rng.Intn(len(times))]),
				maybe(uints[rng.Intn(len(uints))]),
				maybe(fmt.Sprint(rng.Intn(7)-3)),
				maybe(fmt.Sprint(float64(rng.Intn(4000)-2000)/4)),
				maybe(fmt.Sprint(rng.Intn(41)-20)),
			))
		}
		exec("p", rows)
	}
	names := []string{"'x'", "'y'", "'a longer name'", "NULL"}
	for range 2 {
		var rows []string
		for range 20 {
			rows = append(rows, fmt.Sprintf("(%s, %s, %s, %s)",
				maybe(fmt.Sprint(rng.Intn(40)-3)), // duplicates, NULLs, keys p lacks
				maybe(fmt.Sprint(rng.Intn(6))),
				names[rng.Intn(len(names))],
				maybe(fmt.Sprintf("%d.%03d", rng.Intn(200)-100, rng.Intn(1000))),
			))
		}
		exec("a", rows)
	}
	exec("c", []string{"(0, 'zero', 1.5)", "(1, 'one', -2.0)", "(1, 'one again', 3.5)", "(2, 'two', NULL)", "(4, NULL, 0.5)", "(NULL, 'none', 9.9)", "(9, 'nine', 1.0)"})
	var rows []string
	for range 14 {
		rows = append(rows, fmt.Sprintf("(%s, %s, %s, %s, %s, %s, %s, %s)",
			maybe(strs[rng.Intn(len(strs)-1)]),
			maybe(dates[rng.Intn(len(dates))]),
			maybe(decs[rng.Intn(len(decs))]),
			maybe(times[rng.Intn(len(times))]),
			maybe(uints[rng.Intn(len(uints))]),
			maybe(fmt.Sprint(rng.Intn(9)-4)),
			maybe(fmt.Sprintf("'t%d'", rng.Intn(3))),
			maybe(fmt.Sprint(rng.Intn(5))),
		))
	}
	exec("b", rows)
	// m: more distinct keys of each type than an IN filter lists, so the
	// probe is filtered by their range.
	rows = nil
	for r := range 40 {
		rows = append(rows, fmt.Sprintf("(%s, %s, %s, %s, %s, %s, %s, %s)",
			maybe([]string{strs[r%len(strs)], fmt.Sprintf("'b%02d'", r)}[r%2]),
			maybe(fmt.Sprintf("DATE '1999-12-31' + INTERVAL %d DAY", r%30)),
			maybe(fmt.Sprintf("%d.%02d", r%7-2, []int{0, 5, 25, 50, 99}[r%5])),
			maybe(fmt.Sprintf("TIMESTAMP '2000-01-01 10:00:00' + INTERVAL %d SECOND", r%20-10)),
			maybe(fmt.Sprintf("'m%d'", r%3)),
			maybe(fmt.Sprintf("DATE '2000-01-10' + INTERVAL %d DAY", r%17)),
			maybe(fmt.Sprintf("%d.%02d", r%5-2, []int{0, 5, 25}[r%3])),
			maybe(fmt.Sprintf("TIMESTAMP '2000-01-01 10:00:00' + INTERVAL %d SECOND", r%7-3)),
		))
	}
	exec("m", rows)
	return conn
}

// TestVectorJoin_MultiWayMatchesRowPath: aggregates over joins of three
// and four tables (snowflakes, several keys per side, every key type,
// empty sides) return, value and Go type, what GMS's row path returns.
func TestVectorJoin_MultiWayMatchesRowPath(t *testing.T) {
	conn := multiJoinTables(t)
	const pa = "p JOIN a ON p.k = a.ak"
	all := "COUNT(*), COUNT(a.an), SUM(p.v), AVG(p.v), SUM(p.x), MIN(p.i), MAX(p.dt), SUM(a.aw), MIN(a.aname), SUM(p.v * 2 - p.i)"
	cases := []struct{ sel, from, where, tail, builds string }{
		{all + ", MAX(c.cname), SUM(c.cw)", pa + " JOIN c ON a.an = c.ck", "", "", ""},
		{"c.cname, " + all, pa + " JOIN c ON c.ck = a.an", "", "GROUP BY c.cname", ""},
		{"p.s, c.cname, " + all, pa + " JOIN c ON c.ck = a.an", "", "GROUP BY p.s, c.cname", ""},
		{"a.aname, b.tag, " + all + ", COUNT(b.tag), MAX(b.bv)", pa + " JOIN b ON p.s = b.bs", "", "GROUP BY a.aname, b.tag", ""},
		{"b.tag, COUNT(*), SUM(p.v)", "p JOIN b ON p.dt = b.bd JOIN a ON a.ak = p.k", "", "GROUP BY b.tag", ""},
		{"b.tag, COUNT(*), SUM(p.v)", "p JOIN b ON p.v = b.bv JOIN a ON a.ak = p.k", "", "GROUP BY b.tag", ""},
		{"b.tag, COUNT(*), MIN(p.ts)", "p JOIN b ON p.ts = b.bts JOIN a ON a.ak = p.k", "", "GROUP BY b.tag", ""},
		{"b.tag, COUNT(*), SUM(p.x)", "p JOIN b ON p.u = b.bu JOIN a ON a.ak = p.k", "", "GROUP BY b.tag", ""},
		{"b.tag, COUNT(*), SUM(p.v)", "p JOIN b ON p.ti = b.bti JOIN a ON a.ak = p.k", "", "GROUP BY b.tag", ""},
		{"b.tag, COUNT(*), SUM(p.v)", "p JOIN b ON p.k2 = b.bn JOIN a ON a.ak = p.k AND a.an = b.bn", "", "GROUP BY b.tag", ""},
		{"m.mtag, COUNT(*), SUM(p.v)", "p JOIN m ON p.s = m.ms JOIN a ON a.ak = p.k", "", "GROUP BY m.mtag", ""},
		{"m.mtag, COUNT(*), SUM(p.v)", "p JOIN m ON p.dt = m.md JOIN a ON a.ak = p.k", "", "GROUP BY m.mtag", ""},
		{"m.mtag, COUNT(*), SUM(p.x)", "p JOIN m ON p.v = m.mv JOIN a ON a.ak = p.k", "", "GROUP BY m.mtag", ""},
		{"m.mtag, COUNT(*), SUM(p.v)", "p JOIN m ON p.ts = m.mts JOIN a ON a.ak = p.k", "", "GROUP BY m.mtag", ""},
		// Comparisons of two columns, on the probe and on build sides.
		{"c.cname, " + all, pa + " JOIN c ON c.ck = a.an", "p.k <= p.i AND a.ak > a.an", "GROUP BY c.cname", "a vectorised, c vectorised"},
		{"b.tag, COUNT(*), SUM(p.v)", pa + " JOIN b ON b.bs = p.s", "b.bs <= b.tag AND p.ti < p.k2", "GROUP BY b.tag", "a vectorised, b vectorised"},
		{"m.mtag, COUNT(*), SUM(p.v)", "p JOIN m ON p.s = m.ms JOIN a ON a.ak = p.k", "m.md < m.md2 AND m.mv >= m.mv2 AND m.mts = m.mts2", "GROUP BY m.mtag", "m vectorised, a vectorised"},
		{"m.mtag, COUNT(*), SUM(p.v)", "p JOIN m ON p.s = m.ms JOIN a ON a.ak = p.k", "m.md >= m.md2 OR m.mv >= m.mv2", "GROUP BY m.mtag", "m row path, a vectorised"},
		// Four tables; b's keys are a probe field and a column of c.
		{"p.s, c.cname, " + all + ", SUM(b.bv)", pa + " JOIN c ON c.ck = a.an JOIN b ON b.bs = p.s AND b.bn = c.ck", "", "GROUP BY p.s, c.cname", ""},
		{"c.cname, b.tag, COUNT(*), SUM(p.v), AVG(c.cw)", "p, a, c, b", "p.k = a.ak AND a.an = c.ck AND b.bd = p.dt", "GROUP BY c.cname, b.tag", ""},
		// Filters on every table, and above the joins.
		{"c.cname, " + all, pa + " JOIN c ON c.ck = a.an JOIN b ON b.bs = p.s",
			"p.i > -10 AND a.aw > -50 AND c.cname <> 'two' AND b.tag IN ('t0', 't1') AND p.dt >= DATE '1999-01-01'", "GROUP BY c.cname", ""},
		{"a.aname, COUNT(*), SUM(p.v)", pa + " JOIN c ON c.ck = a.an", "a.ak BETWEEN 5 AND 20", "GROUP BY a.aname", ""},
		// Build sides whose filters need the row path, beside vectorised ones.
		{"c.cname, " + all, pa + " JOIN c ON c.ck = a.an", "a.aname LIKE '%e%' AND (c.cw > 1 OR c.cname = 'two')", "GROUP BY c.cname", "row path"},
		{"b.tag, " + all, pa + " JOIN b ON b.bs = p.s", "a.aw + 0 > 0", "GROUP BY b.tag", "a row path, b vectorised"},
		// Empty build sides, and no probe row matching.
		{"c.cname, " + all, pa + " JOIN c ON c.ck = a.an", "c.cname = 'nothing'", "GROUP BY c.cname", ""},
		{all, pa + " JOIN c ON c.ck = a.an", "c.cname = 'nothing'", "", ""},
		{all, pa + " JOIN e ON e.ek = a.an", "", "", ""},
		{"e.ename, COUNT(*)", pa + " JOIN e ON e.ek = a.an", "", "GROUP BY e.ename", ""},
		{all, pa + " JOIN c ON c.ck = a.an", "p.i > 1000", "", ""},
		{"a.aname, COUNT(*)", pa + " JOIN c ON c.ck = a.an", "a.ak > 1000", "GROUP BY a.aname", ""},
		{"c.cname, SUM(p.v) AS total", pa + " JOIN c ON c.ck = a.an", "", "GROUP BY c.cname HAVING total < 100000 ORDER BY c.cname", ""},
		{"c.cname AS nm, COUNT(*) AS n", pa + " JOIN c ON c.ck = a.an", "", "GROUP BY c.cname ORDER BY n DESC, nm LIMIT 2", ""},
	}
	const rowPath = "(p.i IS NULL OR p.i IS NOT NULL OR a.an IS NULL)"
	for _, c := range cases {
		where, slowWhere := "", " WHERE "+rowPath
		if c.where != "" {
			where, slowWhere = " WHERE "+c.where, " WHERE ("+c.where+") AND "+rowPath
		}
		fast := "SELECT " + c.sel + " FROM " + c.from + where + " " + c.tail
		slow := "SELECT " + c.sel + " FROM " + c.from + slowWhere + " " + c.tail
		want := enginetest.SameAsRowPath(t, conn, "VectorJoinAggregate", fast, slow, strings.Contains(c.tail, "ORDER BY"))
		plan := enginetest.Explain(t, conn, fast)
		for _, b := range strings.Split(c.builds, ", ") { // in GMS's join order
			if b != "" && !strings.Contains(plan, " "+b+",") && !strings.Contains(plan, " "+b+")") {
				t.Errorf("%s: want build side %q:\n%s", fast, b, plan)
			}
		}
		empty := strings.Contains(c.where, "nothing") || strings.Contains(c.where, "1000") || strings.Contains(c.from, "JOIN e")
		if want == "" && !empty {
			t.Errorf("%s: no rows, the case tests nothing", slow)
		}
	}
}

// TestVectorJoin_SemiAntiMatchesRowPath: EXISTS, IN and NOT EXISTS over
// the probe table or a build side, alone or beside inner joins, return
// what GMS's row path returns (NULL keys: NOT EXISTS keeps the row).
func TestVectorJoin_SemiAntiMatchesRowPath(t *testing.T) {
	conn := multiJoinTables(t)
	const pac = "p JOIN a ON p.k = a.ak JOIN c ON c.ck = a.an"
	cases := []struct{ sel, from, where, tail string }{
		{"p.s, COUNT(*), SUM(p.v), MAX(p.dt)", "p", "EXISTS (SELECT 1 FROM a WHERE a.ak = p.k)", "GROUP BY p.s"},
		{"p.s, COUNT(*), SUM(p.v), MAX(p.dt)", "p", "NOT EXISTS (SELECT 1 FROM a WHERE a.ak = p.k)", "GROUP BY p.s"},
		{"COUNT(*), SUM(p.v), COUNT(p.k)", "p", "NOT EXISTS (SELECT 1 FROM a WHERE a.ak = p.k AND a.aw > 0)", ""},
		{"p.s, COUNT(*), SUM(p.v)", "p", "p.k IN (SELECT ak FROM a WHERE a.aw > 0)", "GROUP BY p.s"},
		{"p.s, COUNT(*), SUM(p.v)", "p", "EXISTS (SELECT 1 FROM b WHERE b.bs = p.s AND b.bn = p.k2)", "GROUP BY p.s"},
		{"p.s, COUNT(*), SUM(p.v)", "p", "NOT EXISTS (SELECT 1 FROM b WHERE b.bs = p.s AND b.bn = p.k2)", "GROUP BY p.s"},
		{"COUNT(*), SUM(p.v)", "p", "NOT EXISTS (SELECT 1 FROM e WHERE e.ek = p.k)", ""},
		{"COUNT(*), SUM(p.v)", "p", "EXISTS (SELECT 1 FROM e WHERE e.ek = p.k)", ""},
		{"p.s, COUNT(*)", "p", "EXISTS (SELECT 1 FROM a WHERE a.ak = p.k AND a.aname LIKE '%e%')", "GROUP BY p.s"},
		{"p.s, COUNT(*), SUM(p.v)", "p", "EXISTS (SELECT 1 FROM a WHERE a.ak = p.k AND a.an < a.ak)", "GROUP BY p.s"},
		{"p.s, COUNT(*), SUM(p.v)", "p", "NOT EXISTS (SELECT 1 FROM a WHERE a.ak = p.k AND a.an < a.ak)", "GROUP BY p.s"},
		// Conditions beside the key equalities (Q21's l2.l_suppkey <> l1.l_suppkey).
		{"p.s, COUNT(*), SUM(p.v)", "p", "EXISTS (SELECT 1 FROM a WHERE a.ak = p.k AND a.an <> p.k2)", "GROUP BY p.s"},
		{"p.s, COUNT(*), SUM(p.v)", "p", "NOT EXISTS (SELECT 1 FROM a WHERE a.ak = p.k AND a.an <> p.k2)", "GROUP BY p.s"},
		{"p.s, COUNT(*), SUM(p.v)", "p", "NOT EXISTS (SELECT 1 FROM a WHERE a.ak = p.k AND p.i > a.an AND a.aname >= p.s)", "GROUP BY p.s"},
		{"c.cname, COUNT(*), SUM(p.v)", pac, "EXISTS (SELECT 1 FROM b WHERE b.bs = p.s AND b.bn <> a.an)", "GROUP BY c.cname"},
		{"p.s, COUNT(*), SUM(p.v)", "p", "EXISTS (SELECT 1 FROM p AS p2 WHERE p2.k = p.k AND p2.k2 <> p.k2) AND NOT EXISTS (SELECT 1 FROM p AS p3 WHERE p3.k = p.k AND p3.k2 <> p.k2 AND p3.dt > p.dt)", "GROUP BY p.s"},
		{"c.cname, COUNT(*), SUM(p.v), SUM(a.aw)", pac, "EXISTS (SELECT 1 FROM b WHERE b.bs = p.s)", "GROUP BY c.cname"},
		{"c.cname, COUNT(*), SUM(p.v), SUM(a.aw)", pac, "NOT EXISTS (SELECT 1 FROM b WHERE b.bn = a.an)", "GROUP BY c.cname"},
		{"c.cname, COUNT(*), SUM(p.v)", pac, "p.s IN (SELECT bs FROM b WHERE b.tag = 't1') AND NOT EXISTS (SELECT 1 FROM e WHERE e.ek = c.ck)", "GROUP BY c.cname"},
	}
	for _, c := range cases {
		fast := "SELECT " + c.sel + " FROM " + c.from + " WHERE " + c.where + " " + c.tail
		slow := "SELECT " + c.sel + " FROM " + c.from + " WHERE " + c.where + " AND (p.i IS NULL OR p.i IS NOT NULL) " + c.tail
		want := enginetest.SameAsRowPath(t, conn, "VectorJoinAggregate", fast, slow, false)
		if want == "" && !strings.Contains(c.where, "FROM e") {
			t.Errorf("%s: no rows, the case tests nothing", slow)
		}
	}
}
