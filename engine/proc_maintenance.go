package engine

import (
	"encoding/json"
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/maintenance"
	"github.com/lakesql/lakesql/sqlerr"
)

// Maintenance procedures (catalogstore/maintenance); each returns result
// rows.
//
//	CALL expire_snapshots('c.t', '7d' [, retain_last])   one row per snapshot: expired, purged or kept, and why
//	CALL expire_snapshots('c.t')                         the same, by the dataset's retention properties
//	CALL set_table_property('c.t', key, value)           set snapshot_retention / snapshot_retain_last
//	CALL unset_table_property('c.t', key)                remove one
//	CALL remove_orphan_files('c.t', '7d' [, dry_run])    one summary row
//	CALL compact('c.t' [, 'brute' | 'sort_aware' | 'performance' | 'delete_debt'] [, dry_run])
//	                                                     the plan (and the snapshot); no row when nothing to do;
//	                                                     delete_debt: an error saying copy-on-write leaves none
//	CALL refresh_statistics('c.t')                       the statistics-refresh snapshot
//	CALL repair_duplicate_files('c.t')                   drop second listings of a data file
//	CALL verify('c.t')                                   one row per finding, or one 'ok' row
//	CALL verify('c.t', 'deep')                           the same, every data file's checksum checked too (proc_integrity.go)
//	CALL break_lease('c.t')                              remove the maintenance lease (proc_integrity.go)
func maintenanceProcedures() []sql.ExternalStoredProcedureDetails {
	expireSchema := sql.Schema{
		{Name: "snapshot_id", Type: types.Int64},
		{Name: "action", Type: types.LongText},
		{Name: "reason", Type: types.LongText},
		{Name: "detail", Type: types.LongText, Nullable: true},
	}
	orphanSchema := sql.Schema{
		{Name: "dry_run", Type: types.Boolean},
		{Name: "removed_files", Type: types.Int64},
		{Name: "quarantined_files", Type: types.Int64},
		{Name: "young_files", Type: types.Int64},
		{Name: "missing_files", Type: types.Int64},
		{Name: "still_referenced", Type: types.Int64},
		{Name: "live_files", Type: types.Int64},
		{Name: "scanned_files", Type: types.Int64},
	}
	compactSchema := sql.Schema{
		{Name: "type", Type: types.LongText},
		{Name: "mode", Type: types.LongText},
		{Name: "dry_run", Type: types.Boolean},
		{Name: "input_files", Type: types.Int64},
		{Name: "input_rows", Type: types.Int64},
		{Name: "input_bytes", Type: types.Int64},
		{Name: "expected_outputs", Type: types.Int64},
		{Name: "output_files", Type: types.Int64, Nullable: true},
		{Name: "sort_column", Type: types.LongText, Nullable: true},
		{Name: "reason", Type: types.LongText},
		{Name: "snapshot_id", Type: types.Int64, Nullable: true},
		{Name: "files", Type: types.LongText},
	}
	propertySchema := sql.Schema{
		{Name: "property", Type: types.LongText},
		{Name: "value", Type: types.LongText, Nullable: true},
	}
	return []sql.ExternalStoredProcedureDetails{
		{Name: "expire_snapshots", Schema: expireSchema, Function: procExpireSnapshotsByPolicy},
		{Name: "expire_snapshots", Schema: expireSchema, Function: procExpireSnapshots},
		{Name: "expire_snapshots", Schema: expireSchema, Function: procExpireSnapshotsRetain},
		{Name: "set_table_property", Schema: propertySchema, Function: procSetTableProperty},
		{Name: "unset_table_property", Schema: propertySchema, Function: procUnsetTableProperty},
		{Name: "remove_orphan_files", Schema: orphanSchema, Function: procRemoveOrphans},
		{Name: "remove_orphan_files", Schema: orphanSchema, Function: procRemoveOrphansDry},
		{Name: "compact", Schema: compactSchema, Function: procCompact},
		{Name: "compact", Schema: compactSchema, Function: procCompactRule},
		{Name: "compact", Schema: compactSchema, Function: procCompactRuleDry},
		{Name: "refresh_statistics", Function: procRefreshStatistics, Schema: sql.Schema{
			{Name: "snapshot_id", Type: types.Int64, Nullable: true},
			{Name: "files", Type: types.Int64},
			{Name: "changed_files", Type: types.Int64},
		}},
		{Name: "repair_duplicate_files", Function: procRepairDuplicates, Schema: sql.Schema{
			{Name: "snapshot_id", Type: types.Int64, Nullable: true},
			{Name: "removed_entries", Type: types.Int64},
			{Name: "removed_records", Type: types.Int64},
		}},
		{Name: "verify", Function: procVerify, ReadOnly: true, Schema: sql.Schema{
			{Name: "check", Type: types.LongText},
			{Name: "severity", Type: types.LongText},
			{Name: "snapshot_id", Type: types.Int64, Nullable: true},
			{Name: "path", Type: types.LongText, Nullable: true},
			{Name: "detail", Type: types.LongText},
		}},
	}
}

// maintained resolves a procedure's table argument to a dataset; a view
// gets a clear refusal rather than "not found".
func maintained(ctx *sql.Context, table, what string) (*procEnv, *catalogstore.Dataset, error) {
	env, err := envOf(ctx)
	if err != nil {
		return nil, nil, err
	}
	ds, err := env.table(ctx, table)
	if err == nil {
		return env, ds, nil
	}
	if id, perr := catalogstore.ParseIdent(env.sess.CurrentWorkspace(), table); perr == nil {
		if _, verr := env.cat.View(ctx, id); verr == nil {
			return nil, nil, sqlerr.Wrap(fmt.Errorf("%w: %s is a view; only datasets can be %s", catalogstore.ErrNotSupported, id.Short(), what))
		}
	}
	return nil, nil, err
}

// maintErr maps a maintenance error for the client; an alertable one also
// goes to the alert sinks.
func maintErr(ctx *sql.Context, env *procEnv, err error) error {
	if catalogstore.IsAlertable(err) {
		env.cat.ReportAlert(ctx, err)
	}
	return sqlerr.Wrap(err)
}

func procExpireSnapshots(ctx *sql.Context, table, age string) (sql.RowIter, error) {
	return procExpireSnapshotsRetain(ctx, table, age, 1)
}

func procExpireSnapshotsRetain(ctx *sql.Context, table, age string, retainLast int64) (sql.RowIter, error) {
	env, ds, err := maintained(ctx, table, "expired")
	if err != nil {
		return nil, err
	}
	d, err := maintenance.ParseAge(age)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	if retainLast < 0 || retainLast > 1<<31 {
		return nil, sqlerr.Wrap(fmt.Errorf("%w: retain_last %d must be between 0 and 2^31", catalogstore.ErrBadValue, retainLast))
	}
	res, err := maintenance.Expire(ctx, env.cat, ds, d, int(retainLast), env.sess.Author())
	if err != nil {
		return nil, maintErr(ctx, env, err)
	}
	return sql.RowsToRowIter(expireRows(res, "older than "+age)...), nil
}

// procExpireSnapshotsByPolicy expires by the dataset's snapshot_retention
// and snapshot_retain_last properties; a dataset without a policy is
// refused, naming both ways to give one.
func procExpireSnapshotsByPolicy(ctx *sql.Context, table string) (sql.RowIter, error) {
	env, ds, err := maintained(ctx, table, "expired")
	if err != nil {
		return nil, err
	}
	res, r, err := maintenance.ExpireByPolicy(ctx, env.cat, ds, env.sess.Author())
	if err != nil {
		return nil, maintErr(ctx, env, err)
	}
	why := fmt.Sprintf("older than %s (%s)", r.Age, maintenance.PropSnapshotRetention)
	return sql.RowsToRowIter(expireRows(res, why)...), nil
}

// expireRows is one row per snapshot: expired (why), purged or kept.
func expireRows(res *maintenance.ExpireResult, why string) []sql.Row {
	var rows []sql.Row
	expiredNow := map[int64]bool{}
	for _, id := range res.Expired {
		expiredNow[id] = true
		rows = append(rows, sql.Row{id, "expired", why, nil})
	}
	for _, id := range res.Purged {
		rows = append(rows, sql.Row{id, "purged", "tombstone past its grace period", nil})
	}
	for _, reason := range []maintenance.KeepReason{maintenance.KeptHead, maintenance.KeptLastUserCreated, maintenance.KeptTagged,
		maintenance.KeptRetainLast, maintenance.KeptNewer, maintenance.KeptConsumerFloor, maintenance.KeptTombstoned} {
		for _, id := range res.Kept[reason] {
			if expiredNow[id] {
				continue // listed as expired above
			}
			var detail any
			if reason == maintenance.KeptConsumerFloor {
				detail = fmt.Sprintf("held back by the consumer floor (snapshot %d)", res.ConsumerFloor)
			}
			if reason == maintenance.KeptTombstoned {
				detail = "expired; its document is purged after the grace period"
			}
			rows = append(rows, sql.Row{id, "kept", string(reason), detail})
		}
	}
	return rows
}

func procSetTableProperty(ctx *sql.Context, table, key, value string) (sql.RowIter, error) {
	return setTableProperty(ctx, table, key, value, false)
}

func procUnsetTableProperty(ctx *sql.Context, table, key string) (sql.RowIter, error) {
	return setTableProperty(ctx, table, key, "", true)
}

// setTableProperty sets or removes one of the properties maintenance
// reads; anything else, or a value it could not use, is refused and
// nothing changes.
func setTableProperty(ctx *sql.Context, table, key, value string, remove bool) (sql.RowIter, error) {
	env, ds, err := maintained(ctx, table, "given maintenance properties")
	if err != nil {
		return nil, err
	}
	cur, err := maintenance.SetRetentionProperty(ctx, env.cat, ds, key, value, remove, env.sess.Author())
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	var v any
	if s, ok := cur.Properties[key]; ok {
		v = s
	}
	return sql.RowsToRowIter(sql.Row{key, v}), nil
}

func procRemoveOrphans(ctx *sql.Context, table, age string) (sql.RowIter, error) {
	return procRemoveOrphansDry(ctx, table, age, false)
}

func procRemoveOrphansDry(ctx *sql.Context, table, age string, dryRun bool) (sql.RowIter, error) {
	env, ds, err := maintained(ctx, table, "cleaned")
	if err != nil {
		return nil, err
	}
	d, err := maintenance.ParseAge(age)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	res, err := maintenance.RemoveOrphans(ctx, env.cat, ds, d, dryRun)
	if err != nil {
		return nil, maintErr(ctx, env, err)
	}
	return sql.RowsToRowIter(sql.Row{res.DryRun, int64(len(res.Removed)), int64(len(res.Quarantined)), int64(res.Young),
		int64(len(res.Missing)), int64(len(res.StillReferenced)), int64(res.Live), int64(res.Scanned)}), nil
}

func procCompact(ctx *sql.Context, table string) (sql.RowIter, error) {
	return procCompactRuleDry(ctx, table, "", false)
}

func procCompactRule(ctx *sql.Context, table, rule string) (sql.RowIter, error) {
	return procCompactRuleDry(ctx, table, rule, false)
}

func procCompactRuleDry(ctx *sql.Context, table, rule string, dryRun bool) (sql.RowIter, error) {
	env, ds, err := maintained(ctx, table, "compacted")
	if err != nil {
		return nil, err
	}
	strategy, err := maintenance.ParseStrategy(rule)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	res, err := maintenance.Compact(ctx, env.cat, ds, maintenance.Config{Strategy: strategy, DryRun: dryRun, Author: env.sess.Author(), MemoryBudget: env.sess.CompactionMemory()})
	if err != nil {
		return nil, maintErr(ctx, env, err)
	}
	if res == nil {
		return sql.RowsToRowIter(), nil // nothing clears the thresholds
	}
	return sql.RowsToRowIter(compactRow(res)), nil
}

func compactRow(res *maintenance.CompactResult) sql.Row {
	p := res.Plan
	files, _ := json.Marshal(p.Files)
	var outputs, snap, sortCol any
	if res.Snapshot != nil {
		outputs, snap = int64(len(res.Outputs)), res.Snapshot.ID
	}
	if p.SortColumn != "" {
		sortCol = p.SortColumn
	}
	return sql.Row{string(p.Type), p.Mode, res.Snapshot == nil, int64(len(p.Files)), p.InputRows, p.InputBytes,
		int64(p.ExpectedOutputs), outputs, sortCol, p.Reason, snap, string(files)}
}

func procRefreshStatistics(ctx *sql.Context, table string) (sql.RowIter, error) {
	env, ds, err := maintained(ctx, table, "refreshed")
	if err != nil {
		return nil, err
	}
	res, err := maintenance.RefreshStatistics(ctx, env.cat, ds, env.sess.Author())
	if err != nil {
		return nil, maintErr(ctx, env, err)
	}
	var snap any
	if res.Snapshot != nil {
		snap = res.Snapshot.ID
	}
	return sql.RowsToRowIter(sql.Row{snap, int64(res.Files), int64(res.Changed)}), nil
}

// procRepairDuplicates drops the head manifest's second listings of a
// data file (CALL repair_duplicate_files('c.t')), one snapshot.
func procRepairDuplicates(ctx *sql.Context, table string) (sql.RowIter, error) {
	env, ds, err := maintained(ctx, table, "repaired")
	if err != nil {
		return nil, err
	}
	res, err := maintenance.RepairDuplicateFiles(ctx, env.cat, ds, env.sess.Author())
	if err != nil {
		return nil, maintErr(ctx, env, err)
	}
	var snap any
	if res.Snapshot != nil {
		snap = res.Snapshot.ID
	}
	return sql.RowsToRowIter(sql.Row{snap, int64(res.Removed), res.Records}), nil
}

func procVerify(ctx *sql.Context, table string) (sql.RowIter, error) {
	return verifyRows(ctx, table, false)
}
