package engine

import (
	"context"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/provider"
)

// RefreshesTableForTest returns `mv$refreshes` of db.mv in the default
// workspace through the provider's constructor, with a context to read it.
func RefreshesTableForTest(ctx context.Context, e *Engine, db, mv string) (sql.Table, *sql.Context, error) {
	sess := e.subSession(sql.Client{User: "root"}, e.cfg.Workspace, db)
	sctx := e.queryContext(ctx, sess, "")
	d, err := e.prov.Database(sctx, db)
	if err != nil {
		return nil, nil, err
	}
	ds, err := e.cat.Dataset(ctx, catalogstore.Ident{Workspace: e.cfg.Workspace, Collection: db, Name: mv})
	if err != nil {
		return nil, nil, err
	}
	t, err := d.(*provider.Database).NewRefreshesTable(ds)
	return t, sctx, err
}
