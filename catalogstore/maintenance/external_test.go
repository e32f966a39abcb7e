package maintenance

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob/faultblob"
)

// TestRemoveOrphans_KeepsExternalFiles: a file add_files registered in
// place is lakesql's to read, never to delete — even under the dataset's
// data/ folder and unreferenced (here its commit was refused), cleanup
// counts it foreign and keeps it, while a real orphan beside it goes.
func TestRemoveOrphans_KeepsExternalFiles(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	e.appendIDs(t, ds, 1)
	cur := e.reload(t, ds)
	ext := e.writeFile(t, cur, []int64{7, 8})
	e.setHook(func(op faultblob.Op) error {
		if op.Kind == faultblob.OpPut && (strings.Contains(op.Key, "/manifest-") || strings.Contains(op.Key, "/delta-")) {
			return errors.New("injected: manifest write refused")
		}
		return nil
	})
	if _, err := e.cat.AddFiles(ctx, cur.Ident(), []string{ext.Path}, "tester", false); err == nil {
		t.Fatal("add_files with a refused manifest write committed")
	}
	e.setHook(nil)
	orphan := e.refusedCommit(t, ds)
	for i := 0; i < 2; i++ {
		e.clock.Advance(25 * time.Hour)
		if _, err := RemoveOrphans(ctx, e.cat, ds, time.Hour, false); err != nil {
			t.Fatal(err)
		}
	}
	if !e.exists(t, ext.Path) {
		t.Fatal("orphan cleanup deleted a file add_files registered in place")
	}
	if e.exists(t, orphan) {
		t.Fatal("the real orphan was kept")
	}
	res, err := RemoveOrphans(ctx, e.cat, ds, time.Hour, true)
	if err != nil || res.Foreign != 1 {
		t.Fatalf("foreign %d (%v), want the external file", res.Foreign, err)
	}
}
