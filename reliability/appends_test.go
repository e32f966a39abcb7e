package reliability

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lakesql/lakesql/engine"
)

// Appends under contention (issue 18, item 5): 8 clients on two engines
// on one warehouse — two catalogs, as two processes would have — insert
// into one table at once. No INSERT may fail (concurrent appends in one
// engine share commits; across engines a lost race re-bases after a
// jittered pause), and every acknowledged row is present exactly once.

const (
	appendClients = 8
	appendStmts   = 25
	appendRows    = 4
)

func TestConcurrency_AppendsNeverStarve(t *testing.T) {
	backends := []string{"sqlite"}
	if os.Getenv("FIRESTORE_EMULATOR_HOST") != "" {
		backends = append(backends, "firestore")
	}
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			cfg := engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true}
			if backend == "firestore" {
				cfg.Metastore = fmt.Sprintf("firestore://appends-%d", time.Now().UnixNano())
				cfg.AllowNewMetastore = true
			}
			servers := []*server{serve(t, openConfig(t, cfg)), serve(t, openConfig(t, cfg))}
			appendConcurrently(t, servers)
		})
	}
}

// openConfig opens an engine with cfg.
func openConfig(t *testing.T, cfg engine.Config) *engine.Engine {
	t.Helper()
	e, err := engine.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("open engine: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// appendConcurrently runs the clients, half on each server, and checks the
// ledger of acknowledged statements against the table.
func appendConcurrently(t *testing.T, servers []*server) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	setup := servers[0].open(t, "", 1)
	mustExec(t, setup, "CREATE DATABASE c")
	mustExec(t, setup, "CREATE TABLE c.t (id BIGINT, w INT, s INT)")

	acked := make([][]bool, appendClients) // the ledger: [client][statement]
	var wg sync.WaitGroup
	errs := make(chan error, appendClients*appendStmts)
	for w := 0; w < appendClients; w++ {
		h := servers[w%len(servers)].open(t, "c", 1)
		acked[w] = make([]bool, appendStmts)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := 0; s < appendStmts; s++ {
				vals := make([]string, appendRows)
				for r := range vals {
					vals[r] = fmt.Sprintf("(%d, %d, %d)", (w*appendStmts+s)*appendRows+r, w, s)
				}
				if _, err := h.ExecContext(ctx, "INSERT INTO t VALUES "+strings.Join(vals, ", ")); err != nil {
					errs <- fmt.Errorf("client %d statement %d: %w", w, s, err)
					continue
				}
				acked[w][s] = true
			}
		}()
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		failed++
		t.Error(err)
	}
	statements := appendClients*appendStmts - failed

	// Every acknowledged statement's rows are there exactly once, and
	// nothing else is.
	h := servers[1].open(t, "c", 1)
	got := map[[2]int]int{}
	rows, err := h.Query("SELECT w, s, COUNT(*), COUNT(DISTINCT id) FROM t GROUP BY w, s")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var w, s, n, distinct int
		if err := rows.Scan(&w, &s, &n, &distinct); err != nil {
			t.Fatal(err)
		}
		got[[2]int{w, s}] = n
		if distinct != n {
			t.Errorf("statement %d of client %d: %d rows, %d distinct", s, w, n, distinct)
		}
	}
	rows.Close()
	for w := range acked {
		for s, ok := range acked[w] {
			want := 0
			if ok {
				want = appendRows
			}
			if n := got[[2]int{w, s}]; n != want {
				t.Errorf("statement %d of client %d (acknowledged: %v): %d rows, want %d", s, w, ok, n, want)
			}
		}
	}
	var commits int
	if err := h.QueryRow("SELECT COUNT(*) FROM c.`t$snapshots`").Scan(&commits); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d clients on %d engines: %d INSERTs acknowledged, %d failed, in %d commits (%.2f commits per statement)",
		appendClients, len(servers), statements, failed, commits, float64(commits)/float64(max(statements, 1)))
}
