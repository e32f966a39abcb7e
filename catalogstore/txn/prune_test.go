package txn_test

import (
	"slices"
	"testing"

	"github.com/lakesql/lakesql/catalogstore/txn"
)

// TestTxn_DeleteReadsOnlyFilesItMayHit: a commit's deletes read the live
// files whose bounds admit a deleted row, and no other: here a file that
// cannot be read at all does not stop a delete of rows elsewhere.
func TestTxn_DeleteReadsOnlyFilesItMayHit(t *testing.T) {
	e := newEnv(t)
	e.create(t, "t", nil)
	for _, ids := range [][]int64{{1, 2, 3}, {10, 11, 12}, {20, 21, 22}} {
		x := txn.New()
		stmt(t, e, e.table(t, x, "t"), ids, nil)
		if err := x.Commit(e.ctx, "tester"); err != nil {
			t.Fatal(err)
		}
	}
	ds := e.load(t, "t")
	files, _, err := e.cat.Files(e.ctx, ds, ds.CurrentSnapshotID)
	if err != nil || len(files) != 3 {
		t.Fatalf("%d files (%v), want 3", len(files), err)
	}
	if err := e.cat.Blob().Delete(e.ctx, files[1].Path); err != nil {
		t.Fatal(err)
	}

	x := txn.New()
	stmt(t, e, e.table(t, x, "t"), []int64{30}, []int64{21, 2})
	if err := x.Commit(e.ctx, "tester"); err != nil {
		t.Fatalf("delete of rows in readable files: %v", err)
	}
	ds = e.load(t, "t")
	after, _, err := e.cat.Files(e.ctx, ds, ds.CurrentSnapshotID)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range after {
		paths = append(paths, f.Path)
	}
	if !slices.Contains(paths, files[1].Path) || slices.Contains(paths, files[0].Path) || slices.Contains(paths, files[2].Path) {
		t.Fatalf("live files %v: want the untouched file kept and the two others rewritten", paths)
	}

	// A delete whose value the unreadable file's bounds admit must read
	// it, and fails rather than guessing.
	x = txn.New()
	stmt(t, e, e.table(t, x, "t"), nil, []int64{11})
	if err := x.Commit(e.ctx, "tester"); err == nil {
		t.Fatal("delete of a row in an unreadable file committed")
	}
}
