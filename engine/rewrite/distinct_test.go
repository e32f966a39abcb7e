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

// distinctTable creates t over several data files (one all NULL) with a
// column of every type COUNT(DISTINCT) is vectorised for: NULLs,
// negatives, zeros of both signs, BIGINT UNSIGNED values above
// BIGINT's range, empty strings and strings differing only in case,
// pre-1970 dates, DATETIMEs with microseconds; hc is a high-cardinality
// group key and ci a case-insensitive string.
func distinctTable(t *testing.T) *engine.Conn {
	t.Helper()
	ctx := context.Background()
	conn := enginetest.Open(t).Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE t (g VARCHAR(10), k INT, hc INT, i INT, bi BIGINT, u INT UNSIGNED, ub BIGINT UNSIGNED, ti TINYINT, " +
			"dc DECIMAL(12,3), f DOUBLE, fl FLOAT, s VARCHAR(20), dt DATE, ts DATETIME(6), ci VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, b BOOLEAN)",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rng := rand.New(rand.NewSource(17))
	maybe := func(v string) string {
		if rng.Intn(6) == 0 {
			return "NULL"
		}
		return v
	}
	pick := func(vs ...string) string { return maybe(vs[rng.Intn(len(vs))]) }
	row := 0
	for file := 0; file < 5; file++ { // one data file per INSERT
		var vals []string
		for r := 0; r < 60+file*13; r++ {
			row++
			vals = append(vals, fmt.Sprintf("(%s, %d, %d, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
				pick("'a'", "'b'", "''", "'zz'"), rng.Intn(4), row%97,
				maybe(fmt.Sprint(rng.Intn(41)-20)),
				maybe(fmt.Sprint(rng.Int63n(60)*(1<<40)-(1<<45))),
				maybe(fmt.Sprint(rng.Int63n(30)*100000000)),
				pick("0", "1", "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551614"),
				maybe(fmt.Sprint(rng.Intn(256)-128)),
				pick("0", "-0.001", "1.500", "1.5", "-999999999.999", fmt.Sprintf("%d.%03d", rng.Intn(20)-10, rng.Intn(4)*250)),
				pick("0e0", "-0e0", "0.1", "-0.1", "1e300", "-2.5", fmt.Sprint(float64(rng.Intn(40)-20)/4)),
				pick("0e0", "-0e0", "0.1", "0.25", "-3.5", fmt.Sprint(float64(rng.Intn(40)-20)/8)),
				pick("'a'", "'A'", "''", "'b c'", "'seven b'", "'eight by'", "'a long string value'", "'a long string valuE'"),
				maybe(fmt.Sprintf("'%04d-%02d-%02d'", 1940+rng.Intn(60), 1+rng.Intn(12), 1+rng.Intn(3))),
				pick("'1969-12-31 23:59:59.999999'", "'1970-01-01 00:00:00'", "'1999-05-05 10:00:00.000001'", "'1999-05-05 10:00:00.000002'", "'2020-02-29 12:34:56.5'"),
				pick("'a'", "'A'", "'b'", "'B '"),
				pick("true", "false"),
			))
		}
		if file == 3 { // an all-NULL file
			vals = append(vals[:0], "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
		}
		if err := conn.Exec(ctx, "INSERT INTO t VALUES "+strings.Join(vals, ", ")); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

// rowPathWhere forces the row path: a tautology the rule refuses.
func rowPathWhere(where string) string {
	if where == "" {
		return " WHERE (k IS NULL OR k IS NOT NULL)"
	}
	return " WHERE (" + where + ") AND (k IS NULL OR k IS NOT NULL)"
}

// TestDistinct_MatchesRowPath: COUNT(DISTINCT x) of every supported type
// and of expressions, alone and with other aggregates, grouped or not,
// filtered or not, is vectorised and equals, value and Go type, what
// GMS's row path returns.
func TestDistinct_MatchesRowPath(t *testing.T) {
	conn := distinctTable(t)
	all := "COUNT(DISTINCT g), COUNT(DISTINCT k), COUNT(DISTINCT i), COUNT(DISTINCT bi), COUNT(DISTINCT u), COUNT(DISTINCT ub), " +
		"COUNT(DISTINCT ti), COUNT(DISTINCT dc), COUNT(DISTINCT f), COUNT(DISTINCT fl), COUNT(DISTINCT s), COUNT(DISTINCT dt), COUNT(DISTINCT ts)"
	exprs := "COUNT(DISTINCT i * 2), COUNT(DISTINCT i - k), COUNT(DISTINCT bi + i), COUNT(DISTINCT -ti), COUNT(DISTINCT u + 1), " +
		"COUNT(DISTINCT dc * 2), COUNT(DISTINCT dc - i), COUNT(DISTINCT dc * dc), COUNT(DISTINCT f * 1.5), COUNT(DISTINCT -f), COUNT(DISTINCT f * fl), COUNT(DISTINCT fl + 0.5)"
	cases := []struct{ sel, where, tail string }{
		{all, "", ""},
		{exprs, "", ""},
		{"g, " + all, "", "GROUP BY g"},
		{"g, k, " + all + ", " + exprs, "", "GROUP BY g, k"},
		{"hc, " + all, "", "GROUP BY hc"}, // high cardinality: few rows per group
		{"hc, COUNT(DISTINCT s), COUNT(DISTINCT dc)", "i > 0", "GROUP BY hc"},
		{"s, COUNT(DISTINCT ts), COUNT(DISTINCT f)", "", "GROUP BY s"},
		{"dt, COUNT(DISTINCT k), COUNT(*)", "", "GROUP BY dt"},
		{all, "i > 0", ""},
		{all, "s IN ('a', '', 'A') AND dc BETWEEN -5 AND 5", ""},
		{"g, " + all, "dt < DATE '1970-01-01'", "GROUP BY g"},
		{all, "ts >= TIMESTAMP '1999-05-05 10:00:00.000001'", ""},
		{all, "u IS NULL", ""},
		{"COUNT(*), COUNT(i), SUM(i), COUNT(DISTINCT i), SUM(dc), COUNT(DISTINCT dc), MIN(s), COUNT(DISTINCT s), AVG(i)", "", ""},
		{"g, COUNT(*), SUM(i), COUNT(DISTINCT i), MAX(dc), COUNT(DISTINCT dc), COUNT(DISTINCT k)", "", "GROUP BY g"},
		{all, "i > 100000", ""}, // no rows, no GROUP BY: one row of zeros
		{"g, " + all, "i > 100000", "GROUP BY g"},
		{"k, COUNT(DISTINCT i) AS n", "", "GROUP BY k HAVING n > 3 ORDER BY n DESC, k"},
	}
	for _, c := range cases {
		where := ""
		if c.where != "" {
			where = " WHERE " + c.where
		}
		fast := "SELECT " + c.sel + " FROM t" + where + " " + c.tail
		slow := "SELECT " + c.sel + " FROM t" + rowPathWhere(c.where) + " " + c.tail
		want := enginetest.SameAsRowPath(t, conn, "VectorAggregate", fast, slow, strings.Contains(c.tail, "ORDER BY"))
		if want == "" && !strings.Contains(c.where, "100000") {
			t.Errorf("%s: no rows, the case tests nothing", slow)
		}
	}
}

// TestDistinct_JoinMatchesRowPath: COUNT(DISTINCT) of probe and build
// columns and of probe expressions in a vectorised join aggregation
// equals the row path's.
func TestDistinct_JoinMatchesRowPath(t *testing.T) {
	conn := joinTables(t)
	sel := "COUNT(DISTINCT f.i), COUNT(DISTINCT f.v), COUNT(DISTINCT f.x), COUNT(DISTINCT f.dt), COUNT(DISTINCT f.g), " +
		"COUNT(DISTINCT d.name), COUNT(DISTINCT d.w), COUNT(DISTINCT d.day), COUNT(DISTINCT f.v * 2 - f.i), COUNT(*), SUM(f.v)"
	for _, c := range []struct{ sel, where, tail string }{
		{sel, "", ""},
		{"d.name, " + sel, "", "GROUP BY d.name"},
		{"f.g, " + sel, "", "GROUP BY f.g"},
		{"f.g, d.name, " + sel, "f.i > -5", "GROUP BY f.g, d.name"},
		{sel, "f.i > 1000", ""}, // no matches
	} {
		where, slowWhere := "", " WHERE "+rowPathJoin
		if c.where != "" {
			where, slowWhere = " WHERE "+c.where, " WHERE ("+c.where+") AND "+rowPathJoin
		}
		fast := "SELECT " + c.sel + " FROM f JOIN d ON f.k = d.dk" + where + " " + c.tail
		slow := "SELECT " + c.sel + " FROM f JOIN d ON f.k = d.dk" + slowWhere + " " + c.tail
		enginetest.SameAsRowPath(t, conn, "VectorJoinAggregate", fast, slow, false)
	}
	for _, q := range []string{
		"SELECT d.name, COUNT(DISTINCT f.i, f.k) FROM f JOIN d ON f.k = d.dk GROUP BY d.name",
		"SELECT d.name, SUM(DISTINCT f.i) FROM f JOIN d ON f.k = d.dk GROUP BY d.name",
		"SELECT COUNT(DISTINCT ci.name) FROM f JOIN ci ON f.k = ci.dk",
	} {
		if strings.Contains(enginetest.Explain(t, conn, q), "VectorJoinAggregate") {
			t.Errorf("vectorised: %s", q)
		}
		slow := strings.Replace(q, " GROUP BY", " WHERE "+rowPathJoin+" GROUP BY", 1)
		if !strings.Contains(q, "GROUP BY") {
			slow = q + " WHERE (f.i IS NULL OR f.i IS NOT NULL OR ci.name IS NULL)"
		}
		if got, want := enginetest.Typed(t, conn, q, false), enginetest.Typed(t, conn, slow, false); got != want {
			t.Errorf("%s\ngot:\n%s\nrow path:\n%s", q, got, want)
		}
	}
}
