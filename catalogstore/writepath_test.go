package catalogstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/scan"
)

func idRecord(ds *catalogstore.Dataset, ids ...int64) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(&ds.Schema))
	defer b.Release()
	for _, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).AppendNull()
		b.Field(2).AppendNull()
	}
	return b.NewRecord()
}

func writeIDs(t *testing.T, e *env, ds *catalogstore.Dataset, key string, ids ...int64) manifest.DataFile {
	t.Helper()
	rec := idRecord(ds, ids...)
	defer rec.Release()
	f, err := datafile.Write(context.Background(), e.b, ds.Location+"/data/"+key, &ds.Schema, []arrow.Record{rec}, datafile.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func readIDs(t *testing.T, e *env, id catalogstore.Ident) []int64 {
	t.Helper()
	ctx := context.Background()
	ds, err := e.cat.Dataset(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := e.cat.Files(ctx, ds, ds.CurrentSnapshotID)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := scan.ReadAll(ctx, scan.Request{Store: e.b, Files: files, Schema: &ds.Schema, FieldIDs: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, r := range rows {
		out = append(out, r[0].(int64))
	}
	return out
}

// TestWritePath_KilledWriterLeavesPreviousSnapshot: files written but never
// committed (a writer killed between steps 1 and 4) leave the dataset at its
// previous snapshot, and the files are never referenced.
func TestWritePath_KilledWriterLeavesPreviousSnapshot(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ds := e.dataset(t, "c", "t")
		f1 := writeIDs(t, e, ds, "a.parquet", 1, 2)
		if _, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x", ExpectedUUID: ds.UUID, Added: []manifest.DataFile{f1}}); err != nil {
			t.Fatal(err)
		}
		orphan := writeIDs(t, e, ds, "orphan.parquet", 3) // the writer dies here
		if got := readIDs(t, e, ds.Ident()); len(got) != 2 {
			t.Fatalf("rows %v, want the first commit's 2", got)
		}
		cur, _ := e.cat.Dataset(ctx, ds.Ident())
		files, _, _ := e.cat.Files(ctx, cur, cur.CurrentSnapshotID)
		for _, f := range files {
			if f.Path == orphan.Path {
				t.Fatal("an uncommitted file is referenced")
			}
		}
		if cur.CurrentSnapshotID != 1 {
			t.Fatalf("head %d, want 1", cur.CurrentSnapshotID)
		}
	})
}

// TestWritePath_RefusedCommitFilesUnreferenced: a commit refused by the
// metastore transaction leaves no manifest and no reference to its files.
func TestWritePath_RefusedCommitFilesUnreferenced(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ds := e.dataset(t, "c", "t")
		f := writeIDs(t, e, ds, "a.parquet", 1)
		_, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpOverwrite, ReplaceAll: true, Author: "x", ExpectedUUID: ds.UUID, BaseSnapshotID: 7, Added: []manifest.DataFile{f}})
		if !errors.Is(err, catalogstore.ErrCommitConflict) {
			t.Fatalf("commit on a wrong base = %v", err)
		}
		objs, err := e.b.List(ctx, ds.Location+"/metadata/")
		if err != nil || len(objs) != 0 {
			t.Fatalf("manifests left by a refused commit: %v %v", objs, err)
		}
	})
}

func TestAddFiles_FromFooters(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ds := e.dataset(t, "c", "t")
		a := writeIDs(t, e, ds, "ext-a.parquet", 10, 11)
		b := writeIDs(t, e, ds, "ext-b.parquet", 12)
		snap, err := e.cat.AddFiles(ctx, ds.Ident(), []string{a.Path, b.Path}, "x", false)
		if err != nil {
			t.Fatal(err)
		}
		if snap.Operation != catalogstore.OpAddFiles || snap.Summary.TotalRecords != 3 {
			t.Fatalf("snapshot %+v", snap)
		}
		if got := readIDs(t, e, ds.Ident()); len(got) != 3 || got[0] != 10 || got[2] != 12 {
			t.Fatalf("rows %v", got)
		}
		// A file whose column types do not fit is refused, changing nothing.
		other := schema.Schema{Columns: []schema.Column{{ID: 1, Name: "id", Type: schema.Type{Kind: schema.String}}}}
		o, err := e.cat.CreateDataset(ctx, catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: "o"}, other, "x", catalogstore.CreateDatasetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.cat.AddFiles(ctx, o.Ident(), []string{a.Path}, "x", false); !errors.Is(err, catalogstore.ErrBadValue) {
			t.Fatalf("incompatible file = %v", err)
		}
		if _, err := e.cat.AddFiles(ctx, ds.Ident(), []string{"nope.parquet"}, "x", false); !errors.Is(err, blob.ErrNotFound) && !errors.Is(err, catalogstore.ErrBadValue) {
			t.Fatalf("missing file = %v", err)
		}
		if cur, _ := e.cat.Dataset(ctx, o.Ident()); cur.CurrentSnapshotID != 0 {
			t.Fatal("refused add_files committed")
		}
		// Deferred registration leaves stats pending.
		c := writeIDs(t, e, ds, "ext-c.parquet", 13)
		snap, err = e.cat.AddFiles(ctx, ds.Ident(), []string{c.Path}, "x", true)
		if err != nil {
			t.Fatal(err)
		}
		cur, _ := e.cat.Dataset(ctx, ds.Ident())
		files, _, _ := e.cat.Files(ctx, cur, snap.ID)
		if last := files[len(files)-1]; last.StatsState != manifest.StatsPending || last.RecordCount != 1 {
			t.Fatalf("deferred file %+v", last)
		}
	})
}
