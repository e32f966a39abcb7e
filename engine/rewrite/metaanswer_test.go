package rewrite_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestAnswerFromManifest_MatchesRowPath: COUNT/MIN/MAX answered from the
// manifest equal what scanning the rows gives, across types, NULLs,
// all-NULL files, negative and pre-1970 values and an added column.
func TestAnswerFromManifest_MatchesRowPath(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	setup := []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE t (i INT, bi BIGINT, u INT UNSIGNED, dc DECIMAL(10,3), s VARCHAR(20), dt DATE, ts DATETIME(6), b BOOLEAN, f DOUBLE)",
		"INSERT INTO t VALUES (-5, -9000000000, 7, -1.250, '', '1969-12-31', '1950-01-01 00:00:00.5', true, -0.5), (3, 12, 4000000000, 99.999, 'zz', '2024-02-29', '2030-01-01 00:00:00', false, 2.5)",
		"INSERT INTO t VALUES (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
		"INSERT INTO t VALUES (0, 0, 0, 0, 'a', '2000-01-01', '2000-01-01 12:00:00', NULL, NULL)",
		"ALTER TABLE t ADD COLUMN late INT",
		"INSERT INTO t (i, late) VALUES (100, 42)",
	}
	for _, q := range setup {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	cols := []string{"i", "bi", "u", "dc", "s", "dt", "ts", "b", "f", "late"}
	var aggs []string
	for _, c := range cols {
		aggs = append(aggs, "MIN("+c+")", "MAX("+c+")", "COUNT("+c+")")
	}
	aggs = append(aggs, "COUNT(*)")
	q := "SELECT " + strings.Join(aggs, ", ") + " FROM t"
	fast := enginetest.Render(t, conn, q)
	slow := enginetest.Render(t, conn, q+" WHERE i IS NULL OR i IS NOT NULL")
	if fast != slow {
		t.Fatalf("manifest answer\n %s\nrow path\n %s", fast, slow)
	}
	plan := enginetest.Render(t, conn, "EXPLAIN FORMAT=TREE "+q)
	if !strings.Contains(plan, "StatsAnswer") {
		t.Fatalf("the whole-table aggregate was not answered from the manifest:\n%s", plan)
	}
	if !strings.HasSuffix(fast, "|5") {
		t.Fatalf("COUNT(*) in %s", fast)
	}
}

// TestAnswerFromManifest_WhollyMatchingFilter: with a filter that every
// file either wholly satisfies or wholly fails by its stats (a range on
// the column the files are cut by), COUNT/MIN/MAX come from the
// manifest over the files inside; a file straddling the filter, or a
// filter the stats cannot decide, keeps the scan. Every answer equals the
// row path's.
func TestAnswerFromManifest_WhollyMatchingFilter(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	setup := []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE t (k INT, v DECIMAL(10,2), s VARCHAR(10))",
		"INSERT INTO t VALUES (1, 1.50, 'a'), (5, NULL, 'b'), (10, -2.25, 'c')",
		"INSERT INTO t VALUES (11, 7.00, 'q'), (15, 8.00, 'b'), (20, NULL, NULL)",
		"INSERT INTO t VALUES (21, 0.01, 'z'), (30, 99.99, 'y')",
		"INSERT INTO t VALUES (NULL, 3.00, 'n')",
	}
	for _, q := range setup {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const aggs = "COUNT(*), COUNT(v), MIN(k), MAX(k), MIN(v), MAX(v), MAX(s)"
	for _, c := range []struct {
		where string
		stats bool
	}{
		{"k >= 11", true},
		{"k BETWEEN 11 AND 30", true},
		{"k > 10 AND k <= 20", true},
		{"k > 100", true}, // no file: COUNT 0, MIN NULL
		{"k IS NULL", true},
		{"k >= 15", false},           // the second file straddles it
		{"k = 5", false},             // inside the first file's range, not all of it
		{"s = 'b'", false},           // strings in every file
		{"k >= 11 AND v > 7", false}, // v decides no file wholly
	} {
		q := "SELECT " + aggs + " FROM t WHERE " + c.where
		plan := enginetest.Render(t, conn, "EXPLAIN FORMAT=TREE "+q)
		if got := strings.Contains(plan, "StatsAnswer"); got != c.stats {
			t.Errorf("%s: answered from the manifest %v, want %v\n%s", c.where, got, c.stats, plan)
		}
		fast := enginetest.Render(t, conn, q)
		slow := enginetest.Render(t, conn, q+" AND (k IS NULL OR k IS NOT NULL)")
		if fast != slow {
			t.Errorf("%s:\n manifest %s\n row path %s", c.where, fast, slow)
		}
	}
}
