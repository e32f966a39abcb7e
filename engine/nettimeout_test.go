package engine_test

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/engine"
)

// gate holds back a connection's reads while closed.
type gate struct {
	mu sync.Mutex
	ch chan struct{}
}

func (g *gate) wait() {
	g.mu.Lock()
	ch := g.ch
	g.mu.Unlock()
	<-ch
}

func (g *gate) set(ch chan struct{}) {
	g.mu.Lock()
	g.ch = ch
	g.mu.Unlock()
}

type stallConn struct {
	net.Conn
	g *gate
}

func (c stallConn) Read(p []byte) (int, error) {
	c.g.wait()
	return c.Conn.Read(p)
}

// TestNetWriteTimeout_DropsAClientThatStopsReading: a client that stops
// reading a large result is disconnected after net_write_timeout (1 s
// here; the client stalls 5 s), so when it resumes the result is cut off
// instead of the server having waited for it with the connection held.
func TestNetWriteTimeout_DropsAClientThatStopsReading(t *testing.T) {
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := e.NewServer(engine.ServerConfig{Listener: l, NetWriteTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	defer srv.Close()

	g := &gate{}
	open := make(chan struct{})
	close(open)
	g.set(open)
	gomysql.RegisterDialContext("stall-nettimeout", func(ctx context.Context, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		return stallConn{Conn: c, g: g}, nil
	})
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "stall-nettimeout", l.Addr().String()
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	g.set(closed)
	go func() { time.Sleep(5 * time.Second); close(closed) }()
	const want = 64 // rows of 1 MiB: far more than the sockets buffer
	rows, err := db.Query("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r WHERE n < 64) SELECT REPEAT('x', 1048576) FROM r")
	n := 0
	if err == nil {
		for rows.Next() {
			n++
		}
		err = rows.Err()
		rows.Close()
	}
	if err == nil && n == want {
		t.Fatalf("the server waited 5 s for a stalled client and sent all %d rows; net_write_timeout is 1 s", n)
	}
	t.Logf("cut off after %d rows: %v", n, err)
}

// TestMaxAllowedPacket_MySQLDefault: max_allowed_packet starts at MySQL's
// 64 MiB, not GMS's 1 GiB.
func TestMaxAllowedPacket_MySQLDefault(t *testing.T) {
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.Connect("root").QueryOne(context.Background(), "SELECT @@max_allowed_packet")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Rows[0][0]; fmt.Sprint(got) != fmt.Sprint(engine.DefaultMaxAllowedPacket) {
		t.Fatalf("max_allowed_packet = %v (%T), want %d", got, got, engine.DefaultMaxAllowedPacket)
	}
}
