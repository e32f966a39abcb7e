package engine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// needTool finds an external client, skipping outside CI and failing in
// CI (where .ci/run installs it) when it is missing.
func needTool(t *testing.T, path string) string {
	t.Helper()
	p, err := exec.LookPath(path)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed; .ci/run installs it", path)
		}
		t.Skipf("%s is not installed (apt-get install it, or run .ci/run)", path)
	}
	return p
}

// serveWithData starts a server on a warehouse with d.t = (1,'one'),(2,'two'),(3,NULL).
func serveWithData(t *testing.T) (addr string) {
	t.Helper()
	e := enginetest.Open(t)
	if err := e.Connect("root").Exec(context.Background(),
		"CREATE DATABASE d; CREATE TABLE d.t (a INT, b VARCHAR(10)); INSERT INTO d.t VALUES (1,'one'),(2,'two'),(3,NULL)"); err != nil {
		t.Fatal(err)
	}
	_, addr = serve(t, e, "d")
	return addr
}

func port(addr string) string { return addr[strings.LastIndexByte(addr, ':')+1:] }

// TestClient_MariaDBCLI drives the mariadb command-line client: connect
// probes (status, SELECT @@version_comment), a script, and LIMIT 0.
func TestClient_MariaDBCLI(t *testing.T) {
	bin := needTool(t, "mariadb")
	addr := serveWithData(t)
	run := func(sql string) string {
		cmd := exec.Command(bin, "-h", "127.0.0.1", "-P", port(addr), "-u", "root", "--batch", "--skip-ssl", "d", "-e", sql)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("mariadb -e %q: %v\n%s", sql, err, out)
		}
		return string(out)
	}
	if out := run("SELECT a, b FROM t ORDER BY a"); out != "a\tb\n1\tone\n2\ttwo\n3\tNULL\n" {
		t.Fatalf("select output %q", out)
	}
	if out := run("SELECT * FROM t LIMIT 0"); strings.TrimSpace(out) != "" && strings.TrimSpace(out) != "a\tb" {
		t.Fatalf("LIMIT 0 output %q", out)
	}
	if out := run("status"); !strings.Contains(out, "lakesql") {
		t.Fatalf("status does not show the server: %q", out)
	}
	if out := run("CREATE TABLE t2 (x BIGINT); INSERT INTO t2 VALUES (5); SELECT x FROM t2"); !strings.Contains(out, "x\n5\n") {
		t.Fatalf("script output %q", out)
	}
}

// TestClient_PythonSQLAlchemy reflects a table with SQLAlchemy over
// PyMySQL and reads it.
func TestClient_PythonSQLAlchemy(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import pymysql, sqlalchemy").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3-pymysql / python3-sqlalchemy are not installed; .ci/run installs them")
		}
		t.Skip("python3-pymysql / python3-sqlalchemy are not installed")
	}
	addr := serveWithData(t)
	out, err := exec.Command(py, filepath.Join("testdata", "sqlalchemy_probe.py"), port(addr), "d", "t").CombinedOutput()
	if err != nil {
		t.Fatalf("probe: %v\n%s", err, out)
	}
	want := "comment: lakesql\ncolumns: a:INTEGER,b:VARCHAR\nrow: 1|one\nrow: 2|two\nrow: 3|NULL\n"
	if string(out) != want {
		t.Fatalf("probe output:\n%s\nwant:\n%s", out, want)
	}
}

// TestClient_ConnectorJPrepared uses MariaDB Connector/J with server-side
// prepared statements.
func TestClient_ConnectorJPrepared(t *testing.T) {
	javac := needTool(t, "javac")
	java := needTool(t, "java")
	jar := "/usr/share/java/mariadb-java-client.jar"
	if _, err := os.Stat(jar); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("libmariadb-java is not installed; .ci/run installs it")
		}
		t.Skip("libmariadb-java is not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command(javac, "-d", dir, filepath.Join("testdata", "PreparedProbe.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	addr := serveWithData(t)
	out, err := exec.Command(java, "-cp", dir+string(os.PathListSeparator)+jar, "PreparedProbe", port(addr), "d", "t").CombinedOutput()
	if err != nil {
		t.Fatalf("java: %v\n%s", err, out)
	}
	want := "columns: a b\nrow: 2|two\nrow: 3|null\n"
	if string(out) != want {
		t.Fatalf("Connector/J output:\n%s\nwant:\n%s", out, want)
	}
}

// TestClient_MariaDBCLIErrorAfterRows: the mariadb client gets an error
// raised after rows were streamed (ERROR 1690 ...) and goes on with the
// script on the same connection (it would reconnect silently, with a new
// connection id, had the server closed it).
func TestClient_MariaDBCLIErrorAfterRows(t *testing.T) {
	bin := needTool(t, "mariadb")
	e := enginetest.Open(t)
	var vals []string
	for i := range 1000 {
		vals = append(vals, "("+strconv.Itoa(i)+")")
	}
	if err := e.Connect("root").Exec(context.Background(),
		"CREATE DATABASE d; CREATE TABLE d.big (a BIGINT); INSERT INTO d.big VALUES "+strings.Join(vals, ",")); err != nil {
		t.Fatal(err)
	}
	_, addr := serve(t, e, "d")
	cmd := exec.Command(bin, "-h", "127.0.0.1", "-P", port(addr), "-u", "root", "--batch", "--skip-ssl", "--force", "d")
	cmd.Stdin = strings.NewReader("SELECT CONNECTION_ID() AS first;\nSELECT a + 9223372036854775307 FROM big ORDER BY a;\nSELECT CONNECTION_ID() AS second;\n")
	out, _ := cmd.CombinedOutput() // --force: the exit status does not tell
	s := string(out)
	if !strings.Contains(s, "ERROR 1690") || !strings.Contains(s, "BIGINT value is out of range") {
		t.Fatalf("no 1690 error in the output:\n%s", s)
	}
	first, second := afterLine(s, "first"), afterLine(s, "second")
	if first == "" || first != second {
		t.Fatalf("connection id %q before the error, %q after; want the same:\n%s", first, second, s)
	}
}

// afterLine is the line that follows the line header in s, or "".
func afterLine(s, header string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l == header && i+1 < len(lines) {
			return lines[i+1]
		}
	}
	return ""
}
