package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestPartitionedInsert: one INSERT spanning 3 months × 2 teams writes 6
// files in ONE snapshot, each with its spec id and partition values, and
// queries prune by partition values without changing results.
func TestPartitionedInsert(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	cat := e.Catalog()
	if _, err := cat.CreateCollection(ctx, "main", "d", "root", catalogstore.CreateCollectionOptions{}); err != nil {
		t.Fatal(err)
	}
	s := schema.Schema{Columns: []schema.Column{
		{Name: "team", Type: schema.Type{Kind: schema.Int64}},
		{Name: "ts", Type: schema.Type{Kind: schema.Timestamp}, Nullable: true},
		{Name: "v", Type: schema.Type{Kind: schema.String}, Nullable: true},
	}}
	spec := partition.Spec{ID: 0, Fields: []partition.Field{
		{SourceID: 1, FieldID: 1000, Name: "team", Transform: partition.Identity},
		{SourceID: 2, FieldID: 1001, Name: "ts_month", Transform: partition.Month},
	}}
	id := catalogstore.Ident{Workspace: "main", Collection: "d", Name: "events"}
	if _, err := cat.CreateDataset(ctx, id, s, "root", catalogstore.CreateDatasetOptions{Spec: &spec}); err != nil {
		t.Fatal(err)
	}
	conn := e.Connect("root")
	err := conn.Exec(ctx, `INSERT INTO d.events VALUES
		(101, '2026-01-05 10:00:00', 'a'), (101, '2026-02-05 10:00:00', 'b'), (101, '2026-03-05 10:00:00', 'c'),
		(102, '2026-01-06 10:00:00', 'd'), (102, '2026-02-06 10:00:00', 'e'), (102, '2026-03-06 10:00:00', 'f'),
		(101, '2026-01-25 10:00:00', 'g')`)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := cat.Dataset(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	files, snap, err := cat.Files(ctx, ds, ds.CurrentSnapshotID)
	if err != nil {
		t.Fatal(err)
	}
	if ds.CurrentSnapshotID != 1 || len(files) != 6 || snap.Summary.TotalRecords != 7 {
		t.Fatalf("snapshot %d, %d files, %d records; want 1 snapshot of 6 files, 7 records", ds.CurrentSnapshotID, len(files), snap.Summary.TotalRecords)
	}
	seen := map[string]int64{}
	for _, f := range files {
		if len(f.PartitionValues) != 2 || f.PartitionValues[0] == nil || f.PartitionValues[1] == nil {
			t.Fatalf("file without partition values: %+v", f.PartitionValues)
		}
		seen[*f.PartitionValues[0]+"/"+*f.PartitionValues[1]] = f.RecordCount
	}
	// month 2026-01 is (2026-1970)*12 = 672.
	if seen["101/672"] != 2 || seen["102/674"] != 1 || len(seen) != 6 {
		t.Fatalf("partitions %v", seen)
	}
	rs, err := conn.QueryOne(ctx, "SELECT v FROM d.events WHERE team = 101 AND ts >= '2026-02-01 00:00:00' ORDER BY v")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Rows) != 2 || rs.Rows[0][0] != "b" || rs.Rows[1][0] != "c" {
		t.Fatalf("rows %v", rs.Rows)
	}
	// A NULL timestamp forms its own partition.
	if err := conn.Exec(ctx, "INSERT INTO d.events VALUES (101, NULL, 'n')"); err != nil {
		t.Fatal(err)
	}
	rs, err = conn.QueryOne(ctx, "SELECT v FROM d.events WHERE ts IS NULL")
	if err != nil || len(rs.Rows) != 1 || rs.Rows[0][0] != "n" {
		t.Fatalf("null partition: %v %v", rs.Rows, err)
	}
}

// TestPartitionedInsert_SpecChangedBeforeCommit: a transaction splits its
// rows under the spec current at its read snapshot; when another session
// changes the spec before the COMMIT lands, the commit is refused (a
// re-prepare conflict) and nothing of the transaction is committed.
func TestPartitionedInsert_SpecChangedBeforeCommit(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	a, b := e.Connect("root"), e.Connect("root")
	if err := a.Exec(ctx, "CREATE DATABASE d; CREATE TABLE d.t (k BIGINT, v VARCHAR(10)) PARTITIONED BY (k)"); err != nil {
		t.Fatal(err)
	}
	if err := a.Exec(ctx, "INSERT INTO d.t VALUES (1, 'kept')"); err != nil {
		t.Fatal(err)
	}
	if err := a.Exec(ctx, "START TRANSACTION; INSERT INTO d.t VALUES (2, 'x'), (3, 'y')"); err != nil {
		t.Fatal(err)
	}
	if err := b.Exec(ctx, "ALTER TABLE d.t SET PARTITIONED BY (bucket(4, k))"); err != nil {
		t.Fatal(err)
	}
	err := a.Exec(ctx, "COMMIT")
	if code, msg := errCode(err); code != 1213 || !strings.Contains(msg, "partition spec changed") {
		t.Fatalf("commit after a spec change: %v, want a 1213 commit conflict saying the spec changed", err)
	}
	_ = a.Exec(ctx, "ROLLBACK")
	r, err := b.QueryOne(ctx, "SELECT k, v FROM d.t ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 1 || r.Rows[0][1] != "kept" {
		t.Fatalf("rows after the refused commit: %v", r.Rows)
	}
	// Re-prepared under the new spec, the same insert lands.
	if err := a.Exec(ctx, "INSERT INTO d.t VALUES (2, 'x'), (3, 'y')"); err != nil {
		t.Fatal(err)
	}
	r, err = b.QueryOne(ctx, "SELECT COUNT(*) FROM d.t")
	if err != nil || r.Rows[0][0] != int64(3) {
		t.Fatalf("count after re-prepare: %v %v", r.Rows, err)
	}
}
