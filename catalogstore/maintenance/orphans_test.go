package maintenance

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/faultblob"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// referenced lists every file any snapshot document references.
func (e *env) referenced(t *testing.T, ds *catalogstore.Dataset) []string {
	t.Helper()
	live, err := readLive(context.Background(), e.cat, e.reload(t, ds))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for p := range live.files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// refusedCommit writes a data file and has its commit refused (the
// manifest write fails): the data file is an orphan.
func (e *env) refusedCommit(t *testing.T, ds *catalogstore.Dataset) string {
	t.Helper()
	cur := e.reload(t, ds)
	f := e.writeFile(t, cur, []int64{900, 901})
	e.setHook(func(op faultblob.Op) error {
		if op.Kind == faultblob.OpPut && (strings.Contains(op.Key, "/manifest-") || strings.Contains(op.Key, "/delta-")) {
			return errors.New("injected: manifest write refused")
		}
		return nil
	})
	defer e.setHook(nil)
	_, err := e.cat.Commit(context.Background(), cur.Ident(), catalogstore.Commit{
		Operation: catalogstore.OpAppend, Author: "tester", Added: []manifest.DataFile{f},
		ExpectedUUID: cur.UUID, BaseSnapshotID: cur.CurrentSnapshotID,
	})
	var ce *catalogstore.CommitError
	if !errors.As(err, &ce) {
		t.Fatalf("commit with a failing manifest write = %v, want a *CommitError", err)
	}
	return f.Path
}

func TestRemoveOrphans_WindowBelowMinimumRefused(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	e.appendIDs(t, ds, 1)
	orphan := e.refusedCommit(t, ds)
	e.clock.Advance(48 * time.Hour)
	for _, w := range []time.Duration{0, 30 * time.Minute, MinOrphanWindow - time.Second} {
		if _, err := RemoveOrphans(ctx, e.cat, ds, w, false); !errors.Is(err, ErrWindowTooShort) || !errors.Is(err, catalogstore.ErrBadValue) {
			t.Fatalf("window %s = %v, want ErrWindowTooShort", w, err)
		}
	}
	if !e.exists(t, orphan) {
		t.Fatal("a refused call deleted a file")
	}
	if _, err := e.m.Get(ctx, quarantinePath(ds)); err == nil {
		t.Fatal("a refused call wrote the quarantine")
	}
}

// TestRemoveOrphans_SeenTwiceADayApart covers a rename, a refused commit,
// expired and purged snapshots, a stray file and a young one: only orphans
// seen twice a day apart and older than the window go, and no referenced
// file is ever deleted.
func TestRemoveOrphans_SeenTwiceADayApart(t *testing.T) {
	e := newEnv(t, consolidated) // counts the manifests purged snapshots leave
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	for i := int64(0); i < 4; i++ {
		e.appendIDs(t, ds, i*10, i*10+1)
	}
	orphan := e.refusedCommit(t, ds)
	stray := ds.Location + "/data/stray.parquet"
	foreign := ds.Location + "/other/keep-me"
	for _, k := range []string{stray, foreign} {
		if err := e.b.Put(ctx, k, strings.NewReader("junk"), blob.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Rename: the location stays, the documents move.
	to := catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: "renamed"}
	if err := e.cat.RenameDataset(ctx, ds.Ident(), to, "tester"); err != nil {
		t.Fatal(err)
	}
	ds, err := e.cat.Dataset(ctx, to)
	if err != nil {
		t.Fatal(err)
	}
	before := e.referenced(t, ds)

	e.clock.Advance(2 * time.Hour)
	// A young orphan: modified "now" on the catalog's clock.
	young := ds.Location + "/data/young.parquet"
	if err := e.b.Put(ctx, young, strings.NewReader("in flight"), blob.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(e.b.LocalPath(young), e.clock.Now(), e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	res, err := RemoveOrphans(ctx, e.cat, ds, time.Hour, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != 0 || !slices.Equal(res.Quarantined, sorted(orphan, stray)) || res.Young != 1 || len(res.StillReferenced) != 0 {
		t.Fatalf("first sighting: removed %v quarantined %v young %d", res.Removed, res.Quarantined, res.Young)
	}
	if res.Live != len(before) || len(res.Missing) != 0 {
		t.Fatalf("live %d (want %d), missing %v", res.Live, len(before), res.Missing)
	}

	// Half a day later: still waiting.
	e.clock.Advance(12 * time.Hour)
	res, err = RemoveOrphans(ctx, e.cat, ds, time.Hour, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != 0 || len(res.Quarantined) != 3 {
		t.Fatalf("12h later: removed %v quarantined %v", res.Removed, res.Quarantined)
	}

	// Expire and purge the first two snapshots: their manifests become
	// orphans too, first seen now.
	if _, err := Expire(ctx, e.cat, ds, 0, 2, "tester", WithPurgeGrace(0)); err != nil {
		t.Fatal(err)
	}
	if _, err := Expire(ctx, e.cat, ds, 0, 2, "tester", WithPurgeGrace(0)); err != nil {
		t.Fatal(err)
	}
	afterExpiry := e.referenced(t, ds)

	// A dry run a day after the first sighting reports, deletes nothing.
	e.clock.Advance(13 * time.Hour)
	dry, err := RemoveOrphans(ctx, e.cat, ds, time.Hour, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dry.Removed, sorted(orphan, stray)) || !e.exists(t, orphan) || !e.exists(t, stray) {
		t.Fatalf("dry run: would remove %v; files still there: %v %v", dry.Removed, e.exists(t, orphan), e.exists(t, stray))
	}
	res, err = RemoveOrphans(ctx, e.cat, ds, time.Hour, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Removed, sorted(orphan, stray)) || len(res.StillReferenced) != 0 || len(res.Revived) != 0 {
		t.Fatalf("day later: removed %v still-referenced %v", res.Removed, res.StillReferenced)
	}
	// young + the two purged manifests wait; young has aged past the window now.
	if len(res.Quarantined) != 3 || !slices.Contains(res.Quarantined, young) {
		t.Fatalf("quarantined %v", res.Quarantined)
	}
	if e.exists(t, orphan) || e.exists(t, stray) {
		t.Fatal("orphans not deleted")
	}
	for _, p := range afterExpiry {
		if !e.exists(t, p) {
			t.Fatalf("referenced file %s deleted", p)
		}
	}
	// A day on, the purged manifests and the young file go; the retained
	// snapshots still read.
	e.clock.Advance(25 * time.Hour)
	res, err = RemoveOrphans(ctx, e.cat, ds, time.Hour, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != 3 || len(res.Quarantined) != 0 || res.Foreign != 1 || !e.exists(t, foreign) {
		t.Fatalf("second day: removed %v quarantined %v foreign %d", res.Removed, res.Quarantined, res.Foreign)
	}
	for _, p := range res.Removed {
		if slices.Contains(afterExpiry, p) {
			t.Fatalf("removed referenced file %s", p)
		}
	}
	for _, p := range afterExpiry {
		if !e.exists(t, p) {
			t.Fatalf("referenced file %s deleted", p)
		}
	}
	if got := e.readIDs(t, ds); len(got) != 8 {
		t.Fatalf("head reads %v", got)
	}
	if _, err := e.m.Get(ctx, quarantinePath(ds)); err == nil {
		t.Fatal("empty quarantine document left behind")
	}
}

func sorted(s ...string) []string {
	slices.Sort(s)
	return s
}

func TestRemoveOrphans_UnreadableManifestStopsCleanup(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	first := e.appendIDs(t, ds, 1)
	e.appendIDs(t, ds, 2)
	orphan := e.refusedCommit(t, ds)
	e.clock.Advance(2 * time.Hour)
	if _, err := RemoveOrphans(ctx, e.cat, ds, time.Hour, false); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(25 * time.Hour)
	// Damage an old (retained, not head) manifest.
	if err := os.WriteFile(e.b.LocalPath(first.ManifestPath), []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dry := range []bool{true, false} {
		res, err := RemoveOrphans(ctx, e.cat, ds, time.Hour, dry)
		if !errors.Is(err, ErrCleanupRefused) || !catalogstore.IsAlertable(err) || !errors.Is(err, catalogstore.ErrManifestUnreadable) {
			t.Fatalf("dry=%v: %v, %+v; want an alertable ErrCleanupRefused", dry, err, res)
		}
	}
	if !e.exists(t, orphan) {
		t.Fatal("cleanup deleted a file although a manifest was unreadable")
	}
}

// TestRemoveOrphans_RechecksBeforeDelete: a quarantined orphan that a
// commit registers after the live set was read is kept.
func TestRemoveOrphans_RechecksBeforeDelete(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	e.appendIDs(t, ds, 1)
	cur := e.reload(t, ds)
	f := e.writeFile(t, cur, []int64{7, 8})
	e.clock.Advance(2 * time.Hour)
	res, err := RemoveOrphans(ctx, e.cat, ds, time.Hour, false)
	if err != nil || !slices.Equal(res.Quarantined, []string{f.Path}) {
		t.Fatalf("first sighting: %v %+v", err, res)
	}
	e.clock.Advance(25 * time.Hour)
	// Register f (add_files) while cleanup lists the objects, after it
	// read the live set.
	var once bool
	e.setHook(func(op faultblob.Op) error {
		if op.Kind == faultblob.OpList && op.Phase == faultblob.Before && !once {
			once = true
			cur := e.reload(t, ds)
			if _, err := e.cat.Commit(ctx, cur.Ident(), catalogstore.Commit{
				Operation: catalogstore.OpAddFiles, Author: "tester", Added: []manifest.DataFile{f},
				ExpectedUUID: cur.UUID, BaseSnapshotID: cur.CurrentSnapshotID,
			}); err != nil {
				t.Error(err)
			}
		}
		return nil
	})
	res, err = RemoveOrphans(ctx, e.cat, ds, time.Hour, false)
	e.setHook(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Revived, []string{f.Path}) || len(res.Removed) != 0 || !e.exists(t, f.Path) {
		t.Fatalf("revived %v removed %v; file exists %v", res.Revived, res.Removed, e.exists(t, f.Path))
	}
	if got := e.readIDs(t, ds); len(got) != 3 {
		t.Fatalf("head reads %v", got)
	}
}

func TestRemoveOrphans_ReportsMissingReferencedFiles(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	e.appendIDs(t, ds, 1)
	files := e.liveFiles(t, ds)
	if err := e.b.Delete(ctx, files[0].Path); err != nil {
		t.Fatal(err)
	}
	res, err := RemoveOrphans(ctx, e.cat, ds, time.Hour, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Missing, []string{files[0].Path}) {
		t.Fatalf("missing %v", res.Missing)
	}
	alerts := e.alertsSeen()
	if len(alerts) != 1 || !catalogstore.IsAlertable(alerts[0]) {
		t.Fatalf("alerts %v, want one alertable", alerts)
	}
}
