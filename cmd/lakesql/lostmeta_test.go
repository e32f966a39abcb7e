package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun_LostMetastoreRefused: with lakesql.db deleted or emptied beside
// a folder holding datasets, lakesql refuses to start on an empty
// metastore (issue 18: it printed "new warehouse … created workspace
// main" and showed no databases) and says how to recover; restoring the
// file brings the data back, and --allow-new-metastore overrides.
func TestRun_LostMetastoreRefused(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "lake")
	if _, stderr, err := runCLI(t, "", "--warehouse", wh, "-e", "CREATE DATABASE d; CREATE TABLE d.t (a INT); INSERT INTO d.t VALUES (7)"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	db := filepath.Join(wh, "lakesql.db")
	backup, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	for _, lose := range []string{"missing", "empty"} {
		t.Run(lose, func(t *testing.T) {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(db + suffix)
			}
			if lose == "empty" {
				if err := os.WriteFile(db, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, args := range [][]string{{"-e", "SHOW DATABASES"}, {"fsck"}} {
				_, stderr, err := runCLI(t, "", append([]string{"--warehouse", wh}, args...)...)
				if err == nil || !strings.Contains(err.Error(), "refusing to initialise metastore") || !strings.Contains(err.Error(), "restore "+db) ||
					!strings.Contains(err.Error(), "--allow-new-metastore") || !strings.Contains(err.Error(), "1 datasets") {
					t.Fatalf("%v on a lost metastore = %v", args, err)
				}
				if strings.Contains(stderr, "created workspace") {
					t.Fatalf("%v created a workspace: %q", args, stderr)
				}
			}
			// Nothing was initialised: restoring the file restores the data.
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(db + suffix)
			}
			if err := os.WriteFile(db, backup, 0o644); err != nil {
				t.Fatal(err)
			}
			out, _, err := runCLI(t, "", "--warehouse", wh, "--format", "tsv", "-e", "SELECT a FROM d.t")
			if err != nil || out != "a\n7\n" {
				t.Fatalf("after restoring lakesql.db: %q %v", out, err)
			}
		})
	}
	// The operator's override starts an empty catalog beside the files.
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(db + suffix)
	}
	out, stderr, err := runCLI(t, "", "--warehouse", wh, "--allow-new-metastore", "--format", "tsv", "-e", "SHOW DATABASES")
	if err != nil || !strings.Contains(stderr, "created workspace") || strings.Contains(out, "\nd\n") {
		t.Fatalf("--allow-new-metastore: %q %q %v", out, stderr, err)
	}
}
