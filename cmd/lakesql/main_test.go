package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), err
}

// TestRun_ExecScriptRestart creates a table, inserts, and finds the rows
// again in a second process-like run on the same warehouse.
func TestRun_ExecScriptRestart(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "lake")
	_, stderr, err := runCLI(t, "", "--warehouse", wh, "-e", "CREATE DATABASE d; CREATE TABLE d.t (a INT, b VARCHAR(10)); INSERT INTO d.t VALUES (1, 'one'), (2, 'two')")
	if err != nil {
		t.Fatalf("first run: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, `created workspace "main"`) {
		t.Errorf("first run on a new warehouse should say it created the workspace; stderr: %q", stderr)
	}
	out, stderr, err := runCLI(t, "SELECT a, b FROM d.t ORDER BY a;\n", "--warehouse", wh, "--format", "tsv")
	if err != nil {
		t.Fatalf("script run: %v\n%s", err, stderr)
	}
	if want := "a\tb\n1\tone\n2\ttwo\n"; out != want {
		t.Fatalf("tsv output %q, want %q", out, want)
	}
	if strings.Contains(stderr, "created workspace") {
		t.Errorf("second run must not create the workspace again: %q", stderr)
	}
}

func TestRun_ErrorsExitNonZero(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "lake")
	out, _, err := runCLI(t, "", "--warehouse", wh, "--format", "csv", "-e", "SELECT 1 AS x; SELECT * FROM nowhere.t; SELECT 2")
	if err == nil {
		t.Fatal("a failing statement must make the run fail")
	}
	if !strings.Contains(out, "x\n1\n") || strings.Contains(out, "\n2\n") {
		t.Fatalf("output %q: want the first result and nothing after the error", out)
	}
	if _, _, err := runCLI(t, "", "--warehouse", wh, "--workspace", "nope", "-e", "SELECT 1"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("a missing --workspace must be refused, not created: %v", err)
	}
	if _, _, err := runCLI(t, "", "--warehouse", wh, "--format", "xml", "-e", "SELECT 1"); err == nil {
		t.Fatal("unknown --format accepted")
	}
}

func TestRun_Formats(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "lake")
	out, _, err := runCLI(t, "", "--warehouse", wh, "--format", "json", "-e", "SELECT 1 AS n, 'a' AS s, NULL AS z")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out) != `{"n":1,"s":"a","z":null}` {
		t.Fatalf("json %q", out)
	}
	out, _, err = runCLI(t, "", "--warehouse", wh, "-e", "SELECT 1 AS n")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "| N |") && !strings.Contains(out, "| n |") || !strings.Contains(out, "1 row in set") {
		t.Fatalf("table output %q", out)
	}
	out, _, err = runCLI(t, "", "version")
	if err != nil || !strings.HasPrefix(out, "lakesql ") {
		t.Fatalf("version: %q %v", out, err)
	}
}

// TestRun_CompactAndFsck: many small INSERTs, then `lakesql compact`
// leaves fewer files and the same rows; `lakesql fsck` finds nothing.
func TestRun_CompactAndFsck(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "lake")
	script := "CREATE DATABASE d; CREATE TABLE d.t (a INT);"
	for i := 0; i < 6; i++ {
		script += " INSERT INTO d.t VALUES (" + string(rune('0'+i)) + ");"
	}
	if _, stderr, err := runCLI(t, "", "--warehouse", wh, "-e", script); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	out, stderr, err := runCLI(t, "", "--warehouse", wh, "compact", "d.t", "--dry-run")
	if err != nil || !strings.Contains(out, "plan: brute (auto), 6 input files, 6 rows, 1 expected outputs") || strings.Count(out, "input: ") != 6 {
		t.Fatalf("dry run: %q %v\n%s", out, err, stderr)
	}
	// A dry run reads nothing: no bar.
	if strings.Contains(stderr, "compact:") {
		t.Fatalf("dry run drew a progress bar: %q", stderr)
	}
	_, stderr, err = runCLI(t, "", "--warehouse", wh, "compact", "d.t", "--rule", "fancy")
	if err == nil || !strings.Contains(err.Error(), "--rule") || !strings.Contains(err.Error(), "unknown compaction rule") {
		t.Fatalf("--rule fancy: %v\n%s", err, stderr)
	}
	if _, _, err := runCLI(t, "", "--warehouse", wh, "-e", "CREATE VIEW d.v AS SELECT a FROM d.t"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, "", "--warehouse", wh, "compact", "d.v"); err == nil || !strings.Contains(err.Error(), "d.v is a view") {
		t.Fatalf("compact of a view: %v", err)
	}
	_, _, err = runCLI(t, "", "--warehouse", wh, "compact", "d.t", "--rule", "delete_debt")
	if err == nil || !strings.Contains(err.Error(), "copy-on-write") {
		t.Fatalf("--rule delete_debt: %v", err)
	}
	out, stderr, err = runCLI(t, "", "--warehouse", wh, "compact", "d.t", "--rule", "brute")
	if err != nil || !strings.Contains(out, "committed snapshot 7: 1 files, 6 records") || strings.Contains(out, "input: ") {
		t.Fatalf("compact: %q %v\n%s", out, err, stderr)
	}
	// The bar went to stderr: it read all 6 files, wrote one, committed
	// and finished at 100%.
	for _, want := range []string{"compact: read, 0/6 files read", "compact: commit, 6/6 files read, 1 written", "100%"} {
		if !strings.Contains(stderr, want) {
			t.Fatalf("progress bar lacks %q: %q", want, stderr)
		}
	}
	out, _, err = runCLI(t, "", "--warehouse", wh, "compact", "d.t")
	if err != nil || out != "d.t: nothing to compact (no file clears the size thresholds)\n" {
		t.Fatalf("second compact: %q %v", out, err)
	}
	out, _, err = runCLI(t, "", "--warehouse", wh, "--format", "tsv", "-e", "SELECT SUM(a), COUNT(*) FROM d.t")
	if err != nil || out != "SUM(a)\tCOUNT(*)\n15\t6\n" {
		t.Fatalf("after compaction: %q %v", out, err)
	}
	out, _, err = runCLI(t, "", "--warehouse", wh, "fsck", "d.t")
	if err != nil || !strings.Contains(out, "0 findings") {
		t.Fatalf("fsck: %q %v", out, err)
	}
}

// TestRun_FsckWholeWorkspace: without an argument fsck checks every
// dataset, and a missing data file in one fails the run with its finding.
func TestRun_FsckWholeWorkspace(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "lake")
	if _, stderr, err := runCLI(t, "", "--warehouse", wh, "-e", "CREATE DATABASE d; CREATE TABLE d.t (a INT); CREATE TABLE d.u (a INT); INSERT INTO d.t VALUES (1); INSERT INTO d.u VALUES (2)"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	out, _, err := runCLI(t, "", "--warehouse", wh, "fsck")
	if err != nil || !strings.Contains(out, "d.t: 1 snapshots, 1 manifests, 1 files checked, 0 findings") || !strings.Contains(out, "d.u: 1 snapshots") {
		t.Fatalf("healthy fsck: %q %v", out, err)
	}
	// Remove u's one data file behind the catalog's back.
	var removed string
	err = filepath.WalkDir(wh, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".parquet") && strings.Contains(filepath.ToSlash(path), "/data/") && strings.Contains(filepath.ToSlash(path), "/u-") {
			removed = path
			return os.Remove(path)
		}
		return err
	})
	if err != nil || removed == "" {
		t.Fatalf("removing u's data file: %q %v", removed, err)
	}
	out, _, err = runCLI(t, "", "--warehouse", wh, "fsck")
	if err == nil || !strings.Contains(err.Error(), "1 findings in 2 datasets") {
		t.Fatalf("fsck after a lost file = %v, want 1 finding", err)
	}
	if !strings.Contains(out, "d.t: 1 snapshots, 1 manifests, 1 files checked, 0 findings") || !strings.Contains(out, "critical\tfile-exists\tsnapshot 1") {
		t.Fatalf("fsck output %q", out)
	}
}

// TestRun_ExpireByPolicy: `lakesql expire` expires the datasets with a
// retention policy and skips the others; a named dataset without one is
// an error.
func TestRun_ExpireByPolicy(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "lake")
	script := "CREATE DATABASE d; CREATE TABLE d.t (a INT); CREATE TABLE d.u (a INT);" +
		" INSERT INTO d.t VALUES (1); INSERT INTO d.t VALUES (2); INSERT INTO d.t VALUES (3); INSERT INTO d.u VALUES (1); INSERT INTO d.u VALUES (2);" +
		" CALL set_table_property('d.t', 'snapshot_retention', '0s')"
	if _, stderr, err := runCLI(t, "", "--warehouse", wh, "-e", script); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	out, _, err := runCLI(t, "", "--warehouse", wh, "expire")
	if err != nil || !strings.Contains(out, "d.t: older than 0s, retain last 1: 2 expired, 0 purged") || !strings.Contains(out, "d.u: no retention policy, skipped") {
		t.Fatalf("expire: %q %v", out, err)
	}
	out, _, err = runCLI(t, "", "--warehouse", wh, "--format", "tsv", "-e", "SELECT COUNT(*) FROM d.u AS OF 1; SELECT a FROM d.t")
	if err != nil || out != "COUNT(*)\n1\na\n1\n2\n3\n" {
		t.Fatalf("after expire: %q %v", out, err)
	}
	if _, _, err := runCLI(t, "", "--warehouse", wh, "expire", "d.u"); err == nil || !strings.Contains(err.Error(), "no snapshot_retention property") {
		t.Fatalf("expire d.u = %v, want the missing policy named", err)
	}
}
