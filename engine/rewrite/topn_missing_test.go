package rewrite_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestTopNColumnAddedLater: ORDER BY ... LIMIT returning a column
// added after the data files were written. The pushed-down top-N's fetch
// pass opens the old file with no stored column to read and reads the
// winners by row ranges; the datafile.Reader reports Position row -1 for
// such records, so fetchFile never finds its rows and fails the query,
// where the row path returns the rows with NULL for the new column.
func TestTopNColumnAddedLater(t *testing.T) {
	ctx := context.Background()
	conn := enginetest.Open(t).Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE t (k INT)",
		"INSERT INTO t VALUES (5), (3), (9), (1), (7)",
		"ALTER TABLE t ADD COLUMN y INT",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	plan := enginetest.Render(t, conn, "EXPLAIN FORMAT=TREE SELECT k, y FROM t ORDER BY k LIMIT 2")
	t.Logf("plan:\n%s", plan)
	r, err := conn.QueryOne(ctx, "SELECT k, y FROM t ORDER BY k LIMIT 2")
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	var lines []string
	for i := range r.Rows {
		var cells []string
		for j := range r.Rows[i] {
			txt, ok := r.Text(i, j)
			if !ok {
				txt = "NULL"
			}
			cells = append(cells, txt)
		}
		lines = append(lines, strings.Join(cells, ","))
	}
	if got := strings.Join(lines, ";"); got != "1,NULL;3,NULL" {
		t.Fatalf("got %s, want 1,NULL;3,NULL", got)
	}
}
