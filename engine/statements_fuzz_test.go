package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// statementKinds are templates of every statement kind GMS's binder
// resolves names in; %s is a name that may not exist.
var statementKinds = []string{
	"CALL %s()", "CALL %s", "CALL %s(1, 'x')", "CALL d.%s()", "CALL information_schema.%s()",
	"DROP PROCEDURE %s", "DROP PROCEDURE IF EXISTS %s", "SHOW CREATE PROCEDURE %s",
	"CREATE PROCEDURE %s() SELECT 1", "SHOW PROCEDURE STATUS LIKE '%s'",
	"CREATE TRIGGER %s BEFORE INSERT ON t FOR EACH ROW SET @x = 1", "DROP TRIGGER %s", "SHOW CREATE TRIGGER %s",
	"CREATE VIEW %s AS SELECT 1", "DROP VIEW %s", "SHOW CREATE VIEW %s",
	"SHOW TABLES", "SHOW TABLE STATUS", "SHOW CREATE TABLE %s", "SHOW COLUMNS FROM %s", "DESCRIBE %s",
	"SELECT * FROM %s", "INSERT INTO %s VALUES (1)", "UPDATE %s SET a = 1", "DELETE FROM %s", "TRUNCATE %s",
	"ALTER TABLE %s ADD COLUMN b INT", "DROP TABLE %s", "CREATE TABLE %s (a INT)", "CREATE INDEX i ON %s (a)",
	"ANALYZE TABLE %s", "OPTIMIZE TABLE %s", "SHOW INDEX FROM %s", "CHECKSUM TABLE %s", "RENAME TABLE %s TO x",
	"CREATE EVENT %s ON SCHEDULE EVERY 1 DAY DO SELECT 1", "DROP EVENT %s", "SHOW CREATE EVENT %s", "SHOW EVENTS",
	"CREATE FUNCTION %s() RETURNS INT RETURN 1", "DROP FUNCTION %s", "SELECT %s()",
	"PREPARE %s FROM 'SELECT 1'", "EXECUTE %s", "DEALLOCATE PREPARE %s",
	"LOCK TABLES %s READ", "GRANT SELECT ON %s TO root", "CREATE TABLE x_%s LIKE %s",
	"SELECT * FROM %s.%s", "USE %s", "SHOW CREATE DATABASE %s", "DROP DATABASE %s",
	"TABLE %s", "HANDLER %s OPEN", "CREATE TABLE y_%s AS SELECT * FROM %s",
}

// runKind runs one statement on conn and fails the test on a panic
// (whether it escapes or comes back as an error) or a GMS-internal error.
func runKind(t *testing.T, conn *engine.Conn, q string) (err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s: panic: %v", q, r)
		}
	}()
	err = conn.Exec(context.Background(), q)
	if err != nil && (strings.Contains(err.Error(), "panic") || strings.Contains(err.Error(), "nil pointer")) {
		t.Fatalf("%s: %v", q, err)
	}
	return err
}

func instantiate(tmpl, name string) string {
	return strings.ReplaceAll(tmpl, "%s", name)
}

// TestStatementKinds_CleanErrors: every statement kind, with and without a
// current database, on names that do not exist, answers (or fails) without
// a panic; CALL of an unknown procedure is MySQL's 1046 without a
// database and 1305 with one, embedded and over the wire.
func TestStatementKinds_CleanErrors(t *testing.T) {
	e := enginetest.Open(t)
	for _, db := range []string{"", "d"} {
		conn := e.Connect("root")
		if db != "" {
			if err := conn.Exec(context.Background(), "CREATE DATABASE IF NOT EXISTS d; USE d; CREATE TABLE IF NOT EXISTS t (a INT)"); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range statementKinds {
			_ = runKind(t, conn, instantiate(k, "nope"))
		}
		conn.Close()
	}
	h, _ := serve(t, e, "")
	for _, c := range []struct {
		setup, q string
		code     uint16
	}{
		{"", "CALL no_such_proc('c.t')", 1046},
		{"", "CALL nope", 1046},
		{"USE d", "CALL no_such_proc('c.t')", 1305},
		{"", "CALL d.nope()", 1305},
	} {
		conn := e.Connect("root")
		if c.setup != "" {
			if err := conn.Exec(context.Background(), c.setup); err != nil {
				t.Fatal(err)
			}
		}
		code, msg := errCode(runKind(t, conn, c.q))
		if code != c.code {
			t.Errorf("embedded %s (%s): %d %s, want %d", c.q, c.setup, code, msg, c.code)
		}
		conn.Close()
		stmts := c.q
		if c.setup != "" {
			stmts = c.setup + "; " + c.q
		}
		_, err := h.Exec(stmts)
		if code, msg := errCode(err); code != c.code {
			t.Errorf("wire %s: %d %s, want %d", stmts, code, msg, c.code)
		}
	}
	// lakesql's own procedures need no current database.
	if err := e.Connect("root").Exec(context.Background(), "CALL verify('d.t')"); err != nil {
		t.Errorf("CALL verify without a database: %v", err)
	}
}

// FuzzStatementKinds runs statement kinds over fuzzed names, with and
// without a current database: none may crash the process (go test
// -fuzz=FuzzStatementKinds ./engine).
func FuzzStatementKinds(f *testing.F) {
	for i := range statementKinds {
		f.Add(uint8(i), "nope", false)
		f.Add(uint8(i), "t", true)
	}
	f.Add(uint8(0), "`select`", false)
	f.Add(uint8(0), "d.t", true)
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: f.TempDir(), CreateDefaultWorkspace: true, NoAudit: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { e.Close() })
	if err := e.Connect("root").Exec(context.Background(), "CREATE DATABASE d; CREATE TABLE d.t (a INT)"); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, kind uint8, name string, useDB bool) {
		if strings.ContainsAny(name, ";\x00") || len(name) > 64 {
			return // one statement, a plausible name
		}
		conn := e.Connect("root")
		defer conn.Close()
		if useDB {
			if err := conn.Exec(context.Background(), "USE d"); err != nil {
				t.Fatal(err)
			}
		}
		q := instantiate(statementKinds[int(kind)%len(statementKinds)], name)
		_ = runKind(t, conn, fmt.Sprint(q))
	})
}
