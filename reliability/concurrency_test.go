package reliability

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const (
	writers        = 6
	stmtsPerWriter = 10
	rowsPerStmt    = 5
)

// hammer runs writers clients inserting (each on its own connection, to
// the server picked by writerOn) while one reader per server polls
// COUNT(*), and checks every row landed exactly once, every count a reader
// saw was a whole number of statements and never went down, and all of it
// finished in bounded time.
func hammer(t *testing.T, servers []*server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	setup := servers[0].open(t, "", 1)
	mustExec(t, setup, "CREATE DATABASE c")
	mustExec(t, setup, "CREATE TABLE c.t (id BIGINT, w INT, s INT)")

	var conflicts atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, writers*stmtsPerWriter+len(servers))
	for w := 0; w < writers; w++ {
		h := servers[w%len(servers)].open(t, "c", 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := 0; s < stmtsPerWriter; s++ {
				vals := make([]string, rowsPerStmt)
				for r := range vals {
					vals[r] = fmt.Sprintf("(%d, %d, %d)", w*10000+s*100+r, w, s)
				}
				// A statement that lost its append race more often than the
				// catalog's retry budget fails with a typed commit conflict
				// and commits nothing (DESIGN.md: bounded retries); the client
				// re-runs it, as MySQL clients re-run a deadlocked statement.
				// A partial or duplicated commit would show in the final
				// counts.
				q := "INSERT INTO t VALUES " + strings.Join(vals, ", ")
				for attempt := 0; ; attempt++ {
					t0 := time.Now()
					_, err := h.ExecContext(ctx, q)
					if err == nil {
						break
					}
					if !strings.Contains(err.Error(), "commit conflict") || attempt >= 5 {
						errs <- fmt.Errorf("writer %d statement %d (attempt %d, after %v): %w", w, s, attempt, time.Since(t0).Round(time.Millisecond), err)
						return
					}
					conflicts.Add(1)
				}
			}
		}()
	}
	writersDone := make(chan struct{})
	go func() { wg.Wait(); close(writersDone) }()

	var rwg sync.WaitGroup
	seen := make([][]int64, 2*len(servers))
	for r := range seen {
		h := servers[r%len(servers)].open(t, "c", 1)
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			prev := int64(-1)
			for {
				var n int64
				if err := h.QueryRowContext(ctx, "SELECT COUNT(*) FROM t").Scan(&n); err != nil {
					errs <- fmt.Errorf("reader %d: %w", r, err)
					return
				}
				if n < prev {
					errs <- fmt.Errorf("reader %d: count went from %d down to %d", r, prev, n)
				}
				if n%rowsPerStmt != 0 {
					errs <- fmt.Errorf("reader %d: count %d is not a whole number of %d-row statements", r, n, rowsPerStmt)
				}
				prev = n
				seen[r] = append(seen[r], n)
				select {
				case <-writersDone:
					return
				case <-ctx.Done():
					errs <- fmt.Errorf("reader %d: %w", r, ctx.Err())
					return
				case <-time.After(2 * time.Millisecond):
				}
			}
		}()
	}
	select {
	case <-writersDone:
	case <-ctx.Done():
		t.Fatal("writers deadlocked or starved: not done in 90s")
	}
	rwg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}

	const total = writers * stmtsPerWriter * rowsPerStmt
	for i, srv := range servers {
		h := srv.open(t, "c", 1)
		var n, distinct, mn, mx int64
		if err := h.QueryRow("SELECT COUNT(*), COUNT(DISTINCT id), MIN(id), MAX(id) FROM t").Scan(&n, &distinct, &mn, &mx); err != nil {
			t.Fatal(err)
		}
		if n != total || distinct != total || mn != 0 || mx != (writers-1)*10000+(stmtsPerWriter-1)*100+rowsPerStmt-1 {
			t.Errorf("server %d: count %d, distinct %d, min %d, max %d; want %d rows each once", i, n, distinct, mn, mx, total)
		}
		// Every statement landed whole: one group of rowsPerStmt per (w, s).
		rows, err := h.Query("SELECT w, s, COUNT(*) FROM t GROUP BY w, s HAVING COUNT(*) <> 5")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var w, s, c int
			rows.Scan(&w, &s, &c)
			t.Errorf("server %d: statement %d of writer %d has %d rows", i, s, w, c)
		}
		rows.Close()
	}
	reads := 0
	for _, s := range seen {
		reads += len(s)
	}
	t.Logf("%d readers made %d reads; %d statements failed with a commit conflict after the catalog's append retries and were re-run by the client", len(seen), reads, conflicts.Load())
}

// snapshotsOf checks the history of c.t on warehouse dir is linear and
// adds every statement's rows whole: at most one snapshot per INSERT
// statement (concurrent statements in one engine share commits).
func snapshotsOf(t *testing.T, dir string) {
	t.Helper()
	cat := catalogOn(t, dir, nil)
	id := crashTable
	id.Collection = "c"
	ds, snaps := lineage(t, cat, id)
	if len(snaps) == 0 || len(snaps) > writers*stmtsPerWriter {
		t.Errorf("%d snapshots, want 1 to %d (one per statement or fewer)", len(snaps), writers*stmtsPerWriter)
	}
	if ds.CurrentRecords != writers*stmtsPerWriter*rowsPerStmt {
		t.Errorf("current-records %d", ds.CurrentRecords)
	}
	var added int64
	for _, s := range snaps {
		added += s.Summary.AddedRecords
		if s.Summary.AddedRecords == 0 || s.Summary.AddedRecords%rowsPerStmt != 0 {
			t.Errorf("snapshot %d added %d records, want whole %d-row statements", s.ID, s.Summary.AddedRecords, rowsPerStmt)
		}
	}
	if added != ds.CurrentRecords {
		t.Errorf("snapshots added %d records, the table holds %d", added, ds.CurrentRecords)
	}
}

// TestConcurrency_OneServer: writers and readers through one server.
func TestConcurrency_OneServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := serve(t, openEngine(t, dir))
	hammer(t, []*server{srv})
	snapshotsOf(t, dir)
}

// TestConcurrency_TwoServers: two engines (two catalogs) on one warehouse
// folder and SQLite file, each with its own server, clients on both.
func TestConcurrency_TwoServers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := serve(t, openEngine(t, dir))
	b := serve(t, openEngine(t, dir))
	hammer(t, []*server{a, b})
	snapshotsOf(t, dir)
}
