package maintenance

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// deleteFile commits the removal of one live data file.
func (e *env) deleteFile(t *testing.T, ds *catalogstore.Dataset, path string) *catalogstore.Snapshot {
	t.Helper()
	cur := e.reload(t, ds)
	snap, err := e.cat.Commit(context.Background(), cur.Ident(), catalogstore.Commit{
		Operation: catalogstore.OpDelete, Author: "tester", Removed: []string{path},
		ExpectedUUID: cur.UUID, BaseSnapshotID: cur.CurrentSnapshotID,
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// chainHistory commits appends and a delete so that the head's list is a
// base plus deltas, and returns every snapshot in order.
func chainHistory(t *testing.T, e *env, ds *catalogstore.Dataset) []*catalogstore.Snapshot {
	t.Helper()
	var snaps []*catalogstore.Snapshot
	for i := int64(0); i < 6; i++ {
		snaps = append(snaps, e.appendIDs(t, ds, i*10, i*10+1))
	}
	snaps = append(snaps, e.deleteFile(t, ds, e.liveFiles(t, ds)[1].Path))
	snaps = append(snaps, e.appendIDs(t, ds, 100))
	if head := snaps[len(snaps)-1]; len(head.ManifestDeltas) == 0 {
		t.Fatalf("the head wrote no delta: %+v", head)
	}
	return snaps
}

// TestRemoveOrphans_KeepsDeltaChains: delta manifests are live while a
// retained snapshot's chain lists them, and so is the base under them
// (even when the snapshot that wrote it expired); deltas no retained chain
// lists are orphans like any unreferenced manifest.
func TestRemoveOrphans_KeepsDeltaChains(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	snaps := chainHistory(t, e, ds)
	orphan := e.refusedCommit(t, ds)
	// Expire and purge all but the last two snapshots.
	e.clock.Advance(2 * time.Hour)
	for range 2 {
		if _, err := Expire(ctx, e.cat, ds, 0, 2, "tester", WithPurgeGrace(0)); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := e.cat.SnapshotRecords(ctx, e.reload(t, ds))
	if err != nil || len(recs) != 2 {
		t.Fatalf("after expiry: %d snapshots, %v", len(recs), err)
	}
	kept := snaps[len(snaps)-2:]
	var chainKeys []string
	for _, s := range kept {
		chainKeys = append(chainKeys, s.ManifestChain().Keys()...)
	}
	live := e.referenced(t, ds)
	for _, k := range chainKeys {
		if !slices.Contains(live, k) {
			t.Fatalf("%s (chain of a retained snapshot) is not live: %v", k, live)
		}
	}
	var removed []string
	for range 2 {
		e.clock.Advance(25 * time.Hour)
		res, err := RemoveOrphans(ctx, e.cat, ds, time.Hour, false)
		if err != nil {
			t.Fatal(err)
		}
		removed = append(removed, res.Removed...)
	}
	if !slices.Contains(removed, orphan) {
		t.Fatalf("the orphan data file was not removed: %v", removed)
	}
	var deltasRemoved int
	for _, p := range removed {
		if slices.Contains(chainKeys, p) {
			t.Fatalf("removed %s, which a retained chain lists", p)
		}
		if strings.Contains(p, "/metadata/delta-") {
			deltasRemoved++
		}
	}
	if deltasRemoved == 0 {
		t.Fatalf("no delta of a purged snapshot was removed: %v", removed)
	}
	for _, k := range chainKeys {
		if !e.exists(t, k) {
			t.Fatalf("%s deleted", k)
		}
	}
	// The retained snapshots read, from a catalog with a cold cache.
	cold := catalogstore.New(e.m, e.cat.Blob(), catalogstore.Options{NoAudit: true})
	for _, s := range kept {
		files, _, err := cold.Files(ctx, e.reload(t, ds), s.ID)
		if err != nil || int64(len(files)) != s.Summary.TotalFiles {
			t.Fatalf("snapshot %d: %d files, %v; want %d", s.ID, len(files), err, s.Summary.TotalFiles)
		}
	}
	if got := e.readIDs(t, ds); len(got) != 11 {
		t.Fatalf("head reads %v", got)
	}
}

// TestVerify_DeltaChains: a healthy history of chains has no findings;
// a damaged delta is reported, by its path, for each snapshot whose chain
// lists it, and for no other.
func TestVerify_DeltaChains(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	snaps := chainHistory(t, e, ds)
	res, err := Verify(ctx, e.cat, ds, Deep())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 || res.Snapshots != len(snaps) || res.Files != 7 || res.Checksummed != 7 {
		t.Fatalf("healthy: %+v", res)
	}
	// Damage a delta the head's chain lists.
	head := snaps[len(snaps)-1]
	bad := head.ManifestChain().Deltas[0]
	flipByte(t, e.b.LocalPath(bad))
	res, err = Verify(ctx, e.cat, ds)
	if err != nil {
		t.Fatal(err)
	}
	var want []int64
	for _, s := range snaps {
		if slices.Contains(s.ManifestChain().Deltas, bad) {
			want = append(want, s.ID)
		}
	}
	var got []int64
	for _, f := range res.Findings {
		if f.Check != CheckManifestReadable || f.Path != bad || !manifest.IsCorrupt(f.Err) && !strings.Contains(f.Detail, "corrupt") {
			t.Fatalf("finding %+v, want manifest-readable on %s", f, bad)
		}
		got = append(got, f.SnapshotID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("findings for snapshots %v, want %v", got, want)
	}
}

// TestVerify_MissingDelta: a delta that is gone is a finding too.
func TestVerify_MissingDelta(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	snaps := chainHistory(t, e, ds)
	head := snaps[len(snaps)-1]
	gone := head.ManifestKey()
	if err := os.Remove(e.b.LocalPath(gone)); err != nil {
		t.Fatal(err)
	}
	res, err := Verify(ctx, e.cat, ds)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Path != gone || res.Findings[0].SnapshotID != head.ID {
		t.Fatalf("findings %+v, want one on %s", res.Findings, gone)
	}
}
