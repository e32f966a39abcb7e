package iceberg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"
)

// The Avro files of Iceberg v2 (spec: "Manifests", "Manifest Lists"). Every
// field carries its Iceberg field id, int-keyed maps are arrays of
// key/value records with logicalType "map", and files are written with the
// null codec: some readers (Node's inflater under icebird) fail on
// raw-deflate blocks, and manifests are small.

// Manifest entry status.
const (
	statusExisting = 0
	statusAdded    = 1
	statusDeleted  = 2
)

type kvLong struct {
	Key   int32 `avro:"key"`
	Value int64 `avro:"value"`
}

type kvBytes struct {
	Key   int32  `avro:"key"`
	Value []byte `avro:"value"`
}

// dataFile is the data_file record (field 2) of a manifest entry.
type dataFile struct {
	Content     int32      `avro:"content"`
	FilePath    string     `avro:"file_path"`
	FileFormat  string     `avro:"file_format"`
	Partition   any        `avro:"partition"` // a struct built for the spec (partitionType)
	RecordCount int64      `avro:"record_count"`
	FileSize    int64      `avro:"file_size_in_bytes"`
	ColumnSizes *[]kvLong  `avro:"column_sizes"`
	ValueCounts *[]kvLong  `avro:"value_counts"`
	NullCounts  *[]kvLong  `avro:"null_value_counts"`
	NaNCounts   *[]kvLong  `avro:"nan_value_counts"`
	LowerBounds *[]kvBytes `avro:"lower_bounds"`
	UpperBounds *[]kvBytes `avro:"upper_bounds"`
	KeyMetadata *[]byte    `avro:"key_metadata"`
	SplitOffset *[]int64   `avro:"split_offsets"`
	EqualityIDs *[]int32   `avro:"equality_ids"`
	SortOrderID *int32     `avro:"sort_order_id"`
}

// manifestEntry is one record of a manifest.
type manifestEntry struct {
	Status             int32    `avro:"status"`
	SnapshotID         *int64   `avro:"snapshot_id"`
	SequenceNumber     *int64   `avro:"sequence_number"`
	FileSequenceNumber *int64   `avro:"file_sequence_number"`
	DataFile           dataFile `avro:"data_file"`
}

// fieldSummary is a manifest's summary of one partition field.
type fieldSummary struct {
	ContainsNull bool    `avro:"contains_null"`
	ContainsNaN  *bool   `avro:"contains_nan"`
	LowerBound   *[]byte `avro:"lower_bound"`
	UpperBound   *[]byte `avro:"upper_bound"`
}

// manifestFile is one record of a manifest list.
type manifestFile struct {
	Path               string          `avro:"manifest_path"`
	Length             int64           `avro:"manifest_length"`
	SpecID             int32           `avro:"partition_spec_id"`
	Content            int32           `avro:"content"`
	SequenceNumber     int64           `avro:"sequence_number"`
	MinSequenceNumber  int64           `avro:"min_sequence_number"`
	AddedSnapshotID    int64           `avro:"added_snapshot_id"`
	AddedFilesCount    int32           `avro:"added_files_count"`
	ExistingFilesCount int32           `avro:"existing_files_count"`
	DeletedFilesCount  int32           `avro:"deleted_files_count"`
	AddedRowsCount     int64           `avro:"added_rows_count"`
	ExistingRowsCount  int64           `avro:"existing_rows_count"`
	DeletedRowsCount   int64           `avro:"deleted_rows_count"`
	Partitions         *[]fieldSummary `avro:"partitions"`
	KeyMetadata        *[]byte         `avro:"key_metadata"`
}

// obj is an Avro schema node in JSON.
type obj = map[string]any

func fld(name string, id int, typ any) obj {
	return obj{"name": name, "type": typ, "field-id": id}
}

func optional(name string, id int, typ any) obj {
	return obj{"name": name, "type": []any{"null", typ}, "default": nil, "field-id": id}
}

func intMap(name string, keyID, valueID int, value string) obj {
	return obj{"type": "array", "logicalType": "map", "items": obj{
		"type": "record", "name": name, "fields": []any{
			fld("key", keyID, "int"), fld("value", valueID, value),
		}}}
}

// manifestListSchema is the v2 manifest_file record.
func manifestListSchema() obj {
	summary := obj{"type": "record", "name": "r508", "fields": []any{
		fld("contains_null", 509, "boolean"),
		optional("contains_nan", 518, "boolean"),
		optional("lower_bound", 510, "bytes"),
		optional("upper_bound", 511, "bytes"),
	}}
	return obj{"type": "record", "name": "manifest_file", "fields": []any{
		fld("manifest_path", 500, "string"),
		fld("manifest_length", 501, "long"),
		fld("partition_spec_id", 502, "int"),
		fld("content", 517, "int"),
		fld("sequence_number", 515, "long"),
		fld("min_sequence_number", 516, "long"),
		fld("added_snapshot_id", 503, "long"),
		fld("added_files_count", 504, "int"),
		fld("existing_files_count", 505, "int"),
		fld("deleted_files_count", 506, "int"),
		fld("added_rows_count", 512, "long"),
		fld("existing_rows_count", 513, "long"),
		fld("deleted_rows_count", 514, "long"),
		optional("partitions", 507, obj{"type": "array", "items": summary, "element-id": 508}),
		optional("key_metadata", 519, "bytes"),
	}}
}

// manifestSchema is the v2 manifest_entry record for one partition type.
func manifestSchema(partition obj) obj {
	df := obj{"type": "record", "name": "r2", "fields": []any{
		fld("content", 134, "int"),
		fld("file_path", 100, "string"),
		fld("file_format", 101, "string"),
		fld("partition", 102, partition),
		fld("record_count", 103, "long"),
		fld("file_size_in_bytes", 104, "long"),
		optional("column_sizes", 108, intMap("k117_v118", 117, 118, "long")),
		optional("value_counts", 109, intMap("k119_v120", 119, 120, "long")),
		optional("null_value_counts", 110, intMap("k121_v122", 121, 122, "long")),
		optional("nan_value_counts", 137, intMap("k138_v139", 138, 139, "long")),
		optional("lower_bounds", 125, intMap("k126_v127", 126, 127, "bytes")),
		optional("upper_bounds", 128, intMap("k129_v130", 129, 130, "bytes")),
		optional("key_metadata", 131, "bytes"),
		optional("split_offsets", 132, obj{"type": "array", "items": "long", "element-id": 133}),
		optional("equality_ids", 135, obj{"type": "array", "items": "int", "element-id": 136}),
		optional("sort_order_id", 140, "int"),
	}}
	return obj{"type": "record", "name": "manifest_entry", "fields": []any{
		fld("status", 0, "int"),
		optional("snapshot_id", 1, "long"),
		optional("sequence_number", 3, "long"),
		optional("file_sequence_number", 4, "long"),
		fld("data_file", 2, df),
	}}
}

// partitionType is the Avro record of a spec's partition tuple (field
// 102) and the Go struct type whose values hamba encodes as it: one
// pointer field per partition field, nil for a null value.
type partitionType struct {
	avro   obj
	goType reflect.Type
}

func newPartitionType(fields []partitionField) partitionType {
	avroFields := make([]any, len(fields))
	goFields := make([]reflect.StructField, len(fields))
	for i, f := range fields {
		avroFields[i] = optional(f.Name, f.FieldID, f.avroType)
		goFields[i] = reflect.StructField{
			Name: "F" + strconv.Itoa(i),
			Type: reflect.PointerTo(f.goType),
			Tag:  reflect.StructTag(fmt.Sprintf(`avro:%q`, f.Name)),
		}
	}
	return partitionType{
		avro:   obj{"type": "record", "name": "r102", "fields": avroFields},
		goType: reflect.StructOf(goFields),
	}
}

// value builds a partition tuple from per-field values (each nil or of the
// field's Go type).
func (p partitionType) value(vals []any) any {
	v := reflect.New(p.goType).Elem()
	for i, x := range vals {
		if x == nil {
			continue
		}
		ptr := reflect.New(p.goType.Field(i).Type.Elem())
		ptr.Elem().Set(reflect.ValueOf(x))
		v.Field(i).Set(ptr)
	}
	return v.Interface()
}

// encodeOCF writes records as an Avro object container file with the
// given schema and key-value metadata, uncompressed.
func encodeOCF[T any](schemaJSON obj, meta map[string]string, records []T) ([]byte, error) {
	raw, err := json.Marshal(schemaJSON)
	if err != nil {
		return nil, err
	}
	sch, err := avro.ParseBytesWithCache(raw, "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("avro schema: %w", err)
	}
	md := make(map[string][]byte, len(meta))
	for k, v := range meta {
		md[k] = []byte(v)
	}
	var buf bytes.Buffer
	enc, err := ocf.NewEncoderWithSchema(sch, &buf,
		ocf.WithCodec(ocf.Null),
		ocf.WithMetadata(md),
		// Keep the field ids in the header's schema: readers resolve
		// columns by them.
		ocf.WithSchemaMarshaler(ocf.FullSchemaMarshaler))
	if err != nil {
		return nil, err
	}
	for i := range records {
		if err := enc.Encode(records[i]); err != nil {
			return nil, fmt.Errorf("avro encode: %w", err)
		}
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decodeManifestList reads a manifest list lakesql wrote.
func decodeManifestList(b []byte) ([]manifestFile, error) {
	dec, err := ocf.NewDecoder(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	var out []manifestFile
	for dec.HasNext() {
		var m manifestFile
		if err := dec.Decode(&m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, dec.Error()
}
