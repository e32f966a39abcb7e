package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestUpsert_ConcurrentKeyRefusesTheLoser: two sessions insert the same
// key; the second to commit was checked against a snapshot without the
// first's row, so its commit is refused (1213, retry the transaction)
// rather than re-based into a duplicate key, and a retry sees the row.
func TestUpsert_ConcurrentKeyRefusesTheLoser(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	a, b := e.Connect("root"), e.Connect("root")
	run := func(c interface {
		Exec(context.Context, string) error
	}, qs ...string) error {
		for _, q := range qs {
			if err := c.Exec(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	}
	if err := run(a, "CREATE DATABASE d", "USE d", "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(5))", "INSERT INTO t VALUES (1, 'a')"); err != nil {
		t.Fatal(err)
	}
	if err := run(b, "USE d"); err != nil {
		t.Fatal(err)
	}
	if err := run(a, "BEGIN", "INSERT INTO t VALUES (5, 'a')"); err != nil {
		t.Fatal(err)
	}
	if err := run(b, "INSERT INTO t VALUES (5, 'b')"); err != nil {
		t.Fatal(err)
	}
	err := run(a, "COMMIT")
	if err == nil || !strings.Contains(err.Error(), "1213") && !strings.Contains(strings.ToLower(err.Error()), "conflict") {
		t.Fatalf("second commit of key 5: %v, want a commit conflict", err)
	}
	if got := enginetest.Render(t, a, "SELECT id, v FROM t ORDER BY id"); got != "1|a\n5|b" {
		t.Fatalf("rows %q, want 1|a and 5|b", got)
	}
	if err := run(a, "INSERT INTO t VALUES (5, 'a')"); err == nil || !strings.Contains(err.Error(), "Duplicate entry '5'") {
		t.Fatalf("retried insert: %v, want 1062", err)
	}
}

// TestUpsert_ManyFiles: keys spread over many files (one per statement)
// are found wherever they are, and a REPLACE rewrites only what it must.
func TestUpsert_ManyFiles(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	c := e.Connect("root")
	exec := func(q string) {
		t.Helper()
		if err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE DATABASE d")
	exec("USE d")
	exec("CREATE TABLE t (k VARCHAR(10), n INT, v INT, PRIMARY KEY (n, k))")
	for f := range 12 {
		var vals []string
		for i := range 50 {
			vals = append(vals, fmt.Sprintf("('k%d', %d, 0)", i%5, f*50+i))
		}
		exec("INSERT INTO t VALUES " + strings.Join(vals, ", "))
	}
	for _, n := range []int{0, 49, 50, 333, 599} {
		q := fmt.Sprintf("INSERT INTO t VALUES ('k%d', %d, 9)", n%5, n)
		if err := c.Exec(ctx, q); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("Duplicate entry '%d-k%d'", n, n%5)) {
			t.Errorf("%s: %v, want 1062 naming the key", q, err)
		}
	}
	exec("INSERT INTO t VALUES ('k0', 0, 1), ('k3', 333, 1), ('k9', 333, 1), ('k4', 599, 1) ON DUPLICATE KEY UPDATE v = v + 10")
	if got := enginetest.Render(t, c, "SELECT ROW_COUNT()"); got != "7" {
		t.Errorf("ROW_COUNT() = %s, want 7 (three updates, one insert)", got)
	}
	exec("REPLACE INTO t VALUES ('k0', 0, 2), ('k1', 600, 2)")
	check := func(q, want string) {
		t.Helper()
		if got := enginetest.Render(t, c, q); got != want {
			t.Errorf("%s: %q, want %q", q, got, want)
		}
	}
	check("SELECT COUNT(*), SUM(v) FROM t", "602|25")
	check("SELECT k, n, v FROM t WHERE v > 0 ORDER BY n, k", "k0|0|2\nk3|333|10\nk9|333|1\nk4|599|10\nk1|600|2")
	check("SELECT operation, added_files, deleted_files FROM `t$snapshots` ORDER BY snapshot_id DESC LIMIT 2", "overwrite|2|1\noverwrite|4|3")
}
