package provider

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// TableStats is one lakesql table snapshot's statistics as the join
// coster reads them: the row count, and per column (summarised from the
// manifest when first asked for) null and distinct counts and the value
// range. It belongs to one query's planning and is not safe for
// concurrent use.
type TableStats struct {
	// Rows is the snapshot's record count.
	Rows     uint64
	files    []manifest.DataFile
	cols     map[string]schema.Column // by lower-case name
	distinct map[int]uint64           // ANALYZE TABLE's, by field id; nil if none
	seen     map[string]ColumnStat
}

// ColumnStat is one column's statistics over a snapshot.
type ColumnStat struct {
	Rows, Nulls uint64
	// Distinct is ANALYZE TABLE's estimate, else max - min + 1 for
	// integer and date columns; 0 when unknown.
	Distinct uint64
	// lo and hi place the column's min and max on a numeric axis (see
	// position); ranged is false when the column has no such axis or
	// its bounds are unknown.
	lo, hi float64
	ranged bool
	typ    schema.Type
}

// TableStats returns the planning statistics of table (under GMS's
// wrappers), false when it is not a lakesql table. The column summaries
// are computed on demand.
func (p *StatsProvider) TableStats(ctx *sql.Context, db string, table sql.Table) (*TableStats, bool, error) {
	t, ok := lakeTable(table)
	if !ok {
		return nil, false, nil
	}
	ts := &TableStats{cols: map[string]schema.Column{}, seen: map[string]ColumnStat{}}
	if t.snapshot == 0 {
		return ts, true, nil
	}
	rows, err := t.records(ctx)
	if err != nil {
		return nil, false, err
	}
	files, _, err := t.liveFiles(ctx)
	if err != nil {
		return nil, false, err
	}
	ts.Rows, ts.files = rows, files
	for _, c := range t.schema.Columns {
		ts.cols[strings.ToLower(c.Name)] = c
	}
	p.mu.Lock()
	an, ok := p.ndv[statsKey(db, t.Name())]
	p.mu.Unlock()
	if ok && an.uuid == t.ds.UUID && an.snapshot == t.snapshot {
		ts.distinct = an.distinct
	}
	return ts, true, nil
}

// Column returns the statistics of the named column (any case), false
// when the table has no such column.
func (ts *TableStats) Column(name string) (ColumnStat, bool) {
	name = strings.ToLower(name)
	if cs, ok := ts.seen[name]; ok {
		return cs, true
	}
	col, ok := ts.cols[name]
	if !ok {
		return ColumnStat{}, false
	}
	sum := summarise(ts.files, col)
	cs := ColumnStat{Rows: sum.rows, Nulls: sum.nulls, Distinct: ts.distinct[col.ID], typ: col.Type}
	if cs.Distinct == 0 {
		cs.Distinct = sum.distinctBound()
	}
	if cs.Distinct == 0 {
		cs.Distinct = sum.distinctFromSize(col.Type)
	}
	lo, ok1 := axis(col.Type, sum.min)
	hi, ok2 := axis(col.Type, sum.max)
	cs.lo, cs.hi, cs.ranged = lo, hi, ok1 && ok2 && hi >= lo
	ts.seen[name] = cs
	return cs, true
}

// distinctFromSize estimates the distinct count of a text column from
// its stored size: n values drawn evenly from d distinct ones take at
// least n·log2(d) bits once dictionary-encoded and compressed, so d is
// about 2^(bits per value). Data that is sorted or clustered compresses
// further, so the estimate errs low (a filter on the column looks less
// selective than it is: the safe side for choosing what to build). Not
// exact enough to show as the column's statistics (GetTableStats), it
// lets the coster tell a flag column (a few values in a fraction of a
// byte each) from a name. 0 when the size is unknown.
func (cs colSummary) distinctFromSize(t schema.Type) uint64 {
	switch t.Kind {
	case schema.String, schema.Binary, schema.JSON:
	default:
		return 0
	}
	nonNull := cs.rows - min(cs.nulls, cs.rows)
	if cs.bytes == 0 || nonNull == 0 {
		return 0
	}
	bits := 8 * float64(cs.bytes) / float64(nonNull)
	if bits >= 63 {
		return nonNull
	}
	floor := uint64(1)
	if cs.min != nil && cs.max != nil && datafile.CompareBounds(cs.min, cs.max) != 0 {
		floor = 2 // two different bounds: at least two values
	}
	return min(nonNull, max(floor, uint64(math.Round(math.Exp2(bits)))))
}

// Below estimates the fraction of the column's non-null values below v
// (a SQL value compared with the column), interpolating linearly between
// its min and max; false when the column or v has no numeric axis.
// Values outside the range give 0 or 1.
func (c ColumnStat) Below(v any) (float64, bool) {
	if !c.ranged {
		return 0, false
	}
	x, ok := sqlAxis(c.typ, v)
	if !ok {
		return 0, false
	}
	switch {
	case x < c.lo:
		return 0, true
	case x > c.hi:
		return 1, true
	case c.hi == c.lo:
		return 0.5, true
	}
	return (x - c.lo) / (c.hi - c.lo), true
}

// Outside reports whether v (a SQL value) lies outside the column's
// range, so an equality with it matches no row.
func (c ColumnStat) Outside(v any) bool {
	if !c.ranged {
		return false
	}
	x, ok := sqlAxis(c.typ, v)
	return ok && (x < c.lo || x > c.hi)
}

// axis places a bound decoded by datafile.DecodeBound on the column's
// numeric axis: numbers as themselves, decimals unscaled, dates in days,
// times and timestamps in µs.
func axis(t schema.Type, v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		if math.IsNaN(x) {
			return 0, false
		}
		return x, true
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return f / math.Pow10(t.Scale), true
	}
	return 0, false
}

// sqlAxis places a SQL value (as GMS evaluates literals) on the axis of
// a column of type t.
func sqlAxis(t schema.Type, v any) (float64, bool) {
	switch x := v.(type) {
	case time.Time:
		switch t.Kind {
		case schema.Date:
			return float64(x.Unix()) / 86400, true
		case schema.Timestamp:
			return float64(x.UnixMicro()), true
		}
		return 0, false
	case string:
		// A DATE 'literal' is still text while GMS plans joins.
		return textAxis(t, x)
	}
	f, ok := sqlNumber(v)
	return f, ok && numericKind(t.Kind)
}

// sqlNumber converts a numeric SQL value to a float64 (DECIMALs rounded).
func sqlNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case decimal.Decimal:
		f, _ := x.Float64()
		return f, true
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case int16:
		return float64(x), true
	case int8:
		return float64(x), true
	case int:
		return float64(x), true
	case uint64:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint8:
		return float64(x), true
	}
	return 0, false
}

func numericKind(k schema.Kind) bool {
	switch k {
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32, schema.Uint64,
		schema.Float32, schema.Float64, schema.Decimal:
		return true
	}
	return false
}

// textAxis places a value given as text on the axis of a column of type
// t: a date or timestamp in MySQL's formats, a number.
func textAxis(t schema.Type, s string) (float64, bool) {
	s = strings.TrimSpace(s)
	switch t.Kind {
	case schema.Date, schema.Timestamp:
		for _, layout := range []string{"2006-01-02", "2006-01-02 15:04:05", "2006-01-02 15:04:05.999999", "2006-01-02T15:04:05"} {
			if tm, err := time.Parse(layout, s); err == nil {
				return sqlAxis(t, tm)
			}
		}
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && numericKind(t.Kind)
}
