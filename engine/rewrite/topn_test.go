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

// topNTable fills d.t (five data files, one of them all NULL) with small
// domains, so sort keys tie often, and negatives and NULLs throughout;
// d.n holds NaN in a float column; d.e is empty.
func topNTable(t *testing.T) *engine.Conn {
	t.Helper()
	ctx := context.Background()
	conn := enginetest.Open(t).Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE t (k INT, i INT, bi BIGINT, u BIGINT UNSIGNED, ti TINYINT, dc DECIMAL(12,3), f DOUBLE, fl FLOAT, s VARCHAR(20), dt DATE, ts DATETIME(6), b BOOLEAN, cs VARCHAR(10) COLLATE utf8mb4_0900_ai_ci)",
		"CREATE TABLE n (a INT, f DOUBLE)",
		"INSERT INTO n VALUES (1, 2.5), (2, 'NaN'), (3, -1), (4, NULL), (5, 0)",
		"CREATE TABLE e (x INT, y VARCHAR(5))",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rng := rand.New(rand.NewSource(11))
	maybe := func(v string) string {
		if rng.Intn(6) == 0 {
			return "NULL"
		}
		return v
	}
	strs := []string{"'a'", "''", "'b c'", "'zzz'", "'A'", "'é'", "'a '"}
	for file := 0; file < 5; file++ {
		var vals []string
		for r := 0; r < 30+file*9; r++ {
			vals = append(vals, fmt.Sprintf("(%d, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
				rng.Intn(4),
				maybe(fmt.Sprint(rng.Intn(21)-10)),
				maybe(fmt.Sprint(rng.Int63n(1<<40)-(1<<39))),
				maybe(fmt.Sprint(uint64(rng.Int63())*2+uint64(rng.Intn(2)))), // above MaxInt64 too
				maybe(fmt.Sprint(rng.Intn(256)-128)),
				maybe(fmt.Sprintf("%d.%03d", rng.Intn(20)-10, rng.Intn(4)*250)),
				maybe([]string{"-0.0", "0", "1.5", "-2.25", "1e300", "-1e-300"}[rng.Intn(6)]),
				maybe(fmt.Sprint(float32(rng.Intn(40)-20)/8)),
				maybe(strs[rng.Intn(len(strs))]),
				maybe(fmt.Sprintf("'%04d-%02d-%02d'", 1960+rng.Intn(4)*20, 1+rng.Intn(2), 1+rng.Intn(2))),
				maybe(fmt.Sprintf("'%04d-01-01 00:00:%02d.%06d'", 1950+rng.Intn(3)*40, rng.Intn(3), rng.Intn(3))),
				maybe([]string{"true", "false"}[rng.Intn(2)]),
				maybe(strs[rng.Intn(len(strs))]),
			))
		}
		if file == 3 {
			vals = append(vals[:0], "(9, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
		}
		if err := conn.Exec(ctx, "INSERT INTO t VALUES "+strings.Join(vals, ", ")); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

// TestTopN_MatchesRowPath: every ORDER BY … LIMIT the rule pushes down
// returns, row for row, value and Go type, what GMS's full sort returns
// for the same query (forced onto the row path by an OR conjunct the rule
// refuses); ties keep scan order, as GMS's stable sort does.
func TestTopN_MatchesRowPath(t *testing.T) {
	conn := topNTable(t)
	cases := []struct{ sel, from, where, tail string }{
		{"i, s, dc", "t", "", "ORDER BY i LIMIT 10"},
		{"i, s, dc", "t", "", "ORDER BY i DESC LIMIT 10"},
		{"k, i, s, dc", "t", "", "ORDER BY dc DESC, i, s LIMIT 15 OFFSET 3"},
		{"*", "t", "", "ORDER BY ti, k DESC LIMIT 7"},
		{"*", "t", "", "ORDER BY ti DESC, k LIMIT 7 OFFSET 2"},
		{"s, ts, k", "t", "", "ORDER BY s, ts DESC LIMIT 20"},
		{"dt, bi, cs", "t", "", "ORDER BY dt DESC, bi LIMIT 5"},
		{"u, k", "t", "", "ORDER BY u LIMIT 30"},
		{"u, k", "t", "", "ORDER BY u DESC LIMIT 30"},
		{"f, i, k", "t", "", "ORDER BY f, i LIMIT 40"},
		{"fl, f", "t", "", "ORDER BY fl DESC LIMIT 8"},
		{"b, k, i", "t", "", "ORDER BY b, k LIMIT 9"},
		{"k, i", "t", "", "ORDER BY k LIMIT 1000"},
		{"k, i", "t", "", "ORDER BY k DESC LIMIT 0"},
		{"k, i", "t", "", "ORDER BY i LIMIT 5 OFFSET 1000"},
		{"dc, i", "t", "i > 0", "ORDER BY dc LIMIT 10"},
		{"ts, s, dt", "t", "s IN ('a', 'b c') AND dt < DATE '1990-01-01'", "ORDER BY ts LIMIT 10"},
		{"i", "t", "i > 100000", "ORDER BY i LIMIT 3"},
		{"i AS x, s", "t", "", "ORDER BY i DESC LIMIT 4"},
		{"tt.i, tt.k", "t AS tt", "tt.k >= 1", "ORDER BY tt.i, tt.k DESC LIMIT 6"},
		{"k, i, bi", "t", "", "ORDER BY k, i, bi LIMIT 50"},
		{"f, a", "n", "", "ORDER BY a DESC LIMIT 3"}, // NaN in a returned column
		{"a, f", "n", "", "ORDER BY f LIMIT 3"},      // NaN key: the row path
		{"x, y", "e", "", "ORDER BY x LIMIT 3"},
	}
	pushed := 0
	for _, c := range cases {
		where := ""
		if c.where != "" {
			where = " WHERE " + c.where
		}
		refuse := "(k IS NULL OR k IS NOT NULL)"
		switch c.from {
		case "n":
			refuse = "(a IS NULL OR a IS NOT NULL)"
		case "e":
			refuse = "(x IS NULL OR x IS NOT NULL)"
		case "t AS tt":
			refuse = "(tt.k IS NULL OR tt.k IS NOT NULL)"
		}
		slowWhere := " WHERE " + refuse
		if c.where != "" {
			slowWhere = " WHERE (" + c.where + ") AND " + refuse
		}
		fast := "SELECT " + c.sel + " FROM " + c.from + where + " " + c.tail
		slow := "SELECT " + c.sel + " FROM " + c.from + slowWhere + " " + c.tail
		if strings.Contains(enginetest.Explain(t, conn, fast), "TopNScan") {
			pushed++
		} else {
			t.Errorf("not pushed down: %s\n%s", fast, enginetest.Explain(t, conn, fast))
		}
		if strings.Contains(enginetest.Explain(t, conn, slow), "TopNScan") {
			t.Fatalf("row-path query was pushed down: %s", slow)
		}
		got, want := enginetest.Typed(t, conn, fast, true), enginetest.Typed(t, conn, slow, true)
		if got != want {
			t.Errorf("%s\npushed down:\n%s\nrow path:\n%s", fast, got, want)
		}
		if want == "" && !strings.Contains(c.tail, "LIMIT 0") && c.where != "i > 100000" && c.from != "e" && !strings.Contains(c.tail, "OFFSET 1000") {
			t.Errorf("%s: no rows: the case tests nothing", fast)
		}
	}
	if pushed != len(cases) {
		t.Errorf("%d of %d queries pushed down", pushed, len(cases))
	}
}

// TestLimit_MatchesRowPath: a bare LIMIT (over which the table reads at
// most that many rows, or lazily under a filter) returns the first rows
// of the unlimited row path's answer, in scan order.
func TestLimit_MatchesRowPath(t *testing.T) {
	conn := topNTable(t)
	for _, c := range []struct {
		sel, where    string
		limit, offset int
	}{
		{"k, i, s", "", 10, 0},
		{"*", "", 3, 95},
		{"ts, dc", "", 1000, 0},
		{"k", "", 0, 0},
		{"i, f", "i > 0", 7, 0},
		{"i, f", "i > 0", 7, 20},
		{"i, s", "s IS NULL OR i < 0", 12, 0},
		{"i", "i > 100000", 7, 0},
	} {
		where := ""
		if c.where != "" {
			where = " WHERE " + c.where
		}
		full := "SELECT " + c.sel + " FROM t" + where
		q := fmt.Sprintf("%s LIMIT %d OFFSET %d", full, c.limit, c.offset)
		var want []string
		if all := enginetest.Typed(t, conn, full, true); all != "" {
			want = strings.Split(all, "\n")
		}
		want = want[min(c.offset, len(want)):min(c.offset+c.limit, len(want))]
		if got := enginetest.Typed(t, conn, q, true); got != strings.Join(want, "\n") {
			t.Errorf("%s\nlimited:\n%s\nrow path:\n%s", q, got, strings.Join(want, "\n"))
		}
	}
	for _, q := range []string{"SELECT * FROM e LIMIT 3", "SELECT x FROM e WHERE x > 1 LIMIT 3"} {
		if got := enginetest.Typed(t, conn, q, true); got != "" {
			t.Errorf("%s: %q from an empty table", q, got)
		}
	}
}
