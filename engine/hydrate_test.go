package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestAddFilesDeferred_HydratedInBackground: CALL add_files with deferred
// registers a file as pending; the rows read right away (pending files are
// never pruned), and the background hydrator turns its stats to provided.
func TestAddFilesDeferred_HydratedInBackground(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	if err := conn.Exec(ctx, "CREATE DATABASE d; CREATE TABLE d.t (id BIGINT, name VARCHAR(10))"); err != nil {
		t.Fatal(err)
	}
	id := catalogstore.Ident{Workspace: "main", Collection: "d", Name: "t"}
	ds, err := e.Catalog().Dataset(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(&ds.Schema))
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{7, 8, 9}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"a", "b", "c"}, nil)
	rec := b.NewRecord()
	b.Release()
	defer rec.Release()
	if _, err := datafile.Write(ctx, e.Catalog().Blob(), "incoming/x.parquet", &ds.Schema, []arrow.Record{rec}, datafile.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := conn.QueryOne(ctx, "CALL add_files('d.t', 'incoming/x.parquet', true)")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Text(0, 3); got != "pending" || r.Rows[0][2] != int64(3) {
		t.Fatalf("add_files answered %v", r.Rows)
	}
	r, err = conn.QueryOne(ctx, "SELECT name FROM d.t WHERE id = 8")
	if err != nil || len(r.Rows) != 1 || r.Rows[0][0] != "b" {
		t.Fatalf("pending file not read: %v %v", r.Rows, err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		cur, _ := e.Catalog().Dataset(ctx, id)
		files, _, err := e.Catalog().Files(ctx, cur, cur.CurrentSnapshotID)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 1 && files[0].StatsState == manifest.StatsProvided {
			if len(files[0].LowerBounds) == 0 || files[0].LowerBounds[0] == nil {
				t.Fatalf("hydrated without bounds: %+v", files[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background hydrator did not fill the stats: %+v", files)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A second call finds nothing pending.
	r, err = conn.QueryOne(ctx, "CALL hydrate_statistics('d.t')")
	if err != nil || r.Rows[0][0] != int64(0) {
		t.Fatalf("hydrate_statistics: %v %v", r.Rows, err)
	}
	if err := conn.Exec(ctx, "CALL add_files('d.t', '')"); err == nil {
		t.Fatal("add_files without keys accepted")
	}
}

// TestInsertDeferredStats: with SET lakesql_deferred_stats = ON an INSERT
// registers its file pending (the append snapshot's manifest has no
// bounds), filtered reads return the rows at once (pending files are never
// pruned), and the hydrator's statistics-refresh commit fills the stats.
func TestInsertDeferredStats(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	if err := conn.Exec(ctx, "CREATE DATABASE d; CREATE TABLE d.t (id BIGINT, name VARCHAR(10))"); err != nil {
		t.Fatal(err)
	}
	if err := conn.Exec(ctx, "SET lakesql_deferred_stats = ON; INSERT INTO d.t VALUES (1, 'a'), (2, 'b'), (3, 'c')"); err != nil {
		t.Fatal(err)
	}
	r, err := conn.QueryOne(ctx, "SELECT name FROM d.t WHERE id = 2")
	if err != nil || len(r.Rows) != 1 || r.Rows[0][0] != "b" {
		t.Fatalf("pending file not read: %v %v", r.Rows, err)
	}
	id := catalogstore.Ident{Workspace: "main", Collection: "d", Name: "t"}
	ds, err := e.Catalog().Dataset(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	appended, _, err := e.Catalog().Files(ctx, ds, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(appended) != 1 || appended[0].StatsState != manifest.StatsPending || len(appended[0].LowerBounds) != 0 {
		t.Fatalf("append with deferred stats registered %+v, want one pending file", appended)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		cur, _ := e.Catalog().Dataset(ctx, id)
		files, snap, err := e.Catalog().Files(ctx, cur, cur.CurrentSnapshotID)
		if err != nil {
			t.Fatal(err)
		}
		if files[0].StatsState == manifest.StatsProvided {
			if snap.Operation != catalogstore.OpStatisticsRefresh || snap.UserCreated {
				t.Fatalf("hydrated by %s (user-created %v), want a housekeeping statistics-refresh", snap.Operation, snap.UserCreated)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("stats still %s", files[0].StatsState)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Back OFF, the next append carries its stats at once.
	if err := conn.Exec(ctx, "SET lakesql_deferred_stats = OFF; INSERT INTO d.t VALUES (4, 'd')"); err != nil {
		t.Fatal(err)
	}
	cur, _ := e.Catalog().Dataset(ctx, id)
	files, _, err := e.Catalog().Files(ctx, cur, cur.CurrentSnapshotID)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.StatsState != manifest.StatsProvided {
			t.Fatalf("file %s is %s after SET lakesql_deferred_stats = OFF", f.Path, f.StatsState)
		}
	}
}
