package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/scan"
)

// scriptLines feeds the REPL loop fixed lines, then io.EOF.
type scriptLines struct {
	lines []string
	next  int
}

func (s *scriptLines) Readline() (string, error) {
	if s.next >= len(s.lines) {
		return "", io.EOF
	}
	s.next++
	return s.lines[s.next-1], nil
}

func (s *scriptLines) SetPrompt(string) {}

func openEngine(t *testing.T) *engine.Engine {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestREPL_InterruptCancelsStatementNotREPL: Ctrl-C while a statement
// runs cancels that statement (it ends with an error), not the REPL:
// the next statement runs, and the run's own context is untouched.
func TestREPL_InterruptCancelsStatementNotREPL(t *testing.T) {
	e := openEngine(t)
	conn := e.Connect("root")
	defer conn.Close()
	var rootCancelled atomic.Bool
	intr := newInterrupter(func() { rootCancelled.Store(true) })
	ctx := withInterrupter(context.Background(), intr)
	started := intr.whenStarted()
	go func() {
		<-started
		intr.interrupt()
	}()
	var stdout, stderr bytes.Buffer
	out, err := newPrinter("tsv", &stdout)
	if err != nil {
		t.Fatal(err)
	}
	lines := &scriptLines{lines: []string{"SELECT SLEEP(600)", "  AS slept;", "SELECT 42 AS answer;"}}
	if err := replLoop(ctx, conn, lines, &stdout, &stderr, out, false); err != nil {
		t.Fatalf("the REPL ended with %v", err)
	}
	if !strings.Contains(stderr.String(), "ERROR: query cancelled") {
		t.Errorf("stderr %q: want the cancelled statement's error", stderr.String())
	}
	if strings.Contains(stdout.String(), "slept") {
		t.Errorf("stdout %q: the cancelled statement printed a result", stdout.String())
	}
	if !strings.Contains(stdout.String(), "answer\n42\n") {
		t.Errorf("stdout %q: want the next statement's result", stdout.String())
	}
	if rootCancelled.Load() {
		t.Error("the interrupt cancelled the whole run")
	}
}

// TestInterrupter_Routes: an interrupt cancels the running statement
// when there is one; with none, the REPL ignores it and every other mode
// ends the run.
func TestInterrupter_Routes(t *testing.T) {
	for _, c := range []struct {
		name                string
		repl, running       bool
		wantQuery, wantRoot bool
	}{
		{"repl, statement running", true, true, true, false},
		{"repl, at the prompt", true, false, false, false},
		{"script, statement running", false, true, true, false},
		{"script, between statements", false, false, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var root atomic.Bool
			in := newInterrupter(func() { root.Store(true) })
			if c.repl {
				in.replMode()
			}
			qctx := context.Background()
			if c.running {
				var end func()
				qctx, end = in.begin(context.Background())
				defer end()
			}
			in.interrupt()
			if got := qctx.Err() != nil; got != c.wantQuery {
				t.Errorf("statement cancelled: %v, want %v", got, c.wantQuery)
			}
			if root.Load() != c.wantRoot {
				t.Errorf("run cancelled: %v, want %v", root.Load(), c.wantRoot)
			}
		})
	}
}

// TestQueryProgress_FilesDoneOfTotal: a statement's scans count the files
// they plan and read; the bar appears only after the statement has run
// progressDelay, showing files done of total.
func TestQueryProgress_FilesDoneOfTotal(t *testing.T) {
	e := openEngine(t)
	conn := e.Connect("root")
	defer conn.Close()
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE d", "CREATE TABLE d.t (a BIGINT)",
		"INSERT INTO d.t VALUES (1)", "INSERT INTO d.t VALUES (2)", "INSERT INTO d.t VALUES (3)",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// The row path, a vectorised aggregate, a vectorised top-N.
	for _, q := range []string{"SELECT a FROM d.t WHERE a + 0 > 1", "SELECT SUM(a) FROM d.t", "SELECT a FROM d.t ORDER BY a DESC LIMIT 1"} {
		pr := &scan.Progress{}
		if _, err := conn.Query(scan.WithProgress(ctx, pr), q); err != nil {
			t.Fatal(err)
		}
		if done, total := pr.Files(); done != 3 || total != 3 {
			t.Fatalf("%s: progress %d/%d, want 3/3", q, done, total)
		}
	}
	pr := &scan.Progress{}
	if _, err := conn.Query(scan.WithProgress(ctx, pr), "SELECT a FROM d.t"); err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	q := &queryProgress{pr: pr, w: &w}
	q.update(progressDelay / 2)
	if w.Len() != 0 {
		t.Errorf("a bar before %v: %q", progressDelay, w.String())
	}
	q.update(progressDelay + time.Millisecond)
	if !strings.Contains(w.String(), "3/3") || !strings.Contains(w.String(), "files") {
		t.Errorf("bar %q: want files 3/3", w.String())
	}
}
