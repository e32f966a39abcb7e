//go:build linux

package reliability

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestIntegrity_FullAndReadOnlyStorage: an INSERT on a full warehouse
// disk fails with 1114 (ER_RECORD_FILE_FULL), on a read-only one with
// 1036 (ER_OPEN_AS_READONLY), not the generic 1105, and neither message
// shows the store's internal temporary path (.tmp/put-…); the table is
// unchanged and the server keeps answering. It needs mount privileges
// for a small tmpfs and is skipped without.
func TestIntegrity_FullAndReadOnlyStorage(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	srv := serve(t, openEngine(t, dir))
	mustExec(t, srv.open(t, "", 1), "CREATE DATABASE c")
	h := srv.open(t, "c", 1)
	mustExec(t, h, "CREATE TABLE t (id BIGINT, s TEXT)")
	mustExec(t, h, "INSERT INTO t VALUES (1, 'kept')")
	// 4 MiB of incompressible text: more than the disk has left.
	var q strings.Builder
	q.WriteString("INSERT INTO t VALUES ")
	buf := make([]byte, 2048)
	for i := range 1024 {
		rand.Read(buf)
		if i > 0 {
			q.WriteString(",")
		}
		fmt.Fprintf(&q, "(%d,'%s')", i+2, hex.EncodeToString(buf))
	}
	check := func(what string, code uint16) {
		t.Helper()
		_, err := h.Exec(q.String())
		if mysqlCode(err) != code || strings.Contains(err.Error(), ".tmp") || strings.Contains(err.Error(), "put-") {
			t.Fatalf("INSERT on a %s disk: %v (code %d), want %d without the temporary path", what, err, mysqlCode(err), code)
		}
		if n := count(t, h, "t"); n != 1 {
			t.Fatalf("after the refused INSERT on a %s disk: %d rows, want 1", what, n)
		}
		srv.alive(t)
	}
	check("full", 1114)
	// The table's data folder made read-only (a bind mount: the metastore
	// beside it stays writable, as on a read-only bucket).
	data, err := filepath.Glob(filepath.Join(dir, "main", "c", "t-*", "data"))
	if err != nil || len(data) != 1 {
		t.Fatalf("data folder: %v %v", data, err)
	}
	for _, args := range [][]string{{"--bind", data[0], data[0]}, {"-o", "remount,bind,ro", data[0]}} {
		if out, err := exec.Command("mount", args...).CombinedOutput(); err != nil {
			t.Skipf("cannot make the data folder read-only: %v %s", err, out)
		}
	}
	t.Cleanup(func() { exec.Command("umount", "-l", data[0]).Run() })
	q.Reset()
	q.WriteString("INSERT INTO t VALUES (2, 'x')")
	check("read-only", 1036)
}
