package engine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore/iceberg"
	"github.com/lakesql/lakesql/sqlerr"
)

// Iceberg interop procedures.
//
//	CALL iceberg_metadata('c.t')   the current Iceberg metadata.json, written if missing
func icebergProcedures() []sql.ExternalStoredProcedureDetails {
	return []sql.ExternalStoredProcedureDetails{
		{Name: "iceberg_metadata", Function: procIcebergMetadata, Schema: sql.Schema{
			{Name: "metadata_location", Type: types.LongText},
			{Name: "version", Type: types.Int64},
			{Name: "written", Type: types.Boolean},
		}},
	}
}

func procIcebergMetadata(ctx *sql.Context, table string) (sql.RowIter, error) {
	env, ds, err := tableEnv(ctx, table)
	if err != nil {
		return nil, err
	}
	res, err := iceberg.Export(ctx, env.cat, ds)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	return sql.RowsToRowIter(sql.Row{res.MetadataLocation, int64(res.Version), res.Written}), nil
}
