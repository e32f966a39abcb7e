package reliability

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/maintenance"
)

// TestCrash_CreateTableAsSelectAtEachStep (issue 18, atomic DDL): a
// server killed (SIGKILL) after any metastore transaction of CREATE TABLE
// … AS SELECT leaves either nothing under the table's name or the table
// with all its rows — never an empty table — and the name takes a new
// table. With rows and with none (the statement then publishes the empty
// table itself); on SQLite and on the Firestore emulator with
// fake-gcs-server.
func TestCrash_CreateTableAsSelectAtEachStep(t *testing.T) {
	cases := []struct{ name, where string }{
		{"rows", ""},
		{"no-rows", " WHERE v < 0"},
	}
	for _, backend := range []string{"sqlite", "firestore"} {
		for _, c := range cases {
			t.Run(backend+"/"+c.name, func(t *testing.T) { ctasAtEachStep(t, backend, c.where) })
		}
	}
}

func ctasAtEachStep(t *testing.T, backend, where string) {
	ctx := context.Background()
	stmt := "CREATE TABLE d.c AS SELECT g, v FROM d.src" + where
	answer := "SELECT g, v FROM d.src" + where + " ORDER BY g, v"
	killedGone := 0
	for step := int64(1); ; step++ {
		if step > 20 {
			t.Fatal("CREATE TABLE … AS SELECT ran more than 20 metastore transactions without finishing")
		}
		cfg := mvCrashWarehouse(t, backend)
		e := openConfig(t, cfg)
		for _, q := range []string{"CREATE DATABASE d", "CREATE TABLE d.src (g INT, v INT)", "INSERT INTO d.src VALUES (1, 10), (1, 11), (2, 20)"} {
			embeddedQuery(t, e, q)
		}
		want := embeddedQuery(t, e, answer)
		e.Close()

		finished := killedAtStep(t, cfg, step, stmt)

		e = openConfig(t, cfg)
		cat := e.Catalog()
		ds, err := cat.Dataset(ctx, catalogstore.Ident{Workspace: "main", Collection: "d", Name: "c"})
		tables := fmt.Sprint(embeddedQuery(t, e, "SHOW TABLES FROM d"))
		switch {
		case errors.Is(err, catalogstore.ErrDatasetNotFound):
			if finished {
				t.Fatalf("step %d: the statement finished but the table does not exist", step)
			}
			if tables != "[src]" {
				t.Fatalf("step %d: SHOW TABLES lists %s, want only src", step, tables)
			}
			killedGone++
		case err != nil:
			t.Fatal(err)
		default:
			if got := embeddedQuery(t, e, "SELECT g, v FROM d.c ORDER BY g, v"); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("step %d (finished %v): the table holds %v, want %v", step, finished, got, want)
			}
			if res, err := maintenance.Verify(ctx, cat, ds); err != nil || len(res.Findings) != 0 {
				t.Fatalf("step %d: verify: %+v, %v", step, res, err)
			}
			embeddedQuery(t, e, "DROP TABLE d.c")
		}
		// The name takes a new table, with its rows.
		embeddedQuery(t, e, stmt)
		if got := embeddedQuery(t, e, "SELECT g, v FROM d.c ORDER BY g, v"); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("step %d: the table created again holds %v, want %v", step, got, want)
		}
		e.Close()
		if finished {
			t.Logf("CREATE TABLE … AS SELECT completed after %d metastore transactions; killed after each of the first %d (%d left nothing)", step, step-1, killedGone)
			break
		}
	}
	if killedGone == 0 {
		t.Error("no kill came before the table was published: the test did not stop between the creation and the rows")
	}
}
