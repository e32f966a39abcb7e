package txn

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// rowKeys returns a canonical key per row of rec over the columns cols
// (of catalog types types), for matching rows as values: two rows get
// the same key exactly when every column holds the same stored value.
// Timestamps and times compare in microseconds whatever the file's unit,
// and JSON documents by content (keys sorted, no spacing), so a row read
// from a foreign file matches the row a client sends back for it.
func rowKeys(rec arrow.Record, cols []int, types []schema.Type) ([]string, error) {
	n := int(rec.NumRows())
	bufs := make([][]byte, n)
	for j, c := range cols {
		a := rec.Column(c)
		for i := 0; i < n; i++ {
			var err error
			if bufs[i], err = appendKey(bufs[i], a, i, types[j]); err != nil {
				return nil, err
			}
		}
	}
	out := make([]string, n)
	for i, b := range bufs {
		out[i] = string(b)
	}
	return out, nil
}

// allCols is every column of s, with its types.
func allCols(s *schema.Schema) ([]int, []schema.Type) {
	cols := make([]int, len(s.Columns))
	types := make([]schema.Type, len(s.Columns))
	for i, c := range s.Columns {
		cols[i], types[i] = i, c.Type
	}
	return cols, types
}

// appendKey appends the key of row i of a: a tag byte, then the value
// in a self-delimiting form.
func appendKey(b []byte, a arrow.Array, i int, t schema.Type) ([]byte, error) {
	if a.IsNull(i) {
		return append(b, 'N'), nil
	}
	u64 := func(tag byte, v uint64) []byte { return binary.BigEndian.AppendUint64(append(b, tag), v) }
	str := func(tag byte, s []byte) []byte {
		b = binary.AppendUvarint(append(b, tag), uint64(len(s)))
		return append(b, s...)
	}
	switch x := a.(type) {
	case *array.Boolean:
		if x.Value(i) {
			return append(b, 'T'), nil
		}
		return append(b, 'F'), nil
	case *array.Int8:
		return u64('i', uint64(x.Value(i))), nil
	case *array.Int16:
		return u64('i', uint64(x.Value(i))), nil
	case *array.Int32:
		return u64('i', uint64(x.Value(i))), nil
	case *array.Int64:
		return u64('i', uint64(x.Value(i))), nil
	case *array.Uint8:
		return u64('u', uint64(x.Value(i))), nil
	case *array.Uint16:
		return u64('u', uint64(x.Value(i))), nil
	case *array.Uint32:
		return u64('u', uint64(x.Value(i))), nil
	case *array.Uint64:
		return u64('u', x.Value(i)), nil
	case *array.Float32:
		return u64('f', floatKey(float64(x.Value(i)))), nil
	case *array.Float64:
		return u64('f', floatKey(x.Value(i))), nil
	case *array.Decimal128:
		v := x.Value(i)
		b = u64('d', uint64(v.HighBits()))
		return binary.BigEndian.AppendUint64(b, v.LowBits()), nil
	case *array.String:
		s := x.Value(i)
		if t.Kind == schema.JSON {
			return str('j', canonicalJSON(s)), nil
		}
		return str('s', []byte(s)), nil
	case *array.LargeString:
		return str('s', []byte(x.Value(i))), nil
	case *array.Binary:
		return str('b', x.Value(i)), nil
	case *array.Date32:
		return u64('D', uint64(x.Value(i))), nil
	case *array.Timestamp:
		return u64('t', uint64(micros(int64(x.Value(i)), x.DataType().(*arrow.TimestampType).Unit))), nil
	case *array.Time64:
		return u64('h', uint64(micros(int64(x.Value(i)), x.DataType().(*arrow.Time64Type).Unit))), nil
	}
	return nil, fmt.Errorf("cannot match rows on a %s column stored as %s", t, a.DataType())
}

// floatKey keys a float by value: every NaN is one value, and -0 is 0
// (as a comparison sees them).
func floatKey(f float64) uint64 {
	switch {
	case math.IsNaN(f):
		return math.Float64bits(math.NaN())
	case f == 0:
		return 0
	}
	return math.Float64bits(f)
}

// canonicalJSON is s with object keys sorted and no spacing; numbers keep
// their text. Text that is not JSON keys as itself.
func canonicalJSON(s string) []byte {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return []byte(s)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return []byte(s)
	}
	return out
}
