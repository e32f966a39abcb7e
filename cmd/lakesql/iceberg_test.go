package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestRun_ServeIcebergREST: `lakesql serve --iceberg-rest ADDR` answers the
// REST catalog's config beside the MySQL server, and stops with it.
func TestRun_ServeIcebergREST(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "lake")
	if _, stderr, err := runCLI(t, "", "--warehouse", wh, "-e", "CREATE DATABASE d"); err != nil {
		t.Fatalf("setup: %v\n%s", err, stderr)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		var out, errb bytes.Buffer
		done <- run(ctx, []string{"--warehouse", wh, "serve", "--addr", "127.0.0.1:0", "--iceberg-rest", addr}, strings.NewReader(""), &out, &errb)
	}()
	var body map[string]any
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/v1/config?warehouse=main")
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no REST catalog on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if ov, _ := body["overrides"].(map[string]any); ov["prefix"] != "main" {
		t.Errorf("config %v, want prefix main", body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
	}
	if _, err := http.Get("http://" + addr + "/v1/config"); err == nil {
		t.Error("the REST catalog still answers after serve stopped")
	}
}
