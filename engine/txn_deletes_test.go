package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestTransaction_ReadsItsDeletes: inside a transaction, reads see its own
// DELETEs and UPDATEs (staged deletes subtract from the table and the
// staged rows as a multiset), and a row inserted and deleted in one
// transaction is never committed.
func TestTransaction_ReadsItsDeletes(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	exec := func(qs ...string) {
		t.Helper()
		for _, q := range qs {
			if err := conn.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	check := func(q, want string) {
		t.Helper()
		if got := enginetest.Render(t, conn, q); got != want {
			t.Errorf("%s:\n got %q\nwant %q", q, got, want)
		}
	}
	exec("CREATE DATABASE d", "USE d", "CREATE TABLE t (k INT, v INT)",
		"INSERT INTO t VALUES (1, 10), (2, 20), (3, 30), (8, 80), (8, 80)")

	exec("BEGIN", "DELETE FROM t WHERE k = 2", "INSERT INTO t VALUES (4, 40)", "UPDATE t SET v = 11 WHERE k = 1")
	check("SELECT k, v FROM t ORDER BY k, v", "1|11\n3|30\n4|40\n8|80\n8|80")
	check("SELECT COUNT(*), SUM(v) FROM t", "5|241")
	check("SELECT v FROM t WHERE k = 1", "11")
	check("SELECT k FROM t ORDER BY v DESC, k LIMIT 2", "8\n8")
	check("SELECT COUNT(*) FROM (SELECT k FROM t LIMIT 10) x", "5") // no LIMIT cut before the deletes
	exec("DELETE FROM t WHERE k = 8 LIMIT 1")
	check("SELECT COUNT(*) FROM t WHERE k = 8", "1")
	exec("INSERT INTO t VALUES (5, 50)", "DELETE FROM t WHERE k = 5")
	check("SELECT COUNT(*) FROM t WHERE k = 5", "0")
	exec("COMMIT")
	check("SELECT k, v FROM t ORDER BY k, v", "1|11\n3|30\n4|40\n8|80")

	// Added and deleted in one transaction: nothing to commit.
	id := catalogstore.Ident{Workspace: "main", Collection: "d", Name: "t"}
	snap := func() int64 {
		t.Helper()
		ds, err := e.Catalog().Dataset(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return ds.CurrentSnapshotID
	}
	before := snap()
	exec("BEGIN", "INSERT INTO t VALUES (7, 70), (7, 71)", "DELETE FROM t WHERE k = 7", "COMMIT")
	check("SELECT COUNT(*) FROM t WHERE k = 7", "0")
	if after := snap(); after != before {
		t.Errorf("an insert deleted in its own transaction committed snapshot %d (was %d)", after, before)
	}

	// Enough staged rows to be written out as a staged file mid-statement
	// (over 256Ki), then a delete of some of them and of a committed row.
	var vals []string
	for i := range 600 {
		vals = append(vals, fmt.Sprintf("(%d)", i))
	}
	exec("CREATE TABLE n (i INT)", "INSERT INTO n VALUES "+strings.Join(vals, ", "))
	exec("BEGIN", "INSERT INTO t SELECT 1000 + a.i * 600 + b.i, (a.i + b.i) % 3 FROM n a, n b WHERE a.i < 440",
		"DELETE FROM t WHERE (v = 0 AND k >= 1000) OR k = 3")
	check("SELECT COUNT(*), MIN(k) FROM t WHERE k < 1000", "3|1")
	want := enginetest.Render(t, conn, "SELECT COUNT(*), SUM(v) FROM t WHERE k >= 1000")
	exec("COMMIT")
	check("SELECT COUNT(*), SUM(v) FROM t WHERE k >= 1000", want)
	check("SELECT COUNT(*) FROM t WHERE k >= 1000 AND v = 0", "0")
}
