package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dataFiles lists the warehouse's data files of table name (its folder
// starts "name-").
func dataFiles(t *testing.T, wh, name string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(wh, func(path string, d fs.DirEntry, err error) error {
		p := filepath.ToSlash(path)
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") && strings.Contains(p, "/data/") && strings.Contains(p, "/"+name+"-") {
			out = append(out, path)
		}
		return err
	})
	if err != nil || len(out) == 0 {
		t.Fatalf("data files of %s: %v %v", name, out, err)
	}
	return out
}

// TestRun_FsckDeepListsDamagedFiles: a data file damaged in place (same
// size) passes plain fsck; fsck --deep lists it, and a query of it fails
// naming the file and the checksum mismatch instead of answering.
func TestRun_FsckDeepListsDamagedFiles(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "lake")
	script := "CREATE DATABASE d; CREATE TABLE d.t (a INT, b VARCHAR(10)); CREATE TABLE d.u (a INT);" +
		" INSERT INTO d.t VALUES (3000, 'charlie'), (1, 'alpha'); INSERT INTO d.u VALUES (2)"
	if _, stderr, err := runCLI(t, "", "--warehouse", wh, "-e", script); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	files := dataFiles(t, wh, "t")
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	// Damage a value in a data page, as issue 18 did: 'charlie' would read
	// back as 'Zharlie'.
	at := bytes.Index(b, []byte("charlie"))
	if at < 0 {
		t.Fatal("'charlie' is not stored literally")
	}
	b[at] = 'Z'
	if err := os.WriteFile(files[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, err := runCLI(t, "", "--warehouse", wh, "fsck"); err != nil {
		t.Fatalf("plain fsck compares sizes only: %q %v", out, err)
	}
	out, _, err := runCLI(t, "", "--warehouse", wh, "fsck", "--deep")
	if err == nil || !strings.Contains(err.Error(), "1 findings in 2 datasets") {
		t.Fatalf("fsck --deep = %v, want 1 finding\n%s", err, out)
	}
	rel := filepath.Base(files[0])
	if !strings.Contains(out, "critical\tfile-checksum\tsnapshot 1") || !strings.Contains(out, rel) || !strings.Contains(out, "checksum mismatch") ||
		!strings.Contains(out, "d.t: 1 files checksummed, 0 without a recorded checksum") || !strings.Contains(out, "d.u: 1 snapshots, 1 manifests, 1 files checked, 0 findings") {
		t.Fatalf("fsck --deep output %q", out)
	}
	_, _, err = runCLI(t, "", "--warehouse", wh, "-e", "SELECT a, b FROM d.t ORDER BY a")
	if err == nil || !strings.Contains(err.Error(), "checksum mismatch") || !strings.Contains(err.Error(), rel) {
		t.Fatalf("SELECT over the damaged file = %v, want a checksum mismatch naming it", err)
	}
}
