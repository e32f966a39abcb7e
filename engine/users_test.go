package engine_test

import (
	"context"
	"database/sql"
	"net"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/engine"
)

// listen starts one server on e and returns its address.
func listen(t *testing.T, e *engine.Engine) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := e.NewServer(engine.ServerConfig{Listener: l})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

func dial(t *testing.T, addr, user, pass string) *sql.DB {
	t.Helper()
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = user, pass, "tcp", addr
	cfg.Timeout, cfg.ReadTimeout = 5*time.Second, 5*time.Second
	h, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// TestAuth_UsersPersistInTheMetastore: with Auth, root is bootstrapped
// from Config.RootPassword, users created with CREATE USER survive a restart,
// and a wrong password is refused.
func TestAuth_UsersPersistInTheMetastore(t *testing.T) {
	wh := t.TempDir()
	open := func() *engine.Engine {
		e, err := engine.Open(context.Background(), engine.Config{Warehouse: wh, CreateDefaultWorkspace: true, NoAudit: true, Auth: true, RootPassword: "s3cret"})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open()
	addr := listen(t, e)
	if err := dial(t, addr, "root", "wrong").Ping(); err == nil {
		t.Fatal("a wrong root password was accepted")
	}
	root := dial(t, addr, "root", "s3cret")
	if _, err := root.Exec("CREATE USER ada IDENTIFIED BY 'pw'"); err != nil {
		t.Fatal(err)
	}
	if _, err := root.Exec("GRANT SELECT ON *.* TO ada"); err != nil {
		t.Fatal(err)
	}
	e.Close()

	e2 := open()
	defer e2.Close()
	ada := dial(t, listen(t, e2), "ada", "pw")
	var one int
	if err := ada.QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("persisted user cannot connect: %v", err)
	}
	if _, err := ada.Exec("CREATE DATABASE nope"); err == nil {
		t.Fatal("a SELECT-only user created a database")
	}
}

func TestReadOnly_RefusesWrites(t *testing.T) {
	wh := t.TempDir()
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: wh, CreateDefaultWorkspace: true, NoAudit: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Connect("root").Exec(context.Background(), "CREATE DATABASE d; CREATE TABLE d.t (a INT); INSERT INTO d.t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	e.Close()
	ro, err := engine.Open(context.Background(), engine.Config{Warehouse: wh, NoAudit: true, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	c := ro.Connect("root")
	if err := c.Exec(context.Background(), "INSERT INTO d.t VALUES (2)"); err == nil {
		t.Fatal("read-only engine accepted an INSERT")
	}
	r, err := c.QueryOne(context.Background(), "SELECT COUNT(*) FROM d.t")
	if err != nil || r.Rows[0][0] != int64(1) {
		t.Fatalf("read on read-only engine: %v %v", r.Rows, err)
	}
}
