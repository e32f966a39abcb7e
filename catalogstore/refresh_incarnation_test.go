package catalogstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
)

// TestRecordRefresh_OtherIncarnationRefused (issue 18): a refresh that
// ran for a materialized view dropped and created again under its name
// meanwhile is not recorded on the new view (its status and refresh
// history stay its own); recorded on its own view it lands.
func TestRecordRefresh_OtherIncarnationRefused(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		src := e.dataset(t, "c", "src")
		old, err := e.mv(t, "c", "mv", src.Ident())
		if err != nil {
			t.Fatal(err)
		}
		if err := e.cat.RecordRefresh(ctx, old.Ident(), catalogstore.Refresh{Status: catalogstore.RefreshOK, Trigger: "manual", ViewUUID: old.UUID}); err != nil {
			t.Fatalf("refresh recorded on its own view = %v", err)
		}
		if err := e.cat.DropMaterializedView(ctx, old.Ident(), "a"); err != nil {
			t.Fatal(err)
		}
		cur, err := e.mv(t, "c", "mv", src.Ident())
		if err != nil {
			t.Fatal(err)
		}
		before, err := e.cat.Refreshes(ctx, cur.Ident())
		if err != nil {
			t.Fatal(err)
		}
		err = e.cat.RecordRefresh(ctx, old.Ident(), catalogstore.Refresh{Status: catalogstore.RefreshFailed, Trigger: "manual", Message: "stale", ViewUUID: old.UUID})
		if !errors.Is(err, catalogstore.ErrIncarnationChanged) {
			t.Fatalf("refresh of the dropped view recorded on the new one: %v", err)
		}
		now, err := e.cat.Dataset(ctx, cur.Ident())
		if err != nil {
			t.Fatal(err)
		}
		after, err := e.cat.Refreshes(ctx, cur.Ident())
		if err != nil {
			t.Fatal(err)
		}
		if now.LastRefreshStatus != cur.LastRefreshStatus || now.LastRefreshMessage == "stale" || len(after) != len(before) {
			t.Fatalf("the new view took the old refresh: status %q (was %q), %d refreshes (were %d)", now.LastRefreshStatus, cur.LastRefreshStatus, len(after), len(before))
		}
	})
}
