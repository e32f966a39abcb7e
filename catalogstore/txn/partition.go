package txn

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// partitioner computes the partition tuple of each row of a record under
// one spec. Each field memoises its transform per distinct source value,
// so a batch with few distinct values transforms each once, not once per
// row.
type partitioner struct {
	fields []partField
}

type partField struct {
	col  int // index of the source column in the record
	typ  schema.Type
	tr   partition.Transform
	memo map[any]*string
}

const memoLimit = 4096

func newPartitioner(s *schema.Schema, spec partition.Spec) (*partitioner, error) {
	pp := &partitioner{}
	for _, f := range spec.Fields {
		idx := -1
		for i, c := range s.Columns {
			if c.ID == f.SourceID {
				idx = i
			}
		}
		if idx < 0 {
			return nil, fmt.Errorf("%w: partition field %s: source column %d is not in the schema", partition.ErrUnknownColumn, f.Name, f.SourceID)
		}
		pp.fields = append(pp.fields, partField{col: idx, typ: s.Columns[idx].Type, tr: f.Transform, memo: map[any]*string{}})
	}
	return pp, nil
}

// group is the rows of one partition tuple in a record.
type group struct {
	key    string
	values []*string
	rows   []int64
}

// split groups the rows of rec by partition tuple, in order of first
// appearance.
func (pp *partitioner) split(rec arrow.Record) ([]*group, error) {
	n := int(rec.NumRows())
	byKey := map[string]*group{}
	var out []*group
	vals := make([]*string, len(pp.fields))
	var key strings.Builder
	for i := 0; i < n; i++ {
		key.Reset()
		for j := range pp.fields {
			f := &pp.fields[j]
			v, err := f.value(rec.Column(f.col), i)
			if err != nil {
				return nil, err
			}
			vals[j] = v
			if v == nil {
				key.WriteString("\x01")
			} else {
				key.WriteString(*v)
			}
			key.WriteByte(0)
		}
		g, ok := byKey[key.String()]
		if !ok {
			g = &group{key: key.String(), values: append([]*string(nil), vals...)}
			byKey[g.key] = g
			out = append(out, g)
		}
		g.rows = append(g.rows, int64(i))
	}
	return out, nil
}

func (f *partField) value(a arrow.Array, i int) (*string, error) {
	v, err := partitionValue(f.typ, a, i)
	if err != nil {
		return nil, err
	}
	mk, memo := memoKey(v)
	if memo {
		if s, ok := f.memo[mk]; ok {
			return s, nil
		}
	}
	out, err := f.tr.Apply(f.typ, v)
	if err != nil {
		return nil, err
	}
	rt, err := f.tr.ResultType(f.typ)
	if err != nil {
		return nil, err
	}
	s, err := partition.FormatValue(rt, out)
	if err != nil {
		return nil, err
	}
	if memo && len(f.memo) < memoLimit {
		f.memo[mk] = s
	}
	return s, nil
}

// memoKey returns a comparable key for a partition value, or false when v
// is not memoisable.
func memoKey(v any) (any, bool) {
	switch x := v.(type) {
	case nil, bool, int32, int64, uint64, float64, string:
		return x, true
	case []byte:
		return string(x), true
	}
	return nil, false
}

// partitionValue is row i of a (a column of catalog type t, as the write
// path builds it) in the partition package's representation.
func partitionValue(t schema.Type, a arrow.Array, i int) (any, error) {
	if a.IsNull(i) {
		return nil, nil
	}
	switch x := a.(type) {
	case *array.Boolean:
		return x.Value(i), nil
	case *array.Int8:
		return int64(x.Value(i)), nil
	case *array.Int16:
		return int64(x.Value(i)), nil
	case *array.Int32:
		return int64(x.Value(i)), nil
	case *array.Int64:
		return x.Value(i), nil
	case *array.Uint8:
		return int64(x.Value(i)), nil
	case *array.Uint16:
		return int64(x.Value(i)), nil
	case *array.Uint32:
		return int64(x.Value(i)), nil
	case *array.Uint64:
		return x.Value(i), nil
	case *array.Float32:
		return float64(x.Value(i)), nil
	case *array.Float64:
		return x.Value(i), nil
	case *array.Decimal128:
		return partition.Decimal{Unscaled: x.Value(i).BigInt(), Scale: t.Scale}, nil
	case *array.String:
		return x.Value(i), nil
	case *array.Binary:
		return append([]byte(nil), x.Value(i)...), nil
	case *array.Date32:
		return int32(x.Value(i)), nil
	case *array.Timestamp:
		return micros(int64(x.Value(i)), x.DataType().(*arrow.TimestampType).Unit), nil
	case *array.Time64:
		return micros(int64(x.Value(i)), x.DataType().(*arrow.Time64Type).Unit), nil
	}
	return nil, fmt.Errorf("cannot partition a %s column stored as %s", t, a.DataType())
}

// micros converts v in unit to microseconds.
func micros(v int64, unit arrow.TimeUnit) int64 {
	switch unit {
	case arrow.Second:
		return v * 1_000_000
	case arrow.Millisecond:
		return v * 1_000
	case arrow.Nanosecond:
		return v / 1_000
	}
	return v
}

// take returns the rows idx of rec as a new record.
func take(ctx context.Context, rec arrow.Record, idx []int64) (arrow.Record, error) {
	if len(idx) == int(rec.NumRows()) {
		rec.Retain()
		return rec, nil // every row, in order: split keeps rows in order
	}
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	ib.AppendValues(idx, nil)
	ind := ib.NewArray()
	ib.Release()
	defer ind.Release()
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for j := range cols {
		c, err := compute.TakeArray(ctx, rec.Column(j), ind)
		if err != nil {
			return nil, fmt.Errorf("take rows: %w", err)
		}
		cols[j] = c
	}
	return array.NewRecord(rec.Schema(), cols, int64(len(idx))), nil
}
