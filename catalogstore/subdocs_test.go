package catalogstore_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

// haltingMeta stands for a DROP cut short after its dataset document went
// (KILL CONNECTION, a SIGKILL of the server): once armed, the transaction
// that deletes a dataset document runs, and then the drop's clean-up
// waits on resume (nil: it fails, as a dead process does nothing more).
type haltingMeta struct {
	meta.Store
	mu      sync.Mutex
	halted  bool
	reached chan struct{} // closed when the clean-up is halted
	resume  chan struct{}
}

var errHalted = errors.New("process killed")

func (m *haltingMeta) halt() error {
	m.mu.Lock()
	h := m.halted
	m.mu.Unlock()
	if !h {
		return nil
	}
	if m.resume == nil {
		return errHalted
	}
	<-m.resume
	return nil
}

func (m *haltingMeta) RunTx(ctx context.Context, fn func(context.Context, meta.Tx) error) error {
	if err := m.halt(); err != nil {
		return err
	}
	deleted := false
	err := m.Store.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		deleted = false
		return fn(ctx, deleteSpy{Tx: tx, deleted: &deleted})
	})
	if err == nil && deleted {
		m.mu.Lock()
		first := !m.halted
		m.halted = true
		m.mu.Unlock()
		if first {
			close(m.reached)
		}
	}
	return err
}

func (m *haltingMeta) Collections(ctx context.Context, p string) ([]string, error) {
	if err := m.halt(); err != nil {
		return nil, err
	}
	return m.Store.Collections(ctx, p)
}

func (m *haltingMeta) List(ctx context.Context, p string) ([]meta.Doc, error) {
	if err := m.halt(); err != nil {
		return nil, err
	}
	return m.Store.List(ctx, p)
}

func (m *haltingMeta) Delete(ctx context.Context, p string) error {
	if err := m.halt(); err != nil {
		return err
	}
	return m.Store.Delete(ctx, p)
}

// deleteSpy notes a transaction that deletes a dataset document.
type deleteSpy struct {
	meta.Tx
	deleted *bool
}

func (s deleteSpy) Delete(p string) error {
	if parts := strings.Split(p, "/"); len(parts) == 4 && parts[2] == "datasets" {
		*s.deleted = true
	}
	return s.Tx.Delete(p)
}

// fillHistory gives ds two snapshots, a tag, a consumer offset and an
// external-files record: every kind of sub-document a table carries.
func fillHistory(t *testing.T, e *env, ds *catalogstore.Dataset) {
	t.Helper()
	ctx := context.Background()
	for i := 1; i <= 2; i++ {
		cur, err := e.cat.Dataset(ctx, ds.Ident())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "a",
			ExpectedUUID: ds.UUID, BaseSnapshotID: cur.CurrentSnapshotID, Added: []manifest.DataFile{fakeFile(ds, i, 5)}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.cat.CreateTag(ctx, ds.Ident(), "v1", 1, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.cat.CommitOffset(ctx, "billing", ds.Ident(), 2, "a"); err != nil {
		t.Fatal(err)
	}
}

// checkFresh asserts that ds, a new table of a name whose earlier table's
// drop was cut short, has only its own state: one commit lands as
// snapshot 1 and nothing of the old table shows.
func checkFresh(t *testing.T, e *env, ds *catalogstore.Dataset) {
	t.Helper()
	ctx := context.Background()
	snap, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "b",
		ExpectedUUID: ds.UUID, Added: []manifest.DataFile{fakeFile(ds, 9, 3)}})
	if err != nil || snap.ID != 1 {
		t.Fatalf("first commit of the new table = %+v, %v; want snapshot 1", snap, err)
	}
	cur, err := e.cat.Dataset(ctx, ds.Ident())
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := e.cat.Snapshots(ctx, cur)
	if err != nil || len(snaps) != 1 || snaps[0].Summary.TotalRecords != 3 {
		t.Fatalf("new table's snapshots = %+v, %v; want its one commit of 3 rows", snaps, err)
	}
	if tags, err := e.cat.Tags(ctx, cur); err != nil || len(tags) != 0 {
		t.Fatalf("new table inherited tags %+v, %v", tags, err)
	}
	if offs, err := e.cat.Offsets(ctx, cur); err != nil || len(offs) != 0 {
		t.Fatalf("new table inherited offsets %+v, %v", offs, err)
	}
	if _, err := e.cat.CreateTag(ctx, ds.Ident(), "v1", 1, "b"); err != nil {
		t.Fatalf("tag v1 on the new table: %v", err)
	}
}

// TestDrop_CutShortLeaksNothing (issue 18): a DROP cut short after its
// dataset document went leaves the old table's sub-documents; a new table
// of the same name neither collides with them ("snapshot 1 already
// exists") nor inherits them, whether the clean-up died (SIGKILL) or runs
// on after the CREATE (KILL CONNECTION), and the next DROP sweeps them.
func TestDrop_CutShortLeaksNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		resume bool // the clean-up runs on after the new table's first commit
	}{{"clean-up dies", false}, {"clean-up resumes after create", true}} {
		t.Run(tc.name, func(t *testing.T) {
			forEach(t, func(t *testing.T, e *env) {
				ctx := context.Background()
				old := e.dataset(t, "c", "t")
				fillHistory(t, e, old)
				hm := &haltingMeta{Store: e.m, reached: make(chan struct{})}
				if tc.resume {
					hm.resume = make(chan struct{})
				}
				dropper := catalogstore.New(hm, e.b, catalogstore.Options{NoAudit: true})
				done := make(chan error, 1)
				go func() { done <- dropper.DropDataset(ctx, old.Ident(), "a") }()
				<-hm.reached
				if !tc.resume {
					if err := <-done; err != nil {
						t.Fatal(err)
					}
				}
				ds := e.dataset(t, "c", "t")
				if ds.UUID == old.UUID || ds.DocRoot() == old.DocRoot() {
					t.Fatalf("the new table shares the old one's sub-documents root %s", ds.DocRoot())
				}
				checkFresh(t, e, ds)
				if tc.resume {
					close(hm.resume)
					if err := <-done; err != nil {
						t.Fatal(err)
					}
					// The old clean-up deleted only the old incarnation.
					checkAfterCommit(t, e, ds, 1)
				}
				root := meta.Join(e.ws, "c", "datasets", "t", "incarnations")
				if docs, err := e.m.List(ctx, root); err != nil || len(docs) == 0 {
					t.Fatalf("incarnations under the name = %v, %v; want at least the live one", docs, err)
				}
				if err := e.cat.DropDataset(ctx, ds.Ident(), "b"); err != nil {
					t.Fatal(err)
				}
				if docs, err := e.m.List(ctx, root); err != nil || len(docs) != 0 {
					t.Fatalf("after the next drop, incarnations under the name = %d, %v; want the leftovers swept", len(docs), err)
				}
				if colls, err := e.m.Collections(ctx, meta.Join(e.ws, "c", "datasets", "t")); err != nil || len(colls) != 0 {
					t.Fatalf("after the next drop, collections under the name = %v, %v; want none", colls, err)
				}
			})
		})
	}
}

// checkAfterCommit asserts the table's head is snapshot head, readable
// with its tag.
func checkAfterCommit(t *testing.T, e *env, ds *catalogstore.Dataset, head int64) {
	t.Helper()
	ctx := context.Background()
	cur, err := e.cat.Dataset(ctx, ds.Ident())
	if err != nil || cur.CurrentSnapshotID != head {
		t.Fatalf("table = %+v, %v; want head %d", cur, err, head)
	}
	if _, err := e.cat.Snapshot(ctx, cur, head); err != nil {
		t.Fatalf("head snapshot of the new table: %v", err)
	}
	if _, err := e.cat.Tag(ctx, cur, "v1"); err != nil {
		t.Fatalf("tag of the new table: %v", err)
	}
}

// legacyize rewrites ds as a dataset created before sub-documents were
// keyed by incarnation: its sub-documents directly below its document,
// and no sub-documents field.
func legacyize(t *testing.T, e *env, ds *catalogstore.Dataset) {
	t.Helper()
	ctx := context.Background()
	root := ds.DocRoot()
	docPath := meta.Join(e.ws, ds.Collection, "datasets", ds.Name)
	var move func(p string)
	move = func(p string) {
		colls, err := e.m.Collections(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range colls {
			docs, err := e.m.List(ctx, meta.Join(p, c))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range docs {
				move(d.Path)
				if err := e.m.Set(ctx, docPath+strings.TrimPrefix(d.Path, root), d.Data); err != nil {
					t.Fatal(err)
				}
				if err := e.m.Delete(ctx, d.Path); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	move(root)
	if err := e.m.Delete(ctx, root); err != nil {
		t.Fatal(err)
	}
	d, err := e.m.Get(ctx, docPath)
	if err != nil {
		t.Fatal(err)
	}
	delete(d.Data, "sub-documents")
	if err := e.m.Set(ctx, docPath, d.Data); err != nil {
		t.Fatal(err)
	}
}

// TestSubDocs_LegacyLayoutStillReadable: a warehouse written before
// sub-documents were keyed by incarnation reads, commits, tags, renames
// and drops as before, with no migration, and a DROP of such a table cut
// short does not leak into the new table of its name.
func TestSubDocs_LegacyLayoutStillReadable(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		old := e.dataset(t, "c", "t")
		fillHistory(t, e, old)
		legacyize(t, e, old)
		ds, err := e.cat.Dataset(ctx, old.Ident())
		if err != nil {
			t.Fatal(err)
		}
		if ds.KeyedByIncarnation() || ds.DocRoot() != meta.Join(e.ws, "c", "datasets", "t") {
			t.Fatalf("legacy dataset root %s, keyed by incarnation %v", ds.DocRoot(), ds.KeyedByIncarnation())
		}
		snaps, err := e.cat.Snapshots(ctx, ds)
		if err != nil || len(snaps) != 2 {
			t.Fatalf("legacy snapshots = %d, %v; want 2", len(snaps), err)
		}
		if tag, err := e.cat.Tag(ctx, ds, "v1"); err != nil || tag.SnapshotID != 1 {
			t.Fatalf("legacy tag = %+v, %v", tag, err)
		}
		if offs, err := e.cat.Offsets(ctx, ds); err != nil || len(offs) != 1 {
			t.Fatalf("legacy offsets = %+v, %v", offs, err)
		}
		if _, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "a",
			ExpectedUUID: ds.UUID, BaseSnapshotID: 2, Added: []manifest.DataFile{fakeFile(ds, 3, 5)}}); err != nil {
			t.Fatalf("commit on a legacy dataset: %v", err)
		}
		// A rename moves its sub-documents.
		to := catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: "u"}
		if err := e.cat.RenameDataset(ctx, ds.Ident(), to, "a"); err != nil {
			t.Fatal(err)
		}
		moved, err := e.cat.Dataset(ctx, to)
		if err != nil {
			t.Fatal(err)
		}
		if snaps, err := e.cat.Snapshots(ctx, moved); err != nil || len(snaps) != 3 {
			t.Fatalf("renamed legacy snapshots = %d, %v; want 3", len(snaps), err)
		}
		// Its DROP cut short: the new table of the name starts clean.
		hm := &haltingMeta{Store: e.m, reached: make(chan struct{})}
		dropper := catalogstore.New(hm, e.b, catalogstore.Options{NoAudit: true})
		if err := dropper.DropDataset(ctx, to, "a"); err != nil {
			t.Fatal(err)
		}
		fresh := e.dataset(t, "c", "u")
		checkFresh(t, e, fresh)
		if !fresh.KeyedByIncarnation() {
			t.Fatal("a new table is not keyed by incarnation")
		}
	})
}
