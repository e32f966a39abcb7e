// Package reliability holds lakesql's crash, concurrency and bad-input
// tests: a writer process killed at each step of the commit protocol,
// concurrent clients over the MySQL wire (one server and two servers on one
// warehouse), hostile input from clients and from the object store
// (corrupt files, a full store), tables dropped and recreated under open
// transactions, and the randomized schedule (schedule*_test.go): writers,
// DDL and maintenance on two serve processes under KILLs and SIGKILLs,
// every acknowledged write checked against a ledger.
package reliability

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"net"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/sirupsen/logrus"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta/sqlite"
	"github.com/lakesql/lakesql/engine"
)

func TestMain(m *testing.M) {
	// GMS's server logs every connection through logrus.
	logrus.SetLevel(logrus.ErrorLevel)
	os.Exit(m.Run())
}

// openEngine opens an engine on warehouse dir (creating the workspace).
func openEngine(t *testing.T, dir string) *engine.Engine {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: dir, CreateDefaultWorkspace: true, NoAudit: true})
	if err != nil {
		t.Fatalf("open engine on %s: %v", dir, err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// server is a running wire server over an engine.
type server struct {
	addr string
	srv  *engine.Server
	done chan error
}

// serve starts the wire server on a free loopback port.
func serve(t *testing.T, e *engine.Engine) *server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := e.NewServer(engine.ServerConfig{Listener: l})
	if err != nil {
		t.Fatal(err)
	}
	s := &server{addr: l.Addr().String(), srv: srv, done: make(chan error, 1)}
	go func() { s.done <- srv.Start() }()
	t.Cleanup(func() { srv.Close() })
	return s
}

// dsn is a go-sql-driver DSN for the server, in collection db ("" none).
func (s *server) dsn(db string) string {
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "root", "tcp", s.addr, db
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = 10*time.Second, 60*time.Second, 60*time.Second
	return cfg.FormatDSN()
}

// open returns a database/sql pool on the server.
func (s *server) open(t *testing.T, db string, maxConns int) *sql.DB {
	t.Helper()
	h, err := sql.Open("mysql", s.dsn(db))
	if err != nil {
		t.Fatal(err)
	}
	h.SetMaxOpenConns(maxConns)
	t.Cleanup(func() { h.Close() })
	return h
}

// alive proves the server still answers a brand-new connection.
func (s *server) alive(t *testing.T) {
	t.Helper()
	select {
	case err := <-s.done:
		t.Fatalf("server stopped: %v", err)
	default:
	}
	h, err := sql.Open("mysql", s.dsn(""))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	h.SetMaxOpenConns(1)
	var one int
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("server does not answer a new connection: %d, %v", one, err)
	}
}

func mustExec(t *testing.T, h *sql.DB, q string) {
	t.Helper()
	if _, err := h.Exec(q); err != nil {
		t.Fatalf("%.120s: %v", q, err)
	}
}

func count(t *testing.T, h *sql.DB, table string) int64 {
	t.Helper()
	var n int64
	if err := h.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

// embeddedQuery runs one statement in an embedded session and returns the
// rows as "a|b" strings.
func embeddedQuery(t *testing.T, e *engine.Engine, q string) []string {
	t.Helper()
	c := e.Connect("root")
	defer c.Close()
	rs, err := c.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	last := rs[len(rs)-1]
	var out []string
	for i, r := range last.Rows {
		cells := make([]string, len(r))
		for j := range r {
			if txt, ok := last.Text(i, j); ok {
				cells[j] = txt
			} else {
				cells[j] = "NULL"
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	return out
}

// catalogOn opens a fresh catalog straight on the warehouse's stores (no
// caches shared with any engine), with clock now (nil: time.Now).
func catalogOn(t *testing.T, dir string, now func() time.Time) *catalogstore.Catalog {
	t.Helper()
	ms, err := sqlite.Open(context.Background(), dir+"/lakesql.db")
	if err != nil {
		t.Fatal(err)
	}
	bs, err := local.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ms.Close(); bs.Close() })
	return catalogstore.New(ms, bs, catalogstore.Options{NoAudit: true, Now: now})
}

// lineage checks that the snapshots of ds form one linear chain 1..head,
// each the child of the one before, and returns them.
func lineage(t *testing.T, cat *catalogstore.Catalog, id catalogstore.Ident) (*catalogstore.Dataset, []catalogstore.Snapshot) {
	t.Helper()
	ctx := context.Background()
	ds, err := cat.Dataset(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := cat.Snapshots(ctx, ds)
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(snaps, func(i, j int) bool { return snaps[i].ID < snaps[j].ID })
	if int64(len(snaps)) != ds.CurrentSnapshotID {
		t.Fatalf("%s: %d snapshot documents, head %d (last sequence %d)", id, len(snaps), ds.CurrentSnapshotID, ds.LastSequenceNumber)
	}
	for i, s := range snaps {
		if s.ID != int64(i+1) || s.ParentID != int64(i) {
			t.Fatalf("%s: history is not linear at %d: snapshot %d has parent %d", id, i, s.ID, s.ParentID)
		}
	}
	if ds.LastSequenceNumber != ds.CurrentSnapshotID {
		t.Fatalf("%s: last sequence %d != head %d", id, ds.LastSequenceNumber, ds.CurrentSnapshotID)
	}
	if len(snaps) > 0 && ds.CurrentRecords != snaps[len(snaps)-1].Summary.TotalRecords {
		t.Fatalf("%s: current-records %d, head summary %d", id, ds.CurrentRecords, snaps[len(snaps)-1].Summary.TotalRecords)
	}
	return ds, snaps
}

// referenced is every object key a snapshot of ds references (manifests and
// their data files), read straight from the stores.
func referenced(t *testing.T, cat *catalogstore.Catalog, ds *catalogstore.Dataset, snaps []catalogstore.Snapshot) map[string]bool {
	t.Helper()
	refs := map[string]bool{}
	for _, s := range snaps {
		refs[s.ManifestPath] = true
		files, err := manifest.Read(context.Background(), cat.Blob(), s.ManifestPath)
		if err != nil {
			t.Fatalf("manifest %s of snapshot %d: %v", s.ManifestPath, s.ID, err)
		}
		for _, f := range files {
			refs[f.Path] = true
		}
	}
	return refs
}

// waitFile waits for path to exist and returns its content.
func waitFile(path string, timeout time.Duration) (string, bool) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil {
			return string(b), true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return "", false
}

// writeFileAtomic makes content appear at path all at once.
func writeFileAtomic(path, content string) error {
	if err := os.WriteFile(path+".tmp", []byte(content), 0o644); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

// sqlOpenDB wraps a connector in a one-connection pool.
func sqlOpenDB(t *testing.T, c driver.Connector) *sql.DB {
	t.Helper()
	h := sql.OpenDB(c)
	h.SetMaxOpenConns(1)
	t.Cleanup(func() { h.Close() })
	return h
}
