package manifest

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/lakesql/lakesql/catalogstore/blob"
)

// Footer key-value metadata of a manifest.
const (
	metaVersion  = "lakesql.manifest.version"
	metaFiles    = "lakesql.manifest.files"
	metaChecksum = "lakesql.manifest.checksum" // version 1 only: CRC-64 of the decoded content
	metaKind     = "lakesql.manifest.kind"     // "delta" for a delta manifest; absent for a consolidated one
	metaPrev     = "lakesql.manifest.prev"     // delta: the name of the chain link it applies over
	metaSeq      = "lakesql.manifest.seq"      // delta: its position in the chain, from 1
	kindDelta    = "delta"
	version      = "3" // version 2 plus the data files' checksums
	versionV2    = "2" // whole-file CRC-32C (integrity.go)
	versionV1    = "1"
)

// Column positions in the manifest's schema.
const (
	colPath = iota
	colFormat
	colRecordCount
	colFileSize
	colUncompressedSize
	colSpecID
	colPartitionValues
	colRowIDStart
	colStatsState
	colStatsError
	colAddedSnapshotID
	colSequenceNumber
	colFieldIDs
	colValueCounts
	colNullCounts
	colNaNCounts
	colLowerBounds
	colUpperBounds
	colBoundsExact
	colColumnSizes
	colColumnNames
	// Version 3 adds the data files' checksums; versions 1 and 2 end
	// before them (legacyCols columns).
	colChecksum
	colPartChecksums
	numCols // columns of a version 3 consolidated manifest
)

// colRemoved is the column a delta manifest adds after the others: true
// for a row that removes the file at its path (every other field zero).
const (
	colRemoved = numCols
	allCols    = numCols + 1 // columns of a delta manifest
)

// rowGroupRows is the most entries one row group of a manifest holds.
// Smaller groups let a selective read skip more; each costs a little
// footer and concatenation on a full read.
const rowGroupRows = 8192

// legacyCols is the number of columns of version 1 and 2 manifests.
const legacyCols = colChecksum

func listOf(t arrow.DataType, nullableElems bool) arrow.DataType {
	return arrow.ListOfField(arrow.Field{Name: "element", Type: t, Nullable: nullableElems})
}

// manifestSchema is the Arrow schema of the manifest file: one row per
// data file. Lists are null for a nil Go slice and empty for an empty one;
// bound and partition value elements are nullable so that nil (absent) is
// distinguished from an empty value.
var manifestSchema = arrow.NewSchema([]arrow.Field{
	colPath:             {Name: "path", Type: arrow.BinaryTypes.String},
	colFormat:           {Name: "format", Type: arrow.BinaryTypes.String},
	colRecordCount:      {Name: "record_count", Type: arrow.PrimitiveTypes.Int64},
	colFileSize:         {Name: "file_size", Type: arrow.PrimitiveTypes.Int64},
	colUncompressedSize: {Name: "uncompressed_size", Type: arrow.PrimitiveTypes.Int64},
	colSpecID:           {Name: "spec_id", Type: arrow.PrimitiveTypes.Int32},
	colPartitionValues:  {Name: "partition_values", Type: listOf(arrow.BinaryTypes.String, true), Nullable: true},
	colRowIDStart:       {Name: "row_id_start", Type: arrow.PrimitiveTypes.Int64},
	colStatsState:       {Name: "stats_state", Type: arrow.BinaryTypes.String},
	colStatsError:       {Name: "stats_error", Type: arrow.BinaryTypes.String},
	colAddedSnapshotID:  {Name: "added_snapshot_id", Type: arrow.PrimitiveTypes.Int64},
	colSequenceNumber:   {Name: "sequence_number", Type: arrow.PrimitiveTypes.Int64},
	colFieldIDs:         {Name: "field_ids", Type: listOf(arrow.PrimitiveTypes.Int32, false), Nullable: true},
	colValueCounts:      {Name: "value_counts", Type: listOf(arrow.PrimitiveTypes.Int64, false), Nullable: true},
	colNullCounts:       {Name: "null_counts", Type: listOf(arrow.PrimitiveTypes.Int64, false), Nullable: true},
	colNaNCounts:        {Name: "nan_counts", Type: listOf(arrow.PrimitiveTypes.Int64, false), Nullable: true},
	colLowerBounds:      {Name: "lower_bounds", Type: listOf(arrow.BinaryTypes.Binary, true), Nullable: true},
	colUpperBounds:      {Name: "upper_bounds", Type: listOf(arrow.BinaryTypes.Binary, true), Nullable: true},
	colBoundsExact:      {Name: "bounds_exact", Type: listOf(arrow.FixedWidthTypes.Boolean, false), Nullable: true},
	colColumnSizes:      {Name: "column_sizes", Type: listOf(arrow.PrimitiveTypes.Int64, false), Nullable: true},
	colColumnNames:      {Name: "column_names", Type: listOf(arrow.BinaryTypes.String, false), Nullable: true},
	colChecksum:         {Name: "checksum", Type: arrow.BinaryTypes.String},
	colPartChecksums:    {Name: "part_checksums", Type: arrow.BinaryTypes.Binary, Nullable: true},
}, nil)

// deltaSchema is manifestSchema plus the removed flag (delta.go).
var deltaSchema = arrow.NewSchema(append(manifestSchema.Fields(),
	arrow.Field{Name: "removed", Type: arrow.FixedWidthTypes.Boolean}), nil)

// Write writes files as one consolidated Parquet manifest at key and
// returns its size in bytes. The object is created with IfNotExists:
// manifests are immutable, so an existing key gives blob.ErrExists. An
// entry that fails Validate gives ErrInvalid and writes nothing.
func Write(ctx context.Context, store blob.Store, key string, files []DataFile) (size int64, err error) {
	data, err := Encode(files)
	if err != nil {
		return 0, fmt.Errorf("write manifest %s: %w", key, err)
	}
	if err := store.Put(ctx, key, bytes.NewReader(data), blob.PutOptions{IfNotExists: true}); err != nil {
		return 0, fmt.Errorf("write manifest %s: %w", key, err)
	}
	return int64(len(data)), nil
}

// Encode returns the bytes of a manifest listing files, as Write stores
// them. An entry that fails Validate gives ErrInvalid.
func Encode(files []DataFile) ([]byte, error) {
	return encode(files, nil, nil)
}

// encode writes files, then (for a delta, when removed is not nil) one
// row per removed path, with the extra footer metadata kv.
func encode(files []DataFile, removed []string, kv [][2]string) ([]byte, error) {
	for i := range files {
		if err := files[i].Validate(); err != nil {
			return nil, fmt.Errorf("%w: entry %d: %v", ErrInvalid, i, err)
		}
	}
	sc := manifestSchema
	if removed != nil {
		sc = deltaSchema
	}
	mem := memory.NewGoAllocator()
	rec := buildRecord(mem, sc, files, removed)
	defer rec.Release()

	var buf bytes.Buffer
	props := parquet.NewWriterProperties(
		parquet.WithAllocator(mem),
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithStats(false),
		parquet.WithDictionaryDefault(false),
		// Row groups bound what a reader of a few entries decodes
		// (DecodeOptions.AddedBy reads only the groups holding them).
		parquet.WithMaxRowGroupLength(rowGroupRows),
	)
	fw, err := pqarrow.NewFileWriter(sc, &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem)))
	if err != nil {
		return nil, err
	}
	for _, kv := range append([][2]string{
		{metaVersion, version},
		{metaFiles, strconv.Itoa(len(files) + len(removed))},
		{metaCRC, crcPlaceholder},
	}, kv...) {
		if err := fw.AppendKeyValueMetadata(kv[0], kv[1]); err != nil {
			fw.Close()
			return nil, err
		}
	}
	if err := fw.Write(rec); err != nil {
		fw.Close()
		return nil, err
	}
	if err := fw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if err := sealCRC(data); err != nil {
		return nil, fmt.Errorf("seal manifest checksum: %w", err)
	}
	return data, nil
}

// buildRecord builds the rows of files and, when sc is deltaSchema, the
// removed flag and one removal row per path of removed.
func buildRecord(mem memory.Allocator, sc *arrow.Schema, files []DataFile, removed []string) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	b.Reserve(len(files) + len(removed))
	appendEntries(b, files)
	if sc == deltaSchema {
		appendRemovals(b, len(files), removed)
	}
	return b.NewRecordBatch()
}

// appendRemovals appends the removed flag of n entries (false) and one row
// per removed path: the path, the flag, and zero or null everywhere else.
func appendRemovals(b *array.RecordBuilder, n int, removed []string) {
	flag := b.Field(colRemoved).(*array.BooleanBuilder)
	for range n {
		flag.Append(false)
	}
	for _, p := range removed {
		for c := range numCols {
			switch fb := b.Field(c).(type) {
			case *array.StringBuilder:
				if c == colPath {
					fb.Append(p)
				} else {
					fb.Append("")
				}
			case *array.Int64Builder:
				fb.Append(0)
			case *array.Int32Builder:
				fb.Append(0)
			default:
				fb.AppendNull()
			}
		}
		flag.Append(true)
	}
}

func appendEntries(b *array.RecordBuilder, files []DataFile) {

	str := func(i int) *array.StringBuilder { return b.Field(i).(*array.StringBuilder) }
	i64 := func(i int) *array.Int64Builder { return b.Field(i).(*array.Int64Builder) }
	list := func(i int) *array.ListBuilder { return b.Field(i).(*array.ListBuilder) }

	for i := range files {
		f := &files[i]
		str(colPath).Append(f.Path)
		str(colFormat).Append(f.Format)
		i64(colRecordCount).Append(f.RecordCount)
		i64(colFileSize).Append(f.FileSize)
		i64(colUncompressedSize).Append(f.UncompressedSize)
		b.Field(colSpecID).(*array.Int32Builder).Append(int32(f.SpecID))

		pv := list(colPartitionValues)
		if f.PartitionValues == nil {
			pv.AppendNull()
		} else {
			pv.Append(true)
			vb := pv.ValueBuilder().(*array.StringBuilder)
			for _, v := range f.PartitionValues {
				if v == nil {
					vb.AppendNull()
				} else {
					vb.Append(*v)
				}
			}
		}

		i64(colRowIDStart).Append(f.RowIDStart)
		str(colStatsState).Append(f.StatsState)
		str(colStatsError).Append(f.StatsError)
		i64(colAddedSnapshotID).Append(f.AddedSnapshotID)
		i64(colSequenceNumber).Append(f.SequenceNumber)

		ids := list(colFieldIDs)
		if f.FieldIDs == nil {
			ids.AppendNull()
		} else {
			ids.Append(true)
			vb := ids.ValueBuilder().(*array.Int32Builder)
			for _, id := range f.FieldIDs {
				vb.Append(int32(id))
			}
		}
		appendInts(list(colValueCounts), f.ValueCounts)
		appendInts(list(colNullCounts), f.NullCounts)
		appendInts(list(colNaNCounts), f.NaNCounts)
		appendBounds(list(colLowerBounds), f.LowerBounds)
		appendBounds(list(colUpperBounds), f.UpperBounds)

		be := list(colBoundsExact)
		if f.BoundsExact == nil {
			be.AppendNull()
		} else {
			be.Append(true)
			be.ValueBuilder().(*array.BooleanBuilder).AppendValues(f.BoundsExact, nil)
		}
		appendInts(list(colColumnSizes), f.ColumnSizes)

		cn := list(colColumnNames)
		if f.ColumnNames == nil {
			cn.AppendNull()
		} else {
			cn.Append(true)
			cn.ValueBuilder().(*array.StringBuilder).AppendValues(f.ColumnNames, nil)
		}
		str(colChecksum).Append(f.Checksum)
		pc := b.Field(colPartChecksums).(*array.BinaryBuilder)
		if f.PartChecksums == nil {
			pc.AppendNull()
		} else {
			pc.Append(packSums(f.PartChecksums))
		}
	}
}

func appendInts(lb *array.ListBuilder, v []int64) {
	if v == nil {
		lb.AppendNull()
		return
	}
	lb.Append(true)
	lb.ValueBuilder().(*array.Int64Builder).AppendValues(v, nil)
}

func appendBounds(lb *array.ListBuilder, v [][]byte) {
	if v == nil {
		lb.AppendNull()
		return
	}
	lb.Append(true)
	vb := lb.ValueBuilder().(*array.BinaryBuilder)
	for _, b := range v {
		if b == nil {
			vb.AppendNull()
		} else {
			vb.Append(b)
		}
	}
}
