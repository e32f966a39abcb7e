package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRun_IcebergExport: `lakesql iceberg export` writes the metadata of
// every dataset of the workspace, then of one named dataset, and reports a
// table Iceberg cannot hold without stopping the others.
func TestRun_IcebergExport(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "lake")
	if _, stderr, err := runCLI(t, "", "--warehouse", wh, "-e",
		"CREATE DATABASE d; CREATE TABLE d.a (x INT); INSERT INTO d.a VALUES (1); CREATE TABLE d.b (y VARCHAR(3)); CREATE TABLE d.u (z BIGINT UNSIGNED)"); err != nil {
		t.Fatalf("setup: %v\n%s", err, stderr)
	}
	out, stderr, err := runCLI(t, "", "--warehouse", wh, "iceberg", "export")
	if err == nil || !strings.Contains(err.Error(), "1 of 3 datasets not exported") {
		t.Fatalf("export of the workspace: %v, want 1 of 3 refused", err)
	}
	if !strings.Contains(stderr, "d.u: ") || !strings.Contains(stderr, "no Iceberg type") {
		t.Errorf("stderr %q does not name d.u's refusal", stderr)
	}
	for _, ds := range []string{"d.a\t", "d.b\t"} {
		if !strings.Contains(out, ds) || !strings.Contains(out, "/iceberg/metadata/v1.metadata.json\twritten") {
			t.Errorf("output %q lacks %s's v1 written", out, ds)
		}
	}
	out, stderr, err = runCLI(t, "", "--warehouse", wh, "iceberg", "export", "d.a")
	if err != nil || !strings.HasPrefix(out, "d.a\tfile://") || !strings.HasSuffix(out, "v1.metadata.json\tunchanged\n") {
		t.Errorf("export of d.a again: %v %q %q, want v1 unchanged", err, out, stderr)
	}
}
