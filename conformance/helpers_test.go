package conformance_test

import (
	"context"
	"database/sql"
	"net"
	"os"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/sirupsen/logrus"

	"github.com/lakesql/lakesql/engine"
)

func TestMain(m *testing.M) {
	// GMS's server logs every connection through logrus.
	logrus.SetLevel(logrus.ErrorLevel)
	os.Exit(m.Run())
}

// openEngine opens an engine on a fresh warehouse, closed at the end of
// the test.
func openEngine(t *testing.T) *engine.Engine {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// serve starts e's MySQL-wire server on a free loopback port and returns
// its address.
func serve(t *testing.T, e *engine.Engine) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := e.NewServer(engine.ServerConfig{Listener: l})
	if err != nil {
		l.Close()
		t.Fatal(err)
	}
	go srv.Start()
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

// dsn is go-sql-driver's DSN for root at addr, database db (may be empty):
// root@tcp(127.0.0.1:PORT)/db.
func dsn(addr, db string) string {
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "root", "tcp", addr, db
	return cfg.FormatDSN()
}

// openDB opens a database/sql handle on dsn, closed at the end of the test.
func openDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
