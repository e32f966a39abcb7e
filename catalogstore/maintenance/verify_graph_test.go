package maintenance

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

// mv registers a materialized view named name over sources (created and
// filled like CREATE MATERIALIZED VIEW does, minus the SELECT).
func (e *env) mv(t *testing.T, name string, sources ...*catalogstore.Dataset) *catalogstore.Dataset {
	t.Helper()
	ds := e.dataset(t, name, catalogstore.CreateDatasetOptions{})
	var ids []catalogstore.Ident
	for _, s := range sources {
		ids = append(ids, s.Ident())
	}
	out, err := e.cat.RegisterMaterializedView(context.Background(), ds.Ident(), "tester", catalogstore.MaterializedViewSpec{SQL: "SELECT id, name FROM " + sources[0].Name, Sources: ids})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func triggerDoc(src *catalogstore.Dataset, name string) string {
	return meta.Join(src.DocRoot(), "triggers", name)
}

// checks returns the findings' checks, sorted, and fails unless every
// finding was also raised as an alert.
func checks(t *testing.T, e *env, res *VerifyResult, alertsBefore int) []string {
	t.Helper()
	var out []string
	for _, f := range res.Findings {
		if !catalogstore.IsAlertable(f.Err) {
			t.Errorf("finding %s is not alertable", f.Check)
		}
		out = append(out, f.Check)
	}
	if n := len(e.alertsSeen()) - alertsBefore; n != len(res.Findings) {
		t.Errorf("%d alerts for %d findings", n, len(res.Findings))
	}
	slices.Sort(out)
	return out
}

func TestVerify_RefreshGraphHealthy(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	src := e.dataset(t, "src", catalogstore.CreateDatasetOptions{})
	e.appendIDs(t, src, 1, 2)
	view := e.mv(t, "view", src)
	for _, ds := range []*catalogstore.Dataset{src, view} {
		res, err := Verify(ctx, e.cat, ds)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 0 {
			t.Fatalf("%s: findings %+v", ds.Name, res.Findings)
		}
	}
}

// TestVerify_TriggerCycleFound: two views that read each other, with
// triggers both ways (written out of band: registration refuses them),
// are a cycle from either end, as well as a stacking registration.
func TestVerify_TriggerCycleFound(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	src := e.dataset(t, "src", catalogstore.CreateDatasetOptions{})
	m1, m2 := e.mv(t, "m1", src), e.mv(t, "m2", src)
	for _, pair := range [][2]*catalogstore.Dataset{{m1, m2}, {m2, m1}} {
		from, to := pair[0], pair[1]
		name := catalogstore.TriggerName(from.Ident(), to.Ident())
		if err := e.m.Set(ctx, triggerDoc(from, name), map[string]any{
			"name": name, "kind": catalogstore.TriggerKindRefresh, "source": from.Ident().String(), "target-view": to.Ident().String(),
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.cat.UpdateDataset(ctx, to.Ident(), "tester", func(d *catalogstore.Dataset) error {
			d.SourceTables = append(d.SourceTables, from.Ident().Short())
			d.TriggerCount = 1
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	before := len(e.alertsSeen())
	res, err := Verify(ctx, e.cat, m1)
	if err != nil {
		t.Fatal(err)
	}
	got := checks(t, e, res, before)
	if want := []string{CheckMVRegistered, CheckTriggerCycle, CheckTriggerCycle}; !slices.Equal(got, want) {
		t.Fatalf("checks %v, want %v: %+v", got, want, res.Findings)
	}
	var cycles []string
	for _, f := range res.Findings {
		if f.Check == CheckTriggerCycle {
			cycles = append(cycles, f.Detail)
		}
	}
	path := m1.Ident().String() + " -> " + m2.Ident().String() + " -> " + m1.Ident().String()
	if !strings.Contains(cycles[0], "refresh triggers") || !strings.Contains(cycles[0], path) || !strings.Contains(cycles[1], "source-tables") || !strings.Contains(cycles[1], path) {
		t.Fatalf("cycle findings %q", cycles)
	}
	// The plain source is on no cycle.
	res, err = Verify(ctx, e.cat, src)
	if err != nil || len(res.Findings) != 0 {
		t.Fatalf("source: %+v %v", res.Findings, err)
	}
}

// TestVerify_InconsistentRegistrations: a view missing its trigger, a
// trigger whose view is gone, and a trigger-count that disagrees.
func TestVerify_InconsistentRegistrations(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.dataset(t, "a", catalogstore.CreateDatasetOptions{})
	b := e.dataset(t, "b", catalogstore.CreateDatasetOptions{})
	view := e.mv(t, "view", a, b)
	// b loses the view's trigger: commits to b would never refresh it.
	if err := e.m.Delete(ctx, triggerDoc(b, catalogstore.TriggerName(b.Ident(), view.Ident()))); err != nil {
		t.Fatal(err)
	}
	before := len(e.alertsSeen())
	res, err := Verify(ctx, e.cat, view)
	if err != nil {
		t.Fatal(err)
	}
	if got := checks(t, e, res, before); !slices.Equal(got, []string{CheckMVRegistered}) || res.Findings[0].Path != b.Ident().String() || !strings.Contains(res.Findings[0].Detail, "no refresh trigger") {
		t.Fatalf("view findings %+v", res.Findings)
	}
	// b still counts one trigger; it has none now.
	before = len(e.alertsSeen())
	res, err = Verify(ctx, e.cat, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := checks(t, e, res, before); !slices.Equal(got, []string{CheckTriggerCount}) {
		t.Fatalf("b findings %+v", res.Findings)
	}
	// a's trigger points at a view that is gone.
	gone := catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: "gone"}
	name := catalogstore.TriggerName(a.Ident(), gone)
	if err := e.m.Set(ctx, triggerDoc(a, name), map[string]any{
		"name": name, "kind": catalogstore.TriggerKindRefresh, "source": a.Ident().String(), "target-view": gone.String(),
	}); err != nil {
		t.Fatal(err)
	}
	before = len(e.alertsSeen())
	res, err = Verify(ctx, e.cat, a)
	if err != nil {
		t.Fatal(err)
	}
	got := checks(t, e, res, before)
	if !slices.Equal(got, []string{CheckTriggerCount, CheckTriggerTarget}) {
		t.Fatalf("a findings %+v", res.Findings)
	}
	for _, f := range res.Findings {
		if f.Check == CheckTriggerTarget && (!strings.Contains(f.Detail, "does not exist") || f.Path != triggerDoc(a, name)) {
			t.Fatalf("trigger-target finding %+v", f)
		}
	}
}
