package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestUpsert_ConcurrentKeys: two sessions insert into one keyed table.
// The second to commit was checked against a snapshot without the first's
// rows; it re-bases when the rows committed since hold none of its keys,
// and is refused with 1062 when they hold one (never a duplicate key).
func TestUpsert_ConcurrentKeys(t *testing.T) {
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
	// Different keys: both commit.
	if err := run(a, "BEGIN", "INSERT INTO t VALUES (2, 'a')"); err != nil {
		t.Fatal(err)
	}
	if err := run(b, "INSERT INTO t VALUES (3, 'b')"); err != nil {
		t.Fatal(err)
	}
	if err := run(a, "COMMIT"); err != nil {
		t.Fatalf("commit of a key nobody else wrote: %v", err)
	}
	// The same key: the later commit is refused and changes nothing.
	if err := run(a, "BEGIN", "INSERT INTO t VALUES (5, 'a'), (6, 'a')"); err != nil {
		t.Fatal(err)
	}
	if err := run(b, "INSERT INTO t VALUES (5, 'b')"); err != nil {
		t.Fatal(err)
	}
	err := run(a, "COMMIT")
	if err == nil || !strings.Contains(err.Error(), "1062") || !strings.Contains(err.Error(), "Duplicate entry '5'") {
		t.Fatalf("second commit of key 5: %v, want 1062", err)
	}
	if got := enginetest.Render(t, a, "SELECT id, v FROM t ORDER BY id"); got != "1|a\n2|a\n3|b\n5|b" {
		t.Fatalf("rows %q", got)
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

// TestUpsert_WireAffectedRows: the OK packet carries MySQL's affected-row
// counts, over the text and the binary (prepared) protocol alike.
func TestUpsert_WireAffectedRows(t *testing.T) {
	e := enginetest.Open(t)
	h, _ := serve(t, e, "")
	for _, q := range []string{"CREATE DATABASE d", "USE d", "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(5))", "INSERT INTO t VALUES (1, 'a'), (2, 'b')"} {
		if _, err := h.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, c := range []struct {
		q    string
		args []any
		want int64
	}{
		{"REPLACE INTO t VALUES (1, 'x'), (3, 'c')", nil, 3},
		{"REPLACE INTO t VALUES (?, ?)", []any{2, "y"}, 2},
		{"INSERT INTO t VALUES (?, ?) ON DUPLICATE KEY UPDATE v = VALUES(v)", []any{3, "z"}, 2},
		{"INSERT INTO t VALUES (?, ?) ON DUPLICATE KEY UPDATE v = VALUES(v)", []any{3, "z"}, 0},
		{"INSERT INTO t VALUES (?, ?) ON DUPLICATE KEY UPDATE v = VALUES(v)", []any{4, "d"}, 1},
	} {
		res, err := h.Exec(c.q, c.args...)
		if err != nil {
			t.Fatalf("%s %v: %v", c.q, c.args, err)
		}
		if n, err := res.RowsAffected(); err != nil || n != c.want {
			t.Errorf("%s %v: %d rows affected (%v), want %d", c.q, c.args, n, err, c.want)
		}
	}
	if _, err := h.Exec("INSERT INTO t VALUES (?, ?)", 4, "dup"); err == nil || !strings.Contains(err.Error(), "1062") {
		t.Errorf("prepared duplicate insert: %v, want 1062", err)
	}
}

// TestUpsert_KeyCheckReadsOnlyFilesItMayHit: checking a new key reads the
// key columns of the files whose bounds admit it and nothing else, so an
// INSERT of keys past every file's bounds reads no file: here one file
// cannot be read at all, and only a key inside its bounds notices.
func TestUpsert_KeyCheckReadsOnlyFilesItMayHit(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	c := e.Connect("root")
	for _, q := range []string{"CREATE DATABASE d", "USE d", "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
		"INSERT INTO t VALUES (1, 0), (2, 0)", "INSERT INTO t VALUES (10, 0), (12, 0)", "INSERT INTO t VALUES (20, 0), (22, 0)"} {
		if err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ds, err := e.Catalog().Dataset(ctx, catalogstore.Ident{Workspace: "main", Collection: "d", Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := e.Catalog().Files(ctx, ds, ds.CurrentSnapshotID)
	if err != nil || len(files) != 3 {
		t.Fatalf("%d files (%v), want 3", len(files), err)
	}
	if err := e.Catalog().Blob().Delete(ctx, files[1].Path); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"INSERT INTO t VALUES (30, 1), (5, 1)",
		"REPLACE INTO t VALUES (2, 2), (40, 2)",
		"INSERT INTO t VALUES (21, 3), (22, 3) ON DUPLICATE KEY UPDATE v = 3",
	} {
		if err := c.Exec(ctx, q); err != nil {
			t.Errorf("%s (no key in the unreadable file's bounds): %v", q, err)
		}
	}
	if err := c.Exec(ctx, "INSERT INTO t VALUES (11, 1)"); err == nil {
		t.Error("a key inside the unreadable file's bounds was not checked against it")
	}
}
