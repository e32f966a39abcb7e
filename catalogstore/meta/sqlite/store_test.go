package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore/meta"
)

func TestOpen_WALAndBusyTimeout(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var mode string
	var timeout int
	if err := s.db.QueryRowContext(t.Context(), "PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if err := s.db.QueryRowContext(t.Context(), "PRAGMA busy_timeout").Scan(&timeout); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" || timeout != 10000 {
		t.Errorf("journal_mode = %q, busy_timeout = %d; want wal, 10000", mode, timeout)
	}
}

func TestOpen_PathWithURIChars(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a dir?x=1#frag%20", "meta.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set(t.Context(), "a/b", map[string]any{"v": int64(1)}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database is not at the path given: %v", err)
	}
	s, err = Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if d, err := s.Get(t.Context(), "a/b"); err != nil || d.Data["v"] != int64(1) {
		t.Errorf("reopened: Get = %#v, %v", d.Data, err)
	}
}

func TestOpen_NewerFormatRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meta.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(t.Context(), "PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err := Open(t.Context(), path); err == nil {
		s.Close()
		t.Fatal("Open of a file in a newer format succeeded")
	}
}

// TestRunTx_ContentionAfterBusy holds the write lock from another connection
// for longer than the busy timeout and all retries: RunTx must give up with
// ErrContention, having run nothing, and succeed once the lock is free.
func TestRunTx_ContentionAfterBusy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meta.db")
	s, err := open(t.Context(), path, 20*time.Millisecond, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.backoff = 5 * time.Millisecond

	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}

	calls := 0
	incr := func(ctx context.Context, tx meta.Tx) error {
		calls++
		return tx.Set("a/b", map[string]any{"v": int64(calls)})
	}
	err = s.RunTx(t.Context(), incr)
	if !errors.Is(err, meta.ErrContention) {
		t.Fatalf("RunTx while another process holds the lock: err = %v, want ErrContention", err)
	}
	if calls != 0 {
		t.Errorf("fn ran %d times without the lock", calls)
	}
	if err := s.Set(t.Context(), "a/c", map[string]any{}); !errors.Is(err, meta.ErrContention) {
		t.Errorf("Set while another process holds the lock: err = %v, want ErrContention", err)
	}

	if _, err := conn.ExecContext(t.Context(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := s.RunTx(t.Context(), incr); err != nil {
		t.Fatalf("RunTx after the lock was released: %v", err)
	}
	if d, err := s.Get(t.Context(), "a/b"); err != nil || d.Data["v"] != int64(1) {
		t.Errorf("Get = %#v, %v; want v 1", d.Data, err)
	}
}

// TestRunTx_WaitsForOtherWriter releases another connection's lock within
// the busy timeout: RunTx waits for it instead of failing.
func TestRunTx_WaitsForOtherWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meta.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), `INSERT INTO docs VALUES ('a/b', 'a', 'b', '{"v":1}')`); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		conn.ExecContext(context.Background(), "COMMIT")
	}()
	err = s.RunTx(t.Context(), func(ctx context.Context, tx meta.Tx) error {
		d, err := tx.Get("a/b") // sees the other writer's commit
		if err != nil {
			return err
		}
		return tx.Set("a/b", map[string]any{"v": d.Data["v"].(int64) + 1})
	})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := s.Get(t.Context(), "a/b"); err != nil || d.Data["v"] != int64(2) {
		t.Errorf("Get = %#v, %v; want v 2", d.Data, err)
	}
}

func TestRunTx_ContextCancelledWhileWaiting(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	release := make(chan struct{})
	held := make(chan struct{})
	go s.RunTx(t.Context(), func(ctx context.Context, tx meta.Tx) error {
		close(held)
		<-release
		return nil
	})
	<-held
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	err = s.Set(ctx, "a/b", map[string]any{})
	close(release)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Set behind a running transaction with a short deadline: err = %v, want DeadlineExceeded", err)
	}
}
