package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine"
)

// TestGrants_OneNamingRule: a grant on a bare collection name means the
// current workspace's collection, and covers reads and writes alike (issue
// 17: SELECT needed `main.d`.*, INSERT needed d.*); the qualified spelling
// is the same grant, and another collection stays denied.
func TestGrants_OneNamingRule(t *testing.T) {
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true, Auth: true, RootPassword: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	addr := listen(t, e)
	root := dial(t, addr, "root", "s3cret")
	for _, q := range []string{
		"CREATE DATABASE d", "CREATE DATABASE other",
		"CREATE TABLE d.t (a INT)", "CREATE TABLE other.t (a INT)",
		"INSERT INTO d.t VALUES (1)",
		"CREATE USER alice IDENTIFIED BY 'pw'", "CREATE USER bob IDENTIFIED BY 'pw'",
		"GRANT SELECT, INSERT, EXECUTE ON d.* TO alice",
		"GRANT SELECT, INSERT, EXECUTE ON `main.d`.* TO bob",
	} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, user := range []string{"alice", "bob"} {
		h := dial(t, addr, user, "pw")
		if _, err := h.Exec("INSERT INTO d.t VALUES (2)"); err != nil {
			t.Fatalf("%s: INSERT INTO d.t: %v", user, err)
		}
		var n int
		if err := h.QueryRow("SELECT COUNT(*) FROM d.t").Scan(&n); err != nil {
			t.Fatalf("%s: SELECT FROM d.t: %v", user, err)
		}
		if err := h.QueryRow("SELECT COUNT(*) FROM `main.d`.t").Scan(&n); err != nil {
			t.Fatalf("%s: SELECT FROM `main.d`.t: %v", user, err)
		}
		if _, err := h.Exec("USE d"); err != nil {
			t.Fatalf("%s: USE d: %v", user, err)
		}
		if _, err := h.Exec("CALL verify('d.t')"); err != nil {
			t.Fatalf("%s: CALL verify('d.t'): %v", user, err)
		}
		if _, err := h.Exec("INSERT INTO other.t VALUES (1)"); err == nil || !strings.Contains(err.Error(), "denied") {
			t.Fatalf("%s: INSERT INTO other.t = %v, want access denied", user, err)
		}
		if err := h.QueryRow("SELECT COUNT(*) FROM other.t").Scan(&n); err == nil {
			t.Fatalf("%s: SELECT FROM other.t allowed", user)
		}
	}
	var grants string
	if err := root.QueryRow("SHOW GRANTS FOR alice").Scan(&grants); err != nil {
		t.Fatal(err)
	}
	rows, err := root.Query("SHOW GRANTS FOR alice")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var all []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			t.Fatal(err)
		}
		all = append(all, g)
	}
	if !strings.Contains(strings.Join(all, "\n"), "`main.d`.*") {
		t.Fatalf("alice's grants %q, want them on `main.d`.*", all)
	}
}
