package provider

import (
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/lakesql/lakesql/mysqlfix"
)

// A TIMESTAMP column stores instants in UTC and shows them in the
// session's time_zone, as MySQL does; a DATETIME column stores the wall
// clock it is given (both are the catalog's timestamp type, told apart by
// the declared SQL type). The conversion happens here, at the storage
// boundary: rows leaving PartitionRows are shown in the session's zone and
// rows reaching the editor are stored in UTC, while everything below
// (files, staged writes, the key index, pruning statistics) holds UTC.
// Plans that read files directly (vectorised aggregates, joins and
// top-N, answers from statistics) and pushed filters compare stored values
// with literals in the session's zone, so under a zone other than UTC a
// table with a TIMESTAMP column refuses them (ShiftsTimestamps) and its
// pushed conjuncts over TIMESTAMP columns are not used for pruning.

// zoneShift converts the TIMESTAMP columns (cols, indexes into a row) of
// rows between UTC and loc. The zero value converts nothing.
type zoneShift struct {
	loc  *time.Location
	cols []int
}

// timestampColumns returns the indexes of s's TIMESTAMP columns.
func timestampColumns(s sql.Schema) []int {
	var out []int
	for i, c := range s {
		if c.Type.Type() == sqltypes.Timestamp {
			out = append(out, i)
		}
	}
	return out
}

// shiftFor returns the conversion of rows of schema s in ctx's session:
// none when s has no TIMESTAMP column or the session's zone is UTC.
func shiftFor(ctx *sql.Context, s sql.Schema) (zoneShift, error) {
	cols := timestampColumns(s)
	if len(cols) == 0 {
		return zoneShift{}, nil
	}
	loc, shifts, err := mysqlfix.SessionZone(ctx)
	if err != nil || !shifts {
		return zoneShift{}, err
	}
	return zoneShift{loc: loc, cols: cols}, nil
}

// active reports whether z converts anything.
func (z zoneShift) active() bool { return z.loc != nil }

// convert returns a copy of row with f applied to its TIMESTAMP values
// (row itself when z is inactive: rows may be shared with a cache).
func (z zoneShift) convert(row sql.Row, f func(time.Time, *time.Location) time.Time) sql.Row {
	if !z.active() || row == nil {
		return row
	}
	out := row.Copy()
	for _, i := range z.cols {
		if i < len(out) {
			if v, ok := out[i].(time.Time); ok {
				out[i] = f(v, z.loc)
			}
		}
	}
	return out
}

// toUTC is row as stored.
func (z zoneShift) toUTC(row sql.Row) sql.Row { return z.convert(row, mysqlfix.TimestampToUTC) }

// fromUTC is row as the session sees it.
func (z zoneShift) fromUTC(row sql.Row) sql.Row {
	return z.convert(row, mysqlfix.TimestampFromUTC)
}

// ShiftsTimestamps reports whether t has a TIMESTAMP column and the
// session's zone is not UTC: then its stored values differ from the
// values the session sees, and plans that compare or return stored values
// without PartitionRows must not read it.
func (t *Table) ShiftsTimestamps(ctx *sql.Context) bool {
	z, err := shiftFor(ctx, t.full)
	return err != nil || z.active()
}

// zoneIter shows the rows of it in the session's zone.
type zoneIter struct {
	sql.RowIter
	z zoneShift
}

func (it *zoneIter) Next(ctx *sql.Context) (sql.Row, error) {
	row, err := it.RowIter.Next(ctx)
	if err != nil {
		return nil, err
	}
	return it.z.fromUTC(row), nil
}

// inSessionZone wraps it, rows of schema s, to show its TIMESTAMPs in the
// session's zone.
func inSessionZone(ctx *sql.Context, it sql.RowIter, s sql.Schema) (sql.RowIter, error) {
	z, err := shiftFor(ctx, s)
	if err != nil {
		_ = it.Close(ctx)
		return nil, err
	}
	if !z.active() {
		return it, nil
	}
	return &zoneIter{RowIter: it, z: z}, nil
}

// prunable returns the pushed filters that may prune t's files in ctx's
// session: all of them, but those over a TIMESTAMP column when the zone
// shifts TIMESTAMPs (their literals are in the session's zone, the
// statistics in UTC). The Filter above still applies every conjunct.
func (t *Table) prunable(ctx *sql.Context) ([]sql.Expression, error) {
	z, err := shiftFor(ctx, t.full)
	if err != nil || !z.active() || len(t.filters) == 0 {
		return t.filters, err
	}
	shifted := map[string]bool{}
	for _, i := range z.cols {
		shifted[strings.ToLower(t.full[i].Name)] = true
	}
	var out []sql.Expression
	for _, f := range t.filters {
		if !mentions(f, shifted) {
			out = append(out, f)
		}
	}
	return out, nil
}

// mentions reports whether e reads a column named in cols (lower case).
func mentions(e sql.Expression, cols map[string]bool) bool {
	return transform.InspectExpr(e, func(e sql.Expression) bool {
		gf, ok := e.(*expression.GetField)
		return ok && cols[strings.ToLower(gf.Name())]
	})
}
