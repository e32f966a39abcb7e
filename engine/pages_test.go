package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestPagePruning_SameRows: point and range queries on sorted columns of
// a file with several pages per column (pruned by the page index) return
// exactly what the same queries return when nothing can prune (the column
// wrapped in an expression): rows, aggregates and LIMIT.
func TestPagePruning_SameRows(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE t (k BIGINT, dt DATE, s VARCHAR(20), n INT, f DOUBLE, dc DECIMAL(12,2))",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// One INSERT, one file: 12,000 rows sorted by k, dt and s (a few
	// pages each), with NULLs and negative values.
	const rows = 12_000
	vals := make([]string, 0, rows)
	for r := 0; r < rows; r++ {
		n := fmt.Sprint(r%17 - 8)
		if r%13 == 0 {
			n = "NULL"
		}
		vals = append(vals, fmt.Sprintf("(%d, DATE '1965-01-01' + INTERVAL %d DAY, 's%06d', %s, %d.5, %d.25)", r-3000, r/4, r, n, r%100-50, r-6000))
	}
	if err := conn.Exec(ctx, "INSERT INTO t VALUES "+strings.Join(vals, ", ")); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ pruned, unpruned string }{
		{"k = 4321", "k + 0 = 4321"},
		{"k BETWEEN 5000 AND 5010", "k + 0 BETWEEN 5000 AND 5010"},
		{"k < -2990", "k + 0 < -2990"},
		{"k >= 8990", "k + 0 >= 8990"},
		{"k IN (-3000, 17, 4096, 8999, 20000)", "k + 0 IN (-3000, 17, 4096, 8999, 20000)"},
		{"dt BETWEEN DATE '1969-12-25' AND DATE '1970-01-05'", "DATE_ADD(dt, INTERVAL 0 DAY) BETWEEN DATE '1969-12-25' AND DATE '1970-01-05'"},
		{"s = 's007777'", "CONCAT(s, '') = 's007777'"},
		{"s >= 's011990'", "CONCAT(s, '') >= 's011990'"},
		{"k > 100 AND k < 120 AND n IS NULL", "k + 0 > 100 AND k + 0 < 120 AND n IS NULL"},
		{"k > 100 AND k < 130 AND n > 0", "k + 0 > 100 AND k + 0 < 130 AND n > 0"},
		{"k = 123456", "k + 0 = 123456"},
	}
	for _, c := range cases {
		for _, sel := range []string{"*", "COUNT(*), SUM(n), MIN(dc), MAX(s)"} {
			got := enginetest.Typed(t, conn, "SELECT "+sel+" FROM t WHERE "+c.pruned, false)
			want := enginetest.Typed(t, conn, "SELECT "+sel+" FROM t WHERE "+c.unpruned, false)
			if got != want {
				t.Errorf("SELECT %s WHERE %s:\n%s\nwant (%s):\n%s", sel, c.pruned, got, c.unpruned, want)
			}
		}
		got := enginetest.Typed(t, conn, "SELECT k, s FROM t WHERE "+c.pruned+" LIMIT 3", true)
		want := enginetest.Typed(t, conn, "SELECT k, s FROM t WHERE "+c.unpruned+" LIMIT 3", true)
		if got != want {
			t.Errorf("LIMIT 3 WHERE %s:\n%s\nwant:\n%s", c.pruned, got, want)
		}
	}
	if got := enginetest.Typed(t, conn, "SELECT k FROM t WHERE k BETWEEN 5000 AND 5002", false); got != "int64:5000\nint64:5001\nint64:5002" {
		t.Fatalf("point range: %q", got)
	}
}
