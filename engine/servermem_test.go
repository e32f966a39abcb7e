package engine_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/budget"
	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// setServerMemory sets the process's global server cap for one test and
// restores the default after it.
func setServerMemory(t *testing.T, h *sql.DB, bytes string) {
	t.Helper()
	if _, err := h.Exec("SET GLOBAL " + engine.SysVarServerMemory + " = " + bytes); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = h.Exec("SET GLOBAL " + engine.SysVarServerMemory + " = DEFAULT") })
}

// TestServerMemory_CapsQueriesTheirBudgetsAllow: a query whose own budget
// is unlimited still meets the server's cap: a GROUP BY fails with 1038
// naming lakesql_server_memory, a sort spills and answers as without,
// and the session goes on.
func TestServerMemory_CapsQueriesTheirBudgetsAllow(t *testing.T) {
	e := enginetest.Open(t)
	h, _ := serve(t, e, "")
	for _, q := range budgetSetup {
		if _, err := h.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	setServerMemory(t, h, "1048576")
	runScript(t, "server cap", wire(t, h), scriptTest{checks: []check{
		{query: "SET lakesql_query_memory = 0"},
		{query: "SELECT @@global." + engine.SysVarServerMemory, want: []string{"1048576"}},
		{query: "SELECT COUNT(*) FROM (SELECT s, COUNT(*) AS c FROM d.t GROUP BY s) q", wantErr: "1038 " + budget.ServerSysVar},
		{query: "SELECT COUNT(*), MIN(a) FROM (SELECT a, s FROM d.t ORDER BY s DESC, a) q", want: []string{"30000|1"}},
		{query: "SELECT COUNT(*) FROM d.t WHERE g = 7", want: []string{"300"}},
	}})
	waitMemoryReturned(t, e)
}

// waitMemoryReturned waits until the ended statements have given the
// server's cap back (on the wire an account is closed when the
// statement's context ends, just after the client has its answer).
func waitMemoryReturned(t *testing.T, e *engine.Engine) {
	t.Helper()
	for e.MemoryInUse() != 0 {
		runtime.Gosched()
	}
}

// TestServerMemory_ConcurrentQueriesShareTheCap: six sessions, each with
// a budget of 5 MiB, run memory-hungry queries at once under a server
// cap of 8 MiB (the GROUP BY needs about 4.3 MB, so two at once do not
// fit): every query answers exactly (a sort spills) or fails
// with 1038, never anything else; afterwards the cap is wholly free and
// a session runs a query as before.
func TestServerMemory_ConcurrentQueriesShareTheCap(t *testing.T) {
	e := enginetest.Open(t)
	h, addr := serve(t, e, "")
	for _, q := range budgetSetup {
		if _, err := h.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	setServerMemory(t, h, "8388608")
	queries := []struct{ q, want string }{
		{"SELECT COUNT(*), MIN(a), MAX(s) FROM (SELECT a, s FROM d.t ORDER BY s DESC, a) q", ""},
		{"SELECT COUNT(*) FROM (SELECT s, COUNT(*) AS c FROM d.t GROUP BY s) q", "30000"},
	}
	sort := row(t, h, queries[0].q) // the answer without pressure
	queries[0].want = sort
	var wg sync.WaitGroup
	errs := make(chan error, 6*4)
	for i := range 6 {
		db := openWire(t, addr)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := db.Exec("SET lakesql_query_memory = 5242880"); err != nil {
				errs <- err
				return
			}
			for k := range 4 {
				c := queries[(i+k)%len(queries)]
				var got string
				err := scanRow(db, c.q, &got)
				var me *gomysql.MySQLError
				switch {
				case err == nil && got != c.want:
					errs <- errors.New(c.q + ": " + got + ", want " + c.want)
				case err != nil && !(errors.As(err, &me) && me.Number == 1038):
					errs <- fmt.Errorf("%T %w", err, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	waitMemoryReturned(t, e)
	if got := row(t, h, queries[1].q); got != "30000" {
		t.Fatalf("after the concurrent queries: %s", got)
	}
	conn := e.Connect("root")
	defer conn.Close()
	if _, err := conn.QueryOne(context.Background(), queries[1].q); err != nil {
		t.Fatalf("embedded after: %v", err)
	}
	if e.MemoryInUse() != 0 {
		t.Fatalf("an embedded statement left %d bytes charged", e.MemoryInUse())
	}
}

// row runs q and returns its one row, columns joined by "|".
func row(t *testing.T, h *sql.DB, q string) string {
	t.Helper()
	var s string
	if err := scanRow(h, q, &s); err != nil {
		t.Fatal(q, err)
	}
	return s
}

func scanRow(h *sql.DB, q string, out *string) error {
	rows, err := h.Query(q)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return errors.New(q + ": no row")
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return err
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = v.String
	}
	*out = strings.Join(parts, "|")
	return rows.Err()
}
