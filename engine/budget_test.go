package engine_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/budget"
	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// budgetRows is the size of the table the budget tests run over: 30,000
// rows of about 100 bytes, several MiB in memory, against a budget of
// 1 MiB.
const budgetRows = 30000

const smallBudget = "SET lakesql_query_memory = 1048576"

var budgetSetup = []string{
	"CREATE DATABASE d",
	"CREATE TABLE d.t (a BIGINT, g BIGINT, s VARCHAR(200))",
	// A recursive CTE stops at 1,000 rows: cross two.
	fmt.Sprintf("INSERT INTO d.t WITH RECURSIVE r(n) AS (SELECT 0 UNION ALL SELECT n+1 FROM r WHERE n < 199), "+
		"k AS (SELECT x.n * 150 + y.n + 1 AS n FROM r x JOIN r y ON y.n < 150) "+
		"SELECT n, n %% 100, CONCAT(LPAD(CAST((n * 7919) %% %d AS CHAR), 8, '0'), REPEAT('x', 80)) FROM k", budgetRows),
}

const budgetErr = "1038 " + budget.SysVar

// budgetScript: past a 1 MiB budget every memory-holding operator that
// cannot spill fails with 1038 naming the variable, and the session
// answers its next query.
var budgetScript = scriptTest{
	name:  "query memory budget",
	setup: budgetSetup,
	checks: []check{
		{query: "SELECT @@lakesql_query_memory > 1048576", want: []string{"1"}},
		{query: smallBudget},
		{query: "SELECT @@lakesql_query_memory", want: []string{"1048576"}},
		// Vectorised join aggregate: a build side past the budget is
		// joined a hash partition at a time.
		{query: "SELECT COUNT(*) FROM d.t x JOIN d.t y ON x.a = y.a", want: []string{"30000"}},
		{query: "SELECT COUNT(*), MAX(a) FROM d.t", want: []string{"30000|30000"}},
		// Vectorised aggregate: its group table.
		{query: "SELECT a, COUNT(*) FROM d.t GROUP BY a", wantErr: budgetErr},
		{query: "SELECT g, COUNT(*) FROM d.t WHERE g < 3 GROUP BY g", want: []string{"0|300", "1|300", "2|300"}},
		// COUNT(DISTINCT)'s set grows with the values, in one group.
		{query: "SELECT COUNT(DISTINCT s) FROM d.t", wantErr: budgetErr},
		{query: "SELECT COUNT(DISTINCT g) FROM d.t", want: []string{"100"}},
		// Row path: GROUP BY in a subquery.
		{query: "SELECT COUNT(*) FROM (SELECT s, COUNT(*) AS c FROM d.t GROUP BY s) q", wantErr: budgetErr},
		// EXPLAIN ANALYZE runs the same operators.
		{query: "EXPLAIN ANALYZE SELECT COUNT(*) FROM (SELECT s, COUNT(*) AS c FROM d.t GROUP BY s) q", wantErr: budgetErr},
		// A sort and a row-path hash join spill instead.
		{query: "SELECT COUNT(*), MIN(a) FROM (SELECT a, s FROM d.t ORDER BY s DESC, a) q", want: []string{"30000|1"}},
		{query: "SELECT COUNT(*), SUM(a), SUM(g) FROM (SELECT x.a, y.g FROM d.t x JOIN d.t y ON x.s = y.s) q", want: []string{"30000|450015000|1485000"}},
		// A key so skewed that one partition alone is past the budget.
		{query: "SELECT x.a FROM d.t x JOIN d.t y ON x.g * 0 = y.g * 0 LIMIT 5", wantErr: "1038 one partition"},
		// IN (subquery): a vectorised semi join, partitioned too.
		{query: "SELECT COUNT(*) FROM d.t x WHERE x.s IN (SELECT y.s FROM d.t y WHERE y.g >= 0)", want: []string{"30000"}},
		{query: "SELECT COUNT(*) FROM d.t x WHERE x.s IN (SELECT y.s FROM d.t y WHERE y.g < 10)", want: []string{"3000"}},
		{query: "SET lakesql_query_memory = DEFAULT"},
		{query: "SELECT COUNT(*) FROM d.t x JOIN d.t y ON x.a = y.a", want: []string{"30000"}},
		{query: "SELECT COUNT(*) FROM (SELECT s, COUNT(*) AS c FROM d.t GROUP BY s) q", want: []string{"30000"}},
	},
}

func TestQueryBudget_FailsCleanlyAndSessionGoesOn(t *testing.T) {
	t.Run("embedded", func(t *testing.T) {
		runScript(t, budgetScript.name, embedded(t, enginetest.Open(t)), budgetScript)
	})
	t.Run("wire", func(t *testing.T) {
		h, _ := serve(t, enginetest.Open(t), "")
		runScript(t, budgetScript.name, wire(t, h), budgetScript)
	})
}

// TestQueryBudget_SpillingAnswersAsWithout: an ORDER BY and row-path
// hash joins (inner, left outer) over several times the budget return
// the rows they return without one: a sort in the same order, a join in
// some order (a grace hash join emits partition by partition).
func TestQueryBudget_SpillingAnswersAsWithout(t *testing.T) {
	e := enginetest.Open(t)
	conn := e.Connect("root")
	defer conn.Close()
	ctx := context.Background()
	// Rows rendered by Go's %v: both runs render alike, and Result.Text
	// would make a context per cell.
	run := func(q string) []string {
		t.Helper()
		rs, err := conn.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var out []string
		for _, r := range rs[len(rs)-1].Rows {
			out = append(out, fmt.Sprint(r...))
		}
		return out
	}
	for _, q := range budgetSetup {
		run(q)
	}
	for _, c := range []struct {
		query, op string
		ordered   bool
	}{
		{"SELECT a, g, s FROM d.t ORDER BY s DESC, a", "Sort", true},
		{"SELECT a, g FROM d.t ORDER BY g, a DESC", "Sort", true},
		{"SELECT g, s FROM d.t WHERE a % 3 = 0 ORDER BY g DESC, s", "Sort", true},
		{"SELECT x.a, y.g, y.s FROM d.t x JOIN d.t y ON x.s = y.s", "HashJoin", false},
		{"SELECT x.a, y.a FROM d.t x LEFT JOIN d.t y ON x.a = y.g * 300", "LeftOuterHashJoin", false},
	} {
		if plan := enginetest.Explain(t, conn, c.query); !strings.Contains(plan, c.op) {
			t.Fatalf("%s: no %s in the plan, the test tests nothing:\n%s", c.query, c.op, plan)
		}
		free := run(c.query)
		run(smallBudget)
		bounded := run(c.query)
		run("SET lakesql_query_memory = DEFAULT")
		if !c.ordered {
			slices.Sort(free)
			slices.Sort(bounded)
		}
		if len(free) < budgetRows/3 || strings.Join(free, "\n") != strings.Join(bounded, "\n") {
			t.Fatalf("%s: %d rows within the budget differ from %d without", c.query, len(bounded), len(free))
		}
	}
}

// TestQueryBudget_OtherSessionsKeepWorking: one session's budget and its
// failures are its own; a session on the default budget runs the same
// query meanwhile, over the wire.
func TestQueryBudget_OtherSessionsKeepWorking(t *testing.T) {
	e := enginetest.Open(t)
	small, addr := serve(t, e, "")
	other := openWire(t, addr)
	for _, q := range budgetSetup {
		if _, err := wire(t, small)(q); err != nil {
			t.Fatal(q, err)
		}
	}
	runScript(t, "small session", wire(t, small), scriptTest{checks: []check{
		{query: smallBudget},
		{query: "SELECT a, COUNT(*) FROM d.t GROUP BY a", wantErr: budgetErr},
	}})
	runScript(t, "other session", wire(t, other), scriptTest{checks: []check{
		{query: "SELECT @@lakesql_query_memory > 1048576", want: []string{"1"}},
		{query: "SELECT COUNT(*) FROM (SELECT a, COUNT(*) FROM d.t GROUP BY a) q", want: []string{"30000"}},
		{query: "SELECT COUNT(*) FROM d.t x JOIN d.t y ON x.s = y.s", want: []string{"30000"}},
	}})
	runScript(t, "small session again", wire(t, small), scriptTest{checks: []check{
		{query: "SELECT a, COUNT(*) FROM d.t GROUP BY a", wantErr: budgetErr},
		{query: "SELECT COUNT(*) FROM d.t WHERE g = 7", want: []string{"300"}},
	}})
	// The embedded API has the same variable and default.
	conn := e.Connect("root")
	defer conn.Close()
	r, err := conn.QueryOne(context.Background(), "SELECT @@"+engine.SysVarQueryMemory+" > 0")
	if err != nil || len(r.Rows) != 1 {
		t.Fatalf("embedded: %v %v", r.Rows, err)
	}
}

// openWire opens a second session (one connection) to the server at addr.
func openWire(t *testing.T, addr string) *sql.DB {
	t.Helper()
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", addr
	h, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	h.SetMaxOpenConns(1)
	t.Cleanup(func() { h.Close() })
	return h
}

// TestQueryBudget_KillStopsASpillingSort: KILL QUERY reaches a query
// that joins and sorts a large input (9M rows, budget 1 MiB: the sort
// spills): it fails with 1317 instead of finishing, and the session
// runs its next statement.
func TestQueryBudget_KillStopsASpillingSort(t *testing.T) {
	e := enginetest.Open(t)
	h, addr := serve(t, e, "")
	killer := openWire(t, addr)
	for _, q := range append(budgetSetup, smallBudget) {
		if _, err := h.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	const heavy = "SELECT x.a, y.s FROM d.t x JOIN d.t y ON x.g = y.g ORDER BY y.s, x.a"
	done := make(chan error, 1)
	go func() { done <- drain(h.Query(heavy)) }()
	// Kill it once the process list shows it running for a second (past
	// planning, into the join and sort), however long that takes: no
	// timing is asserted.
	var err error
	for killed := false; !killed; {
		select {
		case err = <-done:
			t.Fatalf("the query ended before it could be killed: %v", err)
		default:
		}
		var id int64
		row := killer.QueryRow("SELECT id FROM information_schema.processlist WHERE info LIKE 'SELECT x.a, y.s FROM d.t x JOIN%' AND time >= 1")
		if row.Scan(&id) == nil {
			if _, err := killer.Exec(fmt.Sprintf("KILL QUERY %d", id)); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	err = <-done
	if code, msg := errCode(err); code != 1317 {
		t.Fatalf("killed query: %v (code %d %q), want 1317", err, code, msg)
	}
	runScript(t, "after the kill", wire(t, h), scriptTest{checks: []check{
		{query: "SELECT COUNT(*), @@lakesql_query_memory FROM d.t", want: []string{"30000|1048576"}},
	}})
}
