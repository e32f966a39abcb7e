package arrowrow

import (
	"fmt"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/sqlerr"
)

// Builder appends GMS rows to an Arrow record of a catalog schema,
// converting each value as INSERT stores it: the write path's batch, and
// any plan node that holds rows in Arrow (a vectorised join's build side).
// It is not safe for concurrent use.
type Builder struct {
	schema *schema.Schema
	b      *array.RecordBuilder
	rows   int
}

// NewBuilder returns a builder for rows of s, in column order.
func NewBuilder(s *schema.Schema) *Builder {
	return &Builder{schema: s, b: array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(s))}
}

// Append adds one row, whose values are in schema column order. A value
// that does not fit its column is an error naming the column (wrapping
// sqlerr.ErrValueRange when it is out of the column's range); the row is
// then appended as NULLs from that column on, so the columns stay aligned.
func (rb *Builder) Append(row []any) error {
	if len(row) != len(rb.schema.Columns) {
		return fmt.Errorf("row has %d values, table has %d columns", len(row), len(rb.schema.Columns))
	}
	for i, col := range rb.schema.Columns {
		if err := appendValue(rb.b.Field(i), col.Type, row[i]); err != nil {
			// Keep the builders aligned: pad the columns already appended.
			for k := i; k < len(row); k++ {
				rb.b.Field(k).AppendNull()
			}
			rb.rows++
			return fmt.Errorf("column %q: %w", col.Name, err)
		}
	}
	rb.rows++
	return nil
}

// Len is the number of rows appended since the last Record.
func (rb *Builder) Len() int { return rb.rows }

// Record returns the rows appended so far and resets the builder.
func (rb *Builder) Record() arrow.Record {
	rb.rows = 0
	return rb.b.NewRecord()
}

// Release frees the builder.
func (rb *Builder) Release() { rb.b.Release() }

// Record converts rows (in s's column order) into one Arrow record.
func Record(s *schema.Schema, rows [][]any) (arrow.Record, error) {
	b := NewBuilder(s)
	defer b.Release()
	for _, r := range rows {
		if err := b.Append(r); err != nil {
			return nil, err
		}
	}
	return b.Record(), nil
}

func appendValue(b array.Builder, t schema.Type, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		i, err := toInt64(v)
		if err != nil {
			return err
		}
		bb.Append(i != 0)
	case *array.Int8Builder:
		i, err := toInt64(v)
		if err != nil || i < math.MinInt8 || i > math.MaxInt8 {
			return outOfRange(v, t, err)
		}
		bb.Append(int8(i))
	case *array.Int16Builder:
		i, err := toInt64(v)
		if err != nil || i < math.MinInt16 || i > math.MaxInt16 {
			return outOfRange(v, t, err)
		}
		bb.Append(int16(i))
	case *array.Int32Builder:
		i, err := toInt64(v)
		if err != nil || i < math.MinInt32 || i > math.MaxInt32 {
			return outOfRange(v, t, err)
		}
		bb.Append(int32(i))
	case *array.Int64Builder:
		i, err := toInt64(v)
		if err != nil {
			return outOfRange(v, t, err)
		}
		bb.Append(i)
	case *array.Uint8Builder:
		u, err := toUint64(v)
		if err != nil || u > math.MaxUint8 {
			return outOfRange(v, t, err)
		}
		bb.Append(uint8(u))
	case *array.Uint16Builder:
		u, err := toUint64(v)
		if err != nil || u > math.MaxUint16 {
			return outOfRange(v, t, err)
		}
		bb.Append(uint16(u))
	case *array.Uint32Builder:
		u, err := toUint64(v)
		if err != nil || u > math.MaxUint32 {
			return outOfRange(v, t, err)
		}
		bb.Append(uint32(u))
	case *array.Uint64Builder:
		u, err := toUint64(v)
		if err != nil {
			return outOfRange(v, t, err)
		}
		bb.Append(u)
	case *array.Float32Builder:
		f, err := toFloat64(v)
		if err != nil {
			return err
		}
		bb.Append(float32(f))
	case *array.Float64Builder:
		f, err := toFloat64(v)
		if err != nil {
			return err
		}
		bb.Append(f)
	case *array.Decimal128Builder:
		d, err := toDecimal(v)
		if err != nil {
			return err
		}
		unscaled := d.Shift(int32(t.Scale)).Round(0).BigInt()
		n := decimal128.FromBigInt(unscaled)
		if !n.FitsInPrecision(int32(t.Precision)) {
			return outOfRange(v, t, nil)
		}
		bb.Append(n)
	case *array.StringBuilder:
		s, err := toString(v)
		if err != nil {
			return err
		}
		bb.Append(s)
	case *array.BinaryBuilder:
		switch x := v.(type) {
		case []byte:
			bb.Append(x)
		case string:
			bb.Append([]byte(x))
		default:
			return fmt.Errorf("cannot store %T as binary", v)
		}
	case *array.Date32Builder:
		tm, ok := v.(time.Time)
		if !ok {
			return fmt.Errorf("cannot store %T as a date", v)
		}
		days := FloorDiv(tm.Unix(), 86400)
		bb.Append(arrow.Date32(days))
	case *array.Time64Builder:
		switch x := v.(type) {
		case types.Timespan:
			bb.Append(arrow.Time64(x.AsMicroseconds()))
		case time.Duration:
			bb.Append(arrow.Time64(x.Microseconds()))
		default:
			return fmt.Errorf("cannot store %T as a time", v)
		}
	case *array.TimestampBuilder:
		tm, ok := v.(time.Time)
		if !ok {
			return fmt.Errorf("cannot store %T as a timestamp", v)
		}
		bb.Append(arrow.Timestamp(tm.UnixMicro()))
	default:
		return fmt.Errorf("no writer for Arrow builder %T", b)
	}
	return nil
}

// FloorDiv is a/b rounded toward negative infinity (days before 1970
// stay on their own day).
func FloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func outOfRange(v any, t schema.Type, err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: value %v is out of range for %s", sqlerr.ErrValueRange, v, t)
}

func toInt64(v any) (int64, error) {
	switch x := v.(type) {
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	case int:
		return int64(x), nil
	case uint8:
		return int64(x), nil
	case uint16:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint64:
		if x > math.MaxInt64 {
			return 0, fmt.Errorf("%w: %d is out of range", sqlerr.ErrValueRange, x)
		}
		return int64(x), nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("cannot store %T as an integer", v)
}

func toUint64(v any) (uint64, error) {
	switch x := v.(type) {
	case uint8:
		return uint64(x), nil
	case uint16:
		return uint64(x), nil
	case uint32:
		return uint64(x), nil
	case uint64:
		return x, nil
	}
	i, err := toInt64(v)
	if err != nil {
		return 0, err
	}
	if i < 0 {
		return 0, fmt.Errorf("%w: %d is negative", sqlerr.ErrValueRange, i)
	}
	return uint64(i), nil
}

func toFloat64(v any) (float64, error) {
	switch x := v.(type) {
	case float32:
		return float64(x), nil
	case float64:
		return x, nil
	case decimal.Decimal:
		f, _ := x.Float64()
		return f, nil
	}
	i, err := toInt64(v)
	if err != nil {
		return 0, fmt.Errorf("cannot store %T as a float", v)
	}
	return float64(i), nil
}

func toDecimal(v any) (decimal.Decimal, error) {
	switch x := v.(type) {
	case decimal.Decimal:
		return x, nil
	case float64:
		return decimal.NewFromFloat(x), nil
	case float32:
		return decimal.NewFromFloat32(x), nil
	case string:
		return decimal.NewFromString(x)
	}
	i, err := toInt64(v)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("cannot store %T as a decimal", v)
	}
	return decimal.NewFromInt(i), nil
}

func toString(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case []byte:
		return string(x), nil
	case sql.JSONWrapper:
		return types.JsonToMySqlString(x)
	case fmt.Stringer:
		return x.String(), nil
	}
	return "", fmt.Errorf("cannot store %T as text", v)
}
