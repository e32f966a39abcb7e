package catalogstore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// twin is one dataset on two catalogs with separate stores: one writing
// delta chains, one writing a consolidated manifest per commit. Every
// operation runs on both; their live lists must stay identical.
type twin struct {
	delta, full     *env
	dsDelta, dsFull *catalogstore.Dataset
	next            int // next file number
}

// norm strips the dataset location from the paths of files, so the two
// datasets' lists compare.
func norm(ds *catalogstore.Dataset, files []manifest.DataFile) []manifest.DataFile {
	out := slices.Clone(files)
	for i := range out {
		out[i].Path = strings.TrimPrefix(out[i].Path, ds.Location)
	}
	return out
}

// commit runs cm (with paths relative to the location) on both datasets.
func (tw *twin) commit(t *testing.T, ctx context.Context, cm catalogstore.Commit) {
	t.Helper()
	for _, side := range []struct {
		e  *env
		ds *catalogstore.Dataset
	}{{tw.delta, tw.dsDelta}, {tw.full, tw.dsFull}} {
		cur, err := side.e.cat.Dataset(ctx, side.ds.Ident())
		if err != nil {
			t.Fatal(err)
		}
		c := cm
		c.ExpectedUUID, c.BaseSnapshotID, c.Author = cur.UUID, cur.CurrentSnapshotID, "tester"
		c.Added, c.Removed, c.ManifestFiles = nil, nil, nil
		for _, f := range cm.Added {
			f.Path = cur.Location + f.Path
			c.Added = append(c.Added, f)
		}
		for _, p := range cm.Removed {
			c.Removed = append(c.Removed, cur.Location+p)
		}
		if cm.ManifestFiles != nil {
			c.ManifestFiles = []manifest.DataFile{}
			for _, f := range cm.ManifestFiles {
				f.Path = cur.Location + f.Path
				c.ManifestFiles = append(c.ManifestFiles, f)
			}
		}
		if _, err := side.e.cat.Commit(ctx, cur.Ident(), c); err != nil {
			t.Fatalf("%s: %v", cm.Operation, err)
		}
	}
}

// live returns the delta side's head list, normalised.
func (tw *twin) live(t *testing.T, ctx context.Context) []manifest.DataFile {
	t.Helper()
	cur, err := tw.delta.cat.Dataset(ctx, tw.dsDelta.Ident())
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := tw.delta.cat.Files(ctx, cur, cur.CurrentSnapshotID)
	if err != nil {
		t.Fatal(err)
	}
	return norm(cur, files)
}

func (tw *twin) newFiles(ds *catalogstore.Dataset, n int) []manifest.DataFile {
	var out []manifest.DataFile
	for range n {
		tw.next++
		f := fakeFile(ds, tw.next, int64(tw.next%7+1))
		f.Path = strings.TrimPrefix(f.Path, ds.Location)
		out = append(out, f)
	}
	return out
}

// step makes one random commit: append, delete, overwrite, compaction,
// truncate, statistics rebuild or rollback.
func (tw *twin) step(t *testing.T, ctx context.Context, rng *rand.Rand, head int64) {
	live := tw.live(t, ctx)
	pick := func(max int) []string {
		var out []string
		for _, i := range rng.Perm(len(live))[:min(len(live), 1+rng.IntN(max))] {
			out = append(out, live[i].Path)
		}
		return out
	}
	switch r := rng.IntN(100); {
	case r < 45 || len(live) == 0:
		tw.commit(t, ctx, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: tw.newFiles(tw.dsDelta, 1+rng.IntN(3))})
	case r < 60:
		tw.commit(t, ctx, catalogstore.Commit{Operation: catalogstore.OpDelete, Removed: pick(2)})
	case r < 75:
		tw.commit(t, ctx, catalogstore.Commit{Operation: catalogstore.OpOverwrite, Removed: pick(2), Added: tw.newFiles(tw.dsDelta, 1+rng.IntN(2))})
	case r < 85:
		added := tw.newFiles(tw.dsDelta, 1)
		added[0].RowIDStart = -1
		tw.commit(t, ctx, catalogstore.Commit{Operation: catalogstore.OpCompact, Housekeeping: true, Removed: pick(4), Added: added})
	case r < 88:
		tw.commit(t, ctx, catalogstore.Commit{Operation: catalogstore.OpTruncate, ReplaceAll: true})
	case r < 93:
		rebuilt := slices.Clone(live)
		slices.Reverse(rebuilt)
		tw.commit(t, ctx, catalogstore.Commit{Operation: catalogstore.OpStatisticsRefresh, Housekeeping: true, ManifestFiles: rebuilt})
	default:
		to := 1 + rng.Int64N(head)
		for _, side := range []struct {
			e  *env
			ds *catalogstore.Dataset
		}{{tw.delta, tw.dsDelta}, {tw.full, tw.dsFull}} {
			if _, err := side.e.cat.RollbackToSnapshot(ctx, side.ds.Ident(), to, "tester"); err != nil {
				t.Fatalf("rollback to %d: %v", to, err)
			}
		}
	}
}

// compareAt checks snapshot id's live list and added files on both sides,
// through cats (the sides' catalogs, or fresh ones with cold caches).
func (tw *twin) compareAt(t *testing.T, ctx context.Context, cd, cf *catalogstore.Catalog, id int64) *catalogstore.Snapshot {
	t.Helper()
	dd, err := cd.Dataset(ctx, tw.dsDelta.Ident())
	if err != nil {
		t.Fatal(err)
	}
	df, err := cf.Dataset(ctx, tw.dsFull.Ident())
	if err != nil {
		t.Fatal(err)
	}
	got, snap, err := cd.Files(ctx, dd, id)
	if err != nil {
		t.Fatalf("snapshot %d: %v", id, err)
	}
	want, fsnap, err := cf.Files(ctx, df, id)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := norm(dd, got), norm(df, want); !reflect.DeepEqual(g, w) {
		t.Fatalf("snapshot %d (%d deltas): live list\n got %v\nwant %v", id, len(snap.ManifestDeltas), g, w)
	}
	if snap.Summary != fsnap.Summary {
		t.Fatalf("snapshot %d: summary %+v, want %+v", id, snap.Summary, fsnap.Summary)
	}
	ga, _, err := cd.AddedFiles(ctx, dd, id)
	if err != nil {
		t.Fatal(err)
	}
	wa, _, err := cf.AddedFiles(ctx, df, id)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := norm(dd, ga), norm(df, wa); !reflect.DeepEqual(g, w) {
		t.Fatalf("snapshot %d: added files\n got %v\nwant %v", id, g, w)
	}
	return snap
}

// TestDeltaChain_RandomHistoriesMatchFullManifests: random sequences of
// appends, deletes, overwrites, compactions, truncates, rebuilds and
// rollbacks give, at every snapshot, exactly the live list (entries,
// order, summary, added files) that writing a consolidated manifest per
// commit gives: at the head as it moves, and afterwards by time travel to
// every snapshot from catalogs with cold caches.
func TestDeltaChain_RandomHistoriesMatchFullManifests(t *testing.T) {
	backs := backends(t)
	for name, nm := range backs {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			steps := 120
			if name == "firestore" {
				steps = 60
			}
			for seed := range uint64(2) {
				tw := &twin{delta: newEnv(t, nm), full: newEnv(t, nm)}
				tw.delta.cat = catalogstore.New(tw.delta.m, tw.delta.b, catalogstore.Options{NoAudit: true, Chain: catalogstore.ChainPolicy{MaxDeltas: 4, MaxPercent: 1 << 40}})
				tw.full.cat = catalogstore.New(tw.full.m, tw.full.b, catalogstore.Options{NoAudit: true, Chain: catalogstore.ChainPolicy{Off: true}})
				tw.dsDelta, tw.dsFull = tw.delta.dataset(t, "c", "t"), tw.full.dataset(t, "c", "t")
				rng := rand.New(rand.NewPCG(seed, 42))
				var withDeltas, consolidated, maxChain int
				for id := int64(1); id <= int64(steps); id++ {
					tw.step(t, ctx, rng, id-1)
					snap := tw.compareAt(t, ctx, tw.delta.cat, tw.full.cat, id)
					if n := len(snap.ManifestDeltas); n > 0 {
						withDeltas++
						maxChain = max(maxChain, n)
					} else if id > 1 {
						consolidated++
					}
				}
				if withDeltas < steps/3 || consolidated == 0 || maxChain > 4 {
					t.Fatalf("seed %d: %d snapshots with deltas, %d consolidated, longest chain %d: the history did not exercise chains", seed, withDeltas, consolidated, maxChain)
				}
				cd := catalogstore.New(tw.delta.m, tw.delta.b, catalogstore.Options{NoAudit: true})
				cf := catalogstore.New(tw.full.m, tw.full.b, catalogstore.Options{NoAudit: true})
				for _, i := range rng.Perm(steps) {
					tw.compareAt(t, ctx, cd, cf, int64(i+1))
				}
				t.Logf("seed %d: %d snapshots, %d with deltas, %d consolidated, longest chain %d", seed, steps, withDeltas, consolidated, maxChain)
			}
		})
	}
}

// TestDeltaChain_DefaultPolicyOnSmallTables: with the default policy a
// small table's base is cheaper to rewrite than a delta, so every commit
// writes a consolidated manifest, as before deltas.
func TestDeltaChain_DefaultPolicyOnSmallTables(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		e.cat = catalogstore.New(e.m, e.b, catalogstore.Options{NoAudit: true})
		ds := e.dataset(t, "c", "small")
		for i := 1; i <= 5; i++ {
			snap, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x", ExpectedUUID: ds.UUID,
				BaseSnapshotID: int64(i - 1), Added: []manifest.DataFile{fakeFile(ds, i, 1)}})
			if err != nil {
				t.Fatal(err)
			}
			if len(snap.ManifestDeltas) != 0 || snap.ManifestBytes <= 0 || !strings.Contains(snap.ManifestPath, fmt.Sprintf("/manifest-%d-", i)) {
				t.Fatalf("snapshot %d: %+v, want a fresh base with its size", i, snap)
			}
		}
	})
}

// TestDeltaChain_BinaryMergeAndConsolidation pins the policy on one-file
// appends: each new delta absorbs the trailing deltas with fewer than
// twice its entries (a binary counter), and a chain that would outgrow
// MaxDeltas is replaced by a fresh base.
func TestDeltaChain_BinaryMergeAndConsolidation(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		e.cat = catalogstore.New(e.m, e.b, catalogstore.Options{NoAudit: true, Chain: catalogstore.ChainPolicy{MaxDeltas: 2, MaxPercent: 1 << 40}})
		ds := e.dataset(t, "c", "t")
		want := [][]int64{nil, {1}, {2}, {2, 1}, {4}, {4, 1}, {4, 2}, nil, {1}}
		var base string
		for i, w := range want {
			snap, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x", ExpectedUUID: ds.UUID,
				BaseSnapshotID: int64(i), Added: []manifest.DataFile{fakeFile(ds, i+1, 1)}})
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, l := range snap.ManifestDeltas {
				got = append(got, l.Entries)
			}
			if !slices.Equal(got, w) {
				t.Fatalf("snapshot %d: chain entries %v, want %v", snap.ID, got, w)
			}
			if w == nil {
				base = snap.ManifestPath
			} else if snap.ManifestBase != base || snap.ManifestPath != snap.ManifestChain().Deltas[len(w)-1] {
				t.Fatalf("snapshot %d: base %s and path %s, want base %s and the last delta", snap.ID, snap.ManifestBase, snap.ManifestPath, base)
			}
			if files, _, err := e.cat.Files(ctx, ds, snap.ID); err != nil || len(files) != i+1 {
				t.Fatalf("snapshot %d: %d files, %v", snap.ID, len(files), err)
			}
			// manifest-path of a delta snapshot is a delta: a reader that
			// knows only consolidated manifests refuses it.
			if _, err := manifest.Read(ctx, e.b, snap.ManifestPath); w != nil && !manifest.IsCorrupt(err) {
				t.Fatalf("snapshot %d: reading its manifest-path as a consolidated manifest: %v", snap.ID, err)
			}
		}
	})
}

// TestDeltaChain_InconsistentDocumentRefused: a snapshot document whose
// manifest-path is not the last object of its chain is unreadable, never
// answered from the base or the chain alone.
func TestDeltaChain_InconsistentDocumentRefused(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ds := e.dataset(t, "c", "t")
		var snap *catalogstore.Snapshot
		for i := range 2 {
			var err error
			snap, err = e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x", ExpectedUUID: ds.UUID,
				BaseSnapshotID: int64(i), Added: []manifest.DataFile{fakeFile(ds, i, 1)}})
			if err != nil {
				t.Fatal(err)
			}
		}
		if len(snap.ManifestDeltas) == 0 {
			t.Fatal("the second commit wrote no delta")
		}
		if err := e.m.Merge(ctx, catalogstore.SnapshotDocPath(ds, snap.ID), map[string]any{"manifest-path": snap.ManifestBase}); err != nil {
			t.Fatal(err)
		}
		cold := catalogstore.New(e.m, e.b, catalogstore.Options{NoAudit: true})
		if _, _, err := cold.Files(ctx, ds, snap.ID); !errors.Is(err, catalogstore.ErrManifestUnreadable) {
			t.Fatalf("Files = %v, want ErrManifestUnreadable", err)
		}
	})
}
