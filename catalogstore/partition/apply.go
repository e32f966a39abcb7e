package partition

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"unicode/utf8"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Apply computes the partition value of source value v, of a column of type
// typ, in the Go representation described in the package documentation.
// The result has type t.ResultType(typ); nil gives nil (null forms its own
// partition) and void gives nil for every value.
//
//   - identity: v itself.
//   - bucket[N]: (Hash(typ, v) & math.MaxInt32) % N, an int64 in [0, N).
//   - truncate[W]: integers v - (((v % W) + W) % W), so W=10 takes 1 to 0
//     and -1 to -10; decimals the same on the unscaled value (W=50 at
//     scale 2 takes 10.65 to 10.50); strings their first W code points;
//     binary its first W bytes (a copy).
//   - year, month, day, hour: int64 years since 1970, months since
//     1970-01, days since 1970-01-01, hours since 1970-01-01T00:00Z, by
//     floor division, so 1969-12-31T23:59:59.999999 is day -1, month -1
//     and year -1.
//
// It returns ErrBadTransform, a *TransformTypeError (ErrTransformType) when
// t does not accept typ, ErrBadValue when v is not in typ's representation
// or range (or is a string that is not valid UTF-8, for truncate), and
// ErrOverflow when the result does not fit (truncate of an int64 near
// math.MinInt64, hour beyond the int32 range). Apply is a pure function,
// safe for concurrent use.
func (t Transform) Apply(typ schema.Type, v any) (any, error) {
	if err := t.check("", typ); err != nil {
		return nil, err
	}
	if v == nil || t.kind == KindVoid {
		return nil, nil
	}
	if err := checkValue(typ, v, true); err != nil {
		return nil, err
	}
	switch t.kind {
	case KindIdentity:
		return v, nil
	case KindBucket:
		h, err := Hash(typ, v)
		if err != nil {
			return nil, err
		}
		return int64(h&math.MaxInt32) % int64(t.param), nil
	case KindTruncate:
		return truncate(typ, int64(t.param), v)
	}
	return timeTransform(t.kind, typ, v)
}

func truncate(typ schema.Type, w int64, v any) (any, error) {
	switch typ.Kind {
	case schema.Decimal:
		d := v.(Decimal)
		rem := new(big.Int).Mod(d.Unscaled, big.NewInt(w)) // Euclidean: 0 <= rem < w
		return Decimal{Unscaled: rem.Sub(d.Unscaled, rem), Scale: d.Scale}, nil
	case schema.String:
		s := v.(string)
		if !utf8.ValidString(s) {
			return nil, badValue(typ, v, "not valid UTF-8, so it has no code points to truncate")
		}
		n := 0
		for i := range s {
			if n == int(w) {
				return s[:i], nil
			}
			n++
		}
		return s, nil
	case schema.Binary:
		b := v.([]byte)
		return bytes.Clone(b[:min(int64(len(b)), w)]), nil
	}
	n := v.(int64)
	rem := ((n % w) + w) % w
	if n < math.MinInt64+rem {
		return nil, fmt.Errorf("%w: truncate[%d] of %d is below the int64 range", ErrOverflow, w, n)
	}
	return n - rem, nil
}

func timeTransform(k TransformKind, typ schema.Type, v any) (any, error) {
	var days int64
	if typ.Kind == schema.Date {
		days = int64(v.(int32))
	} else {
		us := v.(int64)
		if k == KindHour {
			h := floorDiv(us, microsPerHour)
			if h < math.MinInt32 || h > math.MaxInt32 {
				return nil, fmt.Errorf("%w: hour of timestamp %d is outside the int32 range", ErrOverflow, us)
			}
			return h, nil
		}
		days = floorDiv(us, microsPerDay)
	}
	if k == KindDay {
		return days, nil
	}
	y, m, _ := civilFromDays(days)
	if k == KindYear {
		return y - 1970, nil
	}
	return (y-1970)*12 + int64(m-1), nil
}
