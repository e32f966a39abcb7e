package catalogstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// TestAddFiles_LiveFileRefused: registering a file that is already live
// (issue 17: the count doubled and later removals wedged) is refused and
// changes nothing, also when it slips past add_files' own check (a
// concurrent registration) and reaches the commit.
func TestAddFiles_LiveFileRefused(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ds := e.dataset(t, "c", "t")
		a := writeIDs(t, e, ds, "ext-a.parquet", 10, 11)
		if _, err := e.cat.AddFiles(ctx, ds.Ident(), []string{a.Path}, "x", false); err != nil {
			t.Fatal(err)
		}
		head, _ := e.cat.Dataset(ctx, ds.Ident())
		b := writeIDs(t, e, ds, "ext-b.parquet", 12)
		for _, deferred := range []bool{false, true} {
			if _, err := e.cat.AddFiles(ctx, ds.Ident(), []string{b.Path, a.Path}, "x", deferred); !errors.Is(err, catalogstore.ErrDuplicateFile) {
				t.Fatalf("add_files of a live file (deferred %v) = %v", deferred, err)
			}
		}
		_, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAddFiles, Author: "x",
			Added: []manifest.DataFile{a}, ExpectedUUID: head.UUID, BaseSnapshotID: head.CurrentSnapshotID})
		if !errors.Is(err, catalogstore.ErrDuplicateFile) {
			t.Fatalf("commit adding a live file = %v", err)
		}
		if cur, _ := e.cat.Dataset(ctx, ds.Ident()); cur.CurrentSnapshotID != head.CurrentSnapshotID {
			t.Fatalf("a refused add_files moved the head %d → %d", head.CurrentSnapshotID, cur.CurrentSnapshotID)
		}
		if got := readIDs(t, e, ds.Ident()); len(got) != 2 {
			t.Fatalf("rows %v, want the two of ext-a once", got)
		}
	})
}
