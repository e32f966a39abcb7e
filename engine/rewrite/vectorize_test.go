package rewrite_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestVectorize_MatchesRowPath: every aggregate the vectorised path
// answers equals, value and Go type, what GMS's row path returns for the
// same query (forced by an OR conjunct the rule refuses).
func TestVectorize_MatchesRowPath(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE t (g VARCHAR(10), k INT, i INT, bi BIGINT, u INT UNSIGNED, ti TINYINT, dc DECIMAL(12,3), f DOUBLE, s VARCHAR(20), dt DATE, ts DATETIME(6))",
		"CREATE TABLE big (g INT, d DECIMAL(38,0))",
		"INSERT INTO big VALUES (1, 99999999999999999999999999999999999999), (1, 99999999999999999999999999999999999999), (2, -99999999999999999999999999999999999999), (1, 99999999999999999999999999999999999999)",
		"INSERT INTO big VALUES (2, -99999999999999999999999999999999999999), (1, 5)",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rng := rand.New(rand.NewSource(7))
	groups := []string{"'a'", "'b'", "''", "NULL", "'zz'"}
	strs := []string{"'a'", "''", "'b c'", "'zzz'", "NULL", "'A'", "'seven b'", "'eight by'", "'a long string value'", "'a long string valuE'"}
	maybe := func(v string) string {
		if rng.Intn(6) == 0 {
			return "NULL"
		}
		return v
	}
	for file := 0; file < 5; file++ { // one data file per INSERT
		var vals []string
		for r := 0; r < 40+file*7; r++ {
			vals = append(vals, fmt.Sprintf("(%s, %d, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
				groups[rng.Intn(len(groups))], rng.Intn(4),
				maybe(fmt.Sprint(rng.Intn(2001)-1000)),
				maybe(fmt.Sprint(rng.Int63n(1<<50)-(1<<49))),
				maybe(fmt.Sprint(rng.Int63n(4000000000))),
				maybe(fmt.Sprint(rng.Intn(256)-128)),
				maybe(fmt.Sprintf("%d.%03d", rng.Intn(2000)-1000, rng.Intn(1000))),
				maybe(fmt.Sprint(float64(rng.Intn(4000)-2000)/4)),
				strs[rng.Intn(len(strs))],
				maybe(fmt.Sprintf("'%04d-%02d-%02d'", 1940+rng.Intn(80), 1+rng.Intn(12), 1+rng.Intn(28))),
				maybe(fmt.Sprintf("'%04d-%02d-%02d %02d:%02d:%02d.%06d'", 1950+rng.Intn(80), 1+rng.Intn(12), 1+rng.Intn(28), rng.Intn(24), rng.Intn(60), rng.Intn(60), rng.Intn(1000000))),
			))
		}
		if file == 3 { // an all-NULL file
			vals = append(vals[:0], "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
		}
		if err := conn.Exec(ctx, "INSERT INTO t VALUES "+strings.Join(vals, ", ")); err != nil {
			t.Fatal(err)
		}
	}
	all := "COUNT(*), COUNT(i), COUNT(s), SUM(i), SUM(bi), SUM(u), SUM(ti), SUM(dc), SUM(f), AVG(i), AVG(bi), AVG(dc), AVG(f), " +
		"MIN(i), MAX(i), MIN(bi), MAX(u), MIN(ti), MAX(ti), MIN(dc), MAX(dc), MIN(f), MAX(f), MIN(s), MAX(s), MIN(dt), MAX(dt), MIN(ts), MAX(ts)"
	cases := []struct{ sel, where, tail string }{
		{all, "", ""},
		{"g, " + all, "", "GROUP BY g"},
		{all + ", g, k", "", "GROUP BY g, k"},
		{"dt, COUNT(*), SUM(dc)", "", "GROUP BY dt"},
		{"s, ts, MAX(i)", "", "GROUP BY s, ts"},
		{"dc, u, COUNT(*)", "", "GROUP BY dc, u"},
		{all, "i > 0", ""},
		{all, "i >= -3 AND i < 500 AND dc BETWEEN -100.5 AND 250", ""},
		{"g, " + all, "s IN ('a', '', 'zzz')", "GROUP BY g"},
		{all, "dt < DATE '1970-01-01'", ""},
		{all, "ts >= TIMESTAMP '1990-06-01 12:30:00.25'", ""},
		{all, "s IS NULL", ""},
		{all, "u IS NOT NULL AND k = 2", ""},
		{all, "ti <= -1 AND f > -100.25", ""},
		{all, "f = 3.5 OR f < 1000000", ""}, // row path only (sanity)
		{all, "i > 100000", ""},             // no rows, no GROUP BY: one row
		{"g, COUNT(*), SUM(i)", "i > 100000", "GROUP BY g"},
		{"k, SUM(dc) AS x", "g = 'a'", "GROUP BY k HAVING x > 0 ORDER BY k"},
		{"g, MAX(ts) m", "bi < 0", "GROUP BY g ORDER BY m DESC LIMIT 2"},
		{"COUNT(*)", "5 < i AND 100 >= i", ""},
		{"COUNT(*), SUM(i)", "u IN (1, 2, 3) OR 1 = 1", ""},
		// DECIMALs only filtered, summed or computed on read as unscaled
		// int64s (datafile.ReadOptions.RawDecimals).
		{"k, SUM(dc), AVG(dc), COUNT(dc), SUM(dc * i)", "dc BETWEEN -100.5 AND 250", "GROUP BY k"},
		{"COUNT(*), SUM(dc * 2)", "dc IN (1.5, -2.25, 999.999, -1000.000)", ""},
		{"COUNT(*), SUM(dc)", "dc < 99999999999999999999 AND dc > -99999999999999999999", ""},
		{"COUNT(*), SUM(dc)", "dc > 99999999999999999999", ""},
	}
	vectorised := 0
	for _, c := range cases {
		where := ""
		if c.where != "" {
			where = " WHERE " + c.where
		}
		fast := "SELECT " + c.sel + " FROM t" + where + " " + c.tail
		slowWhere := " WHERE (k IS NULL OR k IS NOT NULL)"
		if c.where != "" {
			slowWhere = " WHERE (" + c.where + ") AND (k IS NULL OR k IS NOT NULL)"
		}
		slow := "SELECT " + c.sel + " FROM t" + slowWhere + " " + c.tail
		if strings.Contains(enginetest.Explain(t, conn, fast), "VectorAggregate") {
			vectorised++
		}
		if strings.Contains(enginetest.Explain(t, conn, slow), "VectorAggregate") {
			t.Fatalf("row-path query was vectorised: %s", slow)
		}
		ordered := strings.Contains(c.tail, "ORDER BY")
		if got, want := enginetest.Typed(t, conn, fast, ordered), enginetest.Typed(t, conn, slow, ordered); got != want {
			t.Errorf("%s\nvectorised:\n%s\nrow path:\n%s", fast, got, want)
		}
	}
	if vectorised < len(cases)-3 {
		t.Errorf("only %d of %d queries vectorised", vectorised, len(cases))
	}
	// Decimal sums beyond 38 digits: exact, like GMS's decimal sum.
	for _, q := range []string{"SELECT g, SUM(d), AVG(d), MIN(d), MAX(d), COUNT(d) FROM big %s GROUP BY g", "SELECT SUM(d), AVG(d) FROM big %s"} {
		fast := fmt.Sprintf(q, "")
		if !strings.Contains(enginetest.Explain(t, conn, fast), "VectorAggregate") {
			t.Errorf("not vectorised: %s", fast)
		}
		if got, want := enginetest.Typed(t, conn, fast, false), enginetest.Typed(t, conn, fmt.Sprintf(q, "WHERE g IS NULL OR g IS NOT NULL"), false); got != want {
			t.Errorf("%s\nvectorised:\n%s\nrow path:\n%s", fast, got, want)
		}
	}
}

// TestVectorize_ExpressionsMatchRowPath: aggregates of arithmetic
// expressions answered by the vectorised path equal, value, scale and Go
// type, what GMS's row path returns.
func TestVectorize_ExpressionsMatchRowPath(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE t (g VARCHAR(4), k INT, i INT, bi BIGINT, ti TINYINT, u INT UNSIGNED, u8 TINYINT UNSIGNED, d2 DECIMAL(15,2), d3 DECIMAL(12,3), d0 DECIMAL(20,0), f DOUBLE, fl FLOAT, dt DATE)",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rng := rand.New(rand.NewSource(11))
	maybe := func(v string) string {
		if rng.Intn(7) == 0 {
			return "NULL"
		}
		return v
	}
	for file := 0; file < 4; file++ {
		var vals []string
		for r := 0; r < 30+file*11; r++ {
			vals = append(vals, fmt.Sprintf("(%s, %d, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
				[]string{"'a'", "'b'", "NULL", "'cc'"}[rng.Intn(4)], rng.Intn(3),
				maybe(fmt.Sprint(rng.Intn(2001)-1000)),
				maybe(fmt.Sprint(rng.Int63n(1<<40)-(1<<39))),
				maybe(fmt.Sprint(rng.Intn(256)-128)),
				maybe(fmt.Sprint(rng.Intn(100))),
				maybe(fmt.Sprint(rng.Intn(256))),
				maybe(fmt.Sprintf("%d.%02d", rng.Intn(200001)-100000, rng.Intn(100))),
				maybe([]string{"0", "0.050", "-0.125", "1.001", "-999.999", fmt.Sprintf("0.%03d", rng.Intn(1000))}[rng.Intn(6)]),
				maybe(fmt.Sprint(rng.Int63n(1<<56)-(1<<55))),
				maybe(fmt.Sprint(float64(rng.Intn(4000)-2000)/8)),
				maybe(fmt.Sprint(float64(rng.Intn(400)-200)/4)),
				maybe(fmt.Sprintf("'%04d-%02d-%02d'", 1990+rng.Intn(10), 1+rng.Intn(12), 1+rng.Intn(28))),
			))
		}
		if file == 2 { // all NULL, all zero, and each column's extreme
			// (not BIGINT's: integer sums are exact here, GMS's are float
			// additions, and they would differ in the last bits)
			vals = append(vals, "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
				"(NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL)",
				"(NULL, 0, -2147483648, -549755813888, -128, 4294967295, 255, -99999999.99, -999999999.999, -99999999999999999, -0.5, -0.25, NULL)")
		}
		if err := conn.Exec(ctx, "INSERT INTO t VALUES "+strings.Join(vals, ", ")); err != nil {
			t.Fatal(err)
		}
	}
	dec := "SUM(d2 * (1 - d3)), SUM(d2 * (1 - d3) * (1 + d3)), AVG(d2 * (1 - d3)), AVG(d2 - d3), MIN(d2 * d3), MAX(d2 + d0), COUNT(d2 * i), " +
		"SUM(d2 * i), SUM(d3 + ti), SUM(d2 * 1.5), SUM(d2 * -2), SUM(d3 - 0.0001), SUM(-d2), MAX(-d3 * d3), SUM(d0 * d0), AVG(u * d3), SUM(1 - d2), MIN(d2 * (1 - d2) - d3)"
	// Integer results stay inside BIGINT and BIGINT UNSIGNED (outside,
	// both paths fail with 1690: TestVectorize_ExpressionOverflowFallsBack).
	ints := "SUM(i * 2), SUM(i - bi), AVG(i * ti), MIN(ti * bi), MAX(bi * k), MIN(i * ti * 3), SUM(-i), SUM(-bi), AVG(-ti), COUNT(i + ti), " +
		"SUM(u + u8), MIN(u * u8), MAX(u8 + u), SUM(u * 3), MAX(ti * ti * ti), SUM(i + (-5)), MIN(k - 1), SUM(u8 - 0)"
	flts := "SUM(f * i), SUM(f * 1.5), SUM(fl * fl), MIN(f - fl), MAX(f * bi), AVG(f + u), SUM(-f), SUM(f * 1e3), AVG(fl * (1 - f)), MAX(f * f * f)"
	cases := []struct{ sel, where, tail string }{
		{dec, "", ""},
		{ints, "", ""},
		{flts, "", ""},
		{"g, " + dec, "", "GROUP BY g"},
		{"g, k, " + ints, "", "GROUP BY g, k"},
		{"k, " + flts, "", "GROUP BY k"},
		{"SUM(d2 * d3)", "dt >= DATE '1994-01-01' AND dt < DATE '1995-01-01' AND d3 BETWEEN -0.2 AND 0.5 AND i < 500", ""},
		{"g, SUM(d2 * (1 - d3)), AVG(d2), COUNT(*)", "dt <= DATE '1998-09-02'", "GROUP BY g ORDER BY g"},
		{dec + ", " + ints, "i > 100000", ""}, // no rows
		{"g, " + flts, "i > 100000", "GROUP BY g"},
		// CASE over an integer condition and EXTRACT(YEAR) of a DATE.
		{"g, SUM(CASE WHEN ti THEN d2 WHEN i THEN d3 ELSE 0 END), SUM(CASE WHEN k THEN i ELSE -1 END)", "", "GROUP BY g"},
		{"g, AVG(CASE WHEN ti THEN f ELSE 0.5 END)", "", "GROUP BY g"},
		{"g, SUM(EXTRACT(YEAR FROM dt)), AVG(EXTRACT(YEAR FROM dt) * d2)", "", "GROUP BY g"},
		{"SUM(CASE WHEN ti THEN d2 ELSE 0 END), SUM(EXTRACT(YEAR FROM dt))", "i > 100000", ""},
	}
	for _, c := range cases {
		where := ""
		if c.where != "" {
			where = " WHERE " + c.where
		}
		fast := "SELECT " + c.sel + " FROM t" + where + " " + c.tail
		slowWhere := " WHERE (k IS NULL OR k IS NOT NULL)"
		if c.where != "" {
			slowWhere = " WHERE (" + c.where + ") AND (k IS NULL OR k IS NOT NULL)"
		}
		slow := "SELECT " + c.sel + " FROM t" + slowWhere + " " + c.tail
		if !strings.Contains(enginetest.Explain(t, conn, fast), "VectorAggregate") {
			t.Errorf("not vectorised: %s", fast)
		}
		ordered := strings.Contains(c.tail, "ORDER BY")
		if got, want := enginetest.Typed(t, conn, fast, ordered), enginetest.Typed(t, conn, slow, ordered); got != want {
			t.Errorf("%s\nvectorised:\n%s\nrow path:\n%s", fast, got, want)
		}
	}
}
