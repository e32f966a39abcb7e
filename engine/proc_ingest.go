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
//	CALL add_files('c.t', 'ref1,ref2' [, deferred])
//
// A ref is a warehouse key, an absolute local path, a file:// or gs://
// URI, or a glob of any of these. Files in the warehouse's store are
// registered in place (and never deleted by lakesql); others are copied
// in. Local paths outside the warehouse need FILE and secure_file_priv;
// other buckets need FILE.
//
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
	refs := env.sess.e.prov.FileRefs()
	var srcs []catalogstore.FileSource
	for _, p := range strings.Split(paths, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		got, err := refs.Resolve(ctx, p)
		if err != nil {
			return nil, sqlerr.Wrap(err)
		}
		srcs = append(srcs, got...)
	}
	if len(srcs) == 0 {
		return nil, sqlerr.Wrap(fmt.Errorf("%w: add_files needs one or more files (warehouse keys, absolute paths, file:// or gs:// URIs, globs), comma-separated", catalogstore.ErrBadValue))
	}
	snap, err := env.cat.AddFileSources(ctx, ds.Ident(), srcs, env.sess.Author(), deferred)
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
