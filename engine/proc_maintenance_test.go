package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// maintenanceScripts are the deterministic parts of the maintenance
// procedures, run embedded and over the wire.
var maintenanceScripts = []scriptTest{
	{
		name: "maintenance procedures refuse bad input",
		setup: []string{
			"CREATE DATABASE d",
			"CREATE TABLE d.t (a INT)",
			"INSERT INTO d.t VALUES (1)",
			"CREATE VIEW d.v AS SELECT a FROM d.t",
		},
		checks: []check{
			{query: "CALL compact('d.t', 'fancy')", wantErr: "1231 unknown compaction rule"},
			{query: "CALL compact('d.t', 'sort_aware')", wantErr: "1231 needs a sort order"},
			{query: "CALL compact('d.v')", wantErr: "1235 is a view"},
			{query: "CALL compact('d.t', 'delete_debt')", wantErr: "1235 copy-on-write"},
			{query: "CALL compact('d.t', 'delete_debt', true)", wantErr: "1235 no delete files"},
			{query: "CALL compact('d.nope')", wantErr: "1146 nope"},
			{query: "CALL expire_snapshots('d.t', '-7d')", wantErr: "1231 negative"},
			{query: "CALL expire_snapshots('d.t', 'seven days')", wantErr: "1231 not an age"},
			{query: "CALL expire_snapshots('d.t', '7d', -1)", wantErr: "1231 retain_last"},
			{query: "CALL remove_orphan_files('d.t', '30m')", wantErr: "1231 below the minimum"},
			{query: "CALL remove_orphan_files('d.t', '7')", wantErr: "1231 not an age"},
			{query: "SELECT * FROM d.t", want: []string{"1"}},
		},
	},
	{
		name: "verify, refresh_statistics and expire_snapshots report rows",
		setup: []string{
			"CREATE DATABASE d",
			"CREATE TABLE d.t (a INT, b VARCHAR(10))",
			"INSERT INTO d.t VALUES (1, 'x')",
			"INSERT INTO d.t VALUES (2, 'y')",
			"INSERT INTO d.t VALUES (3, 'z')",
			"INSERT INTO d.t VALUES (4, 'w')",
			"CALL create_tag('d.t', 'v1', 1)",
			"CALL commit_offset('billing', 'd.t', 3)",
		},
		checks: []check{
			{query: "CALL verify('d.t')", want: []string{"ok|info|NULL|NULL|4 snapshots, 4 manifests and 4 data files verified"}},
			{query: "CALL refresh_statistics('d.t')", want: []string{"NULL|4|0"}},
			{query: "SELECT COUNT(*) FROM `d`.`t$snapshots`", want: []string{"4"}}, // the no-op committed nothing
			{query: "CALL expire_snapshots('d.t', '0s')", want: []string{
				"1|kept|tagged|NULL",
				"2|expired|older than 0s|NULL",
				"3|kept|consumer-floor|held back by the consumer floor (snapshot 3)",
				"4|kept|head|NULL",
			}},
			{query: "SELECT * FROM d.t AS OF 2", wantErr: "1032 expired"},
			{query: "SELECT a FROM d.t AS OF 'v1'", want: []string{"1"}},
			{query: "SELECT a FROM d.t", want: []string{"1", "2", "3", "4"}},
			{query: "CALL remove_orphan_files('d.t', '7d', true)", want: []string{"1|0|0|0|0|0|8|8"}},
		},
	},
	{
		name: "expire_snapshots by the dataset's retention properties",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE d.t (a INT)",
			"INSERT INTO d.t VALUES (1)",
			"INSERT INTO d.t VALUES (2)",
			"INSERT INTO d.t VALUES (3)",
			"INSERT INTO d.t VALUES (4)",
		},
		checks: []check{
			{query: "CALL expire_snapshots('d.t')", wantErr: "1231 no snapshot_retention property"},
			{query: "CALL set_table_property('d.t', 'snapshot_retention', '-1d')", wantErr: "1231 negative"},
			{query: "CALL set_table_property('d.t', 'snapshot_retention', 'soon')", wantErr: "1231 not an age"},
			{query: "CALL set_table_property('d.t', 'snapshot_retain_last', 'x')", wantErr: "1231 snapshot_retain_last"},
			{query: "CALL set_table_property('d.t', 'colour', 'red')", wantErr: "1231 not a snapshot retention property"},
			{query: "CALL set_table_property('d.v', 'snapshot_retention', '1d')", wantErr: "1146"},
			{query: "SELECT COUNT(*) FROM `t$properties` WHERE `key` LIKE 'snapshot%'", want: []string{"0"}},
			{query: "CALL expire_snapshots('d.t')", wantErr: "1231 no snapshot_retention property"},
			{query: "SELECT COUNT(*) FROM d.t AS OF 1", want: []string{"1"}},
			{query: "CALL set_table_property('d.t', 'snapshot_retention', '0s')", want: []string{"snapshot_retention|0s"}},
			{query: "CALL set_table_property('d.t', 'snapshot_retain_last', '2')", want: []string{"snapshot_retain_last|2"}},
			{query: "SELECT `key`, value FROM `t$properties` WHERE `key` LIKE 'snapshot%'", want: []string{"snapshot_retain_last|2", "snapshot_retention|0s"}},
			{query: "CALL expire_snapshots('d.t')", want: []string{
				"1|expired|older than 0s (snapshot_retention)|NULL",
				"2|expired|older than 0s (snapshot_retention)|NULL",
				"3|kept|retain-last|NULL",
				"4|kept|head|NULL",
			}},
			{query: "CALL unset_table_property('d.t', 'snapshot_retain_last')", want: []string{"snapshot_retain_last|NULL"}},
			{query: "CALL expire_snapshots('d.t')", want: []string{
				"1|kept|tombstoned|expired; its document is purged after the grace period",
				"2|kept|tombstoned|expired; its document is purged after the grace period",
				"3|expired|older than 0s (snapshot_retention)|NULL",
				"4|kept|head|NULL",
			}},
			{query: "SELECT a FROM d.t", want: []string{"1", "2", "3", "4"}},
		},
	},
}

func TestMaintenanceScripts(t *testing.T) {
	for _, st := range maintenanceScripts {
		t.Run(st.name, func(t *testing.T) {
			t.Run("embedded", func(t *testing.T) {
				runScript(t, st.name, embedded(t, enginetest.Open(t)), st)
			})
			t.Run("wire", func(t *testing.T) {
				h, _ := serve(t, enginetest.Open(t), "")
				runScript(t, st.name, wire(t, h), st)
			})
		})
	}
}

// TestProcCompact_FiresNoTrigger: compaction commits a housekeeping
// snapshot, so the view over the compacted source is not refreshed; the
// next INSERT still is. Jobs run inline, so a fired refresh has run when
// its statement returns.
func TestProcCompact_FiresNoTrigger(t *testing.T) {
	st := scriptTest{
		name: "compaction fires no trigger",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE src (k INT)",
			"INSERT INTO src VALUES (1)",
			"INSERT INTO src VALUES (2)",
			"INSERT INTO src VALUES (3)",
			"CREATE MATERIALIZED VIEW mv AS SELECT k FROM src",
			"CALL compact('d.src')",
		},
		checks: []check{
			{query: "SELECT operation, user_created FROM `src$snapshots` ORDER BY snapshot_id", ordered: true,
				want: []string{"append|1", "append|1", "append|1", "compact|0"}},
			{query: "SELECT COUNT(*) FROM `src$files`", want: []string{"1"}},
			{query: "SELECT `trigger` FROM `mv$refreshes`", want: []string{"create"}},
			{query: "SELECT COUNT(*) FROM `mv$snapshots`", want: []string{"1"}},
			{query: "SELECT k FROM mv", want: []string{"1", "2", "3"}},
			{query: "INSERT INTO src VALUES (4)"},
			{query: "SELECT `trigger` FROM `mv$refreshes`", want: []string{"create", "refresh__d__mv"}},
			{query: "SELECT k FROM mv", want: []string{"1", "2", "3", "4"}},
			{query: "CALL verify('d.mv')", want: []string{"ok|info|NULL|NULL|2 snapshots, 2 manifests and 2 data files verified"}},
		},
	}
	e := enginetest.Open(t)
	e.UseInlineJobs()
	runScript(t, st.name, embedded(t, e), st)
}

// openWarehouse opens an engine on a warehouse folder the test knows.
func openWarehouse(t *testing.T) (*engine.Engine, string) {
	t.Helper()
	dir := t.TempDir()
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: dir, CreateDefaultWorkspace: true, NoAudit: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, dir
}

func dataset(t *testing.T, e *engine.Engine, name string) *catalogstore.Dataset {
	t.Helper()
	id, err := catalogstore.ParseIdent(e.Workspace(), name)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := e.Catalog().Dataset(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestProcCompact: many small INSERTs, then CALL compact: fewer files, the
// same rows, history intact, a housekeeping snapshot.
func TestProcCompact(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	defer conn.Close()
	setup := "CREATE DATABASE d; CREATE TABLE d.t (a INT, b VARCHAR(10))"
	for i := 0; i < 6; i++ {
		setup += "; INSERT INTO d.t VALUES (" + strconv.Itoa(i) + ", 'v" + strconv.Itoa(i) + "'), (" + strconv.Itoa(i+100) + ", NULL)"
	}
	if err := conn.Exec(ctx, setup); err != nil {
		t.Fatal(err)
	}
	query := func(q string) []string {
		t.Helper()
		rs, err := conn.QueryOne(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var out []string
		for i := range rs.Rows {
			var cells []string
			for j := range rs.Rows[i] {
				txt, ok := rs.Text(i, j)
				if !ok {
					txt = "NULL"
				}
				cells = append(cells, txt)
			}
			out = append(out, strings.Join(cells, "|"))
		}
		return out
	}
	before := query("SELECT a, b FROM d.t ORDER BY a")

	rs, err := conn.QueryOne(ctx, "CALL compact('d.t', 'brute', true)")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rs.Columns, ","); got != "type,mode,dry_run,input_files,input_rows,input_bytes,expected_outputs,output_files,sort_column,reason,snapshot_id,files" {
		t.Fatalf("columns %s", got)
	}
	row := rs.Rows[0]
	if len(rs.Rows) != 1 || row[0] != "brute" || row[1] != "explicit" || row[3] != int64(6) || row[4] != int64(12) || row[6] != int64(1) || row[7] != nil || row[10] != nil {
		t.Fatalf("dry run row %v", row)
	}
	if dry, ok := rs.Text(0, 2); !ok || dry != "1" {
		t.Fatalf("dry_run %q", dry)
	}
	if ds := dataset(t, e, "d.t"); ds.CurrentSnapshotID != 6 || ds.CurrentFiles != 6 {
		t.Fatalf("a dry run changed the table: snapshot %d, %d files", ds.CurrentSnapshotID, ds.CurrentFiles)
	}

	rs, err = conn.QueryOne(ctx, "CALL compact('d.t')")
	if err != nil {
		t.Fatal(err)
	}
	row = rs.Rows[0]
	if row[0] != "brute" || row[1] != "auto" || row[7] != int64(1) || row[10] != int64(7) || !strings.Contains(row[11].(string), "/data/") {
		t.Fatalf("compact row %v", row)
	}
	ds := dataset(t, e, "d.t")
	if ds.CurrentFiles != 1 || ds.CurrentRecords != 12 {
		t.Fatalf("after compaction: %d files, %d records", ds.CurrentFiles, ds.CurrentRecords)
	}
	snap, err := e.Catalog().Snapshot(ctx, ds, 7)
	if err != nil || snap.Operation != catalogstore.OpCompact || snap.UserCreated || snap.Author != "root" {
		t.Fatalf("snapshot 7: %+v, %v", snap, err)
	}
	if after := query("SELECT a, b FROM d.t ORDER BY a"); strings.Join(after, ";") != strings.Join(before, ";") {
		t.Fatalf("rows changed:\n%v\n%v", before, after)
	}
	if old := query("SELECT COUNT(*) FROM d.t AS OF 6"); old[0] != "12" {
		t.Fatalf("history: %v", old)
	}
	if n := query("SELECT COUNT(*) FROM d.t WHERE b IS NULL"); n[0] != "6" {
		t.Fatalf("nulls after compaction: %v", n)
	}
	// Nothing left to do: no row.
	if rows := query("CALL compact('d.t')"); len(rows) != 0 {
		t.Fatalf("second compact = %v, want no rows", rows)
	}
	// INSERT keeps working afterwards.
	if err := conn.Exec(ctx, "INSERT INTO d.t VALUES (999, 'late')"); err != nil {
		t.Fatal(err)
	}
	if n := query("SELECT COUNT(*) FROM d.t"); n[0] != "13" {
		t.Fatalf("count after insert %v", n)
	}
}

// TestProcRemoveOrphanFiles: an orphan is quarantined, then removed once
// it was seen a day earlier; referenced files stay.
func TestProcRemoveOrphanFiles(t *testing.T) {
	ctx := context.Background()
	e, dir := openWarehouse(t)
	conn := e.Connect("root")
	defer conn.Close()
	if err := conn.Exec(ctx, "CREATE DATABASE d; CREATE TABLE d.t (a INT); INSERT INTO d.t VALUES (1); INSERT INTO d.t VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	ds := dataset(t, e, "d.t")
	stray := ds.Location + "/data/stray.parquet"
	if err := e.Catalog().Blob().Put(ctx, stray, strings.NewReader("junk"), blob.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-72 * time.Hour)
	if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(stray)), old, old); err != nil {
		t.Fatal(err)
	}
	run := func(q string) []any {
		t.Helper()
		rs, err := conn.QueryOne(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if len(rs.Rows) != 1 {
			t.Fatalf("%s: %d rows", q, len(rs.Rows))
		}
		return rs.Rows[0]
	}
	// removed, quarantined, young, missing, still_referenced
	row := run("CALL remove_orphan_files('d.t', '1d')")
	if row[1] != int64(0) || row[2] != int64(1) || row[5] != int64(0) {
		t.Fatalf("first sighting %v", row)
	}
	// Pretend that sighting was two days ago.
	qpath := meta.Join(ds.DocRoot(), "maintenance", "orphan-quarantine")
	doc, err := e.Catalog().Meta().Get(ctx, qpath)
	if err != nil {
		t.Fatal(err)
	}
	files := doc.Data["files"].([]any)
	files[0].(map[string]any)["first-seen"] = old.UTC().Format(time.RFC3339Nano)
	if err := e.Catalog().Meta().Set(ctx, qpath, doc.Data); err != nil {
		t.Fatal(err)
	}
	row = run("CALL remove_orphan_files('d.t', '1d', true)")
	if row[0] != true || row[1] != int64(1) {
		t.Fatalf("dry run %v", row)
	}
	if _, err := e.Catalog().Blob().Stat(ctx, stray); err != nil {
		t.Fatal("a dry run deleted the orphan")
	}
	row = run("CALL remove_orphan_files('d.t', '1d')")
	if row[0] != false || row[1] != int64(1) || row[5] != int64(0) || row[6] != int64(4) {
		t.Fatalf("second sighting %v", row)
	}
	if _, err := e.Catalog().Blob().Stat(ctx, stray); err == nil {
		t.Fatal("the orphan is still there")
	}
	rs, err := conn.QueryOne(ctx, "SELECT COUNT(*) FROM d.t")
	if err != nil || rs.Rows[0][0] != int64(2) {
		t.Fatalf("table after cleanup: %v %v", rs.Rows, err)
	}
}

// TestProcVerify_Findings: a missing data file is a finding row.
func TestProcVerify_Findings(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	defer conn.Close()
	if err := conn.Exec(ctx, "CREATE DATABASE d; CREATE TABLE d.t (a INT); INSERT INTO d.t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	ds := dataset(t, e, "d.t")
	files, _, err := e.Catalog().Files(ctx, ds, ds.CurrentSnapshotID)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Catalog().Blob().Delete(ctx, files[0].Path); err != nil {
		t.Fatal(err)
	}
	rs, err := conn.QueryOne(ctx, "CALL verify('d.t')")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Rows) != 1 || rs.Rows[0][0] != "file-exists" || rs.Rows[0][1] != "critical" || rs.Rows[0][2] != int64(1) || rs.Rows[0][3] != files[0].Path {
		t.Fatalf("verify rows %v", rs.Rows)
	}
}
