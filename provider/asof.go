package provider

import (
	"errors"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/sqlerr"
)

// Time travel. GMS parses `FOR VERSION AS OF x`, `FOR SYSTEM_TIME AS OF x`
// and Dolt's bare `AS OF x` into one value and hands it to the
// sql.VersionedDatabase methods below. What reaches them is a string (a
// literal: `AS OF 3` arrives as "3", `AS OF 'v1'` as "v1") or a time.Time
// (an expression such as TIMESTAMP('…') or NOW() - INTERVAL 1 DAY); the
// catalog resolves it (catalogstore.ResolveSnapshotRef: an exact snapshot
// id wins, then a tag, then a time). GMS datetimes are zone-naive: their
// wall clock is read as UTC, as `t$snapshots` shows committed_at.
//
// The range forms (FOR SYSTEM_TIME BETWEEN/FROM…TO/CONTAINED IN, ALL)
// never reach a database: GMS's planner fails on them with a generic
// message, so ddl's parser refuses them first.

var _ sql.VersionedDatabase = (*Database)(nil)

// GetTableInsensitiveAsOf implements sql.VersionedDatabase: the dataset at
// the snapshot asOf names, with the schema of that snapshot, read-only.
// Metadata tables (`t$files` …) AS OF describe that snapshot.
func (d *Database) GetTableInsensitiveAsOf(ctx *sql.Context, name string, asOf any) (sql.Table, bool, error) {
	if base, kind, ok := strings.Cut(name, "$"); ok {
		return d.metadataTable(ctx, base, kind, asOf)
	}
	ds, ok, err := d.dataset(ctx, name)
	if err != nil || !ok {
		return nil, ok, err
	}
	if asOf == nil {
		return newTable(d, ds), true, nil
	}
	t, err := d.tableAsOf(ctx, ds, asOf)
	if err != nil {
		return nil, false, err
	}
	return t, true, nil
}

// GetTableNamesAsOf implements sql.VersionedDatabase: the datasets that
// had a readable snapshot at asOf (for a time: those committed to by then;
// for an id or tag: those it resolves in).
func (d *Database) GetTableNamesAsOf(ctx *sql.Context, asOf any) ([]string, error) {
	dss, err := d.p.cat.ListDatasets(ctx, d.ws, d.coll)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	var names []string
	for i := range dss {
		_, err := d.p.cat.ResolveSnapshotRef(ctx, &dss[i], asOfValue(asOf))
		if errors.Is(err, catalogstore.ErrSnapshotNotFound) {
			continue
		}
		if err != nil {
			return nil, sqlerr.Wrap(err)
		}
		names = append(names, dss[i].Name)
	}
	return names, nil
}

// tableAsOf pins ds at the snapshot asOf resolves to.
func (d *Database) tableAsOf(ctx *sql.Context, ds *catalogstore.Dataset, asOf any) (*Table, error) {
	snap, err := d.p.cat.ResolveSnapshotRef(ctx, ds, asOfValue(asOf))
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	s, err := d.p.cat.SchemaByID(ctx, ds, snap.SchemaID)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	t := newTableAt(d, ds, s, snap.ID)
	t.asOf = true
	return t, nil
}

// dataset loads a dataset by name, exact first, then case-insensitively.
func (d *Database) dataset(ctx *sql.Context, name string) (*catalogstore.Dataset, bool, error) {
	ds, err := d.p.cat.Dataset(ctx, d.ident(name))
	if errors.Is(err, catalogstore.ErrDatasetNotFound) {
		match, ok, lerr := d.matchName(ctx, name)
		if lerr != nil || !ok {
			return nil, false, sqlerr.Wrap(lerr)
		}
		ds, err = d.p.cat.Dataset(ctx, d.ident(match))
	}
	if errors.Is(err, catalogstore.ErrDatasetNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, sqlerr.Wrap(err)
	}
	return ds, true, nil
}

// asOfValue normalises what GMS passes: zone-naive datetimes become UTC
// instants with the same wall clock.
func asOfValue(v any) any {
	if t, ok := v.(time.Time); ok {
		return naiveUTC(t)
	}
	return v
}

// naiveUTC reads t's wall clock as UTC.
func naiveUTC(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}
