package provider

import (
	"fmt"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// partitioner computes the partition tuple of a row under one spec. Each
// field memoises its transform per distinct source value, so a batch with
// few distinct values transforms each once, not once per row.
type partitioner struct {
	fields []partField
}

type partField struct {
	col  int // index of the source column in the row
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

// tuple returns the row's partition values (manifest strings) and a key
// identifying the tuple.
func (pp *partitioner) tuple(row sql.Row) (string, []*string, error) {
	vals := make([]*string, len(pp.fields))
	var key strings.Builder
	for i := range pp.fields {
		f := &pp.fields[i]
		v, err := f.value(row[f.col])
		if err != nil {
			return "", nil, err
		}
		vals[i] = v
		if v == nil {
			key.WriteString("\x01")
		} else {
			key.WriteString(*v)
		}
		key.WriteByte(0)
	}
	return key.String(), vals, nil
}

func (f *partField) value(v any) (*string, error) {
	mk, memo := memoKey(v)
	if memo {
		if s, ok := f.memo[mk]; ok {
			return s, nil
		}
	}
	pv, err := PartitionValue(f.typ, v)
	if err != nil {
		return nil, err
	}
	out, err := f.tr.Apply(f.typ, pv)
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

// memoKey returns a comparable key for v, or false when v is not
// memoisable.
func memoKey(v any) (any, bool) {
	switch x := v.(type) {
	case nil, bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, string:
		return x, true
	case []byte:
		return string(x), true
	case time.Time:
		return x.UnixMicro(), true
	case types.Timespan:
		return int64(x), true
	}
	return nil, false
}

// PartitionValue converts a GMS value of a column of type t into the
// partition package's representation.
func PartitionValue(t schema.Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch t.Kind {
	case schema.Bool:
		i, err := toInt64(v)
		return i != 0, err
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32:
		return toInt64(v)
	case schema.Uint64:
		return toUint64(v)
	case schema.Float32, schema.Float64:
		return toFloat64(v)
	case schema.Decimal:
		d, err := toDecimal(v)
		if err != nil {
			return nil, err
		}
		return partition.Decimal{Unscaled: d.Shift(int32(t.Scale)).Round(0).BigInt(), Scale: t.Scale}, nil
	case schema.String, schema.JSON:
		return toString(v)
	case schema.Binary:
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
	case schema.Date:
		if tm, ok := v.(time.Time); ok {
			return int32(floorDiv(tm.Unix(), 86400)), nil
		}
	case schema.Timestamp:
		if tm, ok := v.(time.Time); ok {
			return tm.UnixMicro(), nil
		}
	case schema.Time:
		if ts, ok := v.(types.Timespan); ok {
			return ts.AsMicroseconds(), nil
		}
	}
	return nil, fmt.Errorf("cannot partition a %s column by a %T value", t, v)
}
