package catalogstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// keyOf renders a schema's primary key as "name:seq,…" in key order, with
// "!" after a nullable key column.
func keyOf(s *schema.Schema) string {
	out := ""
	for _, c := range s.Key() {
		col := s.Columns[c]
		out += fmt.Sprintf("%s:%d", col.Name, col.KeySeq)
		if col.Nullable {
			out += "!"
		}
		out += ","
	}
	return out
}

// TestPrimaryKey_PersistsInOrder: a composite key in a different order
// than the columns is stored in the dataset and schema documents (every
// backend), made NOT NULL, and changed by SetPrimaryKey / DropPrimaryKey;
// a key column cannot be dropped, nor be JSON.
func TestPrimaryKey_PersistsInOrder(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		if _, err := e.cat.CreateCollection(ctx, e.ws, "c", "tester", catalogstore.CreateCollectionOptions{}); err != nil {
			t.Fatal(err)
		}
		s := schema.Schema{Columns: []schema.Column{
			{Name: "a", Type: schema.Type{Kind: schema.Int64}, Nullable: true, PrimaryKey: true, KeySeq: 2},
			{Name: "b", Type: schema.Type{Kind: schema.String}, PrimaryKey: true, KeySeq: 1},
			{Name: "v", Type: schema.Type{Kind: schema.Int32}, Nullable: true},
		}}
		id := catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: "t"}
		if _, err := e.cat.CreateDataset(ctx, id, s, "tester", catalogstore.CreateDatasetOptions{}); err != nil {
			t.Fatal(err)
		}
		ds, err := e.cat.Dataset(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := keyOf(&ds.Schema); got != "b:1,a:2," {
			t.Fatalf("loaded key %q, want b:1,a:2, (NOT NULL)", got)
		}
		first, err := e.cat.SchemaByID(ctx, ds, ds.Schema.ID)
		if err != nil || keyOf(first) != "b:1,a:2," {
			t.Fatalf("schema document key %q (%v)", keyOf(first), err)
		}

		if _, err := e.cat.AlterSchema(ctx, id, "x", catalogstore.SchemaChange{Kind: catalogstore.DropColumn, Column: "a"}); !errors.Is(err, catalogstore.ErrSchema) {
			t.Fatalf("dropping a key column: %v, want ErrSchema", err)
		}
		if _, err := e.cat.AlterSchema(ctx, id, "x", catalogstore.SchemaChange{Kind: catalogstore.SetPrimaryKey, Key: []string{"v"}}); !errors.Is(err, catalogstore.ErrSchema) {
			t.Fatalf("a second key: %v, want ErrSchema", err)
		}
		ds, err = e.cat.AlterSchema(ctx, id, "x", catalogstore.SchemaChange{Kind: catalogstore.DropPrimaryKey})
		if err != nil || keyOf(&ds.Schema) != "" {
			t.Fatalf("drop key: %q %v", keyOf(&ds.Schema), err)
		}
		if c, _ := ds.Schema.Column("a"); c.Nullable {
			t.Fatalf("a dropped key's columns stay NOT NULL")
		}
		// At a snapshot that is no longer the head: refused.
		if _, err := e.cat.AlterSchemaAt(ctx, id, "x", ds.CurrentSnapshotID+1, catalogstore.SchemaChange{Kind: catalogstore.SetPrimaryKey, Key: []string{"v"}}); !errors.Is(err, catalogstore.ErrCommitConflict) {
			t.Fatalf("key checked at another snapshot: %v, want ErrCommitConflict", err)
		}
		ds, err = e.cat.AlterSchemaAt(ctx, id, "x", ds.CurrentSnapshotID, catalogstore.SchemaChange{Kind: catalogstore.SetPrimaryKey, Key: []string{"v", "a"}})
		if err != nil {
			t.Fatal(err)
		}
		if ds, err = e.cat.Dataset(ctx, id); err != nil || keyOf(&ds.Schema) != "v:1,a:2," {
			t.Fatalf("new key %q %v, want v:1,a:2,", keyOf(&ds.Schema), err)
		}

		js := schema.Schema{Columns: []schema.Column{{Name: "j", Type: schema.Type{Kind: schema.JSON}, PrimaryKey: true}}}
		if _, err := e.cat.CreateDataset(ctx, catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: "j"}, js, "tester", catalogstore.CreateDatasetOptions{}); !errors.Is(err, catalogstore.ErrSchema) {
			t.Fatalf("JSON key: %v, want ErrSchema", err)
		}
	})
}

// TestPrimaryKey_AddFilesRefused: add_files registers files without
// reading them, so on a keyed table it is refused and changes nothing; a
// pure append prepared against a snapshot that is no longer the head is
// not re-based (its keys were checked against that snapshot).
func TestPrimaryKey_AddFilesRefused(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ds := e.dataset(t, "c", "t")
		a := writeIDs(t, e, ds, "ext-a.parquet", 10, 11)
		if _, err := e.cat.AlterSchema(ctx, ds.Ident(), "x", catalogstore.SchemaChange{Kind: catalogstore.SetPrimaryKey, Key: []string{"id"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.cat.AddFiles(ctx, ds.Ident(), []string{a.Path}, "x", false); !errors.Is(err, catalogstore.ErrNotSupported) {
			t.Fatalf("add_files to a keyed table: %v, want ErrNotSupported", err)
		}
		head, _ := e.cat.Dataset(ctx, ds.Ident())
		if head.CurrentSnapshotID != 0 {
			t.Fatalf("refused add_files committed snapshot %d", head.CurrentSnapshotID)
		}
		if _, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x",
			Added: []manifest.DataFile{fakeFile(ds, 1, 1)}, ExpectedUUID: head.UUID}); err != nil {
			t.Fatal(err)
		}
		_, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x",
			Added: []manifest.DataFile{fakeFile(ds, 2, 1)}, ExpectedUUID: head.UUID, BaseSnapshotID: 0, NoRebase: true})
		if !errors.Is(err, catalogstore.ErrCommitConflict) {
			t.Fatalf("a NoRebase append on a moved head: %v, want ErrCommitConflict", err)
		}
		// With Recheck it re-bases when Recheck accepts what landed since
		// (and is handed exactly that), and fails with Recheck's error.
		var seen []string
		accept := func(_ context.Context, since []manifest.DataFile) error {
			for _, f := range since {
				seen = append(seen, f.Path)
			}
			return nil
		}
		if _, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x",
			Added: []manifest.DataFile{fakeFile(ds, 3, 1)}, ExpectedUUID: head.UUID, BaseSnapshotID: 0, NoRebase: true, Recheck: accept}); err != nil {
			t.Fatalf("rechecked append: %v", err)
		}
		if len(seen) != 1 || seen[0] != fakeFile(ds, 1, 1).Path {
			t.Fatalf("Recheck saw %v, want the one file committed since", seen)
		}
		refuse := func(context.Context, []manifest.DataFile) error { return catalogstore.ErrDuplicateKey }
		if _, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x",
			Added: []manifest.DataFile{fakeFile(ds, 4, 1)}, ExpectedUUID: head.UUID, BaseSnapshotID: 0, NoRebase: true, Recheck: refuse}); !errors.Is(err, catalogstore.ErrDuplicateKey) {
			t.Fatalf("refused recheck: %v, want ErrDuplicateKey", err)
		}
	})
}
