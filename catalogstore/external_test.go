package catalogstore_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/datafile"
)

// TestExternalFiles_SurviveDrops: files add_files registered in place,
// under the workspace's prefix and under the dataset's own location, stay
// when the dataset and then the workspace are dropped; lakesql's own files
// go, and so does an object of a dropped dataset's location.
func TestExternalFiles_SurviveDrops(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ds := e.dataset(t, "c", "t")
		rec := idRecord(ds, 1, 2)
		defer rec.Release()
		raw := e.ws + "/raw/x.parquet"
		if _, err := datafile.Write(ctx, e.b, raw, &ds.Schema, []arrow.Record{rec}, datafile.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		inLoc := writeIDs(t, e, ds, "mine.parquet", 3)
		if _, err := e.cat.AddFiles(ctx, ds.Ident(), []string{raw, inLoc.Path}, "x", false); err != nil {
			t.Fatal(err)
		}
		ext, err := e.cat.ExternalFiles(ctx, ds)
		if err != nil || !ext[raw] || !ext[inLoc.Path] || len(ext) != 2 {
			t.Fatalf("external files %v %v", ext, err)
		}
		other := e.dataset(t, "c", "u")
		own := writeIDs(t, e, other, "own.parquet", 4)
		if err := e.cat.DropDataset(ctx, ds.Ident(), "x"); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{raw, inLoc.Path} {
			if _, err := e.b.Stat(ctx, k); err != nil {
				t.Fatalf("%s after DROP TABLE: %v", k, err)
			}
		}
		if err := e.cat.SetWorkspaceProperty(ctx, e.ws, catalogstore.PropDeletionProtection, false, "x"); err != nil {
			t.Fatal(err)
		}
		if err := e.cat.DropWorkspace(ctx, e.ws, "x", true); err != nil {
			t.Fatal(err)
		}
		if _, err := e.b.Stat(ctx, raw); err != nil {
			t.Fatalf("%s after DROP WORKSPACE: %v", raw, err)
		}
		if _, err := e.b.Stat(ctx, own.Path); err == nil {
			t.Fatalf("%s (lakesql's own) kept after DROP WORKSPACE", own.Path)
		}
	})
}
