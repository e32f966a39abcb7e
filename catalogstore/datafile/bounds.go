package datafile

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// EncodeBound serialises a bound value in Iceberg's single-value binary
// form (spec Appendix D): int 4-byte LE, long 8-byte LE, float/double LE
// IEEE-754, date as 4-byte LE days, time and timestamp as 8-byte LE µs,
// strings as UTF-8, binary as is, decimals as the minimal two's-complement
// big-endian unscaled value, booleans as one byte. int8/int16/uint8/uint16
// use the int form; uint32 the long form; uint64 8 LE bytes of its bits.
func EncodeBound(t schema.Type, v any) ([]byte, error) {
	bad := func() ([]byte, error) {
		return nil, fmt.Errorf("datafile: bound %v (%T) for a %s column", v, v, t)
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
		if !ok || i < math.MinInt32 || i > math.MaxInt32 {
			return bad()
		}
		return binary.LittleEndian.AppendUint32(nil, uint32(int32(i))), nil
	case schema.Int64, schema.Uint32, schema.Time, schema.Timestamp:
		i, ok := v.(int64)
		if !ok {
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
		if !ok {
			return bad()
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
		if !ok {
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

// DecodeBound is the inverse of EncodeBound. A bound of the wrong length
// is an error, never a guess.
func DecodeBound(t schema.Type, b []byte) (any, error) {
	need := func(n int) error {
		if len(b) != n {
			return fmt.Errorf("datafile: %d-byte bound for a %s column, want %d", len(b), t, n)
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
		if len(b) == 4 && (t.Kind == schema.Int64) {
			// Written while the column was an int: promotion keeps bounds.
			return int64(int32(binary.LittleEndian.Uint32(b))), nil
		}
		if err := need(8); err != nil {
			return nil, err
		}
		return int64(binary.LittleEndian.Uint64(b)), nil
	case schema.Uint64:
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
			return nil, fmt.Errorf("datafile: %d-byte decimal bound", len(b))
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
	return nil, fmt.Errorf("datafile: no bound encoding for %s", t)
}

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
