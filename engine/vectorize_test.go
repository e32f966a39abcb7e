package engine_test

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine"
)

// TestVectorize_MatchesRowPath: every aggregate the vectorised path
// answers equals, value and Go type, what GMS's row path returns for the
// same query (forced by an OR conjunct the rule refuses).
func TestVectorize_MatchesRowPath(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t)
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
	strs := []string{"'a'", "''", "'b c'", "'zzz'", "NULL", "'A'"}
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
		if strings.Contains(explain(t, conn, fast), "VectorAggregate") {
			vectorised++
		}
		if strings.Contains(explain(t, conn, slow), "VectorAggregate") {
			t.Fatalf("row-path query was vectorised: %s", slow)
		}
		ordered := strings.Contains(c.tail, "ORDER BY")
		if got, want := typed(t, conn, fast, ordered), typed(t, conn, slow, ordered); got != want {
			t.Errorf("%s\nvectorised:\n%s\nrow path:\n%s", fast, got, want)
		}
	}
	if vectorised < len(cases)-3 {
		t.Errorf("only %d of %d queries vectorised", vectorised, len(cases))
	}
	// Decimal sums beyond 38 digits: exact, like GMS's decimal sum.
	for _, q := range []string{"SELECT g, SUM(d), AVG(d), MIN(d), MAX(d), COUNT(d) FROM big %s GROUP BY g", "SELECT SUM(d), AVG(d) FROM big %s"} {
		fast := fmt.Sprintf(q, "")
		if !strings.Contains(explain(t, conn, fast), "VectorAggregate") {
			t.Errorf("not vectorised: %s", fast)
		}
		if got, want := typed(t, conn, fast, false), typed(t, conn, fmt.Sprintf(q, "WHERE g IS NULL OR g IS NOT NULL"), false); got != want {
			t.Errorf("%s\nvectorised:\n%s\nrow path:\n%s", fast, got, want)
		}
	}
}

// TestVectorize_Refuses: what the pipeline cannot do keeps GMS's plan.
func TestVectorize_Refuses(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t)
	conn := e.Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE t (i INT, ti TINYINT, dc DECIMAL(10,2), f DOUBLE, dt DATE, s VARCHAR(5), b BOOLEAN)",
		"INSERT INTO t VALUES (1, 1, 1.25, 0.5, '2000-01-01', 'a', true)",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		"SELECT SUM(i + 1) FROM t",
		"SELECT COUNT(DISTINCT i) FROM t",
		"SELECT i, COUNT(*) FROM t GROUP BY i + 1",
		"SELECT s, COUNT(*) FROM t GROUP BY i",
		"SELECT COUNT(*) FROM t WHERE ti < 1000",                  // literal outside TINYINT
		"SELECT COUNT(*) FROM t WHERE dt < '2000-01-01 12:00:00'", // not a whole day
		"SELECT COUNT(*) FROM t WHERE f IN (0.5, 1)",
		"SELECT COUNT(*) FROM t WHERE i = '1'",
		"SELECT COUNT(*) FROM t WHERE LOWER(s) = 'a'",
		"SELECT SUM(b) FROM t",
		"SELECT SUM(s) FROM t",
		"SELECT f, COUNT(*) FROM t GROUP BY f",
	} {
		if strings.Contains(explain(t, conn, q), "VectorAggregate") {
			t.Errorf("vectorised: %s", q)
		}
	}
}

func explain(t *testing.T, conn *engine.Conn, q string) string {
	return render(t, conn, "EXPLAIN FORMAT=TREE "+q)
}

// typed renders a result with each value's Go type.
func typed(t *testing.T, conn *engine.Conn, q string, ordered bool) string {
	t.Helper()
	r, err := conn.QueryOne(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	lines := make([]string, len(r.Rows))
	for i, row := range r.Rows {
		cells := make([]string, len(row))
		for j, v := range row {
			cells[j] = fmt.Sprintf("%T:%v", v, v)
		}
		lines[i] = strings.Join(cells, "|")
	}
	if !ordered {
		sort.Strings(lines)
	}
	return strings.Join(lines, "\n")
}
