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

// racingMeta runs race once, around the next metastore transaction: before
// it (another writer's commit) and after it (a DROP), as two other
// sessions would between a commit's steps.
type racingMeta struct {
	meta.Store
	once          sync.Once
	before, after func()
}

func (m *racingMeta) RunTx(ctx context.Context, fn func(context.Context, meta.Tx) error) error {
	armed := false
	m.once.Do(func() { armed = true })
	if armed {
		m.before()
	}
	err := m.Store.RunTx(ctx, fn)
	if armed {
		m.after()
	}
	return err
}

// TestCommit_RacingDropSaysDropped: a commit (an append, which re-bases,
// or a truncate, which does not) that lost its race to another commit and
// then found the table dropped says so (issue 18: it said "prepared
// against snapshot 5, head is 6").
func TestCommit_RacingDropSaysDropped(t *testing.T) {
	for _, op := range []catalogstore.Operation{catalogstore.OpAppend, catalogstore.OpTruncate} {
		t.Run(string(op), func(t *testing.T) { racingDrop(t, op) })
	}
}

func racingDrop(t *testing.T, op catalogstore.Operation) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ds := e.dataset(t, "c", "t")
		other := e.cat
		rm := &racingMeta{Store: e.m}
		rm.before = func() {
			if _, err := other.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "b", ExpectedUUID: ds.UUID, Added: []manifest.DataFile{fakeFile(ds, 2, 1)}}); err != nil {
				t.Error(err)
			}
		}
		rm.after = func() {
			if err := other.DropDataset(ctx, ds.Ident(), "b"); err != nil {
				t.Error(err)
			}
		}
		racer := catalogstore.New(rm, e.b, catalogstore.Options{NoAudit: true})
		cm := catalogstore.Commit{Operation: op, Author: "a", ExpectedUUID: ds.UUID, Added: []manifest.DataFile{fakeFile(ds, 1, 1)}}
		if op == catalogstore.OpTruncate {
			cm.Added, cm.ReplaceAll = nil, true
		}
		_, err := racer.Commit(ctx, ds.Ident(), cm)
		if !errors.Is(err, catalogstore.ErrIncarnationChanged) || !strings.Contains(err.Error(), "the table was dropped") || strings.Contains(err.Error(), "prepared against") {
			t.Fatalf("commit racing a DROP = %v, want ErrIncarnationChanged saying the table was dropped", err)
		}
	})
}

// TestDrop_RacingCreateMaterializedView: a materialized view registered
// on a table between DROP TABLE's check for readers and its transaction
// keeps its source: the drop is refused, never a view over a dropped
// table.
func TestDrop_RacingCreateMaterializedView(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		src := e.dataset(t, "c", "t")
		mvID := catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: "mv"}
		rm := &racingMeta{Store: e.m, after: func() {}}
		rm.before = func() {
			if _, err := e.cat.CreateMaterializedView(ctx, mvID, testSchema, "b", catalogstore.MaterializedViewSpec{
				SQL: "SELECT * FROM t", Sources: []catalogstore.Ident{src.Ident()}}); err != nil {
				t.Error(err)
			}
		}
		racer := catalogstore.New(rm, e.b, catalogstore.Options{NoAudit: true})
		if err := racer.DropDataset(ctx, src.Ident(), "a"); !errors.Is(err, catalogstore.ErrNotSupported) {
			t.Fatalf("DROP racing a CREATE MATERIALIZED VIEW over the table = %v, want ErrNotSupported", err)
		}
		if _, err := e.cat.Dataset(ctx, src.Ident()); err != nil {
			t.Fatalf("the source after the refused drop: %v", err)
		}
		if trigs, err := e.cat.Triggers(ctx, src.Ident()); err != nil || len(trigs) != 1 {
			t.Fatalf("the source's triggers = %+v, %v; want the view's", trigs, err)
		}
	})
}
