package engine_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/engine"
)

// TestLogin_UnknownUserIs1045: a login as a user that does not exist is
// refused like a wrong password, with 1045, in Go's driver and the
// mariadb CLI (which reported 2027 "malformed packet" before).
func TestLogin_UnknownUserIs1045(t *testing.T) {
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true, Auth: true, RootPassword: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	addr := listen(t, e)
	for _, c := range []struct{ user, pass, using string }{{"nobody", "x", "YES"}, {"nobody", "", "NO"}, {"root", "wrong", "YES"}} {
		err := dial(t, addr, c.user, c.pass).Ping()
		var me *gomysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1045 || me.Message != "Access denied for user '"+c.user+"'@'127.0.0.1' (using password: "+c.using+")" {
			t.Errorf("login %s/%q: %v, want 1045 Access denied", c.user, c.pass, err)
		}
	}
	if err := dial(t, addr, "root", "s3cret").Ping(); err != nil {
		t.Fatalf("root: %v", err)
	}
	bin := needTool(t, "mariadb")
	for _, user := range []string{"nobody", "root"} {
		out, err := exec.Command(bin, "-h", "127.0.0.1", "-P", port(addr), "-u", user, "-pwrong", "--skip-ssl", "-e", "SELECT 1").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "ERROR 1045 (28000)") {
			t.Errorf("mariadb -u %s: %v %s, want ERROR 1045", user, err, out)
		}
	}
}

// TestClient_MariaDBCLIStatements: statements whose OK packet or result
// the C client parses strictly: PREPARE's info, DATETIME(6).
func TestClient_MariaDBCLIStatements(t *testing.T) {
	bin := needTool(t, "mariadb")
	addr := serveWithData(t)
	run := func(sql string) string {
		out, err := exec.Command(bin, "-h", "127.0.0.1", "-P", port(addr), "-u", "root", "--batch", "--skip-ssl", "-vvv", "d", "-e", sql).CombinedOutput()
		if err != nil {
			t.Fatalf("mariadb -e %q: %v\n%s", sql, err, out)
		}
		return string(out)
	}
	out := run("PREPARE s FROM 'SELECT a FROM t WHERE a = ?'; SET @x = 2; EXECUTE s USING @x; DEALLOCATE PREPARE s")
	if !strings.Contains(out, "Statement prepared") || !strings.Contains(out, "|    2 |") {
		t.Errorf("PREPARE / EXECUTE: %s", out)
	}
	out = run("CREATE TABLE dt (x DATETIME(6), y DATETIME(3)); INSERT INTO dt VALUES ('2024-01-01 00:00:00', '2024-01-01 10:00:00.5'); SELECT x, y FROM dt")
	if !strings.Contains(out, "| 2024-01-01 00:00:00.000000 | 2024-01-01 10:00:00.500 |") {
		t.Errorf("DATETIME(6): %s", out)
	}
	out = run("UPDATE t SET b = 'uno' WHERE a = 1")
	if !strings.Contains(out, "Rows matched: 1  Changed: 1  Warnings: 0") {
		t.Errorf("UPDATE info: %s", out)
	}
}

// TestClient_MariaDBCLIWorkspace: SET lakehouse_workspace switches
// workspace from the stock CLI, whose own USE command cannot carry
// USE WORKSPACE; an unknown workspace is 1049.
func TestClient_MariaDBCLIWorkspace(t *testing.T) {
	bin := needTool(t, "mariadb")
	addr := serveWithData(t)
	run := func(sql string) (string, error) {
		out, err := exec.Command(bin, "-h", "127.0.0.1", "-P", port(addr), "-u", "root", "--batch", "--skip-ssl", "-e", sql).CombinedOutput()
		return string(out), err
	}
	out, err := run("CREATE WORKSPACE research; SET lakehouse_workspace = 'research'; SELECT @@lakehouse_workspace; " +
		"CREATE DATABASE c; CREATE TABLE c.t (a INT); INSERT INTO c.t VALUES (7); SELECT a FROM c.t; SHOW DATABASES")
	if err != nil || !strings.Contains(out, "@@lakehouse_workspace\nresearch\n") || !strings.Contains(out, "a\n7\n") ||
		!strings.Contains(out, "Database\nc\n") || strings.Contains(out, "\nd\n") {
		t.Fatalf("switch to research: %v\n%s", err, out)
	}
	// Each connection starts in the default workspace; SET switches back.
	out, err = run("SELECT @@lakehouse_workspace; SHOW DATABASES; SET lakehouse_workspace = 'research'; USE c; SELECT a FROM t")
	if err != nil || !strings.Contains(out, "@@lakehouse_workspace\nmain\n") || !strings.Contains(out, "Database\nd\n") || !strings.Contains(out, "a\n7\n") {
		t.Fatalf("new connection: %v\n%s", err, out)
	}
	if out, err = run("SET lakehouse_workspace = 'nope'"); err == nil || !strings.Contains(out, "ERROR 1049") {
		t.Fatalf("unknown workspace: %v\n%s", err, out)
	}
}

// explainProbe runs plain EXPLAIN with PyMySQL, which converts the
// integer and float columns, then a query on the same connection.
const explainProbe = `
import sys, pymysql
c = pymysql.connect(host="127.0.0.1", port=int(sys.argv[1]), user="root", database="d")
cur = c.cursor()
cur.execute("EXPLAIN SELECT a FROM t WHERE a > 1")
print(cur.fetchall())
cur.execute("EXPLAIN SELECT 1")
print(cur.fetchall())
cur.execute("PREPARE s FROM 'SELECT 1'")
cur.execute("SELECT COUNT(*) FROM t")
print(cur.fetchall())
`

// TestClient_ExplainIsMySQLShaped: plain EXPLAIN has one row per table
// with real NULLs, readable by PyMySQL and the mariadb CLI, embedded and
// over the wire.
func TestClient_ExplainIsMySQLShaped(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import pymysql").Run(); err != nil {
		needTool(t, "python3-pymysql (import pymysql)")
	}
	addr := serveWithData(t)
	out, err := exec.Command(py, "-c", explainProbe, port(addr)).CombinedOutput()
	want := "((1, 'SIMPLE', 't', None, 'ALL', None, None, None, None, 3, 100.0, 'Using where'),)\n" +
		"((1, 'SIMPLE', None, None, None, None, None, None, None, None, None, 'No tables used'),)\n" +
		"((3,),)\n"
	if err != nil || string(out) != want {
		t.Errorf("pymysql: %v\n%s\nwant:\n%s", err, out, want)
	}
	bin := needTool(t, "mariadb")
	cli, err := exec.Command(bin, "-h", "127.0.0.1", "-P", port(addr), "-u", "root", "--batch", "--skip-ssl", "d", "-e", "EXPLAIN SELECT t.a FROM t JOIN t AS u ON t.a = u.a").CombinedOutput()
	if err != nil || !strings.Contains(string(cli), "1\tSIMPLE\tt\tNULL\tALL\tNULL\tNULL\tNULL\tNULL\t3\t100\t\n") ||
		!strings.Contains(string(cli), "1\tSIMPLE\tu\tNULL\tALL") {
		t.Errorf("mariadb EXPLAIN: %v\n%s", err, cli)
	}
}

// TestPrivileges_NameTheObject: a refused statement gets MySQL's code for
// what it is refused on: 1142 naming the command and table, 1044 naming
// the database, 1227 for privileges on neither.
func TestPrivileges_NameTheObject(t *testing.T) {
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true, Auth: true, RootPassword: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	addr := listen(t, e)
	root := dial(t, addr, "root", "s3cret")
	for _, q := range []string{"CREATE DATABASE d", "CREATE TABLE d.t (a INT)", "CREATE TABLE d.u (a INT)", "CREATE USER bob IDENTIFIED BY 'b'", "GRANT SELECT ON d.t TO bob"} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	bob := dial(t, addr, "bob", "b")
	for _, c := range []struct {
		q    string
		code uint16
		msg  string
	}{
		{"SELECT * FROM d.u", 1142, "to table 'u'"},
		{"INSERT INTO d.t VALUES (1)", 1142, "INSERT command denied to user 'bob'@'%' for table 't'"},
		{"REPLACE INTO d.t VALUES (1)", 1142, "command denied to user 'bob'@'%' for table 't'"},
		{"UPDATE d.t SET a = 2", 1142, "UPDATE command denied to user 'bob'@'%' for table 't'"},
		{"DELETE FROM d.t", 1142, "DELETE command denied to user 'bob'@'%' for table 't'"},
		{"DROP TABLE d.t", 1142, "DROP command denied to user 'bob'@'%' for table 't'"},
		{"CREATE DATABASE zz", 1044, "Access denied for user 'bob'@'%' to database 'zz'"},
		{"CREATE USER eve", 1227, "command denied"},
	} {
		_, err := bob.Exec(c.q)
		var me *gomysql.MySQLError
		if !errors.As(err, &me) || me.Number != c.code || !strings.Contains(me.Message, c.msg) {
			t.Errorf("%s: %v, want %d %q", c.q, err, c.code, c.msg)
		}
	}
	var n int
	if err := root.QueryRow("SELECT COUNT(*) FROM d.t").Scan(&n); err != nil || n != 0 {
		t.Errorf("refused writes changed d.t: %d rows, %v", n, err)
	}
}
