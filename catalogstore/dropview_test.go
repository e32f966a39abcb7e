package catalogstore_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

// dyingMeta lets the first `writes` metastore writes (transactions and
// single deletes alike) through and fails every later one, as a process
// killed mid-statement does nothing more.
type dyingMeta struct {
	meta.Store
	writes int64
	n      atomic.Int64
}

func (m *dyingMeta) dead() bool { return m.n.Add(1) > m.writes }

func (m *dyingMeta) RunTx(ctx context.Context, fn func(context.Context, meta.Tx) error) error {
	if m.dead() {
		return errHalted
	}
	return m.Store.RunTx(ctx, fn)
}

func (m *dyingMeta) Delete(ctx context.Context, p string) error {
	if m.dead() {
		return errHalted
	}
	return m.Store.Delete(ctx, p)
}

// TestDropView_CutShortLeavesWholeView (issue 18, atomic DDL): DROP VIEW
// killed after any number of its metastore writes leaves the view with
// its whole statement history or nothing, and a view created again under
// the name starts a history of its own.
func TestDropView_CutShortLeavesWholeView(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		id := catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: "v"}
		if _, err := e.cat.CreateCollection(ctx, e.ws, "c", "a", catalogstore.CreateCollectionOptions{ExistsOK: true}); err != nil {
			t.Fatal(err)
		}
		for writes := int64(0); writes <= 4; writes++ {
			for _, q := range []string{"SELECT 1", "SELECT 2", "SELECT 3"} {
				if _, err := e.cat.CreateView(ctx, id, q, "a", catalogstore.CreateViewOptions{OrReplace: true}); err != nil {
					t.Fatal(err)
				}
			}
			dm := &dyingMeta{Store: e.m, writes: writes}
			dropErr := catalogstore.New(dm, e.b, catalogstore.Options{NoAudit: true}).DropView(ctx, id, "a")
			_, err := e.cat.View(ctx, id)
			hist, herr := e.cat.ViewStatements(ctx, id)
			switch {
			case errors.Is(err, catalogstore.ErrViewNotFound):
				if dropErr != nil {
					t.Fatalf("writes %d: the drop failed (%v) but the view is gone", writes, dropErr)
				}
				if herr == nil && len(hist) != 0 {
					t.Fatalf("writes %d: the dropped view left %d statements", writes, len(hist))
				}
			case err != nil:
				t.Fatal(err)
			default:
				if dropErr == nil {
					t.Fatalf("writes %d: the drop succeeded but the view remains", writes)
				}
				if herr != nil || len(hist) != 3 {
					t.Fatalf("writes %d: the view remains with %d statements (%v), want its 3", writes, len(hist), herr)
				}
				if err := e.cat.DropView(ctx, id, "a"); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := e.cat.CreateView(ctx, id, "SELECT 9", "a", catalogstore.CreateViewOptions{}); err != nil {
				t.Fatal(err)
			}
			if hist, err := e.cat.ViewStatements(ctx, id); err != nil || len(hist) != 1 {
				t.Fatalf("writes %d: the view created again has %d statements (%v), want 1", writes, len(hist), err)
			}
			if err := e.cat.DropView(ctx, id, "a"); err != nil {
				t.Fatal(err)
			}
		}
	})
}
