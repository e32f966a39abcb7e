package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestDictFilter_SameRows: a table of four files (one row group each)
// whose every column holds the same low and high values in every file and
// a middle value of the file's own, so that min/max keep every file for
// the middle values but only one file's dictionaries hold each: = and IN
// on them (read through dictionaries) return exactly what the same
// queries return when nothing can prune (the column wrapped in an
// expression), as rows, aggregates, LIMIT and ORDER BY ... LIMIT. A
// case-insensitive column is never filtered by its dictionary ('M2' finds
// 'm2').
func TestDictFilter_SameRows(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE t (k BIGINT, s VARCHAR(20), ci VARCHAR(20) COLLATE utf8mb4_general_ci, n INT, dt DATE, dc DECIMAL(9,2))",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const files, rows = 4, 300
	for f := 0; f < files; f++ {
		vals := make([]string, 0, rows)
		for r := 0; r < rows; r++ {
			k := f*rows + r
			if r%7 == 0 {
				vals = append(vals, fmt.Sprintf("(%d, NULL, NULL, NULL, NULL, NULL)", k))
				continue
			}
			s := []string{"a", "z", fmt.Sprintf("m%d", f)}[r%3]
			n := []int{-100, 100, 10 * f}[r%3]
			days := []int{-1000, 1000, f}[r%3]
			dc := []string{"-1.00", "1.00", fmt.Sprintf("0.%d5", f)}[r%3]
			vals = append(vals, fmt.Sprintf("(%d, '%s', '%s', %d, DATE '1970-01-01' + INTERVAL %d DAY, %s)", k, s, s, n, days, dc))
		}
		if err := conn.Exec(ctx, "INSERT INTO t VALUES "+strings.Join(vals, ", ")); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ pruned, unpruned string }{
		{"s = 'm2'", "CONCAT(s, '') = 'm2'"},
		{"s = 'b'", "CONCAT(s, '') = 'b'"},
		{"s = 'a'", "CONCAT(s, '') = 'a'"},
		{"s IN ('m1', 'm3', 'nope')", "CONCAT(s, '') IN ('m1', 'm3', 'nope')"},
		{"ci = 'M2'", "(ci = 'M2' OR k IS NULL)"}, // OR prunes nothing; CONCAT would change the collation
		{"n = 20", "n + 0 = 20"},
		{"n IN (0, 30, 55)", "n + 0 IN (0, 30, 55)"},
		{"dt = DATE '1970-01-04'", "DATE_ADD(dt, INTERVAL 0 DAY) = DATE '1970-01-04'"},
		{"dc = 0.15", "dc + 0 = 0.15"},
		{"s = 'm2' AND n = 20", "CONCAT(s, '') = 'm2' AND n + 0 = 20"},
		{"s = 'm2' AND n = 30", "CONCAT(s, '') = 'm2' AND n + 0 = 30"},
	}
	for _, c := range cases {
		for _, sel := range []string{"*", "COUNT(*), SUM(n), MIN(dc), MAX(k)"} {
			got := enginetest.Typed(t, conn, "SELECT "+sel+" FROM t WHERE "+c.pruned, false)
			want := enginetest.Typed(t, conn, "SELECT "+sel+" FROM t WHERE "+c.unpruned, false)
			if got != want {
				t.Errorf("SELECT %s WHERE %s:\n%s\nwant (%s):\n%s", sel, c.pruned, got, c.unpruned, want)
			}
		}
		for _, tail := range []string{"LIMIT 3", "ORDER BY k DESC LIMIT 3"} {
			got := enginetest.Typed(t, conn, "SELECT k, s FROM t WHERE "+c.pruned+" "+tail, true)
			want := enginetest.Typed(t, conn, "SELECT k, s FROM t WHERE "+c.unpruned+" "+tail, true)
			if got != want {
				t.Errorf("%s WHERE %s:\n%s\nwant:\n%s", tail, c.pruned, got, want)
			}
		}
	}
	if got := enginetest.Typed(t, conn, "SELECT COUNT(*) FROM t WHERE s = 'm2'", false); got != "int64:86" {
		t.Fatalf("COUNT(*) WHERE s = 'm2': %s, want 86", got)
	}
	if got := enginetest.Typed(t, conn, "SELECT COUNT(*) FROM t WHERE ci = 'M2'", false); got != "int64:86" {
		t.Fatalf("COUNT(*) WHERE ci = 'M2' (case-insensitive): %s, want 86", got)
	}
}
