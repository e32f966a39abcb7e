package iceberg

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Type is the Iceberg type of a catalog column type, as metadata.json
// spells it ("int", "decimal(12,2)", "timestamptz"). The mapping follows
// what lakesql's data files store (see the package documentation): a type
// is exported only when every Iceberg reader reads the Parquet column
// lakesql wrote as exactly the values lakesql holds.
func Type(t schema.Type) (string, error) {
	switch t.Kind {
	case schema.Bool:
		return "boolean", nil
	case schema.Int8, schema.Int16, schema.Int32, schema.Uint8, schema.Uint16:
		// Parquet INT32 (with an 8/16-bit annotation): every value fits
		// an Iceberg int, signed or not.
		return "int", nil
	case schema.Int64:
		return "long", nil
	case schema.Uint32, schema.Uint64:
		// Stored as Parquet INT32/INT64 with an unsigned annotation: a
		// reader of an Iceberg long (or int) takes the bits as signed,
		// so values from 2^31 (2^63) up would read negative.
		return "", fmt.Errorf("%w for %s: Iceberg has no unsigned integers and its readers take lakesql's unsigned Parquet column as signed; store it as int64 or decimal(20,0) to export the table", ErrNoIcebergType, t)
	case schema.Float32:
		return "float", nil
	case schema.Float64:
		return "double", nil
	case schema.Decimal:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale), nil
	case schema.String, schema.JSON:
		return "string", nil
	case schema.Binary:
		return "binary", nil
	case schema.Date:
		return "date", nil
	case schema.Time:
		return "time", nil
	case schema.Timestamp:
		// µs since the epoch, UTC-adjusted: Iceberg's timestamptz.
		return "timestamptz", nil
	}
	return "", fmt.Errorf("%w for %s", ErrNoIcebergType, t)
}

// field is one field of an Iceberg schema in metadata.json.
type field struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	Required bool   `json:"required"`
	Type     string `json:"type"`
	Doc      string `json:"doc,omitempty"`
}

// icebergSchema is an Iceberg struct schema in metadata.json and in the
// manifests' "schema" key-value metadata.
type icebergSchema struct {
	Type     string  `json:"type"` // "struct"
	SchemaID int     `json:"schema-id"`
	Fields   []field `json:"fields"`
}

// convertSchema maps a catalog schema. Every field is optional: lakesql
// writes every Parquet column nullable and a column added later reads as
// NULL in older files, which an Iceberg required field may not.
func convertSchema(s *schema.Schema) (icebergSchema, error) {
	out := icebergSchema{Type: "struct", SchemaID: s.ID, Fields: make([]field, 0, len(s.Columns))}
	for _, c := range s.Columns {
		t, err := Type(c.Type)
		if err != nil {
			return out, fmt.Errorf("column %q of schema %d: %w", c.Name, s.ID, err)
		}
		out.Fields = append(out.Fields, field{ID: c.ID, Name: c.Name, Type: t, Doc: c.Comment})
	}
	return out, nil
}

// bound re-encodes a manifest bound (lakesql's single-value encoding, which
// may be the narrower type a widened column was written as) in the
// encoding of the column's Iceberg type, so readers that decode by the
// current type never see a short bound. nil when there is no usable bound.
// A zero float bound is moved outward (-0.0 lower, +0.0 upper) so a reader
// ordering -0.0 before +0.0 cannot skip a file holding the other zero.
func bound(t schema.Type, b []byte, upper bool) []byte {
	if b == nil {
		return nil
	}
	v, err := datafile.DecodeBound(t, b)
	if err != nil {
		return nil
	}
	switch t.Kind {
	case schema.Bool:
		return []byte{b[0]}
	case schema.Int8, schema.Int16, schema.Int32, schema.Uint8, schema.Uint16:
		return binary.LittleEndian.AppendUint32(nil, uint32(int32(v.(int64))))
	case schema.Int64, schema.Time, schema.Timestamp:
		return binary.LittleEndian.AppendUint64(nil, uint64(v.(int64)))
	case schema.Float32, schema.Float64:
		f := v.(float64)
		if math.IsNaN(f) {
			return nil
		}
		if f == 0 && upper {
			f = 0
		} else if f == 0 {
			f = math.Copysign(0, -1)
		}
		if t.Kind == schema.Float32 {
			return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(f)))
		}
		return binary.LittleEndian.AppendUint64(nil, math.Float64bits(f))
	case schema.Decimal:
		enc, err := datafile.EncodeBound(t, v.(*big.Int))
		if err != nil {
			return nil
		}
		return enc
	case schema.String, schema.JSON:
		return []byte(v.(string))
	case schema.Binary:
		return v.([]byte)
	case schema.Date:
		return binary.LittleEndian.AppendUint32(nil, uint32(v.(int32)))
	}
	return nil
}
