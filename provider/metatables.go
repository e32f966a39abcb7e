package provider

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/sqlerr"
)

// metadataTable resolves `t$kind` (snapshots, history, files, ...). asOf
// is the AS OF value, if any. Metadata tables are hidden from SHOW TABLES.
func (d *Database) metadataTable(ctx *sql.Context, base, kind string, asOf any) (sql.Table, bool, error) {
	return nil, false, sqlerr.Wrap(fmt.Errorf("%w: metadata table %s$%s", catalogstore.ErrNotSupported, base, kind))
}
