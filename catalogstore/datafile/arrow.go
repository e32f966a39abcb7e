package datafile

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// FieldIDKey is the Arrow field metadata key pqarrow writes as the Parquet
// field id.
const FieldIDKey = "PARQUET:field_id"

// typeKey marks catalog types that Arrow cannot tell apart (json is a
// string).
const typeKey = "lakesql.type"

// ArrowType maps a catalog type to its Arrow type.
func ArrowType(t schema.Type) arrow.DataType {
	switch t.Kind {
	case schema.Bool:
		return arrow.FixedWidthTypes.Boolean
	case schema.Int8:
		return arrow.PrimitiveTypes.Int8
	case schema.Int16:
		return arrow.PrimitiveTypes.Int16
	case schema.Int32:
		return arrow.PrimitiveTypes.Int32
	case schema.Int64:
		return arrow.PrimitiveTypes.Int64
	case schema.Uint8:
		return arrow.PrimitiveTypes.Uint8
	case schema.Uint16:
		return arrow.PrimitiveTypes.Uint16
	case schema.Uint32:
		return arrow.PrimitiveTypes.Uint32
	case schema.Uint64:
		return arrow.PrimitiveTypes.Uint64
	case schema.Float32:
		return arrow.PrimitiveTypes.Float32
	case schema.Float64:
		return arrow.PrimitiveTypes.Float64
	case schema.Decimal:
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}
	case schema.String, schema.JSON:
		return arrow.BinaryTypes.String
	case schema.Binary:
		return arrow.BinaryTypes.Binary
	case schema.Date:
		return arrow.FixedWidthTypes.Date32
	case schema.Time:
		return arrow.FixedWidthTypes.Time64us
	case schema.Timestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	}
	panic(fmt.Sprintf("datafile: no Arrow type for %s", t))
}

// ArrowField is a column as an Arrow field with its field id.
func ArrowField(c schema.Column) arrow.Field {
	keys := []string{FieldIDKey}
	vals := []string{strconv.Itoa(c.ID)}
	if c.Type.Kind == schema.JSON {
		keys, vals = append(keys, typeKey), append(vals, "json")
	}
	return arrow.Field{Name: c.Name, Type: ArrowType(c.Type), Nullable: true,
		Metadata: arrow.NewMetadata(keys, vals)}
}

// ArrowSchema is the Arrow schema data files of s are written with. Every
// field is nullable in the file: NOT NULL is enforced by the SQL layer, and
// a column added later must read as NULL in old files anyway.
func ArrowSchema(s *schema.Schema) *arrow.Schema {
	fields := make([]arrow.Field, len(s.Columns))
	for i, c := range s.Columns {
		fields[i] = ArrowField(c)
	}
	return arrow.NewSchema(fields, nil)
}

// FromArrowType maps an Arrow type into the closed vocabulary; anything
// else is schema.ErrUnsupportedType naming the Arrow type.
func FromArrowType(dt arrow.DataType) (schema.Type, error) {
	k := func(kind schema.Kind) (schema.Type, error) { return schema.Type{Kind: kind}, nil }
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return k(schema.Bool)
	case *arrow.Int8Type:
		return k(schema.Int8)
	case *arrow.Int16Type:
		return k(schema.Int16)
	case *arrow.Int32Type:
		return k(schema.Int32)
	case *arrow.Int64Type:
		return k(schema.Int64)
	case *arrow.Uint8Type:
		return k(schema.Uint8)
	case *arrow.Uint16Type:
		return k(schema.Uint16)
	case *arrow.Uint32Type:
		return k(schema.Uint32)
	case *arrow.Uint64Type:
		return k(schema.Uint64)
	case *arrow.Float32Type:
		return k(schema.Float32)
	case *arrow.Float64Type:
		return k(schema.Float64)
	case *arrow.Decimal128Type:
		st := schema.Type{Kind: schema.Decimal, Precision: int(t.Precision), Scale: int(t.Scale)}
		return st, st.Validate()
	case *arrow.StringType, *arrow.LargeStringType:
		return k(schema.String)
	case *arrow.BinaryType, *arrow.LargeBinaryType:
		return k(schema.Binary)
	case *arrow.Date32Type:
		return k(schema.Date)
	case *arrow.Time64Type:
		if t.Unit == arrow.Microsecond {
			return k(schema.Time)
		}
	case *arrow.TimestampType:
		if t.Unit == arrow.Microsecond && (t.TimeZone == "UTC" || t.TimeZone == "") {
			return k(schema.Timestamp)
		}
	}
	return schema.Type{}, fmt.Errorf("%w: Arrow type %s (supported: %s)", schema.ErrUnsupportedType, dt, schema.Vocabulary())
}

// FromArrowSchema converts an Arrow schema to catalog columns (ids from
// PARQUET:field_id metadata when present, else 0 for the catalog to
// assign).
func FromArrowSchema(as *arrow.Schema) (schema.Schema, error) {
	var s schema.Schema
	for _, f := range as.Fields() {
		t, err := FromArrowType(f.Type)
		if err != nil {
			return s, fmt.Errorf("column %q: %w", f.Name, err)
		}
		if v, ok := f.Metadata.GetValue(typeKey); ok && v == "json" {
			t = schema.Type{Kind: schema.JSON}
		}
		col := schema.Column{Name: f.Name, Type: t, Nullable: f.Nullable}
		if v, ok := f.Metadata.GetValue(FieldIDKey); ok {
			if id, err := strconv.Atoi(v); err == nil {
				col.ID = id
			}
		}
		s.Columns = append(s.Columns, col)
	}
	return s, nil
}
