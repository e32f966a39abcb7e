package engine

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/maintenance"
	"github.com/lakesql/lakesql/sqlerr"
)

// Integrity procedures: deep verification and breaking a stuck lease.
//
//	CALL verify('c.t', 'deep')   verify, and read every data file to check its recorded checksum
//	CALL break_lease('c.t')      remove the maintenance lease: one row naming what was removed
func integrityProcedures() []sql.ExternalStoredProcedureDetails {
	return []sql.ExternalStoredProcedureDetails{
		{Name: "verify", Function: procVerifyMode, ReadOnly: true, Schema: verifySchema()},
		{Name: "break_lease", Function: procBreakLease, Schema: sql.Schema{
			{Name: "dataset", Type: types.LongText},
			{Name: "holder", Type: types.LongText, Nullable: true},
			{Name: "pid", Type: types.Int64, Nullable: true},
			{Name: "host", Type: types.LongText, Nullable: true},
			{Name: "expires_at", Type: types.LongText, Nullable: true},
		}},
	}
}

// verifySchema is the result of CALL verify, in either form.
func verifySchema() sql.Schema {
	return sql.Schema{
		{Name: "check", Type: types.LongText},
		{Name: "severity", Type: types.LongText},
		{Name: "snapshot_id", Type: types.Int64, Nullable: true},
		{Name: "path", Type: types.LongText, Nullable: true},
		{Name: "detail", Type: types.LongText},
	}
}

func procVerifyMode(ctx *sql.Context, table, mode string) (sql.RowIter, error) {
	switch strings.ToLower(mode) {
	case "deep":
		return verifyRows(ctx, table, true)
	case "", "shallow":
		return verifyRows(ctx, table, false)
	}
	return nil, sqlerr.Wrap(fmt.Errorf("%w: verify mode %q: use 'deep' (or leave it out)", catalogstore.ErrBadValue, mode))
}

// verifyRows runs Verify (deep: reading every data file) and returns one
// row per finding, or one 'ok' row saying what was checked.
func verifyRows(ctx *sql.Context, table string, deep bool) (sql.RowIter, error) {
	env, ds, err := maintained(ctx, table, "verified")
	if err != nil {
		return nil, err
	}
	var opts []maintenance.Option
	if deep {
		opts = append(opts, maintenance.Deep())
	}
	res, err := maintenance.Verify(ctx, env.cat, ds, opts...)
	if err != nil {
		return nil, maintErr(ctx, env, err)
	}
	if len(res.Findings) == 0 {
		msg := fmt.Sprintf("%d snapshots, %d manifests and %d data files verified", res.Snapshots, res.Manifests, res.Files)
		if deep {
			msg += fmt.Sprintf("; %d checksums match, %d files have none recorded", res.Checksummed, res.Unrecorded)
		}
		return sql.RowsToRowIter(sql.Row{"ok", "info", nil, nil, msg}), nil
	}
	rows := make([]sql.Row, 0, len(res.Findings)+1)
	for _, f := range res.Findings {
		var snap, path any
		if f.SnapshotID != 0 {
			snap = f.SnapshotID
		}
		if f.Path != "" {
			path = f.Path
		}
		rows = append(rows, sql.Row{f.Check, string(f.Severity), snap, path, f.Detail})
	}
	if res.Omitted > 0 {
		rows = append(rows, sql.Row{"omitted", "info", nil, nil, fmt.Sprintf("%d more findings not listed", res.Omitted)})
	}
	return sql.RowsToRowIter(rows...), nil
}

func procBreakLease(ctx *sql.Context, table string) (sql.RowIter, error) {
	env, ds, err := maintained(ctx, table, "maintained")
	if err != nil {
		return nil, err
	}
	b, err := maintenance.BreakLease(ctx, env.cat, ds)
	if err != nil {
		return nil, maintErr(ctx, env, err)
	}
	name := ds.Ident().Short()
	if b == nil {
		return sql.RowsToRowIter(sql.Row{name, nil, nil, nil, nil}), nil
	}
	slog.WarnContext(ctx, "maintenance lease broken", "dataset", name, "by", env.sess.Author(), "holder", b.Holder, "pid", b.PID, "host", b.Host)
	var pid, host any
	if b.PID > 0 {
		pid, host = int64(b.PID), b.Host
	}
	return sql.RowsToRowIter(sql.Row{name, b.Holder, pid, host, b.Expires.UTC().Format(time.RFC3339)}), nil
}
