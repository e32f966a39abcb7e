package engine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/sqlerr"
)

// History procedures: tags, rollback and consumer offsets.
//
//	CALL create_tag('c.t', 'name' [, snapshot])   tag the head or a snapshot
//	CALL drop_tag('c.t', 'name')
//	CALL rollback_to_snapshot('c.t', snapshot)    a new snapshot with the old one's files
//	CALL commit_offset('consumer', 'c.t', snapshot)
func historyProcedures() []sql.ExternalStoredProcedureDetails {
	tagSchema := sql.Schema{
		{Name: "tag", Type: types.LongText},
		{Name: "snapshot_id", Type: types.Int64},
	}
	return []sql.ExternalStoredProcedureDetails{
		{Name: "create_tag", Schema: tagSchema, Function: procCreateTagHead},
		{Name: "create_tag", Schema: tagSchema, Function: procCreateTag},
		{Name: "drop_tag", Schema: tagSchema, Function: procDropTag},
		{Name: "rollback_to_snapshot", Function: procRollback, Schema: sql.Schema{
			{Name: "previous_snapshot_id", Type: types.Int64},
			{Name: "current_snapshot_id", Type: types.Int64},
		}},
		{Name: "commit_offset", Function: procCommitOffset, Schema: sql.Schema{
			{Name: "consumer", Type: types.LongText},
			{Name: "table_uuid", Type: types.LongText},
			{Name: "previous_snapshot_id", Type: types.Int64},
			{Name: "snapshot_id", Type: types.Int64},
		}},
	}
}

func procCreateTagHead(ctx *sql.Context, table, name string) (sql.RowIter, error) {
	return procCreateTag(ctx, table, name, 0)
}

func procCreateTag(ctx *sql.Context, table, name string, snapshot int64) (sql.RowIter, error) {
	env, ds, err := tableEnv(ctx, table)
	if err != nil {
		return nil, err
	}
	tag, err := env.cat.CreateTag(ctx, ds.Ident(), name, snapshot, env.sess.Author())
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	return sql.RowsToRowIter(sql.Row{tag.Name, tag.SnapshotID}), nil
}

func procDropTag(ctx *sql.Context, table, name string) (sql.RowIter, error) {
	env, ds, err := tableEnv(ctx, table)
	if err != nil {
		return nil, err
	}
	tag, err := env.cat.DropTag(ctx, ds.Ident(), name, env.sess.Author())
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	return sql.RowsToRowIter(sql.Row{tag.Name, tag.SnapshotID}), nil
}

func procRollback(ctx *sql.Context, table string, snapshot int64) (sql.RowIter, error) {
	env, ds, err := tableEnv(ctx, table)
	if err != nil {
		return nil, err
	}
	snap, err := env.cat.RollbackToSnapshot(ctx, ds.Ident(), snapshot, env.sess.Author())
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	return sql.RowsToRowIter(sql.Row{ds.CurrentSnapshotID, snap.ID}), nil
}

func procCommitOffset(ctx *sql.Context, consumer, table string, snapshot int64) (sql.RowIter, error) {
	env, ds, err := tableEnv(ctx, table)
	if err != nil {
		return nil, err
	}
	prev, err := env.cat.CommitOffset(ctx, consumer, ds.Ident(), snapshot, env.sess.Author())
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	return sql.RowsToRowIter(sql.Row{consumer, ds.UUID, prev, snapshot}), nil
}
