package maintenance

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob/faultblob"
)

// TestVerify_ConcurrentViewDDLIsNoFinding (issue 18): a CREATE or DROP
// MATERIALIZED VIEW over a dataset while Verify reads the dataset's
// manifests is no trigger-count (or trigger-target, mv-registration)
// finding: the graph is read as one consistent cut, not the count from
// Verify's start against the triggers listed at its end.
func TestVerify_ConcurrentViewDDLIsNoFinding(t *testing.T) {
	for _, tc := range []struct {
		name string
		ddl  func(t *testing.T, e *env, src *catalogstore.Dataset, view **catalogstore.Dataset)
		pre  bool // the view exists before Verify starts
	}{
		{"create view", func(t *testing.T, e *env, src *catalogstore.Dataset, view **catalogstore.Dataset) {
			*view = e.mv(t, "view", src)
		}, false},
		{"drop view", func(t *testing.T, e *env, _ *catalogstore.Dataset, view **catalogstore.Dataset) {
			if err := e.cat.DropMaterializedView(context.Background(), (*view).Ident(), "tester"); err != nil {
				t.Error(err)
			}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := context.Background()
			src := e.dataset(t, "src", catalogstore.CreateDatasetOptions{})
			e.appendIDs(t, src, 1, 2)
			var view *catalogstore.Dataset
			if tc.pre {
				view = e.mv(t, "view", src)
			}
			var fired atomic.Bool
			hook := func(op faultblob.Op) error {
				if op.Kind == faultblob.OpGet && op.Phase == faultblob.Before && fired.CompareAndSwap(false, true) {
					tc.ddl(t, e, src, &view)
				}
				return nil
			}
			e.hook.Store(&hook)
			res, err := Verify(ctx, e.cat, src)
			e.hook.Store(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !fired.Load() {
				t.Fatal("the view DDL did not run while Verify read the manifests")
			}
			if got := checks(t, e, res, 0); len(got) != 0 {
				t.Fatalf("Verify under a concurrent %s = %v (%+v), want no finding", tc.name, got, res.Findings)
			}
		})
	}
}
