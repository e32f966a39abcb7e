package maintenance

import (
	"bytes"
	"context"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// TestHydrateStats: files registered with deferred statistics become
// provided from their footers; one whose footer disagrees with the
// manifest becomes failed with the reason; the rest is untouched, and the
// snapshot is housekeeping.
func TestHydrateStats(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	e.appendIDs(t, ds, 1, 2) // provided, untouched
	good := e.writeFile(t, ds, []int64{10, 11, 12})
	bad := e.writeFile(t, ds, []int64{20, 21})
	if _, err := e.cat.AddFiles(ctx, ds.Ident(), []string{good.Path, bad.Path}, "tester", true); err != nil {
		t.Fatal(err)
	}
	// Replace bad's object with a file of a different row count, behind the
	// catalog's back.
	other := e.writeFile(t, ds, []int64{30, 31, 32, 33})
	data, err := e.b.Get(ctx, other.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.b.Put(ctx, bad.Path, bytes.NewReader(data), blob.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := HydrateStats(ctx, e.cat, e.reload(t, ds), "tester")
	if err != nil {
		t.Fatal(err)
	}
	if res.Pending != 2 || res.Provided != 1 || res.Failed != 1 || res.Snapshot == nil || res.Snapshot.UserCreated {
		t.Fatalf("result %+v", res)
	}
	states := map[string]manifest.DataFile{}
	for _, f := range e.liveFiles(t, ds) {
		states[f.Path] = f
	}
	if g := states[good.Path]; g.StatsState != manifest.StatsProvided || len(g.LowerBounds) == 0 || g.LowerBounds[0] == nil {
		t.Fatalf("good file %+v", g)
	}
	if b := states[bad.Path]; b.StatsState != manifest.StatsFailed || b.StatsError == "" || b.RecordCount != 2 {
		t.Fatalf("bad file %+v", b)
	}
	// Nothing pending any more: no new snapshot.
	again, err := HydrateStats(ctx, e.cat, e.reload(t, ds), "tester")
	if err != nil || again.Pending != 0 || again.Snapshot != nil {
		t.Fatalf("second pass %+v %v", again, err)
	}
}
