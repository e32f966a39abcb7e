package engine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/sqlerr"
)

// SQLError converts any error to the *mysql.SQLError a MySQL client sees:
// lakesql's typed errors by sqlerr's table, everything else by GMS.
func SQLError(err error) *mysql.SQLError {
	if err == nil {
		return nil
	}
	return sqlerr.Remap(sql.CastSQLError(sqlerr.Wrap(err)))
}
