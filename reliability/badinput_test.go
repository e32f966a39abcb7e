package reliability

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
)

// badServer is a server with c.t holding 5 rows, and a handle on it.
func badServer(t *testing.T) (*server, string) {
	t.Helper()
	dir := t.TempDir()
	srv := serve(t, openEngine(t, dir))
	h := srv.open(t, "", 1)
	mustExec(t, h, "CREATE DATABASE c")
	mustExec(t, h, "CREATE TABLE c.t (id BIGINT, s VARCHAR(100))")
	mustExec(t, h, "INSERT INTO c.t VALUES (1,'a'),(2,'b'),(3,'c'),(4,'d'),(5,'e')")
	return srv, dir
}

func mysqlCode(err error) uint16 {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// TestBadInput_Statements: malformed SQL and invalid UTF-8 identifiers get
// a clear MySQL error; the session and server stay usable and nothing is
// committed.
func TestBadInput_Statements(t *testing.T) {
	t.Parallel()
	srv, _ := badServer(t)
	h := srv.open(t, "c", 1)
	for _, q := range []string{
		"SELEC * FROM t",
		"INSERT INTO t VALUES (6, 'f'",
		"INSERT INTO t VALUES (6, 'f')) garbage",
		"SELECT * FROM t WHERE",
		"\x00\x01\x02",
		"INSERT INTO t VALUES (6, 'f'); DROP",
	} {
		_, err := h.Exec(q)
		if err == nil {
			t.Errorf("%q succeeded", q)
			continue
		}
		if c := mysqlCode(err); c == 0 || err.Error() == "" {
			t.Errorf("%q: not a MySQL error: %v", q, err)
		}
	}
	if n := count(t, h, "t"); n != 5 {
		t.Fatalf("after malformed statements: %d rows, want 5", n)
	}
	// Invalid UTF-8 in identifiers: refused, never stored in the catalog.
	for _, q := range []string{
		"CREATE TABLE `bad\xff\xfe` (a INT)",
		"CREATE TABLE ok1 (`col\xc3` INT)",
		"CREATE DATABASE `db\xff`",
		"SELECT * FROM `t\xff`",
		"INSERT INTO `t\x80` VALUES (6, 'f')",
	} {
		if _, err := h.Exec(q); err == nil {
			t.Errorf("%q succeeded; invalid UTF-8 identifiers must be refused", q)
		} else if mysqlCode(err) == 0 {
			t.Errorf("%q: not a MySQL error: %v", q, err)
		}
	}
	rows, err := h.Query("SHOW TABLES")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		rows.Scan(&name)
		tables = append(tables, name)
	}
	rows.Close()
	if strings.Join(tables, ",") != "t" {
		t.Errorf("tables after bad statements: %q, want [t]", tables)
	}
	if n := count(t, h, "t"); n != 5 {
		t.Fatalf("after invalid identifiers: %d rows, want 5", n)
	}
	srv.alive(t)
}

// TestBadInput_OversizedPacket: a statement spanning several 16 MiB wire
// packets is reassembled and answered; one larger than max_allowed_packet
// is refused with MySQL's 1153 before its payload is read and commits
// nothing; the server keeps serving. (Not parallel: max_allowed_packet is a process-wide global.)
func TestBadInput_OversizedPacket(t *testing.T) {
	srv, _ := badServer(t)
	h := srv.open(t, "c", 1)
	// The driver must not refuse big statements client-side.
	cfg, _ := gomysql.ParseDSN(srv.dsn("c"))
	cfg.MaxAllowedPacket = 1 << 30
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	bh := sqlOpenDB(t, conn)
	const multi = 17 << 20
	var n int64
	if err := bh.QueryRow("SELECT LENGTH('" + strings.Repeat("x", multi) + "')").Scan(&n); err != nil || n != multi {
		t.Fatalf("a %d-byte literal over several packets: %d, %v", multi, n, err)
	}
	var orig int64
	if err := h.QueryRow("SELECT @@global.max_allowed_packet").Scan(&orig); err != nil {
		t.Fatal(err)
	}
	mustExec(t, h, "SET GLOBAL max_allowed_packet = 1048576")
	t.Cleanup(func() { h.Exec("SET GLOBAL max_allowed_packet = " + itoa(int(orig))) })
	bh2 := sqlOpenDB(t, conn) // a new session sees the new global
	mustExec(t, h, "CREATE TABLE big (s LONGTEXT)")
	q := "INSERT INTO big VALUES ('" + strings.Repeat("x", 2<<20) + "')"
	_, err = bh2.Exec(q)
	// MySQL answers 1153 and closes the connection; a client still
	// writing the rest of the packet may see only the closed connection.
	switch {
	case err == nil:
		t.Errorf("a %d-byte statement with max_allowed_packet 1 MiB was accepted", len(q))
	case mysqlCode(err) == 1153:
		t.Logf("oversized statement: %.200v", err)
	case errors.Is(err, gomysql.ErrInvalidConn) || errors.Is(err, driver.ErrBadConn):
		t.Logf("oversized statement: the connection was closed while the client still wrote: %v", err)
	default:
		t.Errorf("oversized statement: %.200v; want 1153 or a closed connection", err)
	}
	const want = 0
	if n := count(t, h, "big"); n != want {
		t.Fatalf("after the oversized statement: %d rows, want %d", n, want)
	}
	if n := count(t, h, "t"); n != 5 {
		t.Fatalf("t: %d rows, want 5", n)
	}
	srv.alive(t)
}

// TestBadInput_ClientDrops: a client that disconnects in the middle of a
// long INSERT ... SELECT, and raw connections that send a truncated or
// garbage packet: the server stays up and the dataset holds either the
// whole statement or none of it.
func TestBadInput_ClientDrops(t *testing.T) {
	t.Parallel()
	srv, _ := badServer(t)
	h := srv.open(t, "c", 1)
	mustExec(t, h, "CREATE TABLE small (id BIGINT)")
	vals := make([]string, 100)
	for i := range vals {
		vals[i] = "(" + itoa(i) + ")"
	}
	mustExec(t, h, "INSERT INTO small VALUES "+strings.Join(vals, ","))

	// 1,000,000 rows: long enough to be cut off.
	const big = 100 * 100 * 100
	dh := srv.open(t, "c", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	_, err := dh.ExecContext(ctx, "INSERT INTO t SELECT a.id*10000 + b.id*100 + c.id, 'x' FROM small a, small b, small c")
	cancel()
	if err == nil {
		t.Log("the large INSERT finished before the client dropped")
	}
	dh.Close()
	// The server notices the drop and abandons (or finishes) the statement.
	deadline := time.Now().Add(30 * time.Second)
	var n int64
	for {
		n = count(t, h, "t")
		if n == 5+big || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
		if n2 := count(t, h, "t"); n2 == n { // stable
			break
		}
	}
	if n != 5 && n != 5+big {
		t.Fatalf("after the dropped INSERT: %d rows, want 5 (abandoned) or %d (whole)", n, 5+big)
	}
	t.Logf("dropped INSERT ... SELECT: %d rows (5 means abandoned)", n)

	// Raw connections: a truncated packet header, a packet promising more
	// bytes than it sends, and garbage instead of the handshake response.
	for _, payload := range [][]byte{
		{0x10, 0x00},
		{0xff, 0xff, 0x00, 0x01, 'a', 'b', 'c'},
		[]byte(strings.Repeat("\xde\xad\xbe\xef", 64)),
	} {
		c, err := net.DialTimeout("tcp", srv.addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		buf := make([]byte, 4096)
		if _, err := c.Read(buf); err != nil { // the server's handshake
			t.Fatalf("no handshake: %v", err)
		}
		c.Write(payload)
		c.Close()
	}
	// And one that says nothing at all after the handshake and hangs up.
	if c, err := net.Dial("tcp", srv.addr); err == nil {
		io.ReadAtLeast(c, make([]byte, 4), 4)
		c.Close()
	}
	srv.alive(t)
	if got := count(t, h, "t"); got != n {
		t.Fatalf("rows changed from %d to %d after the raw connections", n, got)
	}
}

// TestBadInput_CorruptFiles: a corrupt Parquet data file or manifest on
// disk makes SELECT fail with a clear error (never a panic, never a wrong
// answer) and the server stays up.
func TestBadInput_CorruptFiles(t *testing.T) {
	t.Parallel()
	for _, what := range []string{"data", "manifest", "truncated-data", "truncated-manifest"} {
		t.Run(what, func(t *testing.T) {
			srv, dir := badServer(t)
			cat := catalogOn(t, dir, nil)
			id := crashTable
			id.Collection = "c"
			ds, snaps := lineage(t, cat, id)
			files, _, err := cat.Files(context.Background(), ds, ds.CurrentSnapshotID)
			if err != nil || len(files) == 0 {
				t.Fatalf("files: %v, %v", files, err)
			}
			key := files[0].Path
			if strings.HasSuffix(what, "manifest") {
				key = snaps[len(snaps)-1].ManifestPath
			}
			path := filepath.Join(dir, filepath.FromSlash(key))
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var bad []byte
			if strings.HasPrefix(what, "truncated") {
				bad = orig[:len(orig)/2]
			} else {
				// Same size, the body garbled, the PAR1 magic kept.
				bad = append([]byte(nil), orig...)
				for i := 4; i < len(bad)-4; i++ {
					bad[i] ^= 0x5a
				}
			}
			if err := os.WriteFile(path, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			// A second server on the warehouse, with cold caches.
			srv2 := serve(t, openEngine(t, dir))
			for _, s := range []*server{srv2, srv} {
				h := s.open(t, "c", 1)
				var sum, n int64
				err := h.QueryRow("SELECT SUM(id), COUNT(s) FROM t").Scan(&sum, &n)
				if s == srv2 || err != nil {
					if err == nil {
						t.Fatalf("SELECT over a corrupt %s answered sum %d count %d", what, sum, n)
					}
					if mysqlCode(err) == 0 {
						t.Errorf("corrupt %s: not a MySQL error: %v", what, err)
					}
					t.Logf("corrupt %s: %v", what, err)
				} else if sum != 15 || n != 5 {
					// The first server may answer from its caches, but only
					// the right answer.
					t.Fatalf("cached answer sum %d count %d, want 15, 5", sum, n)
				}
				s.alive(t)
			}
			// Restoring the file restores the dataset: nothing was lost.
			if err := os.WriteFile(path, orig, 0o644); err != nil {
				t.Fatal(err)
			}
			srv3 := serve(t, openEngine(t, dir))
			h := srv3.open(t, "c", 1)
			var sum int64
			if err := h.QueryRow("SELECT SUM(id) FROM t").Scan(&sum); err != nil || sum != 15 {
				t.Fatalf("after restoring %s: sum %d, %v", what, sum, err)
			}
		})
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}
