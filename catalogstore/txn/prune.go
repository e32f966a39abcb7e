package txn

import (
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// deletePruner tells which live files a commit's staged deletes may hit,
// from the manifest's bounds of one column, so that a REPLACE or an
// upsert of a few keys reads (and rewrites) the files holding them, not
// the table. A file none of whose bounds admit a deleted row's value in
// that column cannot hold a deleted row. The column is the first of the
// primary key, else the first column of a type the bounds order exactly
// (integers, dates, timestamps, strings).
type deletePruner struct {
	fieldID int
	t       schema.Type
	ints    []int64  // sorted values (integer-like columns)
	strs    []string // sorted values (string columns)
}

// newDeletePruner returns the pruner of t's staged deletes, or nil when
// none can prune (no usable column, or a deleted value is NULL).
func (t *Table) newDeletePruner() *deletePruner {
	if len(t.keyDeletes) > 0 {
		return nil // keyed deletes are matched by key in every file
	}
	s := t.tg.schema
	cols := append(s.Key(), func() []int {
		out := make([]int, len(s.Columns))
		for i := range out {
			out[i] = i
		}
		return out
	}()...)
	for _, c := range cols {
		if p, ok := pruneBy(s.Columns[c], c, t.deletes); ok {
			return p
		}
	}
	return nil
}

// pruneBy builds the pruner over column col (at index c) of recs.
func pruneBy(col schema.Column, c int, recs []arrow.Record) (*deletePruner, bool) {
	p := &deletePruner{fieldID: col.ID, t: col.Type}
	for _, rec := range recs {
		a := rec.Column(c)
		if a.NullN() > 0 {
			return nil, false
		}
		for i := 0; i < a.Len(); i++ {
			switch x := a.(type) {
			case *array.Int8:
				p.ints = append(p.ints, int64(x.Value(i)))
			case *array.Int16:
				p.ints = append(p.ints, int64(x.Value(i)))
			case *array.Int32:
				p.ints = append(p.ints, int64(x.Value(i)))
			case *array.Int64:
				p.ints = append(p.ints, x.Value(i))
			case *array.Uint8:
				p.ints = append(p.ints, int64(x.Value(i)))
			case *array.Uint16:
				p.ints = append(p.ints, int64(x.Value(i)))
			case *array.Uint32:
				p.ints = append(p.ints, int64(x.Value(i)))
			case *array.Date32:
				p.ints = append(p.ints, int64(x.Value(i)))
			case *array.Timestamp:
				p.ints = append(p.ints, micros(int64(x.Value(i)), x.DataType().(*arrow.TimestampType).Unit))
			case *array.String:
				if col.Type.Kind != schema.String {
					return nil, false
				}
				p.strs = append(p.strs, x.Value(i))
			default:
				return nil, false
			}
		}
	}
	slices.Sort(p.ints)
	slices.Sort(p.strs)
	return p, true
}

// mayHold reports whether file f may hold a deleted row.
func (p *deletePruner) mayHold(f manifest.DataFile) bool {
	if p == nil {
		return true
	}
	st, ok := f.ColumnStats(p.fieldID)
	if !ok || st.Missing || st.Lower == nil || st.Upper == nil {
		return true // no bounds (or a column added later: all NULL, no deleted value)
	}
	lo, err1 := datafile.DecodeBound(p.t, st.Lower)
	hi, err2 := datafile.DecodeBound(p.t, st.Upper)
	if err1 != nil || err2 != nil {
		return true
	}
	if p.strs != nil || p.t.Kind == schema.String {
		l, _ := lo.(string)
		i, _ := slices.BinarySearch(p.strs, l)
		if i == len(p.strs) {
			return false
		}
		h, _ := hi.(string)
		// A truncated upper bound is no bound (see ColumnStats.Exact).
		return !st.Exact || strings.Compare(p.strs[i], h) <= 0
	}
	l, ok1 := asInt64(lo)
	h, ok2 := asInt64(hi)
	if !ok1 || !ok2 {
		return true
	}
	i, _ := slices.BinarySearch(p.ints, l)
	return i < len(p.ints) && p.ints[i] <= h
}

func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	}
	return 0, false
}
