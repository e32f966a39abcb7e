package engine_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/engine"
)

// wireServer starts a server on e with cfg (its listener is filled in)
// and returns its address.
func wireServer(t *testing.T, e *engine.Engine, cfg engine.ServerConfig) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Listener = l
	srv, err := e.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

func openTestEngine(t *testing.T) *engine.Engine {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// rawConns remembers the sockets a go-sql-driver dialer opened, so a test
// can write bytes of its own on an authenticated connection.
type rawConns struct {
	mu    sync.Mutex
	conns []net.Conn
}

func (r *rawConns) dialer(name string) {
	gomysql.RegisterDialContext(name, func(ctx context.Context, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err == nil {
			r.mu.Lock()
			r.conns = append(r.conns, c)
			r.mu.Unlock()
		}
		return c, err
	})
}

func (r *rawConns) last() net.Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conns[len(r.conns)-1]
}

// authenticated opens one authenticated connection through dialer net and
// returns its socket.
func authenticated(t *testing.T, r *rawConns, netName, addr string) (net.Conn, *sql.DB) {
	t.Helper()
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", netName, addr
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	return r.last(), db
}

// readPacket reads one MySQL packet's payload (bounded by a generous
// deadline so a broken server fails the test instead of hanging it).
func readPacket(c net.Conn) ([]byte, error) {
	c.SetReadDeadline(time.Now().Add(60 * time.Second))
	var h [4]byte
	if _, err := io.ReadFull(c, h[:]); err != nil {
		return nil, err
	}
	p := make([]byte, int(h[0])|int(h[1])<<8|int(h[2])<<16)
	_, err := io.ReadFull(c, p)
	return p, err
}

// TestMaxAllowedPacket_RefusesALargerCommand: a command one packet longer
// than max_allowed_packet (64 MiB, sent as continued 16 MiB packets) gets
// MySQL's error 1153 and the connection is closed, as MySQL does; the
// server keeps serving others.
func TestMaxAllowedPacket_RefusesALargerCommand(t *testing.T) {
	e := openTestEngine(t)
	addr := wireServer(t, e, engine.ServerConfig{})
	r := &rawConns{}
	r.dialer("raw-maxpacket")
	c, _ := authenticated(t, r, "raw-maxpacket", addr)
	const full = 1<<24 - 1
	payload := make([]byte, full)
	payload[0] = 3 // COM_QUERY
	copy(payload[1:], "SELECT '")
	for i := 9; i < full; i++ {
		payload[i] = 'x'
	}
	var seq byte
	write := func(p []byte) error {
		h := []byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), seq}
		seq++
		_, err := c.Write(append(h, p...))
		return err
	}
	for i := 0; i < 4; i++ { // 4 × (16 MiB - 1): 4 bytes under 64 MiB
		if err := write(payload); err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
		payload[0] = 'x'
	}
	if err := write([]byte("xxxxxxxxxx'")); err != nil { // 64 MiB + 6
		t.Logf("the last packet was not sent whole: %v", err)
	}
	p, err := readPacket(c)
	if err != nil || len(p) < 3 || p[0] != 0xff || binary.LittleEndian.Uint16(p[1:3]) != 1153 {
		t.Fatalf("answer to a command over max_allowed_packet: %.80q, %v; want error 1153", p, err)
	}
	t.Logf("refused: %s", p[3:])
	if _, err := readPacket(c); err == nil {
		t.Fatal("the connection stayed open after 1153")
	}
	other := wire(t, mustOpen(t, addr))
	if got, err := other("SELECT 1+1"); err != nil || strings.Join(got, ",") != "2" {
		t.Fatalf("another client after the refusal: %v, %v", got, err)
	}
}

func mustOpen(t *testing.T, addr string) *sql.DB {
	t.Helper()
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", addr
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestNetReadTimeout_DropsAClientThatStopsMidPacket: a client that sends
// part of a packet and stops is disconnected after net_read_timeout (1 s
// here), while an idle connection between statements is kept.
func TestNetReadTimeout_DropsAClientThatStopsMidPacket(t *testing.T) {
	e := openTestEngine(t)
	addr := wireServer(t, e, engine.ServerConfig{NetReadTimeout: time.Second})
	r := &rawConns{}
	r.dialer("raw-netread")
	c, db := authenticated(t, r, "raw-netread", addr)
	// Idle for longer than the timeout, at a packet boundary: kept.
	time.Sleep(2 * time.Second)
	if err := db.Ping(); err != nil {
		t.Fatalf("an idle connection was dropped: %v", err)
	}
	// Half a COM_QUERY packet, then silence.
	if _, err := c.Write([]byte{100, 0, 0, 0, 3, 'S', 'E', 'L'}); err != nil {
		t.Fatal(err)
	}
	_, err := readPacket(c)
	var ne net.Error
	if err == nil || (errors.As(err, &ne) && ne.Timeout()) {
		t.Fatalf("a client silent mid-packet was not dropped (read: %v)", err)
	}
	t.Logf("dropped: %v", err)
}

// TestClientGone_CancelsTheStatement: when a client hangs up in the middle
// of a statement, the statement is cancelled and leaves the process list
// (it ran on for its whole length before).
func TestClientGone_CancelsTheStatement(t *testing.T) {
	e := openTestEngine(t)
	addr := wireServer(t, e, engine.ServerConfig{})
	db := mustOpen(t, addr)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := conn.ExecContext(ctx, "SELECT SLEEP(600)")
		done <- err
	}()
	watch := mustOpen(t, addr)
	running := func() int {
		var n int
		if err := watch.QueryRow("SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE 'SELECT SLEEP(600)%'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for running() == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	cancel() // the driver closes the connection
	<-done
	conn.Close()
	for i := 0; running() > 0; i++ {
		if i > 600 { // a minute: SLEEP(600) would still be running
			t.Fatal("the statement of a client that hung up is still running")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
