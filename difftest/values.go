package difftest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// randValue draws a literal for a column of type t: NULL one time in six,
// an edge value (the type's limits, zero, the longest string) one in four,
// otherwise a small ordinary value, so that columns of a type repeat values
// (GROUP BY groups, joins match) and arithmetic mostly stays in range.
func randValue(r *rand.Rand, t ColType) string {
	if r.IntN(6) == 0 {
		return "NULL"
	}
	edge := r.IntN(4) == 0
	switch t.Kind {
	case KindInt:
		return intValue(r, t, edge)
	case KindDecimal:
		return decimalValue(r, t, edge)
	case KindFloat:
		if edge {
			return pick(r, "0", "-0.5", "1e300", "-1e300", "2.2250738585072014e-308", "0.1", "123456789.125")
		}
		return fmt.Sprintf("%d.%d", r.IntN(21)-10, r.IntN(4)*25)
	case KindString:
		return stringValue(r, t, edge)
	case KindDate:
		if edge {
			return pick(r, "'1000-01-01'", "'9999-12-31'", "'2000-02-29'", "'1970-01-01'")
		}
		return fmt.Sprintf("'2024-%02d-%02d'", 1+r.IntN(3), 1+r.IntN(28))
	case KindDatetime:
		return datetimeValue(r, t, edge)
	default: // KindBool
		return pick(r, "TRUE", "FALSE")
	}
}

func pick(r *rand.Rand, xs ...string) string { return xs[r.IntN(len(xs))] }

func intValue(r *rand.Rand, t ColType, edge bool) string {
	if edge {
		if t.Unsigned {
			return pick(r, "0", fmt.Sprint(uint64(1)<<t.Bits-1))
		}
		lim := int64(1) << (t.Bits - 1)
		return pick(r, "0", "-1", fmt.Sprint(lim-1), fmt.Sprint(-lim))
	}
	if t.Unsigned {
		return fmt.Sprint(r.IntN(10))
	}
	return fmt.Sprint(r.IntN(13) - 3)
}

func decimalValue(r *rand.Rand, t ColType, edge bool) string {
	ip := t.Prec - t.Scale // integer digits allowed
	if edge {
		nines := strings.Repeat("9", ip)
		if nines == "" {
			nines = "0"
		}
		if t.Scale > 0 {
			nines += "." + strings.Repeat("9", t.Scale)
		}
		return pick(r, "0", nines, "-"+nines)
	}
	hi := 1
	for i := 0; i < min(ip, 3); i++ {
		hi *= 10
	}
	// Within ±(hi-1): -hi has one integer digit too many (-10.6 does not
	// fit DECIMAL(2,1)).
	v := fmt.Sprint(r.IntN(2*hi-1) - (hi - 1))
	if ip == 0 {
		v = "0"
	}
	if t.Scale > 0 {
		frac := fmt.Sprint(r.IntN(100))
		if t.Scale == 1 {
			frac = fmt.Sprint(r.IntN(10))
		}
		v += "." + frac
	}
	return v
}

func stringValue(r *rand.Rand, t ColType, edge bool) string {
	var s string
	if edge {
		s = pick(r, "", " ", "a ", "A", "Z", "%", "_", "O'R", "é", strings.Repeat("z", t.Len))
	} else {
		s = pick(r, "a", "b", "ab", "abc", "B", "x1", "10", "2", "-3.5", "m n", "a_b", "a%")
	}
	if len([]rune(s)) > t.Len {
		s = string([]rune(s)[:t.Len])
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func datetimeValue(r *rand.Rand, t ColType, edge bool) string {
	var s string
	if edge {
		s = pick(r, "1000-01-01 00:00:00", "9999-12-31 23:59:59", "2000-02-29 12:00:00", "1970-01-01 00:00:00")
	} else {
		s = fmt.Sprintf("2024-%02d-%02d %02d:%02d:00", 1+r.IntN(3), 1+r.IntN(28), r.IntN(24), r.IntN(4)*15)
	}
	if t.Prec > 0 && r.IntN(2) == 0 {
		s += "." + strings.Repeat("5", t.Prec)
	}
	return "'" + s + "'"
}
