package rewrite

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// keyKind is how the values of one join key are normalised into a hash
// key. Two values whose SQL equality can be TRUE (or NULL) must get the
// same key: the key only narrows the candidate rows, the join condition
// still decides.
type keyKind uint8

const (
	keyInt     keyKind = iota + 1 // any integer type: by numeric value
	keyDecimal                    // DECIMAL: by the canonical numeric text
	keyBinText                    // one string type with a byte-comparing collation
)

// hashKeyKind reports how an equality between columns of types l and r
// can be hashed, or false when hashing could separate equal values
// (mixed type families, case- or pad-insensitive collations, floats,
// where -0 = 0, temporal types with their conversions).
func hashKeyKind(l, r sql.Type) (keyKind, bool) {
	switch {
	case types.IsInteger(l) && types.IsInteger(r):
		return keyInt, true
	case types.IsDecimal(l) && types.IsDecimal(r):
		return keyDecimal, true
	case types.IsTextOnly(l) && l.Equals(r):
		tc, ok := l.(sql.TypeWithCollation)
		if ok && tc.Collation() == sql.Collation_utf8mb4_0900_bin {
			return keyBinText, true
		}
	}
	return 0, false
}

// keyColumn is a join key equality's column on one side.
func keyColumn(e sql.Expression) (*expression.GetField, bool) {
	gf, ok := e.(*expression.GetField)
	return gf, ok
}

// appendKey appends v's normalised form to key. It reports null when v
// is NULL, and ok false when v is not a value of the kind (then the row
// cannot be placed by key and is a candidate for every probe).
func appendKey(key []byte, kind keyKind, v any) (out []byte, null, ok bool) {
	if v == nil {
		return key, true, true
	}
	switch kind {
	case keyInt:
		if u, isU := v.(uint64); isU && u > math.MaxInt64 {
			key = append(key, 'U')
			return binary.BigEndian.AppendUint64(key, u), false, true
		}
		i, ok := asInt64(v)
		if !ok {
			return key, false, false
		}
		key = append(key, 'I')
		return binary.BigEndian.AppendUint64(key, uint64(i)), false, true
	case keyDecimal:
		d, ok := v.(decimal.Decimal)
		if !ok {
			return key, false, false
		}
		return appendText(append(key, 'D'), d.String()), false, true
	case keyBinText:
		switch s := v.(type) {
		case string:
			return appendText(append(key, 'S'), s), false, true
		case []byte:
			return appendText(append(key, 'S'), string(s)), false, true
		}
	}
	return key, false, false
}

// appendText appends s with its length, so that concatenated keys stay
// unambiguous.
func appendText(key []byte, s string) []byte {
	key = binary.AppendUvarint(key, uint64(len(s)))
	return append(key, s...)
}

func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		return int64(x), true // > MaxInt64 is handled by the caller
	case uint:
		if uint64(x) > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	}
	return 0, false
}

// sideNames is the set of table names (or aliases) whose columns a join
// input outputs, lower-cased.
func sideNames(n sql.Node) map[string]bool {
	out := map[string]bool{}
	for _, c := range n.Schema() {
		out[strings.ToLower(c.Source)] = true
	}
	return out
}
