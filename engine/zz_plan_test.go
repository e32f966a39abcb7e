package engine_test

import (
	"context"
	"testing"
)

func TestZZPlan(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t)
	conn := e.Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE t (g INT, d DECIMAL(38,0), bi BIGINT)",
		"INSERT INTO t VALUES (1, 9, 1), (1, 3, 2)",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		"SELECT g, SUM(d * d), COUNT(*) FROM t GROUP BY g",
		"SELECT g, SUM(d * d), COUNT(*) FROM t WHERE g is null or g is not null GROUP BY g",
	} {
		t.Log(explain(t, conn, q))
		r, err := conn.QueryOne(ctx, "EXPLAIN PLAN "+q)
		t.Log(err)
		if err == nil {
			for _, row := range r.Rows {
				t.Log(row...)
			}
		}
	}
}
