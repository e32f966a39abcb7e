package rewrite_test

import (
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestVectorJoin_ExprsMatchRowPath: aggregates and group keys that are
// expressions over build columns (CASE, LIKE, IN lists, EXTRACT,
// SUBSTRING, arithmetic mixing sides: TPC-H Q12 and Q14's shapes), with
// duplicate and NULL keys, NULL values, empty build and probe sides,
// return, value and Go type, what GMS's row path returns.
func TestVectorJoin_ExprsMatchRowPath(t *testing.T) {
	conn := multiJoinTables(t)
	const pa = "p JOIN a ON p.k = a.ak"
	cases := []struct{ sel, from, where, tail string }{
		{"p.s, SUM(CASE WHEN a.aname = 'x' OR a.aname = 'y' THEN 1 ELSE 0 END), SUM(CASE WHEN a.aname <> 'x' AND a.aname <> 'y' THEN 1 ELSE 0 END)", pa, "", "GROUP BY p.s"},
		{"100.00 * SUM(CASE WHEN a.aname LIKE 'a%' THEN p.v * (1 - p.i) ELSE 0 END) / SUM(p.v * (1 - p.i))", pa, "", ""},
		{"SUM(CASE WHEN a.aname LIKE '%o%' THEN p.v WHEN a.aw > 0 THEN a.aw ELSE 0.5 END), AVG(CASE WHEN a.an IN (1, 3) THEN p.x ELSE 0 END), SUM(CASE WHEN a.aname IS NULL THEN p.i ELSE 0 END)", pa, "", ""},
		{"c.cname, SUM(CASE WHEN c.cw > 1 THEN p.i WHEN a.aname = 'x' THEN a.an ELSE -1 END), SUM(p.v * a.aw - c.cw), SUM(p.i * a.an)", pa + " JOIN c ON c.ck = a.an", "", "GROUP BY c.cname"},
		{"b.tag, SUM(CASE WHEN b.tag IN ('t0', 't1') THEN p.v ELSE 0 END), SUM(CASE WHEN EXTRACT(MONTH FROM b.bd) = 2 THEN 1 ELSE 0 END)", "p JOIN b ON p.dt = b.bd JOIN a ON a.ak = p.k", "", "GROUP BY b.tag"},
		{"c.cname, SUM(EXTRACT(YEAR FROM p.dt)), SUM(EXTRACT(YEAR FROM p.dt) * p.v)", pa + " JOIN c ON c.ck = a.an", "", "GROUP BY c.cname"},
		{"b.tag, SUM(b.bv * 2), MAX(EXTRACT(DAY FROM b.bd))", "p JOIN b ON p.s = b.bs JOIN a ON a.ak = p.k", "", "GROUP BY b.tag"},
		// Empty build and probe sides.
		{"e.ename, SUM(CASE WHEN e.ename LIKE 'a%' THEN p.v ELSE 0 END), MAX(UPPER(e.ename))", pa + " JOIN e ON e.ek = a.an", "", "GROUP BY e.ename"},
		{"SUM(CASE WHEN e.ename LIKE 'a%' THEN p.v ELSE 0 END), SUM(p.v * e.ek)", pa + " JOIN e ON e.ek = a.an", "", ""},
		{"SUM(CASE WHEN a.aname LIKE 'a%' THEN p.v ELSE 0 END), SUM(p.v * a.aw)", pa, "p.i > 1000", ""},
	}
	const rowPath = "(p.i IS NULL OR p.i IS NOT NULL OR a.an IS NULL)"
	for _, c := range cases {
		where, slowWhere := "", " WHERE "+rowPath
		if c.where != "" {
			where, slowWhere = " WHERE "+c.where, " WHERE ("+c.where+") AND "+rowPath
		}
		fast := "SELECT " + c.sel + " FROM " + c.from + where + " " + c.tail
		slow := "SELECT " + c.sel + " FROM " + c.from + slowWhere + " " + c.tail
		want := enginetest.SameAsRowPath(t, conn, "VectorJoinAggregate", fast, slow, false)
		if want == "" && !strings.Contains(c.from, "JOIN e") && !strings.Contains(c.where, "1000") {
			t.Errorf("%s: no rows, the case tests nothing", slow)
		}
	}
}

// TestVectorJoin_DerivedTableMatchesRowPath: aggregates over a join
// inside a derived table (TPC-H Q07, Q08, Q09: SELECT ... FROM (SELECT
// expressions FROM a, b, c WHERE ...) AS x GROUP BY ...) run vectorised
// and return what GMS's row path returns.
func TestVectorJoin_DerivedTableMatchesRowPath(t *testing.T) {
	conn := multiJoinTables(t)
	const inner3 = "p, a, c, b WHERE p.k = a.ak AND a.an = c.ck AND b.bs = p.s"
	cases := []struct{ outer, inner, tail string }{
		{"nm, yr, SUM(vol), COUNT(*)", "c.cname AS nm, EXTRACT(YEAR FROM b.bd) AS yr, p.v * (1 - p.i) AS vol FROM " + inner3, "GROUP BY nm, yr ORDER BY nm, yr"},
		{"yr, SUM(CASE WHEN nm = 'one' THEN vol ELSE 0 END) / SUM(vol)", "c.cname AS nm, EXTRACT(YEAR FROM b.bd) AS yr, p.v * (1 - p.i) AS vol FROM " + inner3, "GROUP BY yr ORDER BY yr"},
		{"nation, o_year, SUM(amount) AS sum_profit", "a.aname AS nation, EXTRACT(YEAR FROM b.bd) AS o_year, p.v * (1 - p.i) - a.aw * p.i AS amount FROM p, a, b WHERE p.k = a.ak AND b.bs = p.s AND a.aname LIKE '%a%'", "GROUP BY nation, o_year ORDER BY nation, o_year DESC"},
		{"s, COUNT(*), SUM(w)", "p.s AS s, a.aw AS w FROM p, a WHERE p.k = a.ak", "GROUP BY s ORDER BY s"},
		// Q07: a key computed on the probe, a condition over two build sides.
		{"n1, n2, yr, SUM(vol), COUNT(*)", "a.aname AS n1, c.cname AS n2, EXTRACT(YEAR FROM p.dt) AS yr, p.v * (1 - p.i) AS vol FROM " + inner3 + " AND ((a.aname = 'x' AND c.cname = 'one') OR (a.aname = 'y' AND c.cname = 'two') OR (a.aname IS NULL AND b.tag = 't1'))", "GROUP BY n1, n2, yr ORDER BY n1, n2, yr"},
		{"yr, SUM(vol), MAX(vol)", "EXTRACT(YEAR FROM p.dt) AS yr, p.v * a.aw AS vol FROM " + inner3 + " AND (a.aname = 'nothing' OR c.cname = 'nothing')", "GROUP BY yr ORDER BY yr"},
		{"yr, nm, SUM(vol)", "EXTRACT(YEAR FROM p.dt) + a.an AS yr, c.cname AS nm, p.v AS vol FROM " + inner3, "GROUP BY yr, nm ORDER BY yr, nm"},
		{"pre, yr, COUNT(*), SUM(d)", "SUBSTRING(a.aname, 1, 2) AS pre, EXTRACT(YEAR FROM b.bd) AS yr, p.v - b.bv AS d FROM p, a, b WHERE p.k = a.ak AND b.bs = p.s", "GROUP BY pre, yr ORDER BY pre, yr"},
		{"n, SUM(v)", "e.ename AS n, p.v AS v FROM p, a, e WHERE p.k = a.ak AND e.ek = a.an", "GROUP BY n ORDER BY n"},
	}
	const rowPath = " AND (p.i IS NULL OR p.i IS NOT NULL OR a.an IS NULL)"
	for _, c := range cases {
		fast := "SELECT " + c.outer + " FROM (SELECT " + c.inner + ") AS x " + c.tail
		slow := "SELECT " + c.outer + " FROM (SELECT " + c.inner + rowPath + ") AS x " + c.tail
		want := enginetest.SameAsRowPath(t, conn, "VectorJoinAggregate", fast, slow, true)
		if want == "" && !strings.Contains(c.inner, ", e ") && !strings.Contains(c.inner, "nothing") {
			t.Errorf("%s: no rows, the case tests nothing", slow)
		}
	}
}
