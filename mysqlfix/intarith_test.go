package mysqlfix

import (
	"fmt"
	"math"
	"testing"
)

// TestIntOp pins MySQL 8's integer + - * (Item_func_plus/minus/mul::int_op):
// exact results, unsigned when either operand is, and 1690 (false) for a
// result outside BIGINT or BIGINT UNSIGNED.
func TestIntOp(t *testing.T) {
	const maxU = uint64(math.MaxUint64)
	u := func(x uint64) Int { return Int{U: x} }
	s := IntOf
	for _, c := range []struct {
		op       byte
		l, r     Int
		unsigned bool
		want     string // "" for out of range
	}{
		{'+', u(maxU), s(0), true, "18446744073709551615"},
		{'+', u(maxU), s(1), true, ""},
		{'+', u(maxU), s(-1), true, "18446744073709551614"},
		{'-', u(maxU), s(1), true, "18446744073709551614"},
		{'-', u(1), s(2), true, ""},
		{'-', s(1), u(1), true, "0"},
		{'*', u(maxU), s(1), true, "18446744073709551615"},
		{'*', u(maxU), s(2), true, ""},
		{'*', u(0), s(-5), true, "0"},
		{'*', u(1), s(-5), true, ""},
		{'+', u(1 << 63), u(1 << 63), true, ""},
		{'+', s(math.MaxInt64), s(1), false, ""},
		{'+', s(math.MaxInt64), s(0), false, "9223372036854775807"},
		{'-', s(math.MinInt64), s(1), false, ""},
		{'-', s(-math.MaxInt64), s(1), false, "-9223372036854775808"},
		{'-', s(0), s(math.MinInt64), false, ""},
		{'*', s(math.MinInt64), s(-1), false, ""},
		{'*', s(math.MinInt64), s(1), false, "-9223372036854775808"},
		{'*', s(3), s(-4), false, "-12"},
		{'*', s(1 << 32), s(1 << 31), false, ""},
		{'-', s(5), s(10), false, "-5"},
	} {
		v, ok := IntOp(c.op, c.l, c.r, c.unsigned)
		got := ""
		if ok {
			got = fmt.Sprint(v)
			if _, isU := v.(uint64); isU != c.unsigned {
				t.Errorf("%v %c %v: Go type %T", c.l, c.op, c.r, v)
			}
		}
		if got != c.want {
			t.Errorf("%v %c %v (unsigned %v): %q, want %q", c.l, c.op, c.r, c.unsigned, got, c.want)
		}
		// The allocation-free forms agree with IntOp.
		if !c.l.Neg && !c.r.Neg && c.unsigned {
			if w, ok2 := UnsignedOp(c.op, c.l.U, c.r.U); ok2 != ok || (ok && fmt.Sprint(w) != got) {
				t.Errorf("UnsignedOp %v %c %v: %d %v", c.l, c.op, c.r, w, ok2)
			}
		}
		if !c.unsigned {
			x, y := int64(c.l.U), int64(c.r.U)
			if c.l.Neg {
				x = -x
			}
			if c.r.Neg {
				y = -y
			}
			if w, ok2 := SignedOp(c.op, x, y); ok2 != ok || (ok && fmt.Sprint(w) != got) {
				t.Errorf("SignedOp %d %c %d: %d %v", x, c.op, y, w, ok2)
			}
		}
	}
}
