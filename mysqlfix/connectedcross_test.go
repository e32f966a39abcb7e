package mysqlfix_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestConnectCrossJoins_ChainKeepsEveryCondition: tables listed in FROM
// in an order no WHERE conjunct connects (t1, t2, … chained t3→t9→t2→…)
// keep every join condition (GMS's planner dropped b5 = a10 and returned
// four rows), SELECT * keeps the FROM order of columns, and a real cross
// join stays one.
func TestConnectCrossJoins_ChainKeepsEveryCondition(t *testing.T) {
	ctx := context.Background()
	conn := enginetest.Open(t).Connect("root")
	setup := []string{"CREATE DATABASE d", "USE d"}
	for i := 1; i <= 10; i++ {
		setup = append(setup, fmt.Sprintf("CREATE TABLE t%d (a%d INT PRIMARY KEY, b%d INT)", i, i, i),
			fmt.Sprintf("INSERT INTO t%d VALUES (1, 1), (2, 2), (3, 3), (4, 4)", i))
	}
	for _, q := range setup {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ q, want string }{
		{`SELECT a1, a2, a3, a4, a5, a6, a7, a8, a9, a10 FROM t1, t2, t3, t4, t5, t6, t7, t8, t9, t10
		  WHERE 1 = a3 AND b9 = a3 AND b2 = a9 AND b10 = a2 AND b5 = a10 AND b7 = a5 AND b4 = a7 AND b1 = a4 AND b8 = a1 AND b6 = a8`,
			"1|1|1|1|1|1|1|1|1|1"},
		{"SELECT * FROM t1, t2, t3 WHERE t3.a3 = t1.a1 AND t2.b2 = t3.b3 AND t1.a1 < 3 ORDER BY 1", "1|1|1|1|1|1 2|2|2|2|2|2"},
		{"SELECT * FROM t1 x, t2, t1 y WHERE y.a1 = x.b1 + 1 AND t2.a2 = y.a1 AND x.a1 = 2", "2|2|3|3|3|3"},
		{"SELECT COUNT(*) FROM t1, t2, t3 WHERE t1.a1 < 2 AND t3.a3 = t1.a1", "4"},
	} {
		if got := strings.ReplaceAll(enginetest.Render(t, conn, c.q), "\n", " "); got != c.want {
			t.Errorf("%s: got %s, want %s", c.q, got, c.want)
		}
	}
}
