package partition

import (
	"math"
	"math/big"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Project turns the predicate `column op v` on f's source column, of type
// source, into an inclusive predicate `partition-value op2 v2` on f's
// partition values (Iceberg's inclusive projection): every row that matches
// the source predicate lies in a partition that matches the projected one,
// so a file whose partition value fails it can be skipped. op is one of
// "=", "<", "<=", ">", ">="; v is in the Go representation of source and
// v2 in that of f.Transform.ResultType(source), compared as the values
// they stand for (strings and binary byte-wise, which for UTF-8 is code
// point order).
//
//   - identity: the predicate itself.
//   - bucket: "=" only, as = bucket(v).
//   - truncate, year, month, day, hour: these never decrease, so = gives
//     = f(v), <= gives <= f(v), >= gives >= f(v); on integers, decimals,
//     dates and timestamps x < v is x <= v-1 and gives <= f(v-1), and
//     x > v gives >= f(v+1); on strings and binary < gives <= f(v) and
//     > gives >= f(v).
//   - void: nothing.
//
// ok is false when no projection exists (void, bucket with a range, an
// unknown op, a nil or badly typed v, a transform that does not accept
// source): the field then cannot prune and every partition must be read.
func (f Field) Project(source schema.Type, op string, v any) (ok bool, op2 string, v2 any) {
	switch op {
	case "=", "<", "<=", ">", ">=":
	default:
		return false, "", nil
	}
	t := f.Transform
	if v == nil || t.check("", source) != nil || checkValue(source, v, true) != nil {
		return false, "", nil
	}
	switch t.kind {
	case KindIdentity:
		return true, op, v
	case KindVoid:
		return false, "", nil
	case KindBucket:
		if op != "=" {
			return false, "", nil
		}
	}
	switch op {
	case "<":
		op = "<="
		if p, ok := step(source, v, -1); ok {
			v = p
		} else if discrete(source.Kind) {
			return false, "", nil // v is the type's minimum
		}
	case ">":
		op = ">="
		if p, ok := step(source, v, +1); ok {
			v = p
		} else if discrete(source.Kind) {
			return false, "", nil // v is the type's maximum
		}
	}
	r, err := t.Apply(source, v)
	if err != nil || r == nil {
		return false, "", nil
	}
	return true, op, r
}

func discrete(k schema.Kind) bool {
	return k != schema.String && k != schema.Binary
}

// step returns v+d (d = ±1 in the type's smallest unit) for the discrete
// types, and false at the end of the representation or for other types.
func step(typ schema.Type, v any, d int64) (any, bool) {
	switch typ.Kind {
	case schema.Decimal:
		u := v.(Decimal)
		return Decimal{Unscaled: new(big.Int).Add(u.Unscaled, big.NewInt(d)), Scale: u.Scale}, true
	case schema.Date:
		n := v.(int32)
		if (d < 0 && n == math.MinInt32) || (d > 0 && n == math.MaxInt32) {
			return nil, false
		}
		return n + int32(d), true
	case schema.String, schema.Binary:
		return nil, false
	}
	n := v.(int64) // integer kinds and timestamp
	if (d < 0 && n == math.MinInt64) || (d > 0 && n == math.MaxInt64) {
		return nil, false
	}
	return n + d, true
}
