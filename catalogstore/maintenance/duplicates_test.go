package maintenance

import (
	"context"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// TestVerify_DuplicateFileAndRepair: a manifest listing one data file
// twice (what add_files of a live file used to commit) is a verify
// finding; repair_duplicate_files drops the second listing in one
// snapshot, after which the rows read once, verify is clean, and a second
// repair commits nothing.
func TestVerify_DuplicateFileAndRepair(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	e.appendIDs(t, ds, 1, 2, 3)
	e.appendIDs(t, ds, 4)
	live := e.liveFiles(t, ds)
	cur := e.reload(t, ds)
	// The old bug's state, written through the commit protocol's
	// whole-manifest path (the add path refuses it now).
	if _, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAddFiles, Author: "old",
		ManifestFiles: append(append([]manifest.DataFile(nil), live...), live[0]),
		ExpectedUUID:  cur.UUID, BaseSnapshotID: cur.CurrentSnapshotID}); err != nil {
		t.Fatal(err)
	}
	if ids := e.readIDs(t, ds); len(ids) != 7 {
		t.Fatalf("the duplicated state reads %d rows, want 7", len(ids))
	}
	res, err := Verify(ctx, e.cat, ds)
	if err != nil {
		t.Fatal(err)
	}
	var dup []Finding
	for _, f := range res.Findings {
		if f.Check == CheckDuplicateFile {
			dup = append(dup, f)
		}
	}
	if len(dup) != 1 || dup[0].Path != live[0].Path || !strings.Contains(dup[0].Detail, "repair_duplicate_files") {
		t.Fatalf("findings %+v, want one duplicate-file finding for %s", res.Findings, live[0].Path)
	}
	head := e.reload(t, ds).CurrentSnapshotID
	rep, err := RepairDuplicateFiles(ctx, e.cat, ds, "tester")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Removed != 1 || rep.Records != 3 || rep.Snapshot == nil || rep.Snapshot.ParentID != head || rep.Snapshot.UserCreated {
		t.Fatalf("repair %+v", rep)
	}
	if ids := e.readIDs(t, ds); len(ids) != 4 {
		t.Fatalf("after repair %d rows, want 4", len(ids))
	}
	res, err = Verify(ctx, e.cat, e.reload(t, ds))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.Check == CheckDuplicateFile && f.SnapshotID == rep.Snapshot.ID {
			t.Fatalf("the repaired head still has a duplicate: %+v", f)
		}
	}
	again, err := RepairDuplicateFiles(ctx, e.cat, ds, "tester")
	if err != nil || again.Snapshot != nil || again.Removed != 0 {
		t.Fatalf("second repair %+v %v", again, err)
	}
}
