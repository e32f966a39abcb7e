package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/jobs"
)

// TestWorker_DrainsPendingJobs: with no queue (LAKESQL_JOBS=none) a commit
// leaves its refresh job pending; `lakesql worker` runs it and exits.
func TestWorker_DrainsPendingJobs(t *testing.T) {
	t.Setenv("LAKESQL_JOBS", "none")
	wh := filepath.Join(t.TempDir(), "lake")
	if _, stderr, err := runCLI(t, "", "--warehouse", wh, "-e",
		"CREATE DATABASE d; CREATE TABLE d.src (k INT); CREATE MATERIALIZED VIEW d.mv AS SELECT COUNT(*) AS n FROM d.src; INSERT INTO d.src VALUES (1), (2)"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	out, _, _ := runCLI(t, "", "--warehouse", wh, "--format", "tsv", "-e", "SELECT n FROM d.mv")
	if out != "n\n0\n" {
		t.Fatalf("before the worker: %q", out)
	}
	out, stderr, err := runCLI(t, "", "--warehouse", wh, "worker")
	if err != nil || !strings.Contains(out, "ran 1 refresh jobs") {
		t.Fatalf("worker: %q %v\n%s", out, err, stderr)
	}
	out, _, _ = runCLI(t, "", "--warehouse", wh, "--format", "tsv", "-e", "SELECT n FROM d.mv")
	if out != "n\n2\n" {
		t.Fatalf("after the worker: %q", out)
	}
	if out, _, err := runCLI(t, "", "--warehouse", wh, "worker"); err != nil || !strings.Contains(out, "ran 0 refresh jobs") {
		t.Fatalf("second worker run: %q %v", out, err)
	}
	if _, _, err := runCLI(t, "", "--warehouse", wh, "worker", "--listen", "127.0.0.1:0"); err == nil || !strings.Contains(err.Error(), "--audience") {
		t.Fatalf("--listen without --audience: %v", err)
	}
	if _, _, err := runCLI(t, "", "--warehouse", wh, "worker", "--listen", "127.0.0.1:0", "--audience", "a"); err == nil || !strings.Contains(err.Error(), "--public-key") {
		t.Fatalf("--listen without keys: %v", err)
	}
}

// TestWorker_Listen: `lakesql worker --listen` serves signed tasks.
func TestWorker_Listen(t *testing.T) {
	t.Setenv("LAKESQL_JOBS", "none")
	dir := t.TempDir()
	wh := filepath.Join(dir, "lake")
	if _, stderr, err := runCLI(t, "", "--warehouse", wh, "-e",
		"CREATE DATABASE d; CREATE TABLE d.src (k INT); CREATE MATERIALIZED VIEW d.mv AS SELECT COUNT(*) AS n FROM d.src; INSERT INTO d.src VALUES (1)"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	pub := filepath.Join(dir, "pub.pem")
	if err := os.WriteFile(pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	// The pending job, read before the worker starts (engines in one
	// process must not open concurrently: GMS keeps process-wide state).
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: wh, NoAudit: true})
	if err != nil {
		t.Fatal(err)
	}
	pending, _ := e.Catalog().PendingJobs(context.Background())
	e.Close()
	if len(pending) != 1 {
		t.Fatalf("pending %+v", pending)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var errb bytes.Buffer
	go func() {
		done <- run(ctx, []string{"--warehouse", wh, "worker", "--listen", addr, "--audience", "https://w.test", "--public-key", pub},
			strings.NewReader(""), &bytes.Buffer{}, &errb)
	}()
	q := &jobs.HTTPTaskQueue{URL: "http://" + addr + "/", Audience: "https://w.test", Issuer: "t", Key: key}
	var postErr error
	for i := 0; i < 200; i++ {
		if postErr = q.Enqueue(context.Background(), &pending[0]); postErr == nil || !strings.Contains(postErr.Error(), "refused") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if postErr != nil {
		cancel()
		<-done
		t.Fatalf("task: %v\n%s", postErr, errb.String())
	}
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader(`{"execution_id":"x"}`))
	req.Header.Set("Authorization", "Bearer forged")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("forged token: %v %v", resp, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("worker exit: %v", err)
	}
	e, err = engine.Open(context.Background(), engine.Config{Warehouse: wh, NoAudit: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	job, _ := e.Catalog().Job(context.Background(), pending[0].ExecutionID)
	if job.Status != catalogstore.JobSucceeded {
		t.Fatalf("job %+v", job)
	}
}

// TestRun_RefreshesBeforeExit: with the default in-process queue, a run
// that commits to a source finishes the refresh before it exits.
func TestRun_RefreshesBeforeExit(t *testing.T) {
	t.Setenv("LAKESQL_JOBS", "")
	wh := filepath.Join(t.TempDir(), "lake")
	if _, stderr, err := runCLI(t, "", "--warehouse", wh, "-e",
		"CREATE DATABASE d; CREATE TABLE d.src (k INT); CREATE MATERIALIZED VIEW d.mv AS SELECT COUNT(*) AS n FROM d.src; INSERT INTO d.src VALUES (1), (2), (3)"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	out, _, _ := runCLI(t, "", "--warehouse", wh, "--format", "tsv", "-e", "SELECT n FROM d.mv; SHOW MATERIALIZED VIEWS")
	if !strings.HasPrefix(out, "n\n3\n") || !strings.Contains(out, "\tok\t") {
		t.Fatalf("after exit: %q", out)
	}
}
