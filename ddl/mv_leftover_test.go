package ddl

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/meta/sqlite"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// TestDropLeftover_KilledStatement: a CREATE MATERIALIZED VIEW whose fill
// fails because it was killed (KILL QUERY, KILL CONNECTION: its context
// is cancelled) still drops the view it created, with its triggers; a
// view created again under the name since is left alone.
func TestDropLeftover_KilledStatement(t *testing.T) {
	ctx := context.Background()
	m, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); b.Close() })
	cat := catalogstore.New(m, b, catalogstore.Options{NoAudit: true})
	if _, err := cat.CreateWorkspace(ctx, "w", "tester"); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.CreateCollection(ctx, "w", "c", "tester", catalogstore.CreateCollectionOptions{}); err != nil {
		t.Fatal(err)
	}
	src := catalogstore.Ident{Workspace: "w", Collection: "c", Name: "src"}
	id := catalogstore.Ident{Workspace: "w", Collection: "c", Name: "mv"}
	cols := schema.Schema{Columns: []schema.Column{{Name: "a", Type: schema.Type{Kind: schema.Int64}}}}
	if _, err := cat.CreateDataset(ctx, src, cols, "tester", catalogstore.CreateDatasetOptions{}); err != nil {
		t.Fatal(err)
	}
	spec := catalogstore.MaterializedViewSpec{SQL: "SELECT a FROM src", Sources: []catalogstore.Ident{src}}
	mv, err := cat.CreateMaterializedView(ctx, id, cols, "tester", spec)
	if err != nil {
		t.Fatal(err)
	}
	killed, cancel := context.WithCancel(ctx)
	cancel()
	dropLeftover(sql.NewContext(killed), cat, mv, "tester")
	if _, err := cat.Dataset(ctx, id); !errors.Is(err, catalogstore.ErrDatasetNotFound) {
		t.Fatalf("the view of a killed CREATE MATERIALIZED VIEW: %v, want it dropped", err)
	}
	if trigs, err := cat.Triggers(ctx, src); err != nil || len(trigs) != 0 {
		t.Fatalf("triggers left on the source: %+v, %v", trigs, err)
	}
	again, err := cat.CreateMaterializedView(ctx, id, cols, "tester", spec)
	if err != nil {
		t.Fatal(err)
	}
	dropLeftover(sql.NewContext(ctx), cat, mv, "tester") // the old incarnation again
	if cur, err := cat.Dataset(ctx, id); err != nil || cur.UUID != again.UUID {
		t.Fatalf("a later view of the name: %+v, %v; want it kept", cur, err)
	}
}
