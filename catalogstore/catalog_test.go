package catalogstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/catalogstore/meta/firestore"
	"github.com/lakesql/lakesql/catalogstore/meta/metatest"
	"github.com/lakesql/lakesql/catalogstore/meta/sqlite"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// backends are the metastores the catalog tests run on: SQLite always,
// Firestore when its emulator is configured.
func backends(t *testing.T) map[string]func(t *testing.T) meta.Store {
	out := map[string]func(t *testing.T) meta.Store{
		"sqlite": func(t *testing.T) meta.Store {
			s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "meta.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
	if os.Getenv("FIRESTORE_EMULATOR_HOST") != "" {
		out["firestore"] = func(t *testing.T) meta.Store {
			s, err := firestore.Open(context.Background(), "lakesql-test", "")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	} else if os.Getenv("CI") == "true" {
		t.Fatal("FIRESTORE_EMULATOR_HOST is not set; CI runs the catalog tests on the Firestore emulator too")
	}
	return out
}

// deltaEverywhere makes every commit that can write a delta manifest do
// so, even on the tiny tables of these tests (whose bases the default
// policy finds cheaper to rewrite), with chains short enough that they
// are consolidated often: the suite runs over base + delta chains.
var deltaEverywhere = catalogstore.ChainPolicy{MaxDeltas: 3, MaxPercent: 1 << 40}

type env struct {
	cat *catalogstore.Catalog
	m   meta.Store
	b   blob.Store
	ws  string
}

func newEnv(t *testing.T, newMeta func(t *testing.T) meta.Store) *env {
	t.Helper()
	m := newMeta(t)
	b, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &env{cat: catalogstore.New(m, b, catalogstore.Options{NoAudit: true, Chain: deltaEverywhere}), m: m, b: b, ws: "w" + metatest.UniqueName()}
	if _, err := e.cat.CreateWorkspace(context.Background(), e.ws, "tester"); err != nil {
		t.Fatal(err)
	}
	return e
}

// forEach runs fn as a subtest on every backend.
func forEach(t *testing.T, fn func(t *testing.T, e *env)) {
	for name, nm := range backends(t) {
		t.Run(name, func(t *testing.T) { fn(t, newEnv(t, nm)) })
	}
}

var testSchema = schema.Schema{Columns: []schema.Column{
	{Name: "id", Type: schema.Type{Kind: schema.Int64}},
	{Name: "name", Type: schema.Type{Kind: schema.String}, Nullable: true},
	{Name: "amount", Type: schema.Type{Kind: schema.Decimal, Precision: 12, Scale: 2}, Nullable: true},
}}

func (e *env) dataset(t *testing.T, coll, name string) *catalogstore.Dataset {
	t.Helper()
	ctx := context.Background()
	if _, err := e.cat.CreateCollection(ctx, e.ws, coll, "tester", catalogstore.CreateCollectionOptions{ExistsOK: true}); err != nil {
		t.Fatal(err)
	}
	ds, err := e.cat.CreateDataset(ctx, catalogstore.Ident{Workspace: e.ws, Collection: coll, Name: name}, testSchema, "tester", catalogstore.CreateDatasetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// fakeFile is a data file entry; the catalog never opens data files, so
// commit tests need no Parquet.
func fakeFile(ds *catalogstore.Dataset, n int, rows int64) manifest.DataFile {
	return manifest.DataFile{
		Path: fmt.Sprintf("%s/data/f%04d.parquet", ds.Location, n), Format: "parquet",
		RecordCount: rows, FileSize: 100 * rows, UncompressedSize: 200 * rows, StatsState: manifest.StatsProvided,
	}
}

func TestWorkspace_NeverImplicit(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		if _, err := e.cat.Workspace(ctx, "nope"+metatest.UniqueName()); !errors.Is(err, catalogstore.ErrWorkspaceNotFound) {
			t.Fatalf("Workspace(missing) = %v, want ErrWorkspaceNotFound", err)
		}
		if _, err := e.cat.CreateWorkspace(ctx, e.ws, "x"); !errors.Is(err, catalogstore.ErrWorkspaceExists) {
			t.Fatalf("second create = %v, want ErrWorkspaceExists", err)
		}
		for _, bad := range []string{"Upper", "1abc", "has.dot", "", "a b"} {
			if _, err := e.cat.CreateWorkspace(ctx, bad, "x"); !errors.Is(err, catalogstore.ErrBadIdentifier) {
				t.Errorf("CreateWorkspace(%q) = %v, want ErrBadIdentifier", bad, err)
			}
		}
		name := "auto" + metatest.UniqueName()
		if _, err := e.cat.OpenWorkspace(ctx, name, "x", false); !errors.Is(err, catalogstore.ErrWorkspaceNotFound) {
			t.Fatalf("OpenWorkspace without create = %v", err)
		}
		if w, err := e.cat.OpenWorkspace(ctx, name, "x", true); err != nil || w.Name != name {
			t.Fatalf("OpenWorkspace(create_if_missing) = %v, %v", w, err)
		}
	})
}

// TestWorkspace_GuardTriState pins the fail-closed reading of the guards:
// only a real boolean false turns one off.
func TestWorkspace_GuardTriState(t *testing.T) {
	cases := []struct {
		name  string
		value any
		set   bool
		on    bool
	}{
		{"absent", nil, false, true},
		{"null", nil, true, true},
		{"string OFF", "OFF", true, true},
		{"string false", "false", true, true},
		{"zero", int64(0), true, true},
		{"false", false, true, false},
		{"true", true, true, true},
	}
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		for _, c := range cases {
			ws := "g" + metatest.UniqueName()
			if _, err := e.cat.CreateWorkspace(ctx, ws, "x"); err != nil {
				t.Fatal(err)
			}
			if c.set {
				props := map[string]any{catalogstore.PropEgressProtection: c.value, catalogstore.PropDeletionProtection: c.value}
				if err := e.m.Merge(ctx, ws+"/$properties", map[string]any{"properties": props}); err != nil {
					t.Fatal(err)
				}
			}
			w, err := e.cat.Workspace(ctx, ws)
			if err != nil {
				t.Fatal(err)
			}
			if w.EgressRestricted() != c.on || w.DeletionProtected() != c.on {
				t.Errorf("%s: egress=%v deletion=%v, want %v", c.name, w.EgressRestricted(), w.DeletionProtected(), c.on)
			}
		}
	})
}

func TestWorkspace_SetPropertyAndDrop(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		e.dataset(t, "c", "d")
		if err := e.cat.SetWorkspaceProperty(ctx, e.ws, "egress_protection", "maybe", "x"); !errors.Is(err, catalogstore.ErrBadValue) {
			t.Fatalf("non-boolean = %v, want ErrBadValue", err)
		}
		if err := e.cat.SetWorkspaceProperty(ctx, e.ws, "colour", true, "x"); !errors.Is(err, catalogstore.ErrUnknownProperty) {
			t.Fatalf("unknown property = %v, want ErrUnknownProperty", err)
		}
		if err := e.cat.DropWorkspace(ctx, e.ws, "x", true); !errors.Is(err, catalogstore.ErrDeletionProtected) {
			t.Fatalf("drop protected = %v, want ErrDeletionProtected", err)
		}
		if _, err := e.cat.Dataset(ctx, catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: "d"}); err != nil {
			t.Fatalf("refused drop changed something: %v", err)
		}
		if err := e.cat.SetWorkspaceProperty(ctx, e.ws, "deletion_protection", false, "x"); err != nil {
			t.Fatal(err)
		}
		if err := e.cat.DropWorkspace(ctx, e.ws, "x", true); err != nil {
			t.Fatal(err)
		}
		if _, err := e.cat.Workspace(ctx, e.ws); !errors.Is(err, catalogstore.ErrWorkspaceNotFound) {
			t.Fatalf("after drop: %v", err)
		}
		if docs, _ := e.m.List(ctx, e.ws); len(docs) != 0 {
			t.Fatalf("documents left after drop: %v", docs)
		}
	})
}

func TestCollection_Lifecycle(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		if _, err := e.cat.CreateCollection(ctx, e.ws, "sales", "x", catalogstore.CreateCollectionOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.cat.CreateCollection(ctx, e.ws, "sales", "x", catalogstore.CreateCollectionOptions{}); !errors.Is(err, catalogstore.ErrCollectionExists) {
			t.Fatalf("second create = %v", err)
		}
		if _, err := e.cat.CreateCollection(ctx, e.ws, "sales", "x", catalogstore.CreateCollectionOptions{ExistsOK: true}); err != nil {
			t.Fatalf("exists-ok: %v", err)
		}
		if _, err := e.cat.CreateCollection(ctx, "missing"+metatest.UniqueName(), "sales", "x", catalogstore.CreateCollectionOptions{}); !errors.Is(err, catalogstore.ErrWorkspaceNotFound) {
			t.Fatalf("in missing workspace = %v", err)
		}
		if _, err := e.cat.CreateCollection(ctx, e.ws, "a.b", "x", catalogstore.CreateCollectionOptions{}); !errors.Is(err, catalogstore.ErrBadIdentifier) {
			t.Fatalf("dotted name = %v", err)
		}
		e.dataset(t, "sales", "orders")
		if err := e.cat.DropCollection(ctx, e.ws, "sales", "x", false); !errors.Is(err, catalogstore.ErrCollectionNotEmpty) {
			t.Fatalf("drop non-empty = %v", err)
		}
		if err := e.cat.DropCollection(ctx, e.ws, "sales", "x", true); err != nil {
			t.Fatal(err)
		}
		colls, err := e.cat.ListCollections(ctx, e.ws)
		if err != nil || len(colls) != 0 {
			t.Fatalf("collections after cascade drop: %v %v", colls, err)
		}
	})
}

func TestDataset_CreateLoadRenameDrop(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ds := e.dataset(t, "c", "orders")
		if got := []int{ds.Schema.Columns[0].ID, ds.Schema.Columns[1].ID, ds.Schema.Columns[2].ID}; fmt.Sprint(got) != "[1 2 3]" || ds.NextFieldID != 4 {
			t.Fatalf("field ids %v next %d", got, ds.NextFieldID)
		}
		id := ds.Ident()
		if _, err := e.cat.CreateDataset(ctx, id, testSchema, "x", catalogstore.CreateDatasetOptions{}); !errors.Is(err, catalogstore.ErrDatasetExists) {
			t.Fatalf("second create = %v", err)
		}
		bad := []schema.Schema{
			{Columns: []schema.Column{{Name: "x", Type: schema.Type{Kind: "interval"}}}},
			{Columns: []schema.Column{{Name: "_lake_row", Type: schema.Type{Kind: schema.Int64}}}},
			{Columns: []schema.Column{{Name: "a", Type: schema.Type{Kind: schema.Int64}}, {Name: "A", Type: schema.Type{Kind: schema.Int64}}}},
			{},
		}
		for i, s := range bad {
			_, err := e.cat.CreateDataset(ctx, catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: fmt.Sprintf("bad%d", i)}, s, "x", catalogstore.CreateDatasetOptions{})
			if err == nil {
				t.Errorf("bad schema %d accepted", i)
			}
			if _, err := e.cat.Dataset(ctx, catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: fmt.Sprintf("bad%d", i)}); !errors.Is(err, catalogstore.ErrDatasetNotFound) {
				t.Errorf("refused create %d left a dataset: %v", i, err)
			}
		}
		if _, err := e.cat.Commit(ctx, id, catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x", ExpectedUUID: ds.UUID, Added: []manifest.DataFile{fakeFile(ds, 1, 10)}}); err != nil {
			t.Fatal(err)
		}
		to := catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: "orders2"}
		if err := e.cat.RenameDataset(ctx, id, to, "x"); err != nil {
			t.Fatal(err)
		}
		moved, err := e.cat.Dataset(ctx, to)
		if err != nil {
			t.Fatal(err)
		}
		if moved.Location != ds.Location || moved.UUID != ds.UUID || moved.CurrentSnapshotID != 1 {
			t.Fatalf("rename changed location/uuid/snapshot: %+v", moved)
		}
		files, _, err := e.cat.Files(ctx, moved, moved.CurrentSnapshotID)
		if err != nil || len(files) != 1 {
			t.Fatalf("files after rename: %v %v", files, err)
		}
		if _, err := e.cat.Dataset(ctx, id); !errors.Is(err, catalogstore.ErrDatasetNotFound) {
			t.Fatalf("old name still loads: %v", err)
		}
		if err := e.cat.DropDataset(ctx, to, "x"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.cat.Dataset(ctx, to); !errors.Is(err, catalogstore.ErrDatasetNotFound) {
			t.Fatalf("after drop: %v", err)
		}
	})
}

func TestCommit_LinearHistoryAndSummary(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ds := e.dataset(t, "c", "t")
		for i := 1; i <= 3; i++ {
			snap, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "ada", Message: fmt.Sprint("batch ", i), ExpectedUUID: ds.UUID, Added: []manifest.DataFile{fakeFile(ds, i, int64(i))}})
			if err != nil {
				t.Fatal(err)
			}
			if snap.ID != int64(i) || snap.ParentID != int64(i-1) || snap.Summary.TotalFiles != int64(i) || !snap.UserCreated || snap.Author != "ada" {
				t.Fatalf("snapshot %d: %+v", i, snap)
			}
		}
		cur, _ := e.cat.Dataset(ctx, ds.Ident())
		files, snap, err := e.cat.Files(ctx, cur, cur.CurrentSnapshotID)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 3 || snap.Summary.TotalRecords != 6 || cur.CurrentRecords != 6 {
			t.Fatalf("files %d records %d doc %d", len(files), snap.Summary.TotalRecords, cur.CurrentRecords)
		}
		// Row ids are assigned in commit order.
		if files[0].RowIDStart != 0 || files[1].RowIDStart != 1 || files[2].RowIDStart != 3 {
			t.Fatalf("row ids: %d %d %d", files[0].RowIDStart, files[1].RowIDStart, files[2].RowIDStart)
		}
		// Truncate replaces everything with nothing.
		tr, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpTruncate, ReplaceAll: true, Author: "ada", ExpectedUUID: ds.UUID, BaseSnapshotID: 3})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Summary.TotalFiles != 0 || tr.Summary.DeletedRecords != 6 {
			t.Fatalf("truncate summary %+v", tr.Summary)
		}
		snaps, err := e.cat.Snapshots(ctx, cur)
		if err != nil || len(snaps) != 4 {
			t.Fatalf("snapshots %v %v", snaps, err)
		}
	})
}

func TestCommit_IncarnationGuard(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		old := e.dataset(t, "c", "t")
		if err := e.cat.DropDataset(ctx, old.Ident(), "x"); err != nil {
			t.Fatal(err)
		}
		fresh := e.dataset(t, "c", "t")
		_, err := e.cat.Commit(ctx, old.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x", ExpectedUUID: old.UUID, Added: []manifest.DataFile{fakeFile(old, 1, 5)}})
		var ce *catalogstore.CommitError
		if !errors.Is(err, catalogstore.ErrIncarnationChanged) || !errors.As(err, &ce) || ce.Retry != catalogstore.RePrepare {
			t.Fatalf("commit to recreated table = %v, want ErrIncarnationChanged (re-prepare)", err)
		}
		cur, _ := e.cat.Dataset(ctx, fresh.Ident())
		if cur.CurrentSnapshotID != 0 || cur.UUID != fresh.UUID {
			t.Fatalf("refused commit moved the new incarnation: %+v", cur)
		}
		if objs, _ := e.b.List(ctx, fresh.Location); len(objs) != 0 {
			t.Fatalf("refused commit left objects under the new location: %v", objs)
		}
	})
}

func TestCommit_ConflictIsRePrepare(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ds := e.dataset(t, "c", "t")
		if _, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x", ExpectedUUID: ds.UUID, Added: []manifest.DataFile{fakeFile(ds, 1, 1)}}); err != nil {
			t.Fatal(err)
		}
		// An overwrite prepared against the empty table lost the race.
		_, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpOverwrite, ReplaceAll: true, Author: "x", ExpectedUUID: ds.UUID, BaseSnapshotID: 0, Added: []manifest.DataFile{fakeFile(ds, 2, 1)}})
		if !errors.Is(err, catalogstore.ErrCommitConflict) || catalogstore.IsRetryable(err) {
			t.Fatalf("stale overwrite = %v, want a re-prepare conflict", err)
		}
		cur, _ := e.cat.Dataset(ctx, ds.Ident())
		files, _, _ := e.cat.Files(ctx, cur, cur.CurrentSnapshotID)
		if cur.CurrentSnapshotID != 1 || len(files) != 1 || files[0].Path != fakeFile(ds, 1, 1).Path {
			t.Fatalf("refused overwrite changed the table: snap %d files %v", cur.CurrentSnapshotID, files)
		}
	})
}

func TestCommit_UnreadableParentManifestRefuses(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ds := e.dataset(t, "c", "t")
		snap, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x", ExpectedUUID: ds.UUID, Added: []manifest.DataFile{fakeFile(ds, 1, 1)}})
		if err != nil {
			t.Fatal(err)
		}
		// Corrupt the manifest in place, behind the catalog's back, in a
		// fresh catalog (no cached copy).
		if err := e.b.Delete(ctx, snap.ManifestPath); err != nil {
			t.Fatal(err)
		}
		if err := e.b.Put(ctx, snap.ManifestPath, stringsReader("not parquet"), blob.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		cat2 := catalogstore.New(e.m, e.b, catalogstore.Options{NoAudit: true})
		_, err = cat2.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x", ExpectedUUID: ds.UUID, Added: []manifest.DataFile{fakeFile(ds, 2, 1)}})
		if !errors.Is(err, catalogstore.ErrManifestUnreadable) || !catalogstore.IsAlertable(err) {
			t.Fatalf("commit on unreadable parent = %v, want alertable ErrManifestUnreadable", err)
		}
		cur, _ := cat2.Dataset(ctx, ds.Ident())
		if cur.CurrentSnapshotID != 1 {
			t.Fatalf("refused commit moved the head to %d", cur.CurrentSnapshotID)
		}
	})
}

// TestCommit_ConcurrentAppendsAcrossCatalogs: many goroutines on two
// catalog instances append to one dataset; every file lands exactly once
// and the history is linear.
func TestCommit_ConcurrentAppendsAcrossCatalogs(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ds := e.dataset(t, "c", "t")
		cats := []*catalogstore.Catalog{e.cat, catalogstore.New(e.m, e.b, catalogstore.Options{NoAudit: true, AppendRetries: 200})}
		const writers, each = 6, 5
		var wg sync.WaitGroup
		errs := make(chan error, writers*each)
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				cat := cats[w%2]
				for i := 0; i < each; i++ {
					f := fakeFile(ds, w*100+i, 1)
					if _, err := cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: fmt.Sprint("w", w), ExpectedUUID: ds.UUID, Added: []manifest.DataFile{f}}); err != nil {
						errs <- err
					}
				}
			}(w)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		cur, _ := e.cat.Dataset(ctx, ds.Ident())
		files, _, err := e.cat.Files(ctx, cur, cur.CurrentSnapshotID)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, f := range files {
			seen[f.Path]++
		}
		if len(files) != writers*each || len(seen) != writers*each {
			t.Fatalf("%d files (%d distinct), want %d", len(files), len(seen), writers*each)
		}
		snaps, _ := e.cat.Snapshots(ctx, cur)
		if len(snaps) != writers*each {
			t.Fatalf("%d snapshots, want %d", len(snaps), writers*each)
		}
		for i, s := range snaps {
			if s.ID != int64(i+1) || s.ParentID != int64(i) || s.Summary.TotalFiles != int64(i+1) {
				t.Fatalf("history not linear at %d: %+v", i, s)
			}
		}
	})
}

func TestView_Versioned(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		e.dataset(t, "c", "t")
		id := catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: "v"}
		if _, err := e.cat.CreateView(ctx, id, "SELECT 1", "x", catalogstore.CreateViewOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.cat.CreateView(ctx, id, "SELECT 2", "x", catalogstore.CreateViewOptions{}); !errors.Is(err, catalogstore.ErrViewExists) {
			t.Fatalf("second create = %v", err)
		}
		if _, err := e.cat.CreateView(ctx, id, "SELECT 2", "y", catalogstore.CreateViewOptions{OrReplace: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.cat.CreateView(ctx, catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: "t"}, "SELECT 3", "x", catalogstore.CreateViewOptions{}); !errors.Is(err, catalogstore.ErrDatasetExists) {
			t.Fatalf("view over a table name = %v", err)
		}
		v, err := e.cat.View(ctx, id)
		if err != nil || v.SQL != "SELECT 2" || v.Author != "y" {
			t.Fatalf("view %+v %v", v, err)
		}
		stmts, err := e.cat.ViewStatements(ctx, id)
		if err != nil || len(stmts) != 2 || stmts[0].SQL != "SELECT 1" || stmts[1].SQL != "SELECT 2" {
			t.Fatalf("statements %+v %v", stmts, err)
		}
		if err := e.cat.UpdateViewExecution(ctx, id, 42, 0); err != nil {
			t.Fatal(err)
		}
		if v, _ := e.cat.View(ctx, id); v.LastRowCount != 42 || v.LastRunAt == nil {
			t.Fatalf("execution metadata %+v", v)
		}
		if err := e.cat.DropView(ctx, id, "x"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.cat.View(ctx, id); !errors.Is(err, catalogstore.ErrViewNotFound) {
			t.Fatalf("after drop: %v", err)
		}
	})
}

func TestAlterSchema_MetadataOnly(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ds := e.dataset(t, "c", "t")
		id := ds.Ident()
		got, err := e.cat.AlterSchema(ctx, id, "x",
			catalogstore.SchemaChange{Kind: catalogstore.AddColumn, Column: "score", Type: schema.Type{Kind: schema.Float64}},
			catalogstore.SchemaChange{Kind: catalogstore.RenameColumn, Column: "name", NewName: "label"},
			catalogstore.SchemaChange{Kind: catalogstore.DropColumn, Column: "amount"})
		if err != nil {
			t.Fatal(err)
		}
		want := "[{1 id} {2 label} {4 score}]"
		var have []string
		for _, c := range got.Schema.Columns {
			have = append(have, fmt.Sprintf("{%d %s}", c.ID, c.Name))
		}
		if fmt.Sprint(have) != want || got.NextFieldID != 5 || got.Schema.ID != 1 {
			t.Fatalf("schema %v next %d id %d, want %s", have, got.NextFieldID, got.Schema.ID, want)
		}
		// Field id 3 (amount) is never reused.
		got, err = e.cat.AlterSchema(ctx, id, "x", catalogstore.SchemaChange{Kind: catalogstore.AddColumn, Column: "amount", Type: schema.Type{Kind: schema.Int32}})
		if err != nil {
			t.Fatal(err)
		}
		if c, _ := got.Schema.Column("amount"); c.ID != 5 {
			t.Fatalf("re-added column got id %d, want 5", c.ID)
		}
		old, err := e.cat.SchemaByID(ctx, got, 0)
		if err != nil || len(old.Columns) != 3 || old.Columns[1].Name != "name" {
			t.Fatalf("old schema kept: %+v %v", old, err)
		}
		// Each refusal is an ErrSchema; the column ones say which, as
		// MySQL gives each its own code.
		refusals := []struct {
			ch   catalogstore.SchemaChange
			want error
		}{
			{catalogstore.SchemaChange{Kind: catalogstore.ModifyColumn, Column: "id", Type: schema.Type{Kind: schema.Int32}}, catalogstore.ErrSchema},
			{catalogstore.SchemaChange{Kind: catalogstore.RenameColumn, Column: "label", NewName: "id"}, catalogstore.ErrSchema},
			{catalogstore.SchemaChange{Kind: catalogstore.AddColumn, Column: "_lakex", Type: schema.Type{Kind: schema.Int32}}, nil},
			{catalogstore.SchemaChange{Kind: catalogstore.DropColumn, Column: "nope"}, catalogstore.ErrDropNoColumn},
			{catalogstore.SchemaChange{Kind: catalogstore.RenameColumn, Column: "nope", NewName: "other"}, catalogstore.ErrColumnNotFound},
			{catalogstore.SchemaChange{Kind: catalogstore.ModifyColumn, Column: "nope", Type: schema.Type{Kind: schema.Int64}}, catalogstore.ErrColumnNotFound},
			{catalogstore.SchemaChange{Kind: catalogstore.AddColumn, Column: "amount", Type: schema.Type{Kind: schema.Int32}}, catalogstore.ErrColumnExists},
			{catalogstore.SchemaChange{Kind: catalogstore.AddColumn, Column: "z", Type: schema.Type{Kind: schema.Int32}, After: "nope"}, catalogstore.ErrColumnNotFound},
		}
		for _, r := range refusals {
			_, err := e.cat.AlterSchema(ctx, id, "x", r.ch)
			if err == nil || (r.want != nil && !errors.Is(err, r.want)) || (r.want != nil && !errors.Is(err, catalogstore.ErrSchema)) {
				t.Errorf("change %+v: %v, want %v", r.ch, err, r.want)
			}
		}
		after, _ := e.cat.Dataset(ctx, id)
		if after.Schema.ID != got.Schema.ID {
			t.Fatalf("refused changes moved the schema to %d", after.Schema.ID)
		}
		if _, err := e.cat.AlterSchema(ctx, id, "x", catalogstore.SchemaChange{Kind: catalogstore.ModifyColumn, Column: "amount", Type: schema.Type{Kind: schema.Int64}}); err != nil {
			t.Fatalf("int→bigint widening refused: %v", err)
		}
	})
}
