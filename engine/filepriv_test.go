package engine_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/engine"
)

// wantCode fails unless err is a MySQL error with code num.
func wantCode(t *testing.T, what string, err error, num uint16) {
	t.Helper()
	var me *gomysql.MySQLError
	if !errors.As(err, &me) || me.Number != num {
		t.Errorf("%s: got %v, want error %d", what, err, num)
	}
}

func mustExec(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func count(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM d.t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func absent(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s was written (%v)", p, err)
	}
}

// TestFilePriv_ServerFilesNeedFILEAndStayInTheFolder: under --auth, a user
// granted only table privileges gets 1227 from LOAD_FILE, INTO OUTFILE and
// LOAD DATA INFILE with nothing read or written; a user with FILE works
// inside secure_file_priv and gets 1290 for any path leading out (absolute,
// "..", a symbolic link); a read-only server refuses INTO OUTFILE; and the
// default (no folder) refuses server files to everyone.
func TestFilePriv_ServerFilesNeedFILEAndStayInTheFolder(t *testing.T) {
	ctx := context.Background()
	wh, files, outside := t.TempDir(), t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("hash"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(files, "in.tsv")
	if err := os.WriteFile(in, []byte("7\n8\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(files, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(files, "linkdir")); err != nil {
		t.Fatal(err)
	}
	open := func(readOnly bool, dir string) *engine.Engine {
		e, err := engine.Open(ctx, engine.Config{Warehouse: wh, CreateDefaultWorkspace: true, NoAudit: true,
			Auth: true, RootPassword: "s3cret", ReadOnly: readOnly, SecureFilePriv: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	addr := listen(t, open(false, files))
	root := dial(t, addr, "root", "s3cret")
	for _, q := range []string{
		"CREATE DATABASE d", "CREATE TABLE d.t (a INT)", "INSERT INTO d.t VALUES (1)",
		"CREATE USER bob IDENTIFIED BY 'pw'", "GRANT SELECT, INSERT ON d.* TO bob",
		"CREATE USER fil IDENTIFIED BY 'pw'", "GRANT SELECT, INSERT ON d.* TO fil", "GRANT FILE ON *.* TO fil",
	} {
		mustExec(t, root, q)
	}

	bob := dial(t, addr, "bob", "pw")
	var got []byte
	wantCode(t, "LOAD_FILE without FILE", bob.QueryRow("SELECT LOAD_FILE('"+in+"')").Scan(&got), 1227)
	wantCode(t, "LOAD_FILE of the metastore without FILE", bob.QueryRow("SELECT LOAD_FILE('"+filepath.Join(wh, "lakesql.db-wal")+"')").Scan(&got), 1227)
	_, err := bob.Exec("SELECT a FROM d.t INTO OUTFILE '" + filepath.Join(files, "bob.tsv") + "'")
	wantCode(t, "INTO OUTFILE without FILE", err, 1227)
	absent(t, filepath.Join(files, "bob.tsv"))
	_, err = bob.Exec("LOAD DATA INFILE '" + in + "' INTO TABLE d.t")
	wantCode(t, "LOAD DATA INFILE without FILE", err, 1227)
	if n := count(t, root); n != 1 {
		t.Fatalf("LOAD DATA without FILE loaded rows: %d", n)
	}

	fil := dial(t, addr, "fil", "pw")
	if err := fil.QueryRow("SELECT LOAD_FILE('" + in + "')").Scan(&got); err != nil || string(got) != "7\n8\n" {
		t.Fatalf("LOAD_FILE inside the folder: %q %v", got, err)
	}
	if err := fil.QueryRow("SELECT LOAD_FILE('in.tsv')").Scan(&got); err != nil || string(got) != "7\n8\n" {
		t.Fatalf("LOAD_FILE relative to the folder: %q %v", got, err)
	}
	for _, p := range []string{secret, filepath.Join(files, "..", filepath.Base(outside), "secret"), filepath.Join(files, "link"), filepath.Join(files, "linkdir", "secret")} {
		wantCode(t, "LOAD_FILE "+p, fil.QueryRow("SELECT LOAD_FILE('"+p+"')").Scan(&got), 1290)
	}
	out := filepath.Join(files, "out.tsv")
	mustExec(t, fil, "SELECT a FROM d.t INTO OUTFILE '"+out+"'")
	if b, err := os.ReadFile(out); err != nil || string(b) != "1\n" {
		t.Fatalf("INTO OUTFILE inside the folder: %q %v", b, err)
	}
	for _, p := range []string{filepath.Join(outside, "o.tsv"), filepath.Join(files, "..", filepath.Base(outside), "o2.tsv"), filepath.Join(files, "linkdir", "o3.tsv")} {
		_, err := fil.Exec("SELECT a FROM d.t INTO OUTFILE '" + p + "'")
		wantCode(t, "INTO OUTFILE "+p, err, 1290)
	}
	for _, n := range []string{"o.tsv", "o2.tsv", "o3.tsv"} {
		absent(t, filepath.Join(outside, n))
	}
	mustExec(t, fil, "LOAD DATA INFILE '"+in+"' INTO TABLE d.t")
	if n := count(t, root); n != 3 {
		t.Fatalf("LOAD DATA inside the folder: %d rows, want 3", n)
	}
	if err := os.WriteFile(filepath.Join(outside, "rows"), []byte("9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = fil.Exec("LOAD DATA INFILE '" + filepath.Join(outside, "rows") + "' INTO TABLE d.t")
	wantCode(t, "LOAD DATA outside the folder", err, 1290)
	if n := count(t, root); n != 3 {
		t.Fatalf("LOAD DATA outside the folder loaded rows: %d", n)
	}

	ro := dial(t, listen(t, open(true, files)), "fil", "pw")
	_, err = ro.Exec("SELECT a FROM d.t INTO OUTFILE '" + filepath.Join(files, "ro.tsv") + "'")
	wantCode(t, "INTO OUTFILE on a read-only server", err, 1290)
	absent(t, filepath.Join(files, "ro.tsv"))

	off := dial(t, listen(t, open(false, "")), "fil", "pw")
	wantCode(t, "LOAD_FILE with server files off", off.QueryRow("SELECT LOAD_FILE('"+in+"')").Scan(&got), 1290)
}
