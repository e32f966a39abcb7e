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

// TestDropLeftover_KilledStatement: a CREATE MATERIALIZED VIEW that fails
// because it was killed (KILL QUERY, KILL CONNECTION: its context is
// cancelled) after its CTAS still drops the table the CTAS made; the
// randomized schedule found a plain table left under the view's name.
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
	id := catalogstore.Ident{Workspace: "w", Collection: "c", Name: "mv"}
	cols := schema.Schema{Columns: []schema.Column{{Name: "a", Type: schema.Type{Kind: schema.Int64}}}}
	if _, err := cat.CreateDataset(ctx, id, cols, "tester", catalogstore.CreateDatasetOptions{}); err != nil {
		t.Fatal(err)
	}
	killed, cancel := context.WithCancel(ctx)
	cancel()
	dropLeftover(sql.NewContext(killed), cat, id, "tester")
	if _, err := cat.Dataset(ctx, id); !errors.Is(err, catalogstore.ErrDatasetNotFound) {
		t.Fatalf("the CTAS table of a killed CREATE MATERIALIZED VIEW: %v, want it dropped", err)
	}
}
