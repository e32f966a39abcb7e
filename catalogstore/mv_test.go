package catalogstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/catalogstore/meta/metatest"
)

func (e *env) id(coll, name string) catalogstore.Ident {
	return catalogstore.Ident{Workspace: e.ws, Collection: coll, Name: name}
}

// mv creates dataset coll.name (as the CTAS would) and registers it as a
// materialized view over sources.
func (e *env) mv(t *testing.T, coll, name string, sources ...catalogstore.Ident) (*catalogstore.Dataset, error) {
	t.Helper()
	e.dataset(t, coll, name)
	return e.cat.RegisterMaterializedView(context.Background(), e.id(coll, name), "tester", catalogstore.MaterializedViewSpec{
		SQL: "SELECT * FROM ...", Sources: sources, SQLWorkspace: e.ws, SQLDatabase: coll,
	})
}

func (e *env) triggerCount(t *testing.T, id catalogstore.Ident) int {
	t.Helper()
	ds, err := e.cat.Dataset(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	trigs, err := e.cat.Triggers(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if ds.TriggerCount != len(trigs) {
		t.Fatalf("%s: trigger-count %d, but %d trigger documents", id.Short(), ds.TriggerCount, len(trigs))
	}
	return len(trigs)
}

func TestMV_RegisterWritesViewAndOneTriggerPerSource(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		a, b := e.dataset(t, "c", "a"), e.dataset(t, "c", "b")
		mv, err := e.mv(t, "mart", "ab", a.Ident(), b.Ident(), a.Ident())
		if err != nil {
			t.Fatal(err)
		}
		if !mv.IsMaterializedView() || strings.Join(mv.SourceTables, ",") != "c.a,c.b" || mv.StatementID == "" || mv.LastRefreshStatus != "ok" {
			t.Fatalf("registered view %+v", mv)
		}
		got, err := e.cat.MaterializedView(ctx, mv.Ident())
		if err != nil || got.SQL != "SELECT * FROM ..." || got.SQLDatabase != "mart" {
			t.Fatalf("reloaded %+v, %v", got, err)
		}
		stmts, err := e.cat.MaterializedViewStatements(ctx, mv.Ident())
		if err != nil || len(stmts) != 1 || stmts[0].ID != mv.StatementID {
			t.Fatalf("statements %+v, %v", stmts, err)
		}
		for _, src := range []*catalogstore.Dataset{a, b} {
			trigs, err := e.cat.Triggers(ctx, src.Ident())
			if err != nil || len(trigs) != 1 {
				t.Fatalf("triggers of %s: %+v, %v", src.Name, trigs, err)
			}
			tr := trigs[0]
			if tr.Name != "refresh__mart__ab" || tr.Kind != catalogstore.TriggerKindRefresh || tr.TargetView != mv.Ident().String() || tr.StatementID != mv.StatementID {
				t.Fatalf("trigger %+v", tr)
			}
			if e.triggerCount(t, src.Ident()) != 1 {
				t.Fatal("trigger count")
			}
		}
		mvs, err := e.cat.ListMaterializedViews(ctx, e.ws, "mart")
		if err != nil || len(mvs) != 1 || mvs[0].Name != "ab" {
			t.Fatalf("list %+v, %v", mvs, err)
		}
		if mvs, _ := e.cat.ListMaterializedViews(ctx, e.ws, "c"); len(mvs) != 0 {
			t.Fatalf("plain datasets listed as views: %+v", mvs)
		}
		refs, err := e.cat.Refreshes(ctx, mv.Ident())
		if err != nil || len(refs) != 1 || refs[0].Trigger != "create" {
			t.Fatalf("the fill is the first refresh: %+v, %v", refs, err)
		}
		// A second view on the same source: two triggers, count 2.
		if _, err := e.mv(t, "mart", "a2", a.Ident()); err != nil {
			t.Fatal(err)
		}
		if e.triggerCount(t, a.Ident()) != 2 {
			t.Fatal("trigger count after a second view")
		}
	})
}

// assertNothingRegistered checks that a refused registration left no
// trigger and no view.
func assertNothingRegistered(t *testing.T, e *env, mv catalogstore.Ident, sources ...catalogstore.Ident) {
	t.Helper()
	ds, err := e.cat.Dataset(context.Background(), mv)
	if err == nil && ds.IsMaterializedView() {
		t.Fatalf("%s was registered", mv.Short())
	}
	for _, s := range sources {
		trigs, err := e.cat.Triggers(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range trigs {
			if tr.TargetView == mv.String() {
				t.Fatalf("a trigger for %s was left on %s", mv.Short(), s.Short())
			}
		}
	}
}

func TestMV_NoStacking(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		src := e.dataset(t, "c", "src")
		inner, err := e.mv(t, "c", "inner", src.Ident())
		if err != nil {
			t.Fatal(err)
		}
		// A source may not be a view.
		_, err = e.mv(t, "c", "outer", inner.Ident())
		if !errors.Is(err, catalogstore.ErrNotSupported) || !strings.Contains(err.Error(), "do not stack") {
			t.Fatalf("stacked registration: %v", err)
		}
		assertNothingRegistered(t, e, e.id("c", "outer"), inner.Ident())
		// Nor may a dataset a view reads become one.
		err = e.cat.CheckMaterializedView(context.Background(), src.Ident(), []catalogstore.Ident{e.dataset(t, "c", "other").Ident()})
		if !errors.Is(err, catalogstore.ErrNotSupported) || !strings.Contains(err.Error(), "read by materialized view c.inner") {
			t.Fatalf("a source becoming a view: %v", err)
		}
		// A missing source, and no source at all.
		if _, err := e.mv(t, "c", "m3", e.id("c", "nowhere")); !errors.Is(err, catalogstore.ErrDatasetNotFound) {
			t.Fatalf("missing source: %v", err)
		}
		if _, err := e.mv(t, "c", "m4"); !errors.Is(err, catalogstore.ErrNotSupported) {
			t.Fatalf("no source: %v", err)
		}
		if _, err := e.mv(t, "c", "m5", e.id("c", "m5")); !errors.Is(err, catalogstore.ErrNotSupported) || !strings.Contains(err.Error(), "cycle") {
			t.Fatalf("a view reading itself: %v", err)
		}
	})
}

// TestMV_CycleWalk: the transitive walk over source-tables is the backstop
// for documents written out of band.
func TestMV_CycleWalk(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		a := e.dataset(t, "c", "a")
		b := e.dataset(t, "c", "b")
		x := e.dataset(t, "c", "x")
		// Out of band: b lists x, x lists a, as if they were old views.
		for _, edit := range [][2]string{{"b", "c.x"}, {"x", "c.a"}} {
			path := e.ws + "/c/datasets/" + edit[0]
			if err := e.m.Merge(ctx, path, map[string]any{"source-tables": []any{edit[1]}}); err != nil {
				t.Fatal(err)
			}
		}
		_ = x
		err := e.cat.CheckMaterializedView(ctx, a.Ident(), []catalogstore.Ident{b.Ident()})
		if !errors.Is(err, catalogstore.ErrNotSupported) || !strings.Contains(err.Error(), "cycle") ||
			!strings.Contains(err.Error(), "c.b -> "+e.ws+".c.x -> "+e.ws+".c.a") {
			t.Fatalf("cycle: %v", err)
		}
	})
}

func TestMV_RenameRefused(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		src := e.dataset(t, "c", "src")
		mv, err := e.mv(t, "c", "mv", src.Ident())
		if err != nil {
			t.Fatal(err)
		}
		err = e.cat.RenameDataset(ctx, mv.Ident(), e.id("c", "mv2"), "tester")
		if !errors.Is(err, catalogstore.ErrNotSupported) || !strings.Contains(err.Error(), "drop and recreate") {
			t.Fatalf("rename a view: %v", err)
		}
		err = e.cat.RenameDataset(ctx, src.Ident(), e.id("c", "src2"), "tester")
		if !errors.Is(err, catalogstore.ErrNotSupported) || !strings.Contains(err.Error(), "triggers") {
			t.Fatalf("rename a source: %v", err)
		}
	})
}

func TestMV_DropRules(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		src := e.dataset(t, "c", "src")
		other := e.dataset(t, "c", "other")
		mv, err := e.mv(t, "mart", "mv", src.Ident(), other.Ident())
		if err != nil {
			t.Fatal(err)
		}
		mv2, err := e.mv(t, "mart", "mv2", src.Ident())
		if err != nil {
			t.Fatal(err)
		}
		// A source a view reads cannot be dropped; the error names the view.
		err = e.cat.DropDataset(ctx, src.Ident(), "tester")
		if !errors.Is(err, catalogstore.ErrNotSupported) || !strings.Contains(err.Error(), "mart.mv") {
			t.Fatalf("drop a source: %v", err)
		}
		if err := e.cat.DropMaterializedView(ctx, src.Ident(), "tester"); !errors.Is(err, catalogstore.ErrNotMaterializedView) {
			t.Fatalf("DROP MATERIALIZED VIEW of a table: %v", err)
		}
		// DROP TABLE on a view removes every trigger it owns.
		if err := e.cat.DropDataset(ctx, mv.Ident(), "tester"); err != nil {
			t.Fatal(err)
		}
		if e.triggerCount(t, other.Ident()) != 0 || e.triggerCount(t, src.Ident()) != 1 {
			t.Fatal("DROP TABLE left the view's triggers")
		}
		// DROP MATERIALIZED VIEW too.
		if err := e.cat.DropMaterializedView(ctx, mv2.Ident(), "tester"); err != nil {
			t.Fatal(err)
		}
		if e.triggerCount(t, src.Ident()) != 0 {
			t.Fatal("DROP MATERIALIZED VIEW left its trigger")
		}
		if _, err := e.cat.Dataset(ctx, mv2.Ident()); !errors.Is(err, catalogstore.ErrDatasetNotFound) {
			t.Fatalf("view still there: %v", err)
		}
		if subs, _ := e.m.Collections(ctx, e.ws+"/mart/datasets/mv2"); len(subs) != 0 {
			t.Fatalf("sub-documents left: %v", subs)
		}
		if err := e.cat.DropMaterializedView(ctx, mv2.Ident(), "tester"); !errors.Is(err, catalogstore.ErrDatasetNotFound) {
			t.Fatalf("second drop: %v", err)
		}
		if err := e.cat.DropDataset(ctx, src.Ident(), "tester"); err != nil {
			t.Fatalf("with no view reading it the source drops: %v", err)
		}
	})
}

// TestMV_EgressAtCreation: a view over another workspace needs that
// workspace's egress_protection OFF; a view within its workspace never.
func TestMV_EgressAtCreation(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		other := "o" + metatest.UniqueName()
		if _, err := e.cat.CreateWorkspace(ctx, other, "owner"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.cat.CreateCollection(ctx, other, "raw", "owner", catalogstore.CreateCollectionOptions{}); err != nil {
			t.Fatal(err)
		}
		foreign := catalogstore.Ident{Workspace: other, Collection: "raw", Name: "events"}
		if _, err := e.cat.CreateDataset(ctx, foreign, testSchema, "owner", catalogstore.CreateDatasetOptions{}); err != nil {
			t.Fatal(err)
		}
		local := e.dataset(t, "c", "local")
		_, err := e.mv(t, "c", "m", foreign, local.Ident())
		var ee *catalogstore.EgressError
		if !errors.Is(err, catalogstore.ErrEgressRestricted) || !errors.As(err, &ee) || len(ee.Refused) != 1 ||
			!strings.Contains(err.Error(), "ALTER WORKSPACE "+other+" SET egress_protection TO OFF") {
			t.Fatalf("cross-workspace view with egress on: %v", err)
		}
		assertNothingRegistered(t, e, e.id("c", "m"), foreign, local.Ident())
		// The local workspace's own flag (on) never matters for its own data.
		if _, err := e.mv(t, "c", "m2", local.Ident()); err != nil {
			t.Fatal(err)
		}
		if err := e.cat.SetWorkspaceProperty(ctx, other, catalogstore.PropEgressProtection, false, "owner"); err != nil {
			t.Fatal(err)
		}
		mv, err := e.cat.RegisterMaterializedView(ctx, e.id("c", "m"), "tester", catalogstore.MaterializedViewSpec{SQL: "x", Sources: []catalogstore.Ident{foreign, local.Ident()}})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(mv.SourceTables, ","); got != "c.local,"+foreign.String() && got != foreign.String()+",c.local" {
			t.Fatalf("source-tables %v: relative inside the workspace, qualified outside", mv.SourceTables)
		}
		trigs, _ := e.cat.Triggers(ctx, foreign)
		if len(trigs) != 1 || trigs[0].Name != "refresh__"+e.ws+"__c__m" {
			t.Fatalf("trigger on the foreign source %+v", trigs)
		}
		// Dropping the foreign source is refused, naming the view.
		if err := e.cat.DropDataset(ctx, foreign, "owner"); err == nil || !strings.Contains(err.Error(), e.ws+".c.m") {
			t.Fatalf("drop a foreign source: %v", err)
		}
	})
}

// TestMV_DropWorkspaceTwoStep: deletion protection refuses, then the drop
// removes views first (a view in a later collection reads an earlier one's
// dataset), then datasets, collections and storage.
func TestMV_DropWorkspaceTwoStep(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		src := e.dataset(t, "a", "src")
		if _, err := e.mv(t, "z", "mv", src.Ident()); err != nil {
			t.Fatal(err)
		}
		if _, err := e.mv(t, "a", "mv", src.Ident()); err != nil {
			t.Fatal(err)
		}
		if err := e.cat.DropWorkspace(ctx, e.ws, "tester", true); !errors.Is(err, catalogstore.ErrDeletionProtected) {
			t.Fatalf("drop with deletion protection on: %v", err)
		}
		if e.triggerCount(t, src.Ident()) != 2 {
			t.Fatal("a refused drop changed something")
		}
		if err := e.cat.SetWorkspaceProperty(ctx, e.ws, catalogstore.PropDeletionProtection, false, "tester"); err != nil {
			t.Fatal(err)
		}
		if err := e.cat.DropWorkspace(ctx, e.ws, "tester", true); err != nil {
			t.Fatal(err)
		}
		if _, err := e.cat.Workspace(ctx, e.ws); !errors.Is(err, catalogstore.ErrWorkspaceNotFound) {
			t.Fatalf("workspace still there: %v", err)
		}
		if colls, _ := e.m.Collections(ctx, e.ws+"/a"); len(colls) != 0 {
			t.Fatalf("documents left: %v", colls)
		}
		if objs, _ := e.b.List(ctx, e.ws+"/"); len(objs) != 0 {
			t.Fatalf("storage left: %d objects", len(objs))
		}
	})
}

// TestMV_DropWorkspaceReadByAnother: a view in another workspace pins its
// foreign source: dropping the source's workspace is refused, naming it.
func TestMV_DropWorkspaceReadByAnother(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		other := "o" + metatest.UniqueName()
		if _, err := e.cat.CreateWorkspace(ctx, other, "owner"); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{catalogstore.PropEgressProtection, catalogstore.PropDeletionProtection} {
			if err := e.cat.SetWorkspaceProperty(ctx, other, p, false, "owner"); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.cat.CreateCollection(ctx, other, "raw", "owner", catalogstore.CreateCollectionOptions{}); err != nil {
			t.Fatal(err)
		}
		foreign := catalogstore.Ident{Workspace: other, Collection: "raw", Name: "events"}
		if _, err := e.cat.CreateDataset(ctx, foreign, testSchema, "owner", catalogstore.CreateDatasetOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.mv(t, "c", "m", foreign); err != nil {
			t.Fatal(err)
		}
		if err := e.cat.DropWorkspace(ctx, other, "owner", true); err == nil || !strings.Contains(err.Error(), e.ws+".c.m") {
			t.Fatalf("drop a workspace a foreign view reads: %v", err)
		}
	})
}

// TestMV_RecordRefresh: a refresh's record and the view's last-refresh
// fields, and staleness against the sources.
func TestMV_RecordRefresh(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		src := e.dataset(t, "c", "src")
		mv, err := e.mv(t, "c", "mv", src.Ident())
		if err != nil {
			t.Fatal(err)
		}
		r := catalogstore.Refresh{ExecutionID: catalogstore.NewExecutionID(), Status: catalogstore.RefreshDenied, Trigger: "refresh__c__mv",
			Author: "bob", SourceSnapshots: map[string]int64{"c.src": 0}, Message: "no rights"}
		if err := e.cat.RecordRefresh(ctx, mv.Ident(), r); err != nil {
			t.Fatal(err)
		}
		got, _ := e.cat.MaterializedView(ctx, mv.Ident())
		if got.LastRefreshStatus != "denied" || got.LastRefreshExecutionID != r.ExecutionID || got.LastRefreshMessage != "no rights" {
			t.Fatalf("last refresh %+v", got.MVState)
		}
		if err := e.cat.RecordRefresh(ctx, src.Ident(), r); !errors.Is(err, catalogstore.ErrNotMaterializedView) {
			t.Fatalf("record on a table: %v", err)
		}
		refs, err := e.cat.Refreshes(ctx, mv.Ident())
		if err != nil || len(refs) != 2 || refs[1].Status != "denied" || refs[1].Stale {
			t.Fatalf("refreshes %+v, %v", refs, err)
		}
		if _, err := e.cat.Refreshes(ctx, src.Ident()); !errors.Is(err, catalogstore.ErrNotMaterializedView) {
			t.Fatalf("refreshes of a table: %v", err)
		}
	})
}

// TestMV_UpdateDatasetKeepsState: rewriting a dataset document (ALTER
// TABLE, properties) keeps its trigger count and refresh state.
func TestMV_UpdateDatasetKeepsState(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		src := e.dataset(t, "c", "src")
		mv, err := e.mv(t, "c", "mv", src.Ident())
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []catalogstore.Ident{src.Ident(), mv.Ident()} {
			if _, err := e.cat.UpdateDataset(ctx, id, "tester", func(ds *catalogstore.Dataset) error {
				ds.Properties = map[string]string{"k": "v"}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		if e.triggerCount(t, src.Ident()) != 1 {
			t.Fatal("trigger count lost")
		}
		got, _ := e.cat.MaterializedView(ctx, mv.Ident())
		if got.LastRefreshStatus != "ok" || got.SQLDatabase != "c" {
			t.Fatalf("view state lost: %+v", got.MVState)
		}
		var raw meta.Doc
		if raw, err = e.m.Get(ctx, e.ws+"/c/datasets/src"); err != nil || raw.Data["trigger-count"] == nil {
			t.Fatalf("trigger-count is a document field: %v %v", raw.Data, err)
		}
	})
}
