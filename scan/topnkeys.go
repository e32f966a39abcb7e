package scan

import (
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// keyCol reads sort key values from one record column.
type keyCol interface {
	isNull(i int) bool
	// cmp orders the (non-NULL) value of row i against a non-NULL v.
	cmp(i int, v *keyVal) int
	get(i int) keyVal
}

func newKeyCol(a arrow.Array) (keyCol, error) {
	var c keyCol
	switch x := a.(type) {
	case *array.Int8:
		c = intCol[int8]{x, x.Int8Values()}
	case *array.Int16:
		c = intCol[int16]{x, x.Int16Values()}
	case *array.Int32:
		c = intCol[int32]{x, x.Int32Values()}
	case *array.Int64:
		c = intCol[int64]{x, x.Int64Values()}
	case *array.Uint8:
		c = intCol[uint8]{x, x.Uint8Values()}
	case *array.Uint16:
		c = intCol[uint16]{x, x.Uint16Values()}
	case *array.Uint32:
		c = intCol[uint32]{x, x.Uint32Values()}
	case *array.Date32:
		c = intCol[arrow.Date32]{x, x.Date32Values()}
	case *array.Timestamp:
		c = intCol[arrow.Timestamp]{x, x.TimestampValues()}
	case *array.Uint64:
		c = uintCol{x, x.Uint64Values()}
	case *array.Float32:
		c = floatCol{a: x, f32: x.Float32Values()}
	case *array.Float64:
		c = floatCol{a: x, f64: x.Float64Values()}
	case *array.Decimal128:
		c = decCol{x}
	case *array.String:
		c = strCol{x}
	case *array.Boolean:
		c = boolCol{x}
	default:
		return nil, fmt.Errorf("scan: no sort key reader for Arrow array %s", a.DataType())
	}
	return c, nil
}

type intCol[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | arrow.Date32 | arrow.Timestamp] struct {
	a nullable
	v []T
}

func (c intCol[T]) isNull(i int) bool        { return c.a.IsNull(i) }
func (c intCol[T]) cmp(i int, v *keyVal) int { return cmp3(int64(c.v[i]), v.i) }
func (c intCol[T]) get(i int) keyVal {
	if c.a.IsNull(i) {
		return keyVal{null: true}
	}
	return keyVal{i: int64(c.v[i])}
}

type uintCol struct {
	a *array.Uint64
	v []uint64
}

func (c uintCol) isNull(i int) bool        { return c.a.IsNull(i) }
func (c uintCol) cmp(i int, v *keyVal) int { return cmp3(c.v[i], v.u) }
func (c uintCol) get(i int) keyVal {
	if c.a.IsNull(i) {
		return keyVal{null: true}
	}
	return keyVal{u: c.v[i]}
}

// floatCol compares as GMS does: equal, less, else greater (so -0 and 0
// tie). NaN never gets here: offer refuses it first.
type floatCol struct {
	a   arrow.Array
	f32 []float32
	f64 []float64
}

func (c floatCol) at(i int) float64 {
	if c.f32 != nil {
		return float64(c.f32[i])
	}
	return c.f64[i]
}

func (c floatCol) hasNaN(sel []int32) bool {
	for _, i := range sel {
		if !c.a.IsNull(int(i)) && math.IsNaN(c.at(int(i))) {
			return true
		}
	}
	return false
}

func (c floatCol) isNull(i int) bool        { return c.a.IsNull(i) }
func (c floatCol) cmp(i int, v *keyVal) int { return cmp3(c.at(i), v.f) }
func (c floatCol) get(i int) keyVal {
	if c.a.IsNull(i) {
		return keyVal{null: true}
	}
	return keyVal{f: c.at(i)}
}

type decCol struct{ a *array.Decimal128 }

func (c decCol) isNull(i int) bool        { return c.a.IsNull(i) }
func (c decCol) cmp(i int, v *keyVal) int { return c.a.Value(i).Cmp(v.d) }
func (c decCol) get(i int) keyVal {
	if c.a.IsNull(i) {
		return keyVal{null: true}
	}
	return keyVal{d: c.a.Value(i)}
}

type strCol struct{ a *array.String }

func (c strCol) isNull(i int) bool        { return c.a.IsNull(i) }
func (c strCol) cmp(i int, v *keyVal) int { return strings.Compare(c.a.Value(i), v.s) }
func (c strCol) get(i int) keyVal {
	if c.a.IsNull(i) {
		return keyVal{null: true}
	}
	return keyVal{s: strings.Clone(c.a.Value(i))} // the batch's buffer is released
}

type boolCol struct{ a *array.Boolean }

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (c boolCol) isNull(i int) bool        { return c.a.IsNull(i) }
func (c boolCol) cmp(i int, v *keyVal) int { return cmp3(b2i(c.a.Value(i)), v.i) }
func (c boolCol) get(i int) keyVal {
	if c.a.IsNull(i) {
		return keyVal{null: true}
	}
	return keyVal{i: b2i(c.a.Value(i))}
}
