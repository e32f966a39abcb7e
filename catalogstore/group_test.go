package catalogstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// TestCommit_GroupsConcurrentAppends: concurrent appends to one dataset
// through one catalog share commits. Every call returns a snapshot whose
// manifest holds its file, every file is live exactly once, and the
// history stays linear with summaries that add up.
func TestCommit_GroupsConcurrentAppends(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ds := e.dataset(t, "c", "t")
		const writers, each = 8, 6
		var wg sync.WaitGroup
		errs := make(chan error, writers*each)
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; i < each; i++ {
					f := fakeFile(ds, w*100+i, 2)
					snap, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x", ExpectedUUID: ds.UUID, Added: []manifest.DataFile{f}})
					if err != nil {
						errs <- err
						continue
					}
					if err := holds(ctx, e, ds, snap, f.Path); err != nil {
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
		if len(files) != writers*each || len(seen) != writers*each || cur.CurrentRecords != 2*writers*each {
			t.Fatalf("%d files (%d distinct), %d records; want %d files", len(files), len(seen), cur.CurrentRecords, writers*each)
		}
		snaps, _ := e.cat.Snapshots(ctx, cur)
		var total int64
		for i, s := range snaps {
			total += s.Summary.AddedFiles
			if s.ID != int64(i+1) || s.ParentID != int64(i) || s.Summary.TotalFiles != total {
				t.Fatalf("history not linear at %d: %+v", i, s)
			}
		}
		t.Logf("%d appends in %d commits", writers*each, len(snaps))
	})
}

// holds reports an error unless snap's manifest lists path.
func holds(ctx context.Context, e *env, ds *catalogstore.Dataset, snap *catalogstore.Snapshot, path string) error {
	files, _, err := e.cat.Files(ctx, ds, snap.ID)
	if err != nil {
		return err
	}
	for _, f := range files {
		if f.Path == path {
			return nil
		}
	}
	return fmt.Errorf("%s is not in snapshot %d, returned for it", path, snap.ID)
}
