package scan

import (
	"cmp"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// AggKind is an aggregate function the vectorised path computes.
type AggKind int

const (
	AggCountStar AggKind = iota
	AggCount
	AggSum
	AggAvg
	AggMin
	AggMax
	// AggCountDistinct is COUNT(DISTINCT x) of one argument.
	AggCountDistinct
)

// accum is one aggregate's per-group state. Values it returns are exactly
// what GMS's own aggregation buffers return for the same rows (same Go
// types), except that integer and DECIMAL sums are exact.
type accum interface {
	grow(groups int)
	// update adds rows sel of a; gid[k] is the group of row sel[k].
	update(a arrow.Array, sel, gid []int32)
	// merge folds o (a later partial) into the receiver; o's group g is
	// the receiver's group remap[g].
	merge(o accum, remap []int32)
	result(g int) any
	fresh() accum
}

// growTo extends s with zero values to length n.
func growTo[T any](s []T, n int) []T {
	m := len(s)
	if n <= m {
		return s
	}
	s = slices.Grow(s, n-m)[:n]
	clear(s[m:])
	return s
}

// supportsAgg reports whether kind over a column of type t is vectorised.
func supportsAgg(kind AggKind, t schema.Type) bool {
	switch kind {
	case AggCountStar, AggCount:
		return true
	case AggSum, AggAvg:
		switch t.Kind {
		case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32, schema.Uint64,
			schema.Float32, schema.Float64, schema.Decimal:
			return true
		}
	case AggMin, AggMax:
		switch t.Kind {
		case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32, schema.Uint64,
			schema.Float32, schema.Float64, schema.Decimal, schema.Date, schema.Timestamp, schema.String:
			return true
		}
	case AggCountDistinct:
		return newCountDistinctFor(t) != nil
	}
	return false
}

// newAccum makes the accumulator for kind over a column of type t; scale
// is the result's scale of an exact SUM or AVG (AggSpec.Scale).
func newAccum(kind AggKind, t schema.Type, scale int32) accum {
	switch kind {
	case AggCountStar:
		return &countAcc{star: true}
	case AggCount:
		return &countAcc{}
	case AggCountDistinct:
		return newCountDistinctFor(t)
	case AggSum, AggAvg:
		avg := kind == AggAvg
		switch t.Kind {
		case schema.Float32, schema.Float64:
			return &floatSum{avg: avg}
		case schema.Decimal:
			return &decSum{avg: avg, scale: int32(t.Scale), out: scale}
		default:
			return &intSum{avg: avg, out: scale}
		}
	case AggMin, AggMax:
		dir := -1
		if kind == AggMax {
			dir = 1
		}
		switch t.Kind {
		case schema.Int8:
			return newExtreme[int8](dir, func(v int8) any { return v })
		case schema.Int16:
			return newExtreme[int16](dir, func(v int16) any { return v })
		case schema.Int32:
			return newExtreme[int32](dir, func(v int32) any { return v })
		case schema.Int64:
			return newExtreme[int64](dir, func(v int64) any { return v })
		case schema.Uint8:
			return newExtreme[uint8](dir, func(v uint8) any { return v })
		case schema.Uint16:
			return newExtreme[uint16](dir, func(v uint16) any { return v })
		case schema.Uint32:
			return newExtreme[uint32](dir, func(v uint32) any { return v })
		case schema.Uint64:
			return newExtreme[uint64](dir, func(v uint64) any { return v })
		case schema.Float32:
			return newExtreme[float32](dir, func(v float32) any { return v })
		case schema.Float64:
			return newExtreme[float64](dir, func(v float64) any { return v })
		case schema.Date:
			return newExtreme[int32](dir, func(v int32) any { return time.Unix(int64(v)*86400, 0).UTC() })
		case schema.Timestamp:
			return newExtreme[int64](dir, func(v int64) any { return time.UnixMicro(v).UTC() })
		case schema.String:
			return newExtreme[string](dir, func(v string) any { return v })
		case schema.Decimal:
			return &decExtreme{dir: dir, scale: int32(t.Scale)}
		}
	}
	return nil
}

// countAcc is COUNT(*) or COUNT(col).
type countAcc struct {
	star bool
	n    []int64
}

func (c *countAcc) fresh() accum     { return &countAcc{star: c.star} }
func (c *countAcc) grow(n int)       { c.n = growTo(c.n, n) }
func (c *countAcc) result(g int) any { return c.n[g] }
func (c *countAcc) update(a arrow.Array, sel, gid []int32) {
	if c.star || a.NullN() == 0 {
		for k := range sel {
			c.n[gid[k]]++
		}
		return
	}
	for k, i := range sel {
		if !a.IsNull(int(i)) {
			c.n[gid[k]]++
		}
	}
}
func (c *countAcc) merge(o accum, remap []int32) {
	for g, v := range o.(*countAcc).n {
		c.n[remap[g]] += v
	}
}

// intSum sums integers exactly in 128 bits and answers a DECIMAL at scale
// out, like MySQL (and mysqlfix.Sum and Avg on the row path).
type intSum struct {
	avg    bool
	out    int32
	hi     []int64
	lo     []uint64
	n      []int64
	signed bool
}

func (s *intSum) fresh() accum { return &intSum{avg: s.avg, out: s.out} }
func (s *intSum) grow(n int) {
	s.hi, s.lo, s.n = growTo(s.hi, n), growTo(s.lo, n), growTo(s.n, n)
}

func (s *intSum) add(g int32, x int64) {
	var c uint64
	s.lo[g], c = bits.Add64(s.lo[g], uint64(x), 0)
	s.hi[g] += int64(c) + (x >> 63)
	s.n[g]++
}

func (s *intSum) addU(g int32, x uint64) {
	var c uint64
	s.lo[g], c = bits.Add64(s.lo[g], x, 0)
	s.hi[g] += int64(c)
	s.n[g]++
}

func sumInts[T int8 | int16 | int32 | int64](s *intSum, a nullable, v []T, sel, gid []int32) {
	for k, i := range sel {
		if !a.IsNull(int(i)) {
			s.add(gid[k], int64(v[i]))
		}
	}
}

func sumUints[T uint8 | uint16 | uint32 | uint64](s *intSum, a nullable, v []T, sel, gid []int32) {
	for k, i := range sel {
		if !a.IsNull(int(i)) {
			s.addU(gid[k], uint64(v[i]))
		}
	}
}

func (s *intSum) update(a arrow.Array, sel, gid []int32) {
	switch x := a.(type) {
	case *array.Int8:
		sumInts(s, x, x.Int8Values(), sel, gid)
	case *array.Int16:
		sumInts(s, x, x.Int16Values(), sel, gid)
	case *array.Int32:
		sumInts(s, x, x.Int32Values(), sel, gid)
	case *array.Int64:
		sumInts(s, x, x.Int64Values(), sel, gid)
	case *array.Uint8:
		sumUints(s, x, x.Uint8Values(), sel, gid)
	case *array.Uint16:
		sumUints(s, x, x.Uint16Values(), sel, gid)
	case *array.Uint32:
		sumUints(s, x, x.Uint32Values(), sel, gid)
	case *array.Uint64:
		sumUints(s, x, x.Uint64Values(), sel, gid)
	}
}

func (s *intSum) merge(o accum, remap []int32) {
	os := o.(*intSum)
	for g := range os.n {
		d := remap[g]
		var c uint64
		s.lo[d], c = bits.Add64(s.lo[d], os.lo[g], 0)
		s.hi[d] += os.hi[g] + int64(c)
		s.n[d] += os.n[g]
	}
}

func (s *intSum) big(g int) *big.Int {
	b := new(big.Int).SetInt64(s.hi[g])
	b.Lsh(b, 64)
	return b.Add(b, new(big.Int).SetUint64(s.lo[g]))
}

func (s *intSum) result(g int) any {
	if s.n[g] == 0 {
		return nil
	}
	return exactResult(decimal.NewFromBigInt(s.big(g), 0), s.n[g], s.out, s.avg)
}

// exactResult is SUM (avg false) or AVG of values summing to sum over n
// rows at the result's scale, rounded half away from zero as MySQL
// divides: mysqlfix.DecimalResult, which the row path applies.
func exactResult(sum decimal.Decimal, n int64, scale int32, avg bool) decimal.Decimal {
	if avg {
		sum = sum.DivRound(decimal.NewFromInt(n), scale)
	}
	return sum.Round(scale)
}

// floatSum is SUM/AVG over floats, as float64 like GMS.
type floatSum struct {
	avg bool
	sum []float64
	n   []int64
}

func (s *floatSum) fresh() accum { return &floatSum{avg: s.avg} }
func (s *floatSum) grow(n int)   { s.sum, s.n = growTo(s.sum, n), growTo(s.n, n) }

func sumFloats[T float32 | float64](s *floatSum, a nullable, v []T, sel, gid []int32) {
	for k, i := range sel {
		if !a.IsNull(int(i)) {
			s.sum[gid[k]] += float64(v[i])
			s.n[gid[k]]++
		}
	}
}

func (s *floatSum) update(a arrow.Array, sel, gid []int32) {
	switch x := a.(type) {
	case *array.Float32:
		sumFloats(s, x, x.Float32Values(), sel, gid)
	case *array.Float64:
		sumFloats(s, x, x.Float64Values(), sel, gid)
	}
}

func (s *floatSum) merge(o accum, remap []int32) {
	os := o.(*floatSum)
	for g := range os.n {
		s.sum[remap[g]] += os.sum[g]
		s.n[remap[g]] += os.n[g]
	}
}

func (s *floatSum) result(g int) any {
	if s.n[g] == 0 {
		return nil
	}
	if s.avg {
		return s.sum[g] / float64(s.n[g])
	}
	return s.sum[g]
}

// decSum sums DECIMAL values exactly in 192 bits (a 128-bit value never
// overflows it within 2^64 rows) and answers a DECIMAL at scale out.
type decSum struct {
	avg   bool
	scale int32 // the values'
	out   int32
	lo    []uint64
	mid   []uint64
	top   []int64
	n     []int64
}

func (s *decSum) fresh() accum { return &decSum{avg: s.avg, scale: s.scale, out: s.out} }
func (s *decSum) grow(n int) {
	s.lo, s.mid, s.top, s.n = growTo(s.lo, n), growTo(s.mid, n), growTo(s.top, n), growTo(s.n, n)
}

func (s *decSum) add(g int32, hi int64, lo uint64) {
	var c uint64
	s.lo[g], c = bits.Add64(s.lo[g], lo, 0)
	s.mid[g], c = bits.Add64(s.mid[g], uint64(hi), c)
	s.top[g] += int64(c) + (hi >> 63)
}

func (s *decSum) update(a arrow.Array, sel, gid []int32) {
	if x, ok := a.(*array.Int64); ok { // read unscaled (datafile.ReadOptions.RawDecimals)
		s.updateRaw(x, sel, gid)
		return
	}
	x, ok := a.(*array.Decimal128)
	if !ok {
		return
	}
	v := x.Values()
	if x.NullN() == 0 {
		for k, i := range sel {
			g := gid[k]
			s.add(g, v[i].HighBits(), v[i].LowBits())
			s.n[g]++
		}
		return
	}
	for k, i := range sel {
		if !x.IsNull(int(i)) {
			s.add(gid[k], v[i].HighBits(), v[i].LowBits())
			s.n[gid[k]]++
		}
	}
}

func (s *decSum) updateRaw(x *array.Int64, sel, gid []int32) {
	v := x.Int64Values()
	nulls := x.NullN() > 0
	for k, i := range sel {
		if nulls && x.IsNull(int(i)) {
			continue
		}
		g := gid[k]
		s.add(g, v[i]>>63, uint64(v[i]))
		s.n[g]++
	}
}

func (s *decSum) merge(o accum, remap []int32) {
	os := o.(*decSum)
	for g := range os.n {
		d := remap[g]
		var c uint64
		s.lo[d], c = bits.Add64(s.lo[d], os.lo[g], 0)
		s.mid[d], c = bits.Add64(s.mid[d], os.mid[g], c)
		s.top[d] += os.top[g] + int64(c)
		s.n[d] += os.n[g]
	}
}

func (s *decSum) result(g int) any {
	if s.n[g] == 0 {
		return nil
	}
	var sum decimal.Decimal
	if sign := int64(s.lo[g]) >> 63; s.top[g] == sign && s.mid[g] == uint64(sign) {
		sum = decimal.New(int64(s.lo[g]), -s.scale) // fits in 64 bits: no big.Int
	} else {
		b := new(big.Int).SetInt64(s.top[g])
		b.Lsh(b, 64)
		b.Add(b, new(big.Int).SetUint64(s.mid[g]))
		b.Lsh(b, 64)
		b.Add(b, new(big.Int).SetUint64(s.lo[g]))
		sum = decimal.NewFromBigInt(b, -s.scale)
	}
	return exactResult(sum, s.n[g], s.out, s.avg)
}

// extreme is MIN/MAX over an ordered Go type with GMS's semantics: the
// first value of the group is kept unless a later one compares strictly
// smaller (larger), so a NaN first value sticks and a later NaN never
// replaces anything. Partials merge in scan order.
type extreme[T cmp.Ordered] struct {
	dir  int
	conv func(T) any
	has  []bool // any value seen
	nan  []bool // the first value seen was NaN
	hv   []bool // val holds a (non-NaN) value
	val  []T
}

func newExtreme[T cmp.Ordered](dir int, conv func(T) any) *extreme[T] {
	return &extreme[T]{dir: dir, conv: conv}
}

func (e *extreme[T]) fresh() accum { return newExtreme[T](e.dir, e.conv) }
func (e *extreme[T]) grow(n int) {
	e.has, e.nan, e.hv, e.val = growTo(e.has, n), growTo(e.nan, n), growTo(e.hv, n), growTo(e.val, n)
}

func (e *extreme[T]) better(v, cur T) bool {
	if e.dir < 0 {
		return v < cur
	}
	return v > cur
}

func (e *extreme[T]) put(g int32, v T) {
	if !e.has[g] {
		e.has[g] = true
		if v != v {
			e.nan[g] = true
		}
	}
	if v == v && (!e.hv[g] || e.better(v, e.val[g])) {
		e.val[g], e.hv[g] = v, true
	}
}

func extremeOf[S, T cmp.Ordered](e *extreme[T], a nullable, v []S, sel, gid []int32, conv func(S) T) {
	for k, i := range sel {
		if !a.IsNull(int(i)) {
			e.put(gid[k], conv(v[i]))
		}
	}
}

func ident[T any](v T) T { return v }

func (e *extreme[T]) update(a arrow.Array, sel, gid []int32) {
	switch x := any(e).(type) {
	case *extreme[int8]:
		extremeOf(x, a, a.(*array.Int8).Int8Values(), sel, gid, ident[int8])
	case *extreme[int16]:
		extremeOf(x, a, a.(*array.Int16).Int16Values(), sel, gid, ident[int16])
	case *extreme[int32]:
		if d, ok := a.(*array.Date32); ok {
			extremeOf(x, a, d.Date32Values(), sel, gid, func(v arrow.Date32) int32 { return int32(v) })
		} else {
			extremeOf(x, a, a.(*array.Int32).Int32Values(), sel, gid, ident[int32])
		}
	case *extreme[int64]:
		if t, ok := a.(*array.Timestamp); ok {
			unit := t.DataType().(*arrow.TimestampType).Unit
			extremeOf(x, a, t.TimestampValues(), sel, gid, func(v arrow.Timestamp) int64 {
				return timestampValue(int64(v), unit).UnixMicro()
			})
		} else {
			extremeOf(x, a, a.(*array.Int64).Int64Values(), sel, gid, ident[int64])
		}
	case *extreme[uint8]:
		extremeOf(x, a, a.(*array.Uint8).Uint8Values(), sel, gid, ident[uint8])
	case *extreme[uint16]:
		extremeOf(x, a, a.(*array.Uint16).Uint16Values(), sel, gid, ident[uint16])
	case *extreme[uint32]:
		extremeOf(x, a, a.(*array.Uint32).Uint32Values(), sel, gid, ident[uint32])
	case *extreme[uint64]:
		extremeOf(x, a, a.(*array.Uint64).Uint64Values(), sel, gid, ident[uint64])
	case *extreme[float32]:
		extremeOf(x, a, a.(*array.Float32).Float32Values(), sel, gid, ident[float32])
	case *extreme[float64]:
		extremeOf(x, a, a.(*array.Float64).Float64Values(), sel, gid, ident[float64])
	case *extreme[string]:
		s := a.(*array.String)
		for k, i := range sel {
			if !s.IsNull(int(i)) {
				g := gid[k]
				v := s.Value(int(i))
				if !x.has[g] || x.better(v, x.val[g]) {
					x.val[g] = string([]byte(v)) // copy: the batch is released
					x.has[g], x.hv[g] = true, true
				}
			}
		}
	}
}

func (e *extreme[T]) merge(o accum, remap []int32) {
	oe := o.(*extreme[T])
	for g := range oe.has {
		if !oe.has[g] {
			continue
		}
		d := remap[g]
		if !e.has[d] {
			e.has[d], e.nan[d], e.hv[d], e.val[d] = true, oe.nan[g], oe.hv[g], oe.val[g]
			continue
		}
		if oe.hv[g] && (!e.hv[d] || e.better(oe.val[g], e.val[d])) {
			e.val[d], e.hv[d] = oe.val[g], true
		}
	}
}

func (e *extreme[T]) result(g int) any {
	if !e.has[g] {
		return nil
	}
	if e.nan[g] {
		var z T
		switch any(z).(type) {
		case float32:
			return float32(math.NaN())
		default:
			return math.NaN()
		}
	}
	return e.conv(e.val[g])
}

// decExtreme is MIN/MAX over DECIMAL.
type decExtreme struct {
	dir   int
	scale int32
	has   []bool
	val   []decimal128.Num
}

func (e *decExtreme) fresh() accum { return &decExtreme{dir: e.dir, scale: e.scale} }
func (e *decExtreme) grow(n int)   { e.has, e.val = growTo(e.has, n), growTo(e.val, n) }
func (e *decExtreme) put(g int32, v decimal128.Num) {
	if !e.has[g] || v.Cmp(e.val[g])*e.dir > 0 {
		e.val[g], e.has[g] = v, true
	}
}
func (e *decExtreme) update(a arrow.Array, sel, gid []int32) {
	x := a.(*array.Decimal128)
	v := x.Values()
	for k, i := range sel {
		if !x.IsNull(int(i)) {
			e.put(gid[k], v[i])
		}
	}
}
func (e *decExtreme) merge(o accum, remap []int32) {
	oe := o.(*decExtreme)
	for g := range oe.has {
		if oe.has[g] {
			e.put(remap[g], oe.val[g])
		}
	}
}
func (e *decExtreme) result(g int) any {
	if !e.has[g] {
		return nil
	}
	return decimal.NewFromBigInt(e.val[g].BigInt(), -e.scale)
}
