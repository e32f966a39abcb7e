package rewrite_test

import (
	"context"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestManifestAnswerStagedAliasPartitioned: the filtered manifest
// answer under a table alias, HAVING, a partitioned table, and inside a
// transaction with a staged INSERT equals the row path's.
func TestManifestAnswerStagedAliasPartitioned(t *testing.T) {
	ctx := context.Background()
	conn := enginetest.Open(t).Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE t (k INT, v INT)",
		"INSERT INTO t VALUES (1, 10), (2, 20)",
		"INSERT INTO t VALUES (11, 110), (12, 120)",
		"CREATE TABLE p (id BIGINT, ts DATETIME, country VARCHAR(2), v INT) PARTITIONED BY (month(ts), country)",
		"INSERT INTO p VALUES (1, '2024-01-05', 'us', 1), (2, '2024-02-05', 'us', 2), (3, '2024-02-07', 'fr', 3), (4, '2024-03-01', 'fr', 4)",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	check := func(q, slowq string) {
		t.Helper()
		fast, slow := enginetest.Render(t, conn, q), enginetest.Render(t, conn, slowq)
		if fast != slow {
			t.Errorf("%s:\n fast %s\n slow %s\n%s", q, fast, slow, enginetest.Render(t, conn, "EXPLAIN FORMAT=TREE "+q))
		}
	}
	check("SELECT COUNT(*), MAX(a.v) FROM t a WHERE a.k >= 11", "SELECT COUNT(*), MAX(a.v) FROM t a WHERE a.k >= 11 AND (a.v IS NULL OR a.v IS NOT NULL)")
	check("SELECT COUNT(*) FROM t WHERE k >= 11 HAVING COUNT(*) > 1", "SELECT COUNT(*) FROM t WHERE k >= 11 AND (v IS NULL OR v IS NOT NULL) HAVING COUNT(*) > 1")
	check("SELECT COUNT(*), MIN(id), MAX(v) FROM p WHERE country = 'fr'", "SELECT COUNT(*), MIN(id), MAX(v) FROM p WHERE country = 'fr' AND (v IS NULL OR v IS NOT NULL)")
	check("SELECT COUNT(*), MIN(id), MAX(v) FROM p WHERE ts >= '2024-02-01'", "SELECT COUNT(*), MIN(id), MAX(v) FROM p WHERE ts >= '2024-02-01' AND (v IS NULL OR v IS NOT NULL)")
	for _, q := range []string{"START TRANSACTION", "INSERT INTO t VALUES (13, 130)"} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	check("SELECT COUNT(*), MAX(k) FROM t WHERE k >= 11", "SELECT COUNT(*), MAX(k) FROM t WHERE k >= 11 AND (v IS NULL OR v IS NOT NULL)")
	check("SELECT COUNT(*), MAX(a.k) FROM t a WHERE a.k >= 11", "SELECT COUNT(*), MAX(a.k) FROM t a WHERE a.k >= 11 AND (a.v IS NULL OR a.v IS NOT NULL)")
	if got := enginetest.Render(t, conn, "SELECT COUNT(*), MAX(k) FROM t WHERE k >= 11"); got != "3|13" {
		t.Errorf("in the transaction: %s, want 3|13", got)
	}
}
