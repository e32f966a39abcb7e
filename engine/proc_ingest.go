package engine

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/maintenance"
	"github.com/lakesql/lakesql/sqlerr"
)

// ingestProcedures registers files and fills deferred statistics:
//
//	CALL add_files('c.t', 'key1,key2' [, deferred])
//	CALL hydrate_statistics('c.t')
func ingestProcedures() []sql.ExternalStoredProcedureDetails {
	addSchema := sql.Schema{
		{Name: "snapshot_id", Type: types.Int64},
		{Name: "added_files", Type: types.Int64},
		{Name: "added_records", Type: types.Int64},
		{Name: "stats", Type: types.LongText},
	}
	return []sql.ExternalStoredProcedureDetails{
		{Name: "add_files", Schema: addSchema, Function: procAddFiles},
		{Name: "add_files", Schema: addSchema, Function: procAddFilesDeferred},
		{Name: "hydrate_statistics", Function: procHydrate, Schema: sql.Schema{
			{Name: "pending_files", Type: types.Int64},
			{Name: "provided_files", Type: types.Int64},
			{Name: "failed_files", Type: types.Int64},
			{Name: "snapshot_id", Type: types.Int64, Nullable: true},
		}},
	}
}

func procAddFiles(ctx *sql.Context, table, paths string) (sql.RowIter, error) {
	return procAddFilesDeferred(ctx, table, paths, false)
}

func procAddFilesDeferred(ctx *sql.Context, table, paths string, deferred bool) (sql.RowIter, error) {
	env, ds, err := maintained(ctx, table, "given files")
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, p := range strings.Split(paths, ",") {
		if p = strings.TrimSpace(p); p != "" {
			keys = append(keys, p)
		}
	}
	if len(keys) == 0 {
		return nil, sqlerr.Wrap(fmt.Errorf("%w: add_files needs one or more object keys, comma-separated", catalogstore.ErrBadValue))
	}
	snap, err := env.cat.AddFiles(ctx, ds.Ident(), keys, env.sess.Author(), deferred)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	state := "provided"
	if deferred {
		state = "pending"
	}
	return sql.RowsToRowIter(sql.Row{snap.ID, snap.Summary.AddedFiles, snap.Summary.AddedRecords, state}), nil
}

func procHydrate(ctx *sql.Context, table string) (sql.RowIter, error) {
	env, ds, err := maintained(ctx, table, "hydrated")
	if err != nil {
		return nil, err
	}
	res, err := maintenance.HydrateStats(ctx, env.cat, ds, env.sess.Author())
	if err != nil {
		return nil, maintErr(ctx, env, err)
	}
	var snap any
	if res.Snapshot != nil {
		snap = res.Snapshot.ID
	}
	return sql.RowsToRowIter(sql.Row{int64(res.Pending), int64(res.Provided), int64(res.Failed), snap}), nil
}
