package iceberg

import (
	"fmt"
	"math/big"
	"reflect"

	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// specJSON is a partition spec in metadata.json. lakesql's transforms are
// Iceberg's, spelled the same ("bucket[16]", "day").
type specJSON struct {
	SpecID int             `json:"spec-id"`
	Fields []specFieldJSON `json:"fields"`
}

type specFieldJSON struct {
	SourceID  int    `json:"source-id"`
	FieldID   int    `json:"field-id"`
	Name      string `json:"name"`
	Transform string `json:"transform"`
}

func convertSpec(p partition.Spec) specJSON {
	out := specJSON{SpecID: p.ID, Fields: make([]specFieldJSON, len(p.Fields))}
	for i, f := range p.Fields {
		out.Fields[i] = specFieldJSON{SourceID: f.SourceID, FieldID: f.FieldID, Name: f.Name, Transform: f.Transform.String()}
	}
	return out
}

// partitionField is one field of a spec with what its manifest needs: the
// Avro type of its values and how to turn lakesql's partition-value text
// into the Go value hamba writes as that type.
type partitionField struct {
	partition.Field
	source   schema.Type // the source column's type
	result   schema.Type // the transform's result type
	avroType any
	goType   reflect.Type
}

// specFields resolves a spec's fields against the schema holding their
// source columns.
func specFields(p partition.Spec, s *schema.Schema) ([]partitionField, error) {
	out := make([]partitionField, len(p.Fields))
	for i, f := range p.Fields {
		col, ok := s.ByID(f.SourceID)
		if !ok {
			return nil, fmt.Errorf("partition field %q: source column %d is not in schema %d", f.Name, f.SourceID, s.ID)
		}
		rt, err := f.Transform.ResultType(col.Type)
		if err != nil {
			return nil, fmt.Errorf("partition field %q: %w", f.Name, err)
		}
		at, gt, err := avroOf(rt, f.Transform.Kind() == partition.KindDay)
		if err != nil {
			return nil, fmt.Errorf("partition field %q: %w", f.Name, err)
		}
		out[i] = partitionField{Field: f, source: col.Type, result: rt, avroType: at, goType: gt}
	}
	return out, nil
}

// avroOf is the Avro type and Go type of partition values of catalog type
// t. A day transform's values are Iceberg dates.
func avroOf(t schema.Type, day bool) (any, reflect.Type, error) {
	if _, err := Type(t); err != nil {
		return nil, nil, err
	}
	switch t.Kind {
	case schema.Bool:
		return "boolean", reflect.TypeFor[bool](), nil
	case schema.Int8, schema.Int16, schema.Int32, schema.Uint8, schema.Uint16:
		if day {
			return obj{"type": "int", "logicalType": "date"}, reflect.TypeFor[int32](), nil
		}
		return "int", reflect.TypeFor[int32](), nil
	case schema.Int64:
		return "long", reflect.TypeFor[int64](), nil
	case schema.Float32:
		return "float", reflect.TypeFor[float32](), nil
	case schema.Float64:
		return "double", reflect.TypeFor[float64](), nil
	case schema.Decimal:
		return obj{"type": "fixed", "name": fmt.Sprintf("decimal_%d_%d", t.Precision, t.Scale),
				"size": decimalBytes(t.Precision), "logicalType": "decimal",
				"precision": t.Precision, "scale": t.Scale},
			reflect.TypeFor[big.Rat](), nil
	case schema.String, schema.JSON:
		return "string", reflect.TypeFor[string](), nil
	case schema.Binary:
		return "bytes", reflect.TypeFor[[]byte](), nil
	case schema.Date:
		return obj{"type": "int", "logicalType": "date"}, reflect.TypeFor[int32](), nil
	case schema.Time:
		return obj{"type": "long", "logicalType": "time-micros"}, reflect.TypeFor[int64](), nil
	case schema.Timestamp:
		return obj{"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": true}, reflect.TypeFor[int64](), nil
	}
	return nil, nil, fmt.Errorf("%w for partition values of type %s", ErrNoIcebergType, t)
}

// decimalBytes is the fixed size Iceberg uses for a decimal of precision p:
// the fewest bytes holding any p-digit unscaled value in two's complement.
func decimalBytes(p int) int {
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil)
	for n := 1; ; n++ {
		if new(big.Int).Lsh(big.NewInt(1), uint(8*n-1)).Cmp(limit) >= 0 {
			return n
		}
	}
}

// value parses lakesql's partition-value text into the field's Go value
// (nil for a null partition value).
func (f partitionField) value(s *string) (any, error) {
	v, err := f.Transform.FromString(f.source, s)
	if err != nil || v == nil {
		return nil, err
	}
	switch f.result.Kind {
	case schema.Int8, schema.Int16, schema.Int32, schema.Uint8, schema.Uint16:
		return int32(v.(int64)), nil
	case schema.Float32:
		return float32(v.(float64)), nil
	case schema.Decimal:
		d := v.(partition.Decimal)
		return *new(big.Rat).SetFrac(d.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale)), nil)), nil
	}
	return v, nil
}
