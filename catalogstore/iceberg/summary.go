package iceberg

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/big"
)

// partitionSummary accumulates a manifest's summary of one partition
// field (manifest list field 507): whether any value is null or NaN, and
// the bounds of the others in Iceberg's single-value encoding. Readers use
// it to skip whole manifests.
type partitionSummary struct {
	containsNull, containsNaN, isFloat bool
	noBounds                           bool // decimals: bounds left out
	lower, upper                       any
}

func (p *partitionSummary) add(v any) {
	switch x := v.(type) {
	case nil:
		p.containsNull = true
		return
	case float32:
		p.isFloat = true
		if math.IsNaN(float64(x)) {
			p.containsNaN = true
			return
		}
	case float64:
		p.isFloat = true
		if math.IsNaN(x) {
			p.containsNaN = true
			return
		}
	case big.Rat:
		// The unscaled value needs the column's scale, which a rational
		// has lost; no bounds is always safe.
		p.noBounds = true
		return
	}
	if p.lower == nil || less(v, p.lower) {
		p.lower = v
	}
	if p.upper == nil || less(p.upper, v) {
		p.upper = v
	}
}

func (p *partitionSummary) record() fieldSummary {
	fs := fieldSummary{ContainsNull: p.containsNull}
	if p.isFloat {
		nan := p.containsNaN
		fs.ContainsNaN = &nan
	}
	if p.lower != nil && !p.noBounds {
		lo, hi := encodeValue(p.lower, false), encodeValue(p.upper, true)
		fs.LowerBound, fs.UpperBound = &lo, &hi
	}
	return fs
}

// less orders two partition values of one field.
func less(a, b any) bool {
	switch x := a.(type) {
	case bool:
		return !x && b.(bool)
	case int32:
		return x < b.(int32)
	case int64:
		return x < b.(int64)
	case float32:
		return x < b.(float32) || (x == 0 && b.(float32) == 0 && math.Signbit(float64(x)) && !math.Signbit(float64(b.(float32))))
	case float64:
		return x < b.(float64) || (x == 0 && b.(float64) == 0 && math.Signbit(x) && !math.Signbit(b.(float64)))
	case string:
		return x < b.(string)
	case []byte:
		return bytes.Compare(x, b.([]byte)) < 0
	}
	return false
}

// encodeValue is a partition value in Iceberg's single-value encoding; a
// float zero bound is widened to cover both zeros.
func encodeValue(v any, upper bool) []byte {
	switch x := v.(type) {
	case bool:
		if x {
			return []byte{1}
		}
		return []byte{0}
	case int32:
		return binary.LittleEndian.AppendUint32(nil, uint32(x))
	case int64:
		return binary.LittleEndian.AppendUint64(nil, uint64(x))
	case float32:
		if x == 0 {
			x = float32(zero(upper))
		}
		return binary.LittleEndian.AppendUint32(nil, math.Float32bits(x))
	case float64:
		if x == 0 {
			x = zero(upper)
		}
		return binary.LittleEndian.AppendUint64(nil, math.Float64bits(x))
	case string:
		return []byte(x)
	case []byte:
		return x
	}
	return nil
}

// zero is +0.0 for an upper bound, -0.0 for a lower one.
func zero(upper bool) float64 {
	if upper {
		return 0
	}
	return math.Copysign(0, -1)
}
