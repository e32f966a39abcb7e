package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/faultblob"
	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/engine"
)

// The all-or-nothing harness (issue 17, item 2): every kind of statement
// that can fail is run in a failing variant, and afterwards nothing a
// reader can see may have changed — every metastore document, byte for
// byte, and the set of live data files (each dataset's head manifest, and
// those files present in the store). A refused statement may leave
// unreferenced files behind (orphans for cleanup, by the commit protocol);
// it may not leave anything a reader can reach.
//
// Failing variants are of two sorts: statements that are wrong in
// themselves (a bad type or default, a constraint violation, a guard), and
// correct statements run with a fault injected at each step in turn — the
// k-th object-store write, or the k-th metastore write — until the
// statement runs without reaching the fault. Each case runs on SQLite and,
// when FIRESTORE_EMULATOR_HOST is set, on the Firestore emulator.

// atomicCase is one statement and the state it runs in.
type atomicCase struct {
	name  string
	setup []string
	// bad fail in themselves, each with "CODE fragment" as in check.
	bad []badStmt
	// faulted succeed unfaulted; each is run with faults at every step.
	faulted []string
}

type badStmt struct {
	query   string
	wantErr string
}

var atomicCases = []atomicCase{
	{
		name: "DDL: ALTER and CREATE",
		setup: []string{"CREATE DATABASE d", "CREATE TABLE d.t (a INT NOT NULL, label VARCHAR(20))", "INSERT INTO d.t VALUES (1, 'fourteen chars'), (2, NULL)",
			"CREATE TABLE d.one (x INT)", "INSERT INTO d.one VALUES (1)"},
		bad: []badStmt{
			{"ALTER TABLE d.t ADD COLUMN e ENUM('x', 'y')", "1235 ENUM"},
			{"ALTER TABLE d.t ADD COLUMN z INT DEFAULT 'abc'", "1366 default"},
			{"ALTER TABLE d.t ADD COLUMN a INT", "1060 a"},
			{"ALTER TABLE d.t DROP COLUMN nope", "1091 Can't DROP 'nope'"},
			{"ALTER TABLE d.t RENAME COLUMN nope TO other", "1054 Unknown column 'nope' in 't'"},
			{"ALTER TABLE d.t CHANGE nope other INT", "1054 Unknown column 'nope' in 't'"},
			{"ALTER TABLE d.t MODIFY label VARCHAR(2)", "1265 column 'label'"},
			{"ALTER TABLE d.t MODIFY label VARCHAR(20) NOT NULL", "1138 label"},
			{"ALTER TABLE d.t MODIFY a TINYINT", "1846 a"},
			{"ALTER TABLE d.one DROP COLUMN x", "1090 DROP TABLE"},
			{"CREATE TABLE d.u (a INT DEFAULT 'x')", "1366 default"},
			{"CREATE TABLE d.t (a INT)", "1050 t"},
			{"CREATE TABLE d.u (a INT) PARTITION BY HASH(a) PARTITIONS 2", "1235 PARTITIONED BY"},
		},
		faulted: []string{
			"ALTER TABLE d.t ADD COLUMN b INT DEFAULT 7",
			"ALTER TABLE d.t RENAME COLUMN label TO name",
			"ALTER TABLE d.t MODIFY a INT NULL",
			"CREATE TABLE d.u (a INT DEFAULT 5, b INT)",
		},
	},
	{
		name:  "DML: constraints and types",
		setup: []string{"CREATE DATABASE d", "CREATE TABLE d.t (a INT NOT NULL, b TINYINT)", "INSERT INTO d.t VALUES (1, 1), (2, 2)"},
		bad: []badStmt{
			{"INSERT INTO d.t VALUES (3, 3), (NULL, 4)", "1048 a"},
			{"INSERT INTO d.t VALUES (3, 300)", "1264 300"},
			{"UPDATE d.t SET a = NULL WHERE a = 2", "1048 a"},
			{"INSERT INTO d.nope VALUES (1)", "1146 nope"},
		},
		faulted: []string{
			"INSERT INTO d.t VALUES (3, 3)",
			"UPDATE d.t SET b = b + 1",
			"DELETE FROM d.t WHERE a = 1",
			"TRUNCATE d.t",
		},
	},
	{
		name:  "CTAS",
		setup: []string{"CREATE DATABASE d", "CREATE TABLE d.t (a INT)", "INSERT INTO d.t VALUES (1), (2)"},
		bad: []badStmt{
			{"CREATE TABLE d.c AS SELECT a, JSON_EXTRACT('{bad', '$') AS j FROM d.t", "3141 JSON"},
			{"CREATE TABLE d.c AS SELECT a, CAST(a AS BINARY(1)) AS e FROM d.t, d.nope", "1146 nope"},
		},
		faulted: []string{"CREATE TABLE d.c AS SELECT a, a * 2 AS b FROM d.t"},
	},
	{
		name: "materialized views",
		setup: []string{"CREATE DATABASE d", "CREATE TABLE d.src (k INT, v INT)", "INSERT INTO d.src VALUES (1, 10)",
			"CREATE MATERIALIZED VIEW d.mv AS SELECT k, v FROM d.src"},
		bad: []badStmt{
			{"INSERT INTO d.mv VALUES (2, 20)", "1288 d.mv"},
			{"TRUNCATE d.mv", "1288 d.mv"},
			{"DELETE FROM d.mv WHERE k = 999", "1288 d.mv"},
			{"UPDATE d.mv SET v = 0 WHERE 1 = 0", "1288 d.mv"},
			{"INSERT INTO d.mv SELECT k, v FROM d.src WHERE k < 0", "1288 d.mv"},
			{"ALTER TABLE d.mv ADD COLUMN z INT", "1288 d.mv"},
			{"ALTER TABLE d.src DROP COLUMN v", "1846 d.mv"},
			{"CREATE MATERIALIZED VIEW d.mv2 AS SELECT k FROM d.mv", "1235 stack"},
			{"CREATE MATERIALIZED VIEW d.mv3 AS SELECT k FROM d.nope", "1146 nope"},
			{"DROP TABLE d.src", "1235 d.mv"},
		},
		faulted: []string{
			"CREATE MATERIALIZED VIEW d.mv4 AS SELECT k, SUM(v) AS s FROM d.src GROUP BY k",
			"REFRESH MATERIALIZED VIEW d.mv",
		},
	},
	{
		name:  "procedures",
		setup: []string{"CREATE DATABASE d", "CREATE TABLE d.t (a INT)", "INSERT INTO d.t VALUES (1)", "INSERT INTO d.t VALUES (2)"},
		bad: []badStmt{
			{"CALL rollback_to_snapshot('d.t', 99)", "1032 99"},
			{"CALL expire_snapshots('d.t', 'soon')", "1231 soon"},
			{"CALL add_files('d.t', 'no/such.parquet')", "1231 no/such.parquet"},
			{"CALL compact('d.nope')", "1146 nope"},
		},
		faulted: []string{
			"CALL rollback_to_snapshot('d.t', 1)",
			"OPTIMIZE TABLE d.t",
			"CALL expire_snapshots('d.t', '0s')",
		},
	},
	{
		name:  "workspaces and grants",
		setup: []string{"CREATE WORKSPACE w2", "USE WORKSPACE w2", "CREATE DATABASE c", "CREATE TABLE c.t (a INT)", "USE WORKSPACE main", "ALTER WORKSPACE w2 SET deletion_protection TO OFF"},
		bad: []badStmt{
			{"DROP WORKSPACE w2", "1010 CASCADE"},
			{"CREATE WORKSPACE w2", "1007 w2"},
			{"ALTER WORKSPACE nope SET egress_protection TO OFF", "1049 nope"},
			{"GRANT SELECT ON c.* TO nobody", "1105 create a user"},
			{"DROP DATABASE nope", "1049 nope"},
		},
		faulted: []string{"CREATE WORKSPACE w3", "ALTER WORKSPACE w2 SET egress_protection TO OFF", "CREATE DATABASE e"},
	},
}

// faultMeta fails the k-th metastore write (Set, Merge, Delete, or a
// transaction's commit) after arm(k); 0 disarms.
type faultMeta struct {
	meta.Store
	at, seen atomic.Int64
	// race, when set, runs instead of failing at the k-th write, which
	// then proceeds: another writer commits just before it (race.go).
	race func()
}

var errInjected = errors.New("injected fault")

func (m *faultMeta) arm(k int64) { m.seen.Store(0); m.at.Store(k) }

func (m *faultMeta) fire() error {
	if at := m.at.Load(); at > 0 && m.seen.Add(1) == at {
		if m.race != nil {
			m.race()
			return nil
		}
		return fmt.Errorf("faultmeta: write %d: %w", at, errInjected)
	}
	return nil
}

func (m *faultMeta) Set(ctx context.Context, p string, d map[string]any) error {
	if err := m.fire(); err != nil {
		return err
	}
	return m.Store.Set(ctx, p, d)
}

func (m *faultMeta) Merge(ctx context.Context, p string, d map[string]any) error {
	if err := m.fire(); err != nil {
		return err
	}
	return m.Store.Merge(ctx, p, d)
}

func (m *faultMeta) Delete(ctx context.Context, p string) error {
	if err := m.fire(); err != nil {
		return err
	}
	return m.Store.Delete(ctx, p)
}

// RunTx fails the transaction as its commit would: fn has run (its
// staged writes are dropped), nothing is written.
func (m *faultMeta) RunTx(ctx context.Context, fn func(context.Context, meta.Tx) error) error {
	if err := m.fire(); err != nil {
		return err
	}
	return m.Store.RunTx(ctx, fn)
}

// faultBlob fails the k-th object-store write or delete after arm(k).
type faultBlob struct{ at, seen atomic.Int64 }

func (f *faultBlob) arm(k int64) { f.seen.Store(0); f.at.Store(k) }

func (f *faultBlob) MaybeError(op faultblob.Op) error {
	if op.Phase != faultblob.Before || (op.Kind != faultblob.OpPut && op.Kind != faultblob.OpDelete) {
		return nil
	}
	if at := f.at.Load(); at > 0 && f.seen.Add(1) == at {
		return errInjected
	}
	return nil
}

// atomicEnv is one engine over fault-injecting stores.
type atomicEnv struct {
	cfg  engine.Config // without the fault wrappers: a second writer's
	e    *engine.Engine
	run  runner
	meta *faultMeta
	blob *faultBlob
	bs   blob.Store
}

func openAtomicEnv(t *testing.T, backend string) *atomicEnv {
	t.Helper()
	env := &atomicEnv{blob: &faultBlob{}}
	env.cfg = engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true}
	if backend == "firestore" {
		env.cfg.Metastore = fmt.Sprintf("firestore://atomic-%d", time.Now().UnixNano())
	}
	cfg := env.cfg
	cfg.WrapStores = func(m meta.Store, b blob.Store) (meta.Store, blob.Store) {
		env.meta = &faultMeta{Store: m}
		env.bs = b
		return env.meta, faultblob.Wrap(b, env.blob)
	}
	e, err := engine.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	env.e = e
	env.e.UseInlineJobs()
	env.run = embedded(t, e)
	return env
}

// visible is what a reader can see: every metastore document and every
// live data file (with whether the store has it).
func (env *atomicEnv) visible(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	var lines []string
	var walk func(docPath string) error
	walk = func(docPath string) error {
		colls, err := env.meta.Store.Collections(ctx, docPath)
		if err != nil {
			return err
		}
		for _, c := range colls {
			coll := c
			if docPath != "" {
				coll = docPath + "/" + c
			}
			docs, err := env.meta.Store.List(ctx, coll)
			if err != nil {
				return err
			}
			for _, d := range docs {
				if strings.Contains(d.Path, "/refreshes/") || strings.HasPrefix(d.Path, "jobs/") {
					continue // a failed refresh is recorded by design (a status, never silence)
				}
				data := map[string]any{}
				for k, v := range d.Data {
					if !strings.HasPrefix(k, "last-refresh-") {
						data[k] = v
					}
				}
				lines = append(lines, fmt.Sprintf("doc %s %v", d.Path, data))
				if err := walk(d.Path); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(""); err != nil {
		t.Fatalf("list the metastore: %v", err)
	}
	cat := env.e.Catalog()
	wss, err := cat.ListWorkspaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wss {
		colls, err := cat.ListCollections(ctx, w.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range colls {
			dss, err := cat.ListDatasets(ctx, w.Name, c.Name)
			if err != nil {
				t.Fatal(err)
			}
			for i := range dss {
				ds := &dss[i]
				if ds.CurrentSnapshotID == 0 {
					continue
				}
				files, _, err := cat.Files(ctx, ds, ds.CurrentSnapshotID)
				if err != nil {
					t.Fatalf("live files of %s: %v", ds.Ident(), err)
				}
				for _, f := range files {
					_, serr := env.bs.Stat(ctx, f.Path)
					lines = append(lines, fmt.Sprintf("file %s %s rows=%d present=%v", ds.Ident(), f.Path, f.RecordCount, serr == nil))
				}
			}
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestAtomic_FailedStatementsChangeNothing is the harness.
func TestAtomic_FailedStatementsChangeNothing(t *testing.T) {
	backends := []string{"sqlite"}
	if os.Getenv("FIRESTORE_EMULATOR_HOST") != "" {
		backends = append(backends, "firestore")
	} else if os.Getenv("CI") == "true" {
		t.Fatal("FIRESTORE_EMULATOR_HOST is not set; CI runs the harness on the Firestore emulator too")
	}
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			for _, c := range atomicCases {
				t.Run(c.name, func(t *testing.T) {
					env := openAtomicEnv(t, backend)
					for _, q := range c.setup {
						if _, err := env.run(q); err != nil {
							t.Fatalf("setup %q: %v", q, err)
						}
					}
					for _, b := range c.bad {
						before := env.visible(t)
						_, err := env.run(b.query)
						checkErr(t, b.query, err, b.wantErr)
						if after := env.visible(t); after != before {
							t.Errorf("%q failed but changed what readers see:\n%s", b.query, diffLines(before, after))
						}
					}
					for _, q := range c.faulted {
						runFaulted(t, backend, c.setup, q)
					}
				})
			}
		})
	}
}

// maxSteps bounds the fault positions tried per statement and store.
const maxSteps = 40

// runFaulted runs q, on a fresh engine set up by setup, with a fault at
// each metastore write and then (on another fresh engine) at each
// object-store write, in turn, until the fault lies beyond the statement's
// last step and it succeeds; every failing run must change nothing.
func runFaulted(t *testing.T, backend string, setup []string, q string) {
	t.Helper()
	for _, store := range []string{"metastore", "object store"} {
		env := openAtomicEnv(t, backend)
		for _, s := range setup {
			if _, err := env.run(s); err != nil {
				t.Fatalf("setup %q: %v", s, err)
			}
		}
		arm := env.meta.arm
		if store == "object store" {
			arm = env.blob.arm
		}
		for k := int64(1); ; k++ {
			if k > maxSteps {
				t.Fatalf("%q: still failing with a %s fault at step %d", q, store, k)
			}
			before := env.visible(t)
			arm(k)
			_, err := env.run(q)
			arm(0)
			if err == nil {
				t.Logf("%q: %s faults at steps 1..%d each refused it, changing nothing", q, store, k-1)
				break
			}
			if after := env.visible(t); after != before {
				t.Errorf("%q with a %s fault at step %d failed (%v) but changed what readers see:\n%s", q, store, k, err, diffLines(before, after))
				break
			}
			if !strings.Contains(err.Error(), errInjected.Error()) {
				t.Errorf("%q with a %s fault at step %d failed for another reason: %v", q, store, k, err)
				break
			}
		}
	}
}

func checkErr(t *testing.T, q string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("%q succeeded, want error %s", q, want)
		return
	}
	code, msg := errCode(err)
	wantCode, frag, _ := strings.Cut(want, " ")
	if fmt.Sprint(code) != wantCode || !strings.Contains(strings.ToLower(msg), strings.ToLower(frag)) {
		t.Errorf("%q error = %d %q, want %s", q, code, msg, want)
	}
}

// diffLines lists the lines only in a or only in b.
func diffLines(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	var out []string
	for l := range ma {
		if !mb[l] {
			out = append(out, "- "+l)
		}
	}
	for l := range mb {
		if !ma[l] {
			out = append(out, "+ "+l)
		}
	}
	sort.Strings(out)
	if len(out) > 12 {
		out = append(out[:12], fmt.Sprintf("… %d more", len(out)-12))
	}
	return strings.Join(out, "\n")
}
