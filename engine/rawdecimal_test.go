package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestWidenedDecimalVectorised: a DECIMAL(9,2) column (stored
// INT32) widened to DECIMAL(18,2) (new files store INT64, read unscaled):
// filtered SUM/AVG/COUNT/MIN/MAX and expressions over both kinds of file
// equal the row path's answers.
func TestWidenedDecimalVectorised(t *testing.T) {
	ctx := context.Background()
	conn := enginetest.Open(t).Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE t (g INT, v DECIMAL(9,2))",
		"INSERT INTO t VALUES (1, 1.50), (1, -2.25), (2, NULL), (2, 9999999.99), (3, -0.01)",
		"ALTER TABLE t MODIFY COLUMN v DECIMAL(18,2)",
		"INSERT INTO t VALUES (1, 1234567890123.45), (2, -1.50), (3, NULL), (3, 0.01), (1, 1.50)",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, q := range []string{
		"SELECT g, SUM(v), AVG(v), COUNT(v), COUNT(*) FROM t WHERE v > -2 GROUP BY g ORDER BY g",
		"SELECT g, SUM(v * 2 + 1), COUNT(v + 0) FROM t WHERE v IN (1.50, -1.50, 0.01) GROUP BY g ORDER BY g",
		"SELECT SUM(v), MIN(v), MAX(v), COUNT(DISTINCT v) FROM t WHERE v < 10000000",
		"SELECT g, MIN(v * 1), MAX(v - 1) FROM t WHERE v >= -0.01 GROUP BY g ORDER BY g",
		"SELECT v, COUNT(*) FROM t WHERE v <> 7 GROUP BY v ORDER BY v",
	} {
		plan := enginetest.Render(t, conn, "EXPLAIN FORMAT=TREE "+q)
		fast := enginetest.Render(t, conn, q)
		slowq := strings.Replace(q, "WHERE ", "WHERE (g IS NULL OR g + 0 = g) AND ", 1)
		slow := enginetest.Render(t, conn, slowq)
		if fast != slow {
			t.Errorf("%s:\n fast %s\n slow %s\n%s", q, fast, slow, plan)
		}
	}
}
