package mysqlfix_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestDecimalHashKeys_JoinFindsEveryMatch: hash joins on one DECIMAL key
// (against an integer, a DECIMAL of another scale, with NULLs and
// duplicate keys on both sides) return every matching pair, not only the
// first probe row's.
func TestDecimalHashKeys_JoinFindsEveryMatch(t *testing.T) {
	ctx := context.Background()
	conn := enginetest.Open(t).Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE a (d DECIMAL(7,2), x INT)",
		"CREATE TABLE b (k INT, e DECIMAL(9,3))",
		"INSERT INTO a VALUES (1.00, 1), (1.00, 2), (2.00, 3), (2.50, 4), (NULL, 5), (-0.50, 6)",
		"INSERT INTO b VALUES (1, 1.000), (2, 2.500), (2, 1.000), (NULL, NULL), (3, -0.500)",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ q, want string }{
		{"SELECT a.x, b.k FROM a JOIN b ON a.d = b.k ORDER BY 1, 2", "1|1 2|1 3|2 3|2"},
		{"SELECT a.x, b.k FROM a JOIN b ON a.d = b.e ORDER BY 1, 2", "1|1 1|2 2|1 2|2 4|2 6|3"},
		{"SELECT a.x, b.k FROM b JOIN a ON b.e = a.d ORDER BY 1, 2", "1|1 1|2 2|1 2|2 4|2 6|3"},
		{"SELECT a.x, b.k FROM a LEFT JOIN b ON a.d = b.e ORDER BY 1, 2", "1|1 1|2 2|1 2|2 3|NULL 4|2 5|NULL 6|3"},
	} {
		if plan := enginetest.Explain(t, conn, c.q); !strings.Contains(plan, "HashLookup") {
			t.Fatalf("%s: not a hash join, the case tests nothing:\n%s", c.q, plan)
		}
		if got := strings.ReplaceAll(enginetest.Render(t, conn, c.q), "\n", " "); got != c.want {
			t.Errorf("%s: got %s, want %s", c.q, got, c.want)
		}
	}
}
