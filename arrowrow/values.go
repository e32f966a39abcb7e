package arrowrow

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// FillColumn writes column arr (of catalog type t) into position j of
// rows[0:arr.Len()], converting each value to the Go type GMS expects for
// t. It works a column at a time so the type switch runs once per batch,
// not once per value.
func FillColumn(rows []sql.Row, j int, arr arrow.Array, t schema.Type) error {
	n := arr.Len()
	switch a := arr.(type) {
	case *array.Null:
		for i := 0; i < n; i++ {
			rows[i][j] = nil
		}
	case *array.Boolean:
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				rows[i][j] = nil
			} else if a.Value(i) {
				rows[i][j] = int8(1)
			} else {
				rows[i][j] = int8(0)
			}
		}
	case *array.Int8:
		fillPrim(rows, j, a, a.Int8Values())
	case *array.Int16:
		fillPrim(rows, j, a, a.Int16Values())
	case *array.Int32:
		fillPrim(rows, j, a, a.Int32Values())
	case *array.Int64:
		fillPrim(rows, j, a, a.Int64Values())
	case *array.Uint8:
		fillPrim(rows, j, a, a.Uint8Values())
	case *array.Uint16:
		fillPrim(rows, j, a, a.Uint16Values())
	case *array.Uint32:
		fillPrim(rows, j, a, a.Uint32Values())
	case *array.Uint64:
		fillPrim(rows, j, a, a.Uint64Values())
	case *array.Float32:
		fillPrim(rows, j, a, a.Float32Values())
	case *array.Float64:
		fillPrim(rows, j, a, a.Float64Values())
	case *array.String:
		isJSON := t.Kind == schema.JSON
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				rows[i][j] = nil
				continue
			}
			s := a.Value(i)
			if isJSON {
				doc, _, err := types.JSON.Convert(nil, s)
				if err != nil {
					return fmt.Errorf("read json value: %w", err)
				}
				rows[i][j] = doc
			} else {
				rows[i][j] = string([]byte(s)) // copy: the batch's buffer is released
			}
		}
	case *array.LargeString:
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				rows[i][j] = nil
			} else {
				rows[i][j] = string([]byte(a.Value(i)))
			}
		}
	case *array.Binary:
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				rows[i][j] = nil
			} else {
				rows[i][j] = append([]byte{}, a.Value(i)...) // never nil: an empty value is not NULL
			}
		}
	case *array.Date32:
		v := a.Date32Values()
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				rows[i][j] = nil
			} else {
				rows[i][j] = time.Unix(int64(v[i])*86400, 0).UTC()
			}
		}
	case *array.Time64:
		v := a.Time64Values()
		unit := a.DataType().(*arrow.Time64Type).Unit
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				rows[i][j] = nil
			} else {
				us := int64(v[i])
				if unit == arrow.Nanosecond {
					us /= 1000
				}
				rows[i][j] = types.Timespan(us)
			}
		}
	case *array.Timestamp:
		v := a.TimestampValues()
		unit := a.DataType().(*arrow.TimestampType).Unit
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				rows[i][j] = nil
			} else {
				rows[i][j] = Timestamp(int64(v[i]), unit)
			}
		}
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				rows[i][j] = nil
			} else {
				rows[i][j] = decimal.NewFromBigInt(a.Value(i).BigInt(), -scale)
			}
		}
	default:
		return fmt.Errorf("arrowrow: unsupported Arrow array %s", arr.DataType())
	}
	return nil
}

type nullable interface{ IsNull(int) bool }

func fillPrim[T any](rows []sql.Row, j int, a nullable, v []T) {
	for i := range v {
		if a.IsNull(i) {
			rows[i][j] = nil
		} else {
			rows[i][j] = v[i]
		}
	}
}

// Timestamp is the UTC time of a timestamp value v in unit.
func Timestamp(v int64, unit arrow.TimeUnit) time.Time {
	switch unit {
	case arrow.Second:
		return time.Unix(v, 0).UTC()
	case arrow.Millisecond:
		return time.UnixMilli(v).UTC()
	case arrow.Nanosecond:
		return time.Unix(0, v).UTC()
	default:
		return time.UnixMicro(v).UTC()
	}
}

// Rows converts the columns cols of rec (of catalog types types) into GMS
// rows, one per record row, in cols order.
func Rows(rec arrow.Record, cols []int, types []schema.Type) ([]sql.Row, error) {
	n := int(rec.NumRows())
	rows := make([]sql.Row, n)
	vals := make([]any, n*len(cols))
	for i := range rows {
		rows[i] = sql.Row(vals[i*len(cols) : (i+1)*len(cols) : (i+1)*len(cols)])
	}
	for j, c := range cols {
		if err := FillColumn(rows, j, rec.Column(c), types[j]); err != nil {
			return nil, err
		}
	}
	return rows, nil
}
