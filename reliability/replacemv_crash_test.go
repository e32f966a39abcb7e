package reliability

import (
	"context"
	"fmt"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/maintenance"
)

const (
	replaceOldMV = "CREATE MATERIALIZED VIEW d.mv AS SELECT g, COUNT(*) AS n, SUM(v) AS sv FROM d.src2 GROUP BY g"
	replaceMV    = "CREATE OR REPLACE MATERIALIZED VIEW d.mv AS SELECT g, COUNT(*) AS n, SUM(v) AS sv FROM d.src GROUP BY g"
)

// TestCrash_ReplaceMaterializedViewAtEachStep (issue 18, atomic DDL): a
// server killed (SIGKILL) after any metastore transaction of CREATE OR
// REPLACE MATERIALIZED VIEW leaves the old view whole (its definition, its
// rows, its trigger on the old source) or the new one whole (pending or
// filled; a refresh fills it), never no view; the triggers follow the view
// that is there. On SQLite and on the Firestore emulator with
// fake-gcs-server.
func TestCrash_ReplaceMaterializedViewAtEachStep(t *testing.T) {
	for _, backend := range []string{"sqlite", "firestore"} {
		t.Run(backend, func(t *testing.T) { replaceMVAtEachStep(t, backend) })
	}
}

func replaceMVAtEachStep(t *testing.T, backend string) {
	ctx := context.Background()
	for step := int64(1); ; step++ {
		if step > 20 {
			t.Fatal("CREATE OR REPLACE MATERIALIZED VIEW ran more than 20 metastore transactions without finishing")
		}
		cfg := mvCrashWarehouse(t, backend)
		e := openConfig(t, cfg)
		for _, q := range []string{"CREATE DATABASE d", "CREATE TABLE d.src (g INT, v INT)", "INSERT INTO d.src VALUES (1, 10), (1, 11), (2, 20)",
			"CREATE TABLE d.src2 (g INT, v INT)", "INSERT INTO d.src2 VALUES (7, 70)", replaceOldMV} {
			embeddedQuery(t, e, q)
		}
		wantNew := fmt.Sprint(embeddedQuery(t, e, mvAnswer))
		wantOld := fmt.Sprint(embeddedQuery(t, e, mvRows))
		e.Close()

		finished := killedAtStep(t, cfg, step, replaceMV)

		e = openConfig(t, cfg)
		cat := e.Catalog()
		mv, err := cat.Dataset(ctx, catalogstore.Ident{Workspace: "main", Collection: "d", Name: "mv"})
		if err != nil {
			t.Fatalf("step %d (finished %v): the view is gone: %v", step, finished, err)
		}
		if !mv.IsMaterializedView() {
			t.Fatalf("step %d: a plain table is left under the view's name", step)
		}
		isNew := mv.SQL != "" && mv.SourceTables[0] == "d.src"
		if finished && !isNew {
			t.Fatalf("step %d: the statement finished but the view reads %v", step, mv.SourceTables)
		}
		want, trigOn, noTrig := wantOld, "d.src2", "d.src"
		if isNew {
			want, trigOn, noTrig = wantNew, "d.src", "d.src2"
			if mv.LastRefreshStatus == catalogstore.RefreshPending {
				embeddedQuery(t, e, "REFRESH MATERIALIZED VIEW d.mv")
			}
		}
		if got := fmt.Sprint(embeddedQuery(t, e, mvRows)); got != want {
			t.Fatalf("step %d (new %v): the view holds %s, want %s", step, isNew, got, want)
		}
		if got := embeddedQuery(t, e, "SHOW TRIGGERS FOR "+trigOn); len(got) != 1 {
			t.Fatalf("step %d: triggers on %s %v, want the view's one", step, trigOn, got)
		}
		if got := embeddedQuery(t, e, "SHOW TRIGGERS FOR "+noTrig); len(got) != 0 {
			t.Fatalf("step %d: triggers on %s %v, want none", step, noTrig, got)
		}
		for _, name := range []string{"src", "src2", "mv"} {
			ds, err := cat.Dataset(ctx, catalogstore.Ident{Workspace: "main", Collection: "d", Name: name})
			if err != nil {
				t.Fatal(err)
			}
			if res, err := maintenance.Verify(ctx, cat, ds); err != nil || len(res.Findings) != 0 {
				t.Fatalf("step %d: verify %s: %+v, %v", step, name, res, err)
			}
		}
		e.Close()
		if finished {
			t.Logf("CREATE OR REPLACE MATERIALIZED VIEW completed after %d metastore transactions; killed after each of the first %d", step, step-1)
			break
		}
	}
}
