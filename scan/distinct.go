package scan

import (
	"math"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// COUNT(DISTINCT x) as GMS's row path computes it (countDistinctBuffer):
// each non-NULL value is converted to TEXT (types.Text.Convert) and the
// distinct texts are counted, as an int64. The accumulator keys values in
// a typed form whose equality is exactly equality of those texts:
//
//   - integers of any width: their value (int64; BIGINT UNSIGNED as
//     uint64, whose text is not an int64's);
//   - floats: strconv 'f' -1 is injective except that GMS rewrites "-0"
//     to "0" and every NaN prints "NaN", so the float64 bits with -0
//     folded into +0 and NaNs into one NaN (a FLOAT's float64 widening is
//     exact, so its bits serve too);
//   - DECIMAL: StringFixed at the value's own exponent, which is -scale
//     for every value of a column or compiled expression, so the 128-bit
//     unscaled value;
//   - DATE: days; DATETIME/TIMESTAMP: microseconds (the text layout ends
//     .999999, dropping any sub-microsecond part, as UnixMicro does for
//     UTC times);
//   - strings: their bytes. GMS ignores the collation here, but lakesql
//     vectorises only binary-collated strings, whose equality is the
//     same. TEXT's limit makes GMS fail on a string longer than 65535
//     bytes: the accumulator reports it (rejected) and the caller reruns
//     the query on the row path, which fails as GMS does.
//
// GMS compares 64-bit hashes of the texts; a collision would make it
// undercount, which is not reproduced.

// maxTextBytes is the longest string GMS converts to TEXT (TextBlobMax).
const maxTextBytes = 65535

// distinctKey is one (group, value) member of a distinct set.
type distinctKey[T comparable] struct {
	g int32
	v T
}

// countDistinct is COUNT(DISTINCT x) for values keyed as T.
//
// One set per partial holds every (group, value) pair, rather than one
// map per group: a high-cardinality GROUP BY has many groups with a few
// values each, and a Go map per group would cost an allocation and
// hundreds of bytes of table per group, while the shared set costs only
// its entries; merge is then one loop over the other partial's pairs.
type countDistinct[T comparable] struct {
	// keys writes the key of each row of sel into dst (any for a NULL
	// row), or reports false when a row holds a value GMS's row path
	// fails on.
	keys func(a arrow.Array, sel []int32, dst []T) ([]T, bool)
	// own copies a key that may point into the batch (nil: none does).
	own      func(T) T
	seen     map[distinctKey[T]]struct{}
	n        []int64 // distinct values by group
	buf      []T
	rejected bool
}

func newCountDistinct[T comparable](keys func(arrow.Array, []int32, []T) ([]T, bool), own func(T) T) *countDistinct[T] {
	return &countDistinct[T]{keys: keys, own: own, seen: map[distinctKey[T]]struct{}{}}
}

// newCountDistinctFor makes the accumulator for values of type t (a type
// supportsAgg accepts), or nil.
func newCountDistinctFor(t schema.Type) accum {
	switch t.Kind {
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32, schema.Date:
		return newCountDistinct(intKeys, nil)
	case schema.Uint64:
		return newCountDistinct(uintKeys, nil)
	case schema.Float32, schema.Float64:
		return newCountDistinct(floatKeys, nil)
	case schema.Decimal:
		return newCountDistinct(decKeys, nil)
	case schema.Timestamp:
		return newCountDistinct(microKeys, nil)
	case schema.String:
		return newCountDistinct(strKeys, strings.Clone)
	}
	return nil
}

func (c *countDistinct[T]) fresh() accum     { return newCountDistinct(c.keys, c.own) }
func (c *countDistinct[T]) grow(n int)       { c.n = growTo(c.n, n) }
func (c *countDistinct[T]) result(g int) any { return c.n[g] }

// reject reports whether a value met makes GMS's row path fail.
func (c *countDistinct[T]) reject() bool { return c.rejected }

func (c *countDistinct[T]) update(a arrow.Array, sel, gid []int32) {
	if a.NullN() == a.Len() {
		return // all NULL (possibly an untyped Null array)
	}
	var ok bool
	c.buf, ok = c.keys(a, sel, sized(c.buf, len(sel)))
	c.rejected = c.rejected || !ok
	hasNulls := a.NullN() > 0
	for k, i := range sel {
		if hasNulls && a.IsNull(int(i)) {
			continue
		}
		c.add(distinctKey[T]{gid[k], c.buf[k]})
	}
	if c.own != nil {
		clear(c.buf) // drop references into the batch
	}
}

// merge unions o's pairs into the receiver. Merging into an empty set
// with groups unchanged (a run's first partial) takes o's set instead of
// copying it, leaving o empty.
func (c *countDistinct[T]) merge(o accum, remap []int32) {
	oc := o.(*countDistinct[T])
	c.rejected = c.rejected || oc.rejected
	if len(c.seen) == 0 && identity(remap) {
		c.seen, oc.seen = oc.seen, c.seen
		for g, v := range oc.n {
			c.n[g] += v
		}
		clear(oc.n)
		return
	}
	for key := range oc.seen {
		key.g = remap[key.g]
		c.insert(key)
	}
}

// add adds key, copying a value that points into the batch only when it
// is new.
func (c *countDistinct[T]) add(key distinctKey[T]) {
	if c.own == nil {
		c.insert(key)
		return
	}
	if _, dup := c.seen[key]; !dup {
		key.v = c.own(key.v)
		c.seen[key] = struct{}{}
		c.n[key.g]++
	}
}

// insert adds an owned key with one map access.
func (c *countDistinct[T]) insert(key distinctKey[T]) {
	n := len(c.seen)
	c.seen[key] = struct{}{}
	if len(c.seen) != n {
		c.n[key.g]++
	}
}

// heldBytes estimates the set: each entry's key and the map's share of
// slots and control bytes; string keys add their bytes roughly (their
// average is not tracked).
func (c *countDistinct[T]) heldBytes() int64 {
	return int64(len(c.seen)) * (int64(unsafe.Sizeof(distinctKey[T]{})) + 16)
}

func identity(remap []int32) bool {
	for g, r := range remap {
		if int(r) != g {
			return false
		}
	}
	return true
}

// rejecter is an accumulator that can meet a value GMS's row path fails
// on; the pipeline then reports ErrOverflow, so the caller reruns the
// query on the row path.
type rejecter interface{ reject() bool }

// rejected reports whether any accumulator of pt met such a value.
func (pt *partial) rejected() bool {
	for _, a := range pt.accs {
		if r, ok := a.(rejecter); ok && r.reject() {
			return true
		}
	}
	return false
}

func gatherKeys[S, T any](dst []T, v []S, sel []int32, conv func(S) T) []T {
	for k, i := range sel {
		dst[k] = conv(v[i])
	}
	return dst
}

func intKeys(a arrow.Array, sel []int32, dst []int64) ([]int64, bool) {
	switch x := a.(type) {
	case *array.Int8:
		gatherInts(dst, x.Int8Values(), sel)
	case *array.Int16:
		gatherInts(dst, x.Int16Values(), sel)
	case *array.Int32:
		gatherInts(dst, x.Int32Values(), sel)
	case *array.Int64:
		gatherInts(dst, x.Int64Values(), sel)
	case *array.Uint8:
		gatherInts(dst, x.Uint8Values(), sel)
	case *array.Uint16:
		gatherInts(dst, x.Uint16Values(), sel)
	case *array.Uint32:
		gatherInts(dst, x.Uint32Values(), sel)
	case *array.Date32:
		gatherInts(dst, x.Date32Values(), sel)
	}
	return dst, true
}

func uintKeys(a arrow.Array, sel []int32, dst []uint64) ([]uint64, bool) {
	if x, ok := a.(*array.Uint64); ok {
		gatherKeys(dst, x.Uint64Values(), sel, ident[uint64])
	}
	return dst, true
}

// floatKey is v's key: its bits, with -0 as +0 and one NaN.
func floatKey(v float64) uint64 {
	switch {
	case v == 0:
		return 0
	case v != v:
		return math.Float64bits(math.NaN())
	}
	return math.Float64bits(v)
}

func floatKeys(a arrow.Array, sel []int32, dst []uint64) ([]uint64, bool) {
	switch x := a.(type) {
	case *array.Float32:
		gatherKeys(dst, x.Float32Values(), sel, func(v float32) uint64 { return floatKey(float64(v)) })
	case *array.Float64:
		gatherKeys(dst, x.Float64Values(), sel, floatKey)
	}
	return dst, true
}

func decKeys(a arrow.Array, sel []int32, dst []decimal128.Num) ([]decimal128.Num, bool) {
	if x, ok := a.(*array.Decimal128); ok {
		gatherKeys(dst, x.Values(), sel, ident[decimal128.Num])
	}
	return dst, true
}

func microKeys(a arrow.Array, sel []int32, dst []int64) ([]int64, bool) {
	x, ok := a.(*array.Timestamp)
	if !ok {
		return dst, true
	}
	unit := x.DataType().(*arrow.TimestampType).Unit
	if unit == arrow.Microsecond {
		return gatherKeys(dst, x.TimestampValues(), sel, func(v arrow.Timestamp) int64 { return int64(v) }), true
	}
	return gatherKeys(dst, x.TimestampValues(), sel, func(v arrow.Timestamp) int64 {
		return timestampValue(int64(v), unit).UnixMicro()
	}), true
}

// strKeys points into the batch's bytes: update copies the keys it keeps.
func strKeys(a arrow.Array, sel []int32, dst []string) ([]string, bool) {
	x, ok := a.(*array.String)
	if !ok {
		return dst, true
	}
	fits := true
	for k, i := range sel {
		dst[k] = x.Value(int(i))
		fits = fits && (len(dst[k]) <= maxTextBytes || x.IsNull(int(i)))
	}
	return dst, fits
}
