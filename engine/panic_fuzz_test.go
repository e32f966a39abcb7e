package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// panicSeeds are seeds past the first 400 whose statements panic in GMS
// v0.20.0's join planner (memo.joinOrderBuilder: "vertex not found"), so
// that every run goes through a real planner panic.
var panicSeeds = []uint64{509, 1147, 1301, 1429, 2460, 2636, 2699}

// TestFuzzWire_NoStatementDropsTheConnection runs seeded random SELECTs
// (multi-way joins of every kind, derived tables, correlated subqueries,
// nested expressions; see queryGen) over one wire connection. Every
// statement must answer rows or an error, and the connection must then
// still answer SELECT 1 with the same connection id. Statements GMS
// panics on ("vertex not found" in its join planner, among others) are
// among them and must come back as 1105. Every fourth statement is also
// run joined to 600 rows with a column that fails at the 500th (a panic
// or a BIGINT overflow, see lateVariant), so that it fails after rows
// were streamed: the client must get the error after those rows.
func TestFuzzWire_NoStatementDropsTheConnection(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 80
	}
	e := enginetest.Open(t)
	registerPanics(t, e)
	db, _ := serve(t, e, "")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range append(genSchema(), lateSchema()...) {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	var ok, failed, panicked, multiway, lateRuns, late int
	start := time.Now()
	seeds := make([]uint64, 0, n+len(panicSeeds))
	for s := uint64(0); s < uint64(n); s++ {
		seeds = append(seeds, s)
	}
	seeds = append(seeds, panicSeeds...)
	for _, seed := range seeds {
		q := newQueryGen(seed).Select()
		if strings.Count(q, " AS t1_") >= 3 {
			multiway++
		}
		qs := []string{q}
		if seed%4 == 0 {
			qs = append(qs, lateVariant(q, seed))
			lateRuns++
		}
		for i, q := range qs {
			rows, err := countRows(conn.QueryContext(ctx, q))
			if err == nil {
				ok++
			} else {
				switch code, msg := errCode(err); {
				case code == 0:
					t.Fatalf("seed %d: not a MySQL error (connection lost?): %v\n%s", seed, err, q)
				case code == 1105 && strings.HasPrefix(msg, "internal error"):
					panicked++
					failed++
				default:
					failed++
				}
				if i == 1 && rows > 0 {
					late++
				}
			}
			var one, same int64
			if err := conn.QueryRowContext(ctx, "SELECT 1, CONNECTION_ID()").Scan(&one, &same); err != nil || one != 1 || same != id {
				t.Fatalf("seed %d: after the statement SELECT 1 gave %d on connection %d (was %d): %v\n%s", seed, one, same, id, err, q)
			}
		}
	}
	n = len(seeds)
	t.Logf("%d statements in %v: %d answered rows, %d errors (%d recovered panics); %d joined 3+ tables; %d of %d late variants failed after rows were sent",
		n+lateRuns, time.Since(start).Round(time.Millisecond), ok, failed, panicked, multiway, late, lateRuns)
	if late < lateRuns/3 {
		t.Errorf("only %d of %d late variants failed after streaming rows", late, lateRuns)
	}
	if panicked == 0 {
		t.Error("no statement panicked: panicSeeds no longer reach GMS's planner panics")
	}
	if ok < n/2 || multiway < n/5 {
		t.Errorf("generator coverage too low: %d of %d answered, %d multi-way joins", ok, n, multiway)
	}
}

// lateSchema adds fz.seq, 600 rows n = 0..599, for lateVariant.
func lateSchema() []string {
	vals := make([]string, 600)
	for i := range vals {
		vals[i] = fmt.Sprintf("(%d)", i)
	}
	return []string{"CREATE TABLE fz.seq (n BIGINT)", "INSERT INTO fz.seq VALUES " + strings.Join(vals, ",")}
}

// lateVariant joins the rows of q to fz.seq with a column that fails at
// n = 500, after GMS streamed its first batches: a panic (panic_late),
// or for every other seed a BIGINT overflow (1690).
func lateVariant(q string, seed uint64) string {
	fail := "panic_late(s.n)"
	if seed%8 == 4 {
		fail = "s.n + 9223372036854775307"
	}
	return fmt.Sprintf("SELECT g.*, s.n, %s AS late FROM (%s) AS g CROSS JOIN fz.seq AS s", fail, q)
}
