package scan

import (
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// vecPred is a Predicate compiled for one column of a record: the literal
// values in the representation the column's Arrow array holds.
type vecPred struct {
	col  int // index in the record
	op   Op
	ints []int64          // integers, dates (µs), timestamps (µs)
	flts []float64        // floats
	decs []decimal128.Num // decimals, unscaled at the column's scale
	strs []string         // strings
}

// compileVecPred converts p's domain values (see literalValue) for a
// column of type t, or reports false when the literal cannot be compared
// exactly in the column's storage (a decimal literal finer than the
// column's scale, a date literal that is not a whole day, ...).
func compileVecPred(p Predicate, col int, t schema.Type) (vecPred, bool) {
	vp := vecPred{col: col, op: p.Op}
	for _, v := range p.Values {
		switch t.Kind {
		case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32, schema.Uint64:
			x, ok := v.(int64)
			lo, hi := intRange(t.Kind)
			if !ok || x < lo || x > hi {
				return vp, false // GMS would clamp the literal to the column type
			}
			vp.ints = append(vp.ints, x)
		case schema.Date:
			x, ok := v.(int64)
			if !ok || x%(86400*1e6) != 0 {
				return vp, false // GMS truncates the literal to a date
			}
			vp.ints = append(vp.ints, x)
		case schema.Timestamp:
			x, ok := v.(int64)
			if !ok {
				return vp, false
			}
			vp.ints = append(vp.ints, x)
		case schema.Float32, schema.Float64:
			x, ok := v.(float64)
			if !ok {
				return vp, false
			}
			vp.flts = append(vp.flts, x)
		case schema.Decimal:
			d, ok := v.(decimal.Decimal)
			if !ok {
				return vp, false
			}
			n, ok := decimalAtScale(d, t.Scale)
			if !ok {
				return vp, false
			}
			vp.decs = append(vp.decs, n)
		case schema.String:
			s, ok := v.(string)
			if !ok {
				return vp, false
			}
			vp.strs = append(vp.strs, s)
		default:
			return vp, false
		}
	}
	return vp, true
}

// intRange is the value range of an integer kind (uint64 limited to what
// the int64 domain holds).
func intRange(k schema.Kind) (int64, int64) {
	switch k {
	case schema.Int8:
		return -1 << 7, 1<<7 - 1
	case schema.Int16:
		return -1 << 15, 1<<15 - 1
	case schema.Int32:
		return -1 << 31, 1<<31 - 1
	case schema.Uint8:
		return 0, 1<<8 - 1
	case schema.Uint16:
		return 0, 1<<16 - 1
	case schema.Uint32:
		return 0, 1<<32 - 1
	case schema.Uint64:
		return 0, 1<<63 - 1
	}
	return -1 << 63, 1<<63 - 1
}

// decimalAtScale is d's unscaled value at scale, if exact and in 128 bits.
func decimalAtScale(d decimal.Decimal, scale int) (decimal128.Num, bool) {
	if -int(d.Exponent()) > scale {
		// Finer than the column: exact only if the extra digits are 0.
		r := d.Truncate(int32(scale))
		if !r.Equal(d) {
			return decimal128.Num{}, false
		}
		d = r
	}
	n := d.Shift(int32(scale)).BigInt()
	if n.BitLen() > 126 {
		return decimal128.Num{}, false
	}
	return decimal128.FromBigInt(n), true
}

// match applies the GMS comparison result c (of value vs literal) to op.
func match(op Op, c int) bool {
	switch op {
	case OpEq, OpIn:
		return c == 0
	case OpLt:
		return c < 0
	case OpLe:
		return c <= 0
	case OpGt:
		return c > 0
	case OpGe:
		return c >= 0
	}
	return false
}

// filterSel keeps in sel the rows of a for which p holds (NULL never
// matches a comparison). sel is rewritten in place and returned.
// selectRows returns the rows of rec passing every predicate, as a
// selection vector built in buf's storage.
func selectRows(rec arrow.Record, preds []vecPred, buf []int32) []int32 {
	n := int32(rec.NumRows())
	sel := slices.Grow(buf[:0], int(n))
	for i := range n {
		sel = append(sel, i)
	}
	for _, vp := range preds {
		if len(sel) == 0 {
			break
		}
		sel = filterSel(rec.Column(vp.col), vp, sel)
	}
	return sel
}

func filterSel(a arrow.Array, p vecPred, sel []int32) []int32 {
	out := sel[:0]
	switch p.op {
	case OpIsNull, OpNotNull:
		want := p.op == OpIsNull
		for _, i := range sel {
			if a.IsNull(int(i)) == want {
				out = append(out, i)
			}
		}
		return out
	}
	switch x := a.(type) {
	case *array.Int8:
		return filterInts(x, x.Int8Values(), p, sel)
	case *array.Int16:
		return filterInts(x, x.Int16Values(), p, sel)
	case *array.Int32:
		return filterInts(x, x.Int32Values(), p, sel)
	case *array.Int64:
		if p.decs != nil { // a DECIMAL read unscaled (datafile.ReadOptions.RawDecimals)
			return filterRawDec(x, p, sel)
		}
		return filterInts(x, x.Int64Values(), p, sel)
	case *array.Uint8:
		return filterInts(x, x.Uint8Values(), p, sel)
	case *array.Uint16:
		return filterInts(x, x.Uint16Values(), p, sel)
	case *array.Uint32:
		return filterInts(x, x.Uint32Values(), p, sel)
	case *array.Uint64:
		v := x.Uint64Values()
		for _, i := range sel {
			if x.IsNull(int(i)) {
				continue
			}
			for _, l := range p.ints { // literals are >= 0 (intRange)
				if match(p.op, cmp3(v[i], uint64(l))) {
					out = append(out, i)
					break
				}
			}
		}
		return out
	case *array.Date32:
		v := x.Date32Values()
		const day = 86400 * 1e6
		if len(p.ints) == 1 && x.NullN() == 0 && p.ints[0]%day == 0 && p.op != OpIn {
			return cmpSel(x.Date32Values(), p.op, arrow.Date32(p.ints[0]/day), sel)
		}
		if len(p.ints) == 1 && x.NullN() == 0 {
			l := p.ints[0]
			for _, i := range sel {
				if match(p.op, cmp3(int64(v[i])*86400*1e6, l)) {
					out = append(out, i)
				}
			}
			return out
		}
		for _, i := range sel {
			if x.IsNull(int(i)) {
				continue
			}
			us := int64(v[i]) * 86400 * 1e6
			for _, l := range p.ints {
				if match(p.op, cmp3(us, l)) {
					out = append(out, i)
					break
				}
			}
		}
		return out
	case *array.Timestamp:
		v := x.TimestampValues()
		unit := x.DataType().(*arrow.TimestampType).Unit
		for _, i := range sel {
			if x.IsNull(int(i)) {
				continue
			}
			us := timestampValue(int64(v[i]), unit).UnixMicro()
			for _, l := range p.ints {
				if match(p.op, cmp3(us, l)) {
					out = append(out, i)
					break
				}
			}
		}
		return out
	case *array.Float32:
		return filterFloats(x, x.Float32Values(), p, sel)
	case *array.Float64:
		return filterFloats(x, x.Float64Values(), p, sel)
	case *array.Decimal128:
		if len(p.decs) == 1 && fits64(p.decs[0]) {
			return filterDec64(x, p.op, int64(p.decs[0].LowBits()), sel)
		}
		for _, i := range sel {
			if x.IsNull(int(i)) {
				continue
			}
			v := x.Value(int(i))
			for _, l := range p.decs {
				if match(p.op, v.Cmp(l)) {
					out = append(out, i)
					break
				}
			}
		}
		return out
	case *array.String:
		for _, i := range sel {
			if x.IsNull(int(i)) {
				continue
			}
			s := x.Value(int(i))
			for _, l := range p.strs {
				if match(p.op, strings.Compare(s, l)) {
					out = append(out, i)
					break
				}
			}
		}
		return out
	case *array.Null:
		return out
	}
	return out
}

func cmp3[T int64 | uint64 | float64](a, b T) int {
	// GMS's number comparison: NaN compares equal to everything.
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

func filterInts[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32](a nullable, v []T, p vecPred, sel []int32) []int32 {
	out := sel[:0]
	if len(p.ints) == 1 {
		l := p.ints[0]
		for _, i := range sel {
			if !a.IsNull(int(i)) && match(p.op, cmp3(int64(v[i]), l)) {
				out = append(out, i)
			}
		}
		return out
	}
	for _, i := range sel {
		if a.IsNull(int(i)) {
			continue
		}
		x := int64(v[i])
		for _, l := range p.ints {
			if match(p.op, cmp3(x, l)) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

func filterFloats[T float32 | float64](a nullable, v []T, p vecPred, sel []int32) []int32 {
	out := sel[:0]
	for _, i := range sel {
		if a.IsNull(int(i)) {
			continue
		}
		x := float64(v[i])
		for _, l := range p.flts {
			if match(p.op, cmp3(x, l)) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// filterRawDec is filterSel for a DECIMAL column read as its unscaled
// int64 values: a literal that fits in int64 compares as an integer, one
// that does not by its sign alone (it is beyond every value).
func filterRawDec(x *array.Int64, p vecPred, sel []int32) []int32 {
	v := x.Int64Values()
	nulls := x.NullN() > 0
	if len(p.decs) == 1 && fits64(p.decs[0]) && !nulls && p.op != OpIn {
		return cmpSel(v, p.op, int64(p.decs[0].LowBits()), sel)
	}
	out := sel[:0]
	for _, i := range sel {
		if nulls && x.IsNull(int(i)) {
			continue
		}
		for _, l := range p.decs {
			c := -1
			switch {
			case fits64(l):
				c = cmp3(v[i], int64(l.LowBits()))
			case l.HighBits() < 0:
				c = 1
			}
			if match(p.op, c) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// cmpSel keeps the rows of sel whose value compares to l as op says, for
// a column without NULLs: one branch-free loop per operator.
func cmpSel[T int32 | int64 | arrow.Date32](v []T, op Op, l T, sel []int32) []int32 {
	k := 0
	switch op {
	case OpEq:
		for _, i := range sel {
			sel[k] = i
			k += bit(v[i] == l)
		}
	case OpLt:
		for _, i := range sel {
			sel[k] = i
			k += bit(v[i] < l)
		}
	case OpLe:
		for _, i := range sel {
			sel[k] = i
			k += bit(v[i] <= l)
		}
	case OpGt:
		for _, i := range sel {
			sel[k] = i
			k += bit(v[i] > l)
		}
	case OpGe:
		for _, i := range sel {
			sel[k] = i
			k += bit(v[i] >= l)
		}
	}
	return sel[:k]
}

// bit is 1 for true: the compiler makes it a flag move, not a branch.
func bit(b bool) int {
	if b {
		return 1
	}
	return 0
}

// filterDec64 is filterSel for one DECIMAL literal that fits in int64:
// values that fit too compare as integers, the others by sign alone
// (their magnitude exceeds any int64).
func filterDec64(x *array.Decimal128, op Op, l int64, sel []int32) []int32 {
	out := sel[:0]
	v := x.Values()
	nulls := x.NullN() > 0
	for _, i := range sel {
		if nulls && x.IsNull(int(i)) {
			continue
		}
		d := v[i]
		var c int
		if fits64(d) {
			c = cmp3(int64(d.LowBits()), l)
		} else if d.HighBits() < 0 {
			c = -1
		} else {
			c = 1
		}
		if match(op, c) {
			out = append(out, i)
		}
	}
	return out
}
