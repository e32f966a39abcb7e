package scan

import (
	"bytes"
	"math"
	"math/big"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// colStats are one column's file statistics in the comparison domain:
// int64 for integers, float64 for floats, decimal.Decimal, string, and
// int64 microseconds for dates and timestamps.
type colStats struct {
	lower, upper any // nil: unknown
	nulls        int64
	values       int64
}

// statsFor returns the file's stats for a field id, decoded into the
// comparison domain, or false if it has none.
func statsFor(f *manifest.DataFile, fieldID int, t schema.Type) (colStats, bool) {
	cs, ok := f.ColumnStats(fieldID)
	return decodeStats(cs, t), ok
}

// decodeStats decodes a file's column stats into the comparison domain.
func decodeStats(cs manifest.ColumnStats, t schema.Type) colStats {
	st := colStats{nulls: cs.Nulls, values: cs.Values}
	if cs.Lower != nil {
		st.lower = boundValue(t, cs.Lower)
	}
	if cs.Upper != nil && cs.Exact { // a truncated upper bound is not an upper bound of the values
		st.upper = boundValue(t, cs.Upper)
	}
	return st
}

func boundValue(t schema.Type, b []byte) any {
	v, err := datafile.DecodeBound(t, b)
	if err != nil {
		return nil
	}
	return domainValue(t, v)
}

// domainValue converts a decoded bound to the comparison domain.
func domainValue(t schema.Type, v any) any {
	switch x := v.(type) {
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		if t.Kind == schema.Date {
			return int64(x) * 86400 * 1e6
		}
		return int64(x)
	case int64:
		return x
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		if x > math.MaxInt64 {
			return nil
		}
		return int64(x)
	case float32:
		return float64(x)
	case float64:
		if math.IsNaN(x) {
			return nil
		}
		return x
	case *big.Int:
		return decimal.NewFromBigInt(x, -int32(t.Scale))
	case decimal.Decimal:
		return x
	case string:
		return x
	case []byte:
		return string(x)
	case interface{ String() string }:
		if t.Kind == schema.Decimal {
			if d, err := decimal.NewFromString(x.String()); err == nil {
				return d
			}
		}
	}
	return nil
}

// compare orders a and b of one domain; ok is false across domains.
func compare(a, b any) (int, bool) {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return cmpOrdered(x, y), true
		case float64:
			return cmpOrdered(float64(x), y), true
		}
	case float64:
		switch y := b.(type) {
		case float64:
			return cmpOrdered(x, y), true
		case int64:
			return cmpOrdered(x, float64(y)), true
		}
	case decimal.Decimal:
		if y, ok := b.(decimal.Decimal); ok {
			return x.Cmp(y), true
		}
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), true
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return bytes.Compare(x, y), true
		}
	}
	return 0, false
}

func cmpOrdered[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// mightMatch reports whether a file with these stats may hold a row for
// which p is true. Unknown stats or incomparable values keep the file.
func (st colStats) mightMatch(p Predicate) bool {
	switch p.Op {
	case OpIsNull:
		return st.nulls != 0
	case OpNotNull:
		return st.nulls < 0 || st.values < 0 || st.values > st.nulls
	}
	if st.values >= 0 && st.nulls >= 0 && st.values == st.nulls && st.values > 0 {
		return false // every value is NULL: no comparison is true
	}
	for _, v := range p.Values {
		if st.inRange(p.Op, v) {
			return true
		}
	}
	return false
}

// allMatch reports whether every row certainly satisfies p: no NULLs
// (known), and both bounds known and inside p.
func (st colStats) allMatch(p Predicate) bool {
	switch p.Op {
	case OpIsNull:
		return st.nulls >= 0 && st.values >= 0 && st.nulls == st.values
	case OpNotNull:
		return st.nulls == 0
	}
	if st.nulls != 0 || st.lower == nil || st.upper == nil {
		return false
	}
	for _, v := range p.Values {
		lo, okLo := compare(st.lower, v)
		hi, okHi := compare(st.upper, v)
		if !okLo || !okHi {
			return false
		}
		var all bool
		switch p.Op {
		case OpEq, OpIn:
			all = lo == 0 && hi == 0
		case OpLt:
			all = hi < 0
		case OpLe:
			all = hi <= 0
		case OpGt:
			all = lo > 0
		case OpGe:
			all = lo >= 0
		}
		if all {
			return true
		}
	}
	return false
}

func (st colStats) inRange(op Op, v any) bool {
	lo, hasLo := st.cmp(st.lower, v) // lower vs v
	hi, hasHi := st.cmp(st.upper, v) // upper vs v
	return inRange(op, lo, hasLo, hi, hasHi)
}

func (st colStats) cmp(bound, v any) (int, bool) {
	if bound == nil {
		return 0, false
	}
	return compare(bound, v)
}
