package datafile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// EncodeBound serialises a bound value in Iceberg's single-value binary
// form (spec Appendix D): int 4-byte LE, long 8-byte LE, float/double LE
// IEEE-754, date as 4-byte LE days, time and timestamp as 8-byte LE µs,
// strings as UTF-8, binary as is, decimals as the minimal two's-complement
// big-endian unscaled value, booleans as one byte. int8/int16/uint8/uint16
// use the int form of the widened value; uint32 the long form; uint64 the 8
// LE bytes of its bits (Iceberg has no unsigned type: such bounds order and
// decode as uint64). v must be of the Go representation (package doc) and
// within the type's range (an int8 bound of 300, or a decimal with more than
// P digits, is ErrBadBound).
func EncodeBound(t schema.Type, v any) ([]byte, error) {
	bad := func() ([]byte, error) {
		return nil, fmt.Errorf("%w: %v (%T) for a %s column", ErrBadBound, v, v, t)
	}
	switch t.Kind {
	case schema.Bool:
		b, ok := v.(bool)
		if !ok {
			return bad()
		}
		if b {
			return []byte{1}, nil
		}
		return []byte{0}, nil
	case schema.Int8, schema.Int16, schema.Int32, schema.Uint8, schema.Uint16:
		i, ok := v.(int64)
		if lo, hi := t.Kind.IntRange(); !ok || i < lo || i > hi {
			return bad()
		}
		return binary.LittleEndian.AppendUint32(nil, uint32(int32(i))), nil
	case schema.Int64, schema.Uint32, schema.Time, schema.Timestamp:
		i, ok := v.(int64)
		if lo, hi := t.Kind.IntRange(); !ok || i < lo || i > hi {
			return bad()
		}
		return binary.LittleEndian.AppendUint64(nil, uint64(i)), nil
	case schema.Uint64:
		u, ok := v.(uint64)
		if !ok {
			return bad()
		}
		return binary.LittleEndian.AppendUint64(nil, u), nil
	case schema.Float32:
		f, ok := v.(float64)
		if !ok || (float64(float32(f)) != f && !math.IsNaN(f)) {
			return bad() // rounding could move a bound past the values
		}
		return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(f))), nil
	case schema.Float64:
		f, ok := v.(float64)
		if !ok {
			return bad()
		}
		return binary.LittleEndian.AppendUint64(nil, math.Float64bits(f)), nil
	case schema.Decimal:
		n, ok := v.(*big.Int)
		if !ok || n == nil || t.Precision < 1 || t.Precision > 38 ||
			new(big.Int).Abs(n).Cmp(pow10[t.Precision]) >= 0 {
			return bad()
		}
		return minimalTwosComplement(n), nil
	case schema.String, schema.JSON:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		return []byte(s), nil
	case schema.Binary:
		b, ok := v.([]byte)
		if !ok {
			return bad()
		}
		return append([]byte(nil), b...), nil
	case schema.Date:
		d, ok := v.(int32)
		if !ok {
			return bad()
		}
		return binary.LittleEndian.AppendUint32(nil, uint32(d)), nil
	}
	return bad()
}

// DecodeBound is the inverse of EncodeBound. Bounds are not rewritten when a
// column is widened, so, as Appendix D says, a shorter bound is read as the
// narrower type it was written as: 4 bytes for an int64, uint32 or uint64
// column (an int, uint8 or uint16 then), 4 bytes for a float64 (a float).
// Any other length is ErrBadBound, never a guess.
func DecodeBound(t schema.Type, b []byte) (any, error) {
	need := func(n int) error {
		if len(b) != n {
			return fmt.Errorf("%w: %d-byte bound for a %s column, want %d", ErrBadBound, len(b), t, n)
		}
		return nil
	}
	switch t.Kind {
	case schema.Bool:
		if err := need(1); err != nil {
			return nil, err
		}
		return b[0] != 0, nil
	case schema.Int8, schema.Int16, schema.Int32, schema.Uint8, schema.Uint16:
		if err := need(4); err != nil {
			return nil, err
		}
		return int64(int32(binary.LittleEndian.Uint32(b))), nil
	case schema.Int64, schema.Uint32, schema.Time, schema.Timestamp:
		if len(b) == 4 && (t.Kind == schema.Int64 || t.Kind == schema.Uint32) {
			// Written while the column was an int (or uint8/uint16):
			// promotion keeps bounds.
			return int64(int32(binary.LittleEndian.Uint32(b))), nil
		}
		if err := need(8); err != nil {
			return nil, err
		}
		return int64(binary.LittleEndian.Uint64(b)), nil
	case schema.Uint64:
		if len(b) == 4 { // written as uint8/uint16
			return uint64(binary.LittleEndian.Uint32(b)), nil
		}
		if err := need(8); err != nil {
			return nil, err
		}
		return binary.LittleEndian.Uint64(b), nil
	case schema.Float32:
		if err := need(4); err != nil {
			return nil, err
		}
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), nil
	case schema.Float64:
		if len(b) == 4 {
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), nil
		}
		if err := need(8); err != nil {
			return nil, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
	case schema.Decimal:
		if len(b) == 0 || len(b) > 16 {
			return nil, fmt.Errorf("%w: %d-byte decimal bound", ErrBadBound, len(b))
		}
		return fromTwosComplement(b), nil
	case schema.String, schema.JSON:
		return string(b), nil
	case schema.Binary:
		return append([]byte(nil), b...), nil
	case schema.Date:
		if err := need(4); err != nil {
			return nil, err
		}
		return int32(binary.LittleEndian.Uint32(b)), nil
	}
	return nil, fmt.Errorf("%w: no bound encoding for %s", ErrBadBound, t)
}

// CompareBounds orders two values DecodeBound returned for one column
// type: -1, 0 or +1. It is the one ordering of decoded bounds (file
// statistics, compaction's key ranges, the planner's statistics). Values
// of different Go types never meet for one column and compare equal;
// floats compare by < and >, as bounds hold no NaN.
func CompareBounds(a, b any) int {
	switch x := a.(type) {
	case bool:
		if y, ok := b.(bool); ok {
			return order(!x && y, x && !y)
		}
	case int64:
		if y, ok := b.(int64); ok {
			return order(x < y, x > y)
		}
	case int32:
		if y, ok := b.(int32); ok {
			return order(x < y, x > y)
		}
	case uint64:
		if y, ok := b.(uint64); ok {
			return order(x < y, x > y)
		}
	case float64:
		if y, ok := b.(float64); ok {
			return order(x < y, x > y)
		}
	case *big.Int:
		if y, ok := b.(*big.Int); ok {
			return x.Cmp(y)
		}
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y)
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return bytes.Compare(x, y)
		}
	}
	return 0
}

// order is -1 when less, +1 when greater, else 0.
func order(less, greater bool) int {
	switch {
	case less:
		return -1
	case greater:
		return 1
	}
	return 0
}

var pow10 = func() (p [39]*big.Int) {
	p[0] = big.NewInt(1)
	for i := 1; i < len(p); i++ {
		p[i] = new(big.Int).Mul(p[i-1], big.NewInt(10))
	}
	return p
}()

// minimalTwosComplement is n in the fewest big-endian two's-complement
// bytes.
func minimalTwosComplement(n *big.Int) []byte {
	if n.Sign() >= 0 {
		b := n.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -n-1 in magnitude, inverted.
	m := new(big.Int).Neg(n)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}

func fromTwosComplement(b []byte) *big.Int {
	n := new(big.Int).SetBytes(b)
	if b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return n
}
