package bounded

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"time"

	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// errUnspillable is returned for a row holding a value the run format
// does not round-trip exactly (JSON documents, geometry, …): the sort
// cannot spill it and the query fails with its budget error.
var errUnspillable = errors.New("a value that cannot be written to disk")

// Value tags of the run format: each value is a tag byte and its payload,
// so a decoded row holds the very Go types the encoded one did.
const (
	tagNil byte = iota
	tagFalse
	tagTrue
	tagInt8
	tagInt16
	tagInt32
	tagInt64
	tagInt
	tagUint8
	tagUint16
	tagUint32
	tagUint64
	tagUint
	tagFloat32
	tagFloat64
	tagString
	tagBytes
	tagDecimal
	tagTime
	tagTimespan
)

// encoder writes rows: a uvarint column count, then tagged values.
type encoder struct {
	w   *bufio.Writer
	buf []byte
}

func (e *encoder) row(r []any) error {
	b := binary.AppendUvarint(e.buf[:0], uint64(len(r)))
	for _, v := range r {
		var err error
		if b, err = appendValue(b, v); err != nil {
			return err
		}
	}
	e.buf = b
	_, err := e.w.Write(b)
	return err
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, tagNil), nil
	case bool:
		if x {
			return append(b, tagTrue), nil
		}
		return append(b, tagFalse), nil
	case int8:
		return binary.AppendVarint(append(b, tagInt8), int64(x)), nil
	case int16:
		return binary.AppendVarint(append(b, tagInt16), int64(x)), nil
	case int32:
		return binary.AppendVarint(append(b, tagInt32), int64(x)), nil
	case int64:
		return binary.AppendVarint(append(b, tagInt64), x), nil
	case int:
		return binary.AppendVarint(append(b, tagInt), int64(x)), nil
	case uint8:
		return binary.AppendUvarint(append(b, tagUint8), uint64(x)), nil
	case uint16:
		return binary.AppendUvarint(append(b, tagUint16), uint64(x)), nil
	case uint32:
		return binary.AppendUvarint(append(b, tagUint32), uint64(x)), nil
	case uint64:
		return binary.AppendUvarint(append(b, tagUint64), x), nil
	case uint:
		return binary.AppendUvarint(append(b, tagUint), uint64(x)), nil
	case float32:
		return binary.LittleEndian.AppendUint32(append(b, tagFloat32), math.Float32bits(x)), nil
	case float64:
		return binary.LittleEndian.AppendUint64(append(b, tagFloat64), math.Float64bits(x)), nil
	case string:
		return append(binary.AppendUvarint(append(b, tagString), uint64(len(x))), x...), nil
	case []byte:
		return append(binary.AppendUvarint(append(b, tagBytes), uint64(len(x))), x...), nil
	case decimal.Decimal:
		// The coefficient and exponent as they are: a DECIMAL's scale
		// (trailing zeros) survives, which its text would not keep.
		c := x.Coefficient()
		b = binary.AppendVarint(append(b, tagDecimal), int64(x.Exponent()))
		b = binary.AppendVarint(b, int64(c.Sign()))
		mag := c.Bytes()
		return append(binary.AppendUvarint(b, uint64(len(mag))), mag...), nil
	case time.Time:
		t, err := x.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errUnspillable, err)
		}
		return append(binary.AppendUvarint(append(b, tagTime), uint64(len(t))), t...), nil
	case types.Timespan:
		return binary.AppendVarint(append(b, tagTimespan), int64(x)), nil
	}
	return nil, fmt.Errorf("%w (%T)", errUnspillable, v)
}

// decoder reads rows an encoder wrote.
type decoder struct{ r *bufio.Reader }

// row reads the next row, io.EOF after the last.
func (d *decoder) row() ([]any, error) {
	n, err := binary.ReadUvarint(d.r)
	if err != nil {
		return nil, err // io.EOF: the run is done
	}
	r := make([]any, n)
	for i := range r {
		if r[i], err = d.value(); err != nil {
			return nil, fmt.Errorf("read spilled row: %w", noEOF(err))
		}
	}
	return r, nil
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func (d *decoder) value() (any, error) {
	tag, err := d.r.ReadByte()
	if err != nil {
		return nil, err
	}
	switch tag {
	case tagNil:
		return nil, nil
	case tagFalse, tagTrue:
		return tag == tagTrue, nil
	case tagInt8, tagInt16, tagInt32, tagInt64, tagInt, tagTimespan:
		v, err := binary.ReadVarint(d.r)
		return signed(tag, v), err
	case tagUint8, tagUint16, tagUint32, tagUint64, tagUint:
		v, err := binary.ReadUvarint(d.r)
		return unsigned(tag, v), err
	case tagFloat32:
		var b [4]byte
		_, err := io.ReadFull(d.r, b[:])
		return math.Float32frombits(binary.LittleEndian.Uint32(b[:])), err
	case tagFloat64:
		var b [8]byte
		_, err := io.ReadFull(d.r, b[:])
		return math.Float64frombits(binary.LittleEndian.Uint64(b[:])), err
	case tagString:
		b, err := d.bytes()
		return string(b), err
	case tagBytes:
		return d.bytes()
	case tagDecimal:
		return d.decimal()
	case tagTime:
		b, err := d.bytes()
		if err != nil {
			return nil, err
		}
		var t time.Time
		return t, t.UnmarshalBinary(b)
	}
	return nil, fmt.Errorf("unknown value tag %d", tag)
}

func signed(tag byte, v int64) any {
	switch tag {
	case tagInt8:
		return int8(v)
	case tagInt16:
		return int16(v)
	case tagInt32:
		return int32(v)
	case tagInt:
		return int(v)
	case tagTimespan:
		return types.Timespan(v)
	}
	return v
}

func unsigned(tag byte, v uint64) any {
	switch tag {
	case tagUint8:
		return uint8(v)
	case tagUint16:
		return uint16(v)
	case tagUint32:
		return uint32(v)
	case tagUint:
		return uint(v)
	}
	return v
}

func (d *decoder) bytes() ([]byte, error) {
	n, err := binary.ReadUvarint(d.r)
	if err != nil {
		return nil, err
	}
	b := make([]byte, n)
	_, err = io.ReadFull(d.r, b)
	return b, err
}

func (d *decoder) decimal() (any, error) {
	exp, err := binary.ReadVarint(d.r)
	if err != nil {
		return nil, err
	}
	sign, err := binary.ReadVarint(d.r)
	if err != nil {
		return nil, err
	}
	mag, err := d.bytes()
	if err != nil {
		return nil, err
	}
	c := new(big.Int).SetBytes(mag)
	if sign < 0 {
		c.Neg(c)
	}
	return decimal.NewFromBigInt(c, int32(exp)), nil
}
