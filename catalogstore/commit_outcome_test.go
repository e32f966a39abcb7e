package catalogstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob/faultblob"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

// appliedThenLost is a metastore whose transactions commit and then
// report the context's cancellation, as a Firestore commit RPC cut off by
// KILL QUERY after the server applied it does.
type appliedThenLost struct{ meta.Store }

func (s appliedThenLost) RunTx(ctx context.Context, fn func(context.Context, meta.Tx) error) error {
	if err := s.Store.RunTx(ctx, fn); err != nil {
		return err
	}
	return context.Canceled
}

// TestCommit_UnknownOutcomeKeepsManifest: a commit whose metastore
// transaction failed in a way that may come after it applied (the
// randomized schedule's KILL QUERY on Firestore) must not delete its
// manifest: the head snapshot would have none, and the table would be
// unreadable. A guard's refusal still deletes it.
func TestCommit_UnknownOutcomeKeepsManifest(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ds := e.dataset(t, "c", "t")
		lossy := catalogstore.New(appliedThenLost{e.m}, e.b, catalogstore.Options{NoAudit: true})
		_, err := lossy.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x", ExpectedUUID: ds.UUID, Added: []manifest.DataFile{fakeFile(ds, 1, 1)}})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("commit = %v, want the metastore's context.Canceled", err)
		}
		cur, err := e.cat.Dataset(ctx, ds.Ident())
		if err != nil || cur.CurrentSnapshotID != 1 {
			t.Fatalf("the commit applied: head %d, %v", cur.CurrentSnapshotID, err)
		}
		files, _, err := e.cat.Files(ctx, cur, 1)
		if err != nil || len(files) != 1 {
			t.Fatalf("the head's manifest: %v, %v", files, err)
		}

		// A refusal by the guards deletes its manifest: nothing but the
		// head's is left.
		_, err = e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpOverwrite, ReplaceAll: true, Author: "x", ExpectedUUID: ds.UUID, BaseSnapshotID: 0, Added: []manifest.DataFile{fakeFile(ds, 2, 1)}})
		if !errors.Is(err, catalogstore.ErrCommitConflict) {
			t.Fatalf("stale overwrite = %v, want a conflict", err)
		}
		objs, err := e.b.List(ctx, cur.Location+"/metadata/")
		if err != nil || len(objs) != 1 {
			t.Fatalf("manifests left: %v, %v; want only the head's", objs, err)
		}
	})
}

// TestCommitAll_AllOrNothing: commits to several datasets land together
// or not at all: one refused by its guard (the head moved and it cannot
// re-base) leaves every dataset as it was; an append that lost its race
// re-bases and the whole set lands.
func TestCommitAll_AllOrNothing(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		a, b := e.dataset(t, "c", "a"), e.dataset(t, "c", "b")
		appendTo := func(ds *catalogstore.Dataset, n int, base int64) catalogstore.Commit {
			return catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x", ExpectedUUID: ds.UUID, BaseSnapshotID: base, Added: []manifest.DataFile{fakeFile(ds, n, 1)}}
		}
		if _, err := e.cat.Commit(ctx, b.Ident(), appendTo(b, 1, 0)); err != nil {
			t.Fatal(err)
		}
		stale := catalogstore.Commit{Operation: catalogstore.OpOverwrite, ReplaceAll: true, Author: "x", ExpectedUUID: b.UUID, BaseSnapshotID: 0, Added: []manifest.DataFile{fakeFile(b, 2, 1)}}
		_, err := e.cat.CommitAll(ctx, []catalogstore.DatasetCommit{{ID: a.Ident(), Commit: appendTo(a, 1, 0)}, {ID: b.Ident(), Commit: stale}})
		var ce *catalogstore.CommitError
		if !errors.Is(err, catalogstore.ErrCommitConflict) || !errors.As(err, &ce) || ce.Dataset != "c.b" {
			t.Fatalf("CommitAll with a stale overwrite of b = %v, want a conflict on c.b", err)
		}
		if cur, _ := e.cat.Dataset(ctx, a.Ident()); cur.CurrentSnapshotID != 0 {
			t.Fatalf("a refused CommitAll committed to a: head %d", cur.CurrentSnapshotID)
		}

		snaps, err := e.cat.CommitAll(ctx, []catalogstore.DatasetCommit{{ID: a.Ident(), Commit: appendTo(a, 2, 0)}, {ID: b.Ident(), Commit: appendTo(b, 3, 0)}})
		if err != nil || len(snaps) != 2 || snaps[0].ID != 1 || snaps[1].ID != 2 {
			t.Fatalf("CommitAll of appends, b's re-based: %v, %v", snaps, err)
		}
		for _, c := range []struct {
			ds    *catalogstore.Dataset
			files int
		}{{a, 1}, {b, 2}} {
			cur, _ := e.cat.Dataset(ctx, c.ds.Ident())
			files, _, err := e.cat.Files(ctx, cur, cur.CurrentSnapshotID)
			if err != nil || len(files) != c.files {
				t.Fatalf("%s: %d files (%v), want %d", c.ds.Ident().Short(), len(files), err, c.files)
			}
		}
	})
}

// TestCommit_KilledWhileReadingParentIsNotDamage: a commit whose
// statement is killed while it reads the parent manifest fails with the
// cancellation, not an alertable ErrManifestUnreadable (the schedule saw
// KILL QUERY answered 1030 and a critical alert raised).
func TestCommit_KilledWhileReadingParentIsNotDamage(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ds := e.dataset(t, "c", "t")
		if _, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x", ExpectedUUID: ds.UUID, Added: []manifest.DataFile{fakeFile(ds, 1, 1)}}); err != nil {
			t.Fatal(err)
		}
		killer := faultblob.InjectorFunc(func(op faultblob.Op) error {
			if op.Kind == faultblob.OpGet && op.Phase == faultblob.Before && strings.Contains(op.Key, "/metadata/manifest-") {
				cancel()
				return context.Canceled
			}
			return nil
		})
		cat := catalogstore.New(e.m, faultblob.Wrap(e.b, killer), catalogstore.Options{NoAudit: true})
		_, err := cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x", ExpectedUUID: ds.UUID, BaseSnapshotID: 1, Added: []manifest.DataFile{fakeFile(ds, 2, 1)}})
		if !errors.Is(err, context.Canceled) || errors.Is(err, catalogstore.ErrManifestUnreadable) || catalogstore.IsAlertable(err) {
			t.Fatalf("commit killed while reading the parent manifest: %v, want context.Canceled, not alertable damage", err)
		}
	})
}
