package reliability

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// The randomized schedule (issue 18, "What must work"): client sessions on
// two `lakesql serve` processes sharing one warehouse run autocommit
// INSERT/UPDATE/DELETE statements and transactions (COMMIT or ROLLBACK)
// over a ledger table and a side table, while one session runs DDL on
// those tables (ADD/DROP COLUMN, DROP+CREATE and TRUNCATE of the side
// table, CREATE/REFRESH/DROP of a materialized view and a CTAS table over
// the ledger table), one runs maintenance (compact, OPTIMIZE, expire,
// orphan cleanup, statistics, verify), and a chaos loop issues KILL QUERY
// and KILL CONNECTION against random sessions and SIGKILLs and restarts
// each server process in turn. Each write unit's outcome as its client saw
// it goes in a ledger (schedule_ledger_test.go); at the end the tables must
// hold every acknowledged row exactly once with the value the acknowledged
// units left, nothing of a refused unit, each unit of unknown outcome
// wholly or not at all, and verify and fsck must be clean.
//
// make test runs the fixed seed for a short while; longer runs:
//
//	go test ./reliability -run TestSchedule -schedule.seed=7 -schedule.duration=5m
//	LAKESQL_SCHEDULE_SEED=random LAKESQL_SCHEDULE_DURATION=10m go test ./reliability -run TestSchedule
var (
	scheduleSeed     = flag.String("schedule.seed", "", "seed of the randomized schedule: a number or 'random' (default $LAKESQL_SCHEDULE_SEED, else 20261204)")
	scheduleDuration = flag.Duration("schedule.duration", 0, "how long the schedule's clients run (default $LAKESQL_SCHEDULE_DURATION, else 15s)")
)

const (
	scheduleWorkers = 6
	defaultSeed     = 20261204
	defaultDuration = 15 * time.Second
)

// scheduleParams resolves the seed and duration from the flags and the
// environment.
func scheduleParams(t *testing.T) (uint64, time.Duration) {
	t.Helper()
	seedText := *scheduleSeed
	if seedText == "" {
		seedText = os.Getenv("LAKESQL_SCHEDULE_SEED")
	}
	seed := uint64(defaultSeed)
	switch seedText {
	case "":
	case "random":
		seed = uint64(time.Now().UnixNano())
	default:
		n, err := strconv.ParseUint(seedText, 10, 64)
		if err != nil {
			t.Fatalf("schedule seed %q: %v", seedText, err)
		}
		seed = n
	}
	d := *scheduleDuration
	if d == 0 {
		if s := os.Getenv("LAKESQL_SCHEDULE_DURATION"); s != "" {
			var err error
			if d, err = time.ParseDuration(s); err != nil {
				t.Fatalf("LAKESQL_SCHEDULE_DURATION: %v", err)
			}
		} else {
			d = defaultDuration
		}
	}
	return seed, d
}

func TestSchedule_RandomizedLedger(t *testing.T) {
	seed, duration := scheduleParams(t)
	bin := buildLakesql(t)
	for _, backend := range []string{"sqlite", "firestore"} {
		t.Run(backend, func(t *testing.T) {
			defer func() {
				if t.Failed() {
					t.Logf("reproduce with: go test ./reliability -run 'TestSchedule_RandomizedLedger/%s' -schedule.seed=%d -schedule.duration=%s",
						backend, seed, duration)
				}
			}()
			t.Logf("seed %d, duration %s", seed, duration)
			flags := scheduleWarehouse(t, backend)
			runSchedule(t, bin, flags, seed, duration)
		})
	}
}

// scheduleWarehouse is the global flags of a fresh warehouse: a local
// folder with its SQLite metastore, or the Firestore emulator with a
// bucket on an in-process fake-gcs-server.
func scheduleWarehouse(t *testing.T, backend string) []string {
	t.Helper()
	wh := filepath.Join(t.TempDir(), "lake")
	flags := []string{"--warehouse", wh, "--log-level", "warn"}
	if backend == "sqlite" {
		return flags
	}
	if os.Getenv("FIRESTORE_EMULATOR_HOST") == "" {
		const msg = `FIRESTORE_EMULATOR_HOST not set: run eval "$(scripts/firestore-emulator.sh start)"`
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{Scheme: "http", Host: "127.0.0.1", Writer: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	t.Setenv("STORAGE_EMULATOR_HOST", srv.URL()) // the serve processes inherit it
	project := fmt.Sprintf("sched-%d", time.Now().UnixNano())
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: project})
	return append(flags, "--metastore", "firestore://"+project, "--storage", "gs://"+project+"/lake")
}

// runSchedule runs one schedule on the warehouse and checks the ledger.
func runSchedule(t *testing.T, bin string, flags []string, seed uint64, duration time.Duration) {
	cl := newCluster(t, bin, flags, 2)
	ctx, cancel := context.WithTimeout(context.Background(), duration+3*time.Minute)
	defer cancel()
	setup, err := cl.connect(ctx, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE DATABASE s", "CREATE TABLE s.t (id BIGINT, grp BIGINT, v BIGINT)", "CREATE TABLE s.side (id BIGINT, grp BIGINT)"} {
		if err := setup.exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	setup.close()

	env := &schedEnv{cl: cl, deadline: time.Now().Add(duration), reg: map[string]*schedConn{}}
	workers := make([]*worker, scheduleWorkers)
	var wg sync.WaitGroup
	for i := range workers {
		workers[i] = newWorker(env, i, seed)
		wg.Add(1)
		go func() { defer wg.Done(); workers[i].run(ctx) }()
	}
	ddl := &sideClient{client: client{name: "ddl", env: env}, rng: rand.New(rand.NewPCG(seed, 1001)), tally: map[string]int{}, samples: map[string]string{}}
	maint := &sideClient{client: client{name: "maintenance", env: env, prefer: 1}, rng: rand.New(rand.NewPCG(seed, 1002)), tally: map[string]int{}, samples: map[string]string{}}
	ch := &chaos{env: env, rng: rand.New(rand.NewPCG(seed, 1003)), duration: duration, tally: map[string]int{}}
	wg.Add(3)
	go func() { defer wg.Done(); ddl.runDDL(ctx) }()
	go func() { defer wg.Done(); maint.runMaintenance(ctx) }()
	go func() { defer wg.Done(); ch.run(ctx) }()
	wg.Wait()
	for _, e := range env.errs {
		t.Error(e)
	}
	for i, p := range cl.procs {
		if _, _, up := p.current(); !up {
			t.Fatalf("server %d is not running after the schedule", i)
		}
	}
	t.Logf("DDL: %s", tallyString(ddl.tally))
	t.Logf("maintenance: %s", tallyString(maint.tally))
	t.Logf("chaos: %s", tallyString(ch.tally))
	for _, m := range []map[string]string{ddl.samples, maint.samples} {
		for k, v := range m {
			t.Logf("%s: %.300s", k, v)
		}
	}
	// Every failure the schedule provokes gets a typed error, never the
	// generic 1105.
	for _, m := range append(ddl.generic, maint.generic...) {
		t.Errorf("generic error 1105: %s", m)
	}

	// A DROP of the side table whose connection was killed runs on and may
	// land after the DDL session created the table again: a wipe, as the
	// ledger counts it, which leaves no side table. Create it (empty) so
	// the check can read it.
	if sc, err := cl.dial(ctx, 0, "s"); err != nil {
		t.Fatal(err)
	} else {
		if err := sc.exec(ctx, "CREATE TABLE IF NOT EXISTS side (id BIGINT, grp BIGINT)"); err != nil {
			t.Fatalf("create the side table after the schedule: %v", err)
		}
		sc.close()
	}
	lc := &ledgerCheck{model: map[int64]rowState{}, frozen: map[int64]*unit{}, wipes: env.wipes.Load()}
	for _, w := range workers {
		lc.units = append(lc.units, w.units...)
		for id, s := range w.model {
			lc.model[id] = s
		}
		for id, u := range w.frozen {
			lc.frozen[id] = u
		}
	}
	checkLedger(t, ctx, cl, lc, ddl.mv)
	checkFsck(t, bin, flags, cl)
}

// checkLedger reads both tables and compares them with the ledger, and
// compares the two servers' answers and the materialized view's.
func checkLedger(t *testing.T, ctx context.Context, cl *cluster, lc *ledgerCheck, mv bool) {
	t.Helper()
	a, err := cl.dial(ctx, 0, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	main := readRows(t, ctx, a, "SELECT id, grp, v FROM t")
	side := readRows(t, ctx, a, "SELECT id, grp, 0 FROM side")
	violations, stats := lc.check(main, side)
	for i, v := range violations {
		if i == 40 {
			t.Errorf("… and %d more violations", len(violations)-i)
			break
		}
		t.Error(v)
	}
	codes := map[string]int{}
	for _, u := range lc.units {
		if u.err != nil {
			if codes[answer(u.err)] == 0 && answer(u.err) != "lost" {
				t.Logf("a unit's %s: %.300s", answer(u.err), u.err)
			}
			codes[answer(u.err)]++
			if answer(u.err) == "1105" {
				t.Errorf("generic error 1105: %s", u.describe())
			}
		}
	}
	t.Logf("unit errors by answer: %s", tallyString(codes))
	t.Logf("%d units: %s; %d ledger rows, %d side rows, %d side wipes", len(lc.units), tallyString(stats), len(main), len(side), lc.wipes)
	if stats["acknowledged"] == 0 || stats["refused"] == 0 {
		t.Errorf("the schedule proves little: %s", tallyString(stats))
	}

	// The other server answers the same.
	b, err := cl.dial(ctx, 1, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	const sums = "SELECT COUNT(*), COALESCE(SUM(id), 0), COALESCE(SUM(v), 0) FROM t"
	if x, y := readRows(t, ctx, a, sums), readRows(t, ctx, b, sums); x[0] != y[0] {
		t.Errorf("the servers disagree: %v and %v", x, y)
	}
	if mv {
		err := a.exec(ctx, "REFRESH MATERIALIZED VIEW mv")
		if errCode(err) == 1146 { // its CREATE's outcome was unknown: it did not land
			return
		}
		if err != nil {
			t.Errorf("final REFRESH MATERIALIZED VIEW: %v", err)
		}
		got := readRows(t, ctx, a, "SELECT COUNT(*), COALESCE(SUM(n), 0), COALESCE(SUM(sv), 0) FROM mv")
		want := readRows(t, ctx, a, "SELECT COUNT(DISTINCT grp), COUNT(*), COALESCE(SUM(v), 0) FROM t")
		if got[0] != want[0] {
			t.Errorf("the refreshed materialized view holds (groups, rows, sum) %v, the table %v", got, want)
		}
	}
}

// readRows reads three integer columns.
func readRows(t *testing.T, ctx context.Context, sc *schedConn, q string) []tableRow {
	t.Helper()
	rows, err := sc.c.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []tableRow
	for rows.Next() {
		var r tableRow
		if err := rows.Scan(&r.id, &r.grp, &r.v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// checkFsck: CALL verify on every dataset says ok, and `lakesql fsck`
// (with the servers stopped) finds nothing.
func checkFsck(t *testing.T, bin string, flags []string, cl *cluster) {
	t.Helper()
	ctx := context.Background()
	sc, err := cl.dial(ctx, 1, "s")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	rows, err := sc.c.QueryContext(ctx, "SHOW TABLES")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	for _, tbl := range tables {
		findings, err := verifyFindings(ctx, sc.c, "s."+tbl)
		if err != nil || len(findings) != 0 {
			t.Errorf("CALL verify('s.%s'): %v %v", tbl, findings, err)
		}
	}
	sc.close()
	for _, p := range cl.procs {
		p.stop()
	}
	out, err := exec.Command(bin, append(append([]string{}, flags...), "fsck")...).CombinedOutput()
	if err != nil {
		t.Errorf("lakesql fsck: %v\n%s", err, out)
	}
}

// verifyFindings is CALL verify's rows other than its 'ok' row.
func verifyFindings(ctx context.Context, c *sql.Conn, table string) ([]string, error) {
	rows, err := c.QueryContext(ctx, "CALL verify('"+table+"')")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var findings []string
	for rows.Next() {
		var check, severity, detail string
		var snap, path sql.NullString
		if err := rows.Scan(&check, &severity, &snap, &path, &detail); err != nil {
			return nil, err
		}
		if check != "ok" {
			findings = append(findings, fmt.Sprintf("%s %s snapshot %s %s: %s", check, severity, snap.String, path.String, detail))
		}
	}
	return findings, rows.Err()
}

func tallyString(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
