package reliability

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/maintenance"
)

// integrityRows is the table of the damaged-file tests: ids 1..n with
// names, one of them (marker, 'charlie') distinctive enough to find in
// the file's bytes.
const (
	integrityRows = 600
	marker        = 123456789
)

func integrityServer(t *testing.T) (*server, string, *sql.DB) {
	t.Helper()
	dir := t.TempDir()
	srv := serve(t, openEngine(t, dir))
	mustExec(t, srv.open(t, "", 1), "CREATE DATABASE c")
	h := srv.open(t, "c", 1)
	mustExec(t, h, "CREATE TABLE c.t (id BIGINT, name VARCHAR(40))")
	var q strings.Builder
	q.WriteString("INSERT INTO c.t VALUES ")
	for i := 1; i <= integrityRows; i++ {
		id, name := int64(i), fmt.Sprintf("name%03d", i%50)
		if i == 300 {
			id, name = marker, "charlie"
		}
		if i > 1 {
			q.WriteString(",")
		}
		fmt.Fprintf(&q, "(%d,'%s')", id, name)
	}
	mustExec(t, h, q.String())
	return srv, dir, h
}

// damage flips the first byte of the first occurrence of want in the
// table's one data file (a value in a data or dictionary page, as issue
// 18's byte flips did), keeping the file's size; it returns the file's
// key and a function restoring it.
func damage(t *testing.T, dir string, want []byte) (string, func()) {
	t.Helper()
	cat := catalogOn(t, dir, nil)
	ctx := context.Background()
	ds, err := cat.Dataset(ctx, catalogstore.Ident{Workspace: "main", Collection: "c", Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := cat.Files(ctx, ds, ds.CurrentSnapshotID)
	if err != nil || len(files) != 1 {
		t.Fatalf("files %v, %v", files, err)
	}
	path := filepath.Join(dir, filepath.FromSlash(files[0].Path))
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(orig, want)
	if at < 0 {
		t.Fatalf("%x is not stored literally in %s", want, files[0].Path)
	}
	bad := bytes.Clone(orig)
	bad[at] ^= 0x39 // 'c' → 'Z'
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	return files[0].Path, func() {
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIntegrity_DamagedDataFile: a byte flipped in a data page (issue 18:
// '3000 | charlie' read back as '3256 | Zharlie', no error) makes every
// query that reads the page fail with 1194 naming the file and the
// checksum mismatch, on the row path and the vectorised one (aggregates,
// top-N), from a server with cold caches; plain verify passes it, deep
// verify lists it; restoring the file restores the answers.
func TestIntegrity_DamagedDataFile(t *testing.T) {
	t.Parallel()
	// The value's low 4 bytes: Snappy stores its zero high bytes as a copy.
	idBytes := binary.LittleEndian.AppendUint32(nil, marker)
	for _, c := range []struct {
		name    string
		bytes   []byte
		queries []string
	}{
		{"string page", []byte("charlie"), []string{
			"SELECT id, name FROM t WHERE id > 0 ORDER BY id",            // row path
			"SELECT name, COUNT(*) FROM t GROUP BY name ORDER BY name",   // vectorised aggregate
			"SELECT id, name FROM t ORDER BY name DESC LIMIT 3",          // top-N
			"SELECT COUNT(*) FROM t WHERE name = 'charlie'",              // filtered count
			"SELECT MAX(LENGTH(name)), MIN(name) FROM t WHERE id < 1000", // filtered aggregate
		}},
		{"integer page", idBytes, []string{
			"SELECT id, name FROM t WHERE name = 'charlie'",
			"SELECT SUM(id), AVG(id) FROM t",
			"SELECT id FROM t ORDER BY id DESC LIMIT 2",
			"SELECT name, SUM(id) FROM t GROUP BY name ORDER BY name LIMIT 5",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, dir, _ := integrityServer(t)
			key, restore := damage(t, dir, c.bytes)
			srv := serve(t, openEngine(t, dir)) // cold caches
			h := srv.open(t, "c", 1)
			for _, q := range c.queries {
				rows, err := h.Query(q)
				if err == nil {
					for rows.Next() {
					}
					err = rows.Err()
					rows.Close()
				}
				if err == nil {
					t.Fatalf("%s over a damaged file answered without error", q)
				}
				if mysqlCode(err) != 1194 || !strings.Contains(err.Error(), "checksum mismatch") || !strings.Contains(err.Error(), key) {
					t.Fatalf("%s: %v (code %d), want 1194 naming %s and the checksum mismatch", q, err, mysqlCode(err), key)
				}
			}
			srv.alive(t)
			findings := func(mode string) []string {
				q := "CALL verify('c.t')"
				if mode != "" {
					q = "CALL verify('c.t', '" + mode + "')"
				}
				rows, err := h.Query(q)
				if err != nil {
					t.Fatal(err)
				}
				defer rows.Close()
				var out []string
				for rows.Next() {
					var check, sev, detail string
					var snap sql.NullInt64
					var path sql.NullString
					if err := rows.Scan(&check, &sev, &snap, &path, &detail); err != nil {
						t.Fatal(err)
					}
					out = append(out, check+"|"+path.String)
				}
				return out
			}
			if got := findings(""); len(got) != 1 || !strings.HasPrefix(got[0], "ok|") {
				t.Fatalf("plain verify: %v", got)
			}
			if got := findings("deep"); len(got) != 1 || got[0] != maintenance.CheckFileChecksum+"|"+key {
				t.Fatalf("deep verify: %v, want one file-checksum finding for %s", got, key)
			}
			restore()
			var id int64
			var name string
			if err := h.QueryRow("SELECT id, name FROM t WHERE id = ?", marker).Scan(&id, &name); err != nil || id != marker || name != "charlie" {
				t.Fatalf("after restoring the file: %d %q, %v", id, name, err)
			}
			if got := findings("deep"); len(got) != 1 || !strings.HasPrefix(got[0], "ok|") {
				t.Fatalf("deep verify after restoring: %v", got)
			}
		})
	}
}

// Environment of the lease-holder child process (TestHelperLeaseHolder).
const (
	envLeaseWarehouse = "LAKESQL_LEASE_WAREHOUSE"
	envLeaseSignal    = "LAKESQL_LEASE_SIGNAL"
)

// TestHelperLeaseHolder is a maintainer process that takes c.t's
// maintenance lease (15 minutes, the default) and then hangs until it is
// killed, like a compaction killed mid-run. It runs only when re-executed
// by TestIntegrity_DeadLeaseHolder.
func TestHelperLeaseHolder(t *testing.T) {
	dir := os.Getenv(envLeaseWarehouse)
	if dir == "" {
		t.Skip("lease-holder child of the lease tests")
	}
	ctx := context.Background()
	cat := catalogOn(t, dir, nil)
	ds, err := cat.Dataset(ctx, catalogstore.Ident{Workspace: "main", Collection: "c", Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := maintenance.Acquire(ctx, cat, ds, "child (compact)", maintenance.DefaultLeaseTTL); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(os.Getenv(envLeaseSignal), "held"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Minute) // the parent kills us here
	t.Fatal("lease holder was not killed")
}

// holdLease starts a lease-holder process on dir and returns it once it
// holds the lease.
func holdLease(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	signal := filepath.Join(t.TempDir(), "held")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperLeaseHolder$", "-test.count=1")
	cmd.Env = append(os.Environ(), envLeaseWarehouse+"="+dir, envLeaseSignal+"="+signal)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(signal); err == nil {
			return cmd
		}
		if time.Now().After(deadline) {
			t.Fatal("the lease holder never took the lease")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestIntegrity_DeadLeaseHolder: a maintainer killed while holding the
// lease (issue 18: maintenance blocked for 15 minutes) does not block the
// next one on the same machine; a live holder does, with an error naming
// its process and break_lease, which an operator then uses.
func TestIntegrity_DeadLeaseHolder(t *testing.T) {
	t.Parallel()
	_, dir, h := integrityServer(t)
	maintain := func() error {
		rows, err := h.Query("CALL refresh_statistics('c.t')")
		if err == nil {
			rows.Close()
		}
		return err
	}
	// Killed holder: taken over at once.
	child := holdLease(t, dir)
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	if err := maintain(); err != nil {
		t.Fatalf("maintenance after its lease holder was killed: %v", err)
	}
	// Live holder: refused, naming it; break_lease frees the dataset.
	child = holdLease(t, dir)
	err := maintain()
	pid := fmt.Sprint(child.Process.Pid)
	if mysqlCode(err) != 1192 || !strings.Contains(err.Error(), "pid "+pid) || !strings.Contains(err.Error(), "break_lease('c.t')") {
		t.Fatalf("maintenance under a live holder: %v (code %d), want 1192 naming pid %s and break_lease", err, mysqlCode(err), pid)
	}
	var ds, holder, host, expires sql.NullString
	var gotPID sql.NullInt64
	if err := h.QueryRow("CALL break_lease('c.t')").Scan(&ds, &holder, &gotPID, &host, &expires); err != nil {
		t.Fatal(err)
	}
	if holder.String != "child (compact)" || fmt.Sprint(gotPID.Int64) != pid {
		t.Fatalf("break_lease removed %q pid %d", holder.String, gotPID.Int64)
	}
	if err := maintain(); err != nil {
		t.Fatalf("maintenance after break_lease: %v", err)
	}
	if err := h.QueryRow("CALL break_lease('c.t')").Scan(&ds, &holder, &gotPID, &host, &expires); err != nil || holder.Valid {
		t.Fatalf("break_lease with no lease: %v %v", holder, err)
	}
}
