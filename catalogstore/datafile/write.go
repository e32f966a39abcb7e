package datafile

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// MaxBoundBytes is the longest string or binary bound kept; longer ones are
// left out (unknown) rather than truncated.
const MaxBoundBytes = 256

// Compression is a data file's page compression.
type Compression int

// The compressions Write offers.
const (
	Snappy       Compression = iota // the default: cheapest to decode
	Zstd                            // smaller files, slower to decode
	Uncompressed                    // for tests and tiny files
)

// WriteOptions tune Write. The zero value is usable.
type WriteOptions struct {
	// RowGroupRows bounds a row group (default 128Ki rows). Row groups are
	// cut at exact multiples of it, whatever the record sizes.
	RowGroupRows int64
	// NoStats registers the file with stats pending (deferred statistics).
	NoStats bool
	// Compression of the pages (default Snappy).
	Compression Compression
	// DataPageBytes bounds a data page's raw values (default
	// DefaultDataPageBytes); the page index prunes by page.
	DataPageBytes int64
}

// DefaultDataPageBytes is the default data page size: small enough that
// a row group has several pages per column for the page index to prune
// (16 KiB is 4Ki rows of an int32 column; dictionary pages are sized by
// their raw values too), large enough that full scans do not notice the
// extra page headers (on the 600k-row bench, Q1 and Q6 ran as fast as
// with 1 MiB pages, and the files were 1% smaller).
const DefaultDataPageBytes = 16 << 10

func (c Compression) codec() compress.Compression {
	switch c {
	case Zstd:
		return compress.Codecs.Zstd
	case Uncompressed:
		return compress.Codecs.Uncompressed
	}
	return compress.Codecs.Snappy
}

// Write writes recs, whose schema must be ArrowSchema(s), as ONE Parquet
// file at key (create-only: blob.ErrExists if the key is taken) and returns
// its manifest entry with statistics taken from the writer's own footer
// metadata, never by reading the file back: per field id the value count
// (rows, NULLs included), NULL count, NaN count (counted from the data:
// Parquet statistics leave NaN out), Iceberg bounds merged over the row
// groups, compressed column size; and the file's size, uncompressed size
// and record count. A column whose values are all NULL (or NaN) has no
// bounds; a string or binary bound longer than MaxBoundBytes is left out
// (nil, unknown) rather than truncated. The file is built in memory and
// stored with one Put; it is not referenced by any snapshot until a commit
// lists it. Columns carry PARQUET:field_id, statistics and a page index.
// The entry records the file's checksums (Checksum, PartChecksums), taken
// from the bytes stored, so every later read of the file is checked.
func Write(ctx context.Context, store blob.Store, key string, s *schema.Schema, recs []arrow.Record, opts WriteOptions) (manifest.DataFile, error) {
	if opts.RowGroupRows <= 0 {
		opts.RowGroupRows = 128 * 1024
	}
	if opts.DataPageBytes <= 0 {
		opts.DataPageBytes = DefaultDataPageBytes
	}
	as := ArrowSchema(s)
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(
		parquet.WithCompression(opts.Compression.codec()),
		parquet.WithStats(true),
		parquet.WithPageIndexEnabled(true),
		parquet.WithDataPageSize(opts.DataPageBytes),
		parquet.WithMaxRowGroupLength(opts.RowGroupRows),
		parquet.WithDictionaryDefault(true),
		// Decimals of precision <= 18 as INT32/INT64 (the Parquet spec
		// allows it; DuckDB and Spark write them so): several times faster
		// to decode than FIXED_LEN_BYTE_ARRAY.
		parquet.WithStoreDecimalAsInteger(true),
	)
	fw, err := pqarrow.NewFileWriter(as, &buf, props, pqarrow.NewArrowWriterProperties())
	if err != nil {
		return manifest.DataFile{}, fmt.Errorf("write %s: %w", key, err)
	}
	// NaN counts per column and row group: WriteBuffered cuts row groups
	// at multiples of RowGroupRows, so row r is in row group r/RowGroupRows.
	nan := make([][]int64, len(s.Columns))
	var rows int64
	for _, rec := range recs {
		if !rec.Schema().Equal(as) {
			fw.Close()
			return manifest.DataFile{}, fmt.Errorf("write %s: record schema %s does not match the table's %s", key, rec.Schema(), as)
		}
		for j := range s.Columns {
			countNaN(rec.Column(j), rows, opts.RowGroupRows, &nan[j])
		}
		if err := fw.WriteBuffered(rec); err != nil {
			fw.Close()
			return manifest.DataFile{}, fmt.Errorf("write %s: %w", key, err)
		}
		rows += rec.NumRows()
	}
	if err := fw.Close(); err != nil {
		return manifest.DataFile{}, fmt.Errorf("write %s: %w", key, err)
	}
	md, err := fw.FileMetadata()
	if err != nil {
		return manifest.DataFile{}, fmt.Errorf("write %s: %w", key, err)
	}
	f := manifest.DataFile{Path: key, Format: "parquet", RecordCount: rows, FileSize: int64(buf.Len()), StatsState: manifest.StatsProvided}
	colIdx := make([]int, len(s.Columns))
	for i := range colIdx {
		colIdx[i] = i
	}
	if err := fillStats(&f, md, s.Columns, colIdx, nan); err != nil {
		return manifest.DataFile{}, fmt.Errorf("write %s: %w", key, err)
	}
	if f.RecordCount != rows {
		return manifest.DataFile{}, fmt.Errorf("write %s: footer counts %d rows, %d were written", key, f.RecordCount, rows)
	}
	// Checksums of the bytes about to be stored: every later read is
	// checked against them (checksum.go).
	if f.Checksum, f.PartChecksums, err = Checksums(buf.Bytes()); err != nil {
		return manifest.DataFile{}, fmt.Errorf("write %s: %w", key, err)
	}
	if err := store.Put(ctx, key, &buf, blob.PutOptions{IfNotExists: true}); err != nil {
		return manifest.DataFile{}, fmt.Errorf("write %s: %w", key, err)
	}
	if opts.NoStats {
		f = pendingStats(f)
	}
	return f, nil
}

// pendingStats strips a file's per-column stats, marking them pending.
func pendingStats(f manifest.DataFile) manifest.DataFile {
	f.StatsState = manifest.StatsPending
	f.FieldIDs, f.ValueCounts, f.NullCounts, f.NaNCounts = nil, nil, nil, nil
	f.LowerBounds, f.UpperBounds, f.BoundsExact, f.ColumnSizes, f.ColumnNames = nil, nil, nil, nil, nil
	return f
}

// fillStats sets f's sizes and per-column stats from a footer. cols are
// the catalog columns; colIdx[i] is the Parquet leaf index of cols[i] (-1:
// absent from the file); nan[i][rg] holds NaN counts by row group (nil:
// unknown, as for files lakesql did not write).
func fillStats(f *manifest.DataFile, md *metadata.FileMetaData, cols []schema.Column, colIdx []int, nan [][]int64) error {
	f.UncompressedSize = 0
	f.RecordCount = md.NumRows
	for i, c := range cols {
		idx := colIdx[i]
		if idx < 0 {
			continue
		}
		var nulls, csize int64
		var lo, hi any
		loOK, hiOK := true, true
		nans := int64(0) // from the footer, for files lakesql did not write
		for rg := 0; rg < md.NumRowGroups(); rg++ {
			cc, err := md.RowGroup(rg).ColumnChunk(idx)
			if err != nil {
				return err
			}
			csize += cc.TotalCompressedSize()
			f.UncompressedSize += cc.TotalUncompressedSize()
			raw := chunkStatsOf(md, rg, idx)
			if nans >= 0 && raw.nanCount >= 0 {
				nans += raw.nanCount
			} else {
				nans = -1
			}
			st, err := cc.Statistics()
			if err != nil || st == nil {
				loOK, hiOK = false, false
				nulls = -1
				continue
			}
			if nulls >= 0 && st.HasNullCount() {
				nulls += st.NullCount()
			} else {
				nulls = -1
			}
			rgNaN := raw.nanCount
			if nan != nil {
				rgNaN = nanAt(nan[i], rg)
			}
			if !st.HasMinMax() {
				// A row group of only NULLs (or only NaNs) has no min/max
				// and widens nothing. Any other row group without one (a
				// foreign writer) leaves the file's bounds unknown.
				valued := int64(-1)
				if st.HasNullCount() {
					valued = cc.NumValues() - st.NullCount()
				}
				if valued == 0 || (rgNaN >= 0 && valued == rgNaN) {
					continue
				}
				loOK, hiOK = false, false
				continue
			}
			rlo, rhi, ok := minMax(c.Type, st)
			if !ok {
				loOK, hiOK = false, false
				continue
			}
			// One end may be missing on its own: a writer drops a value
			// longer than its statistics size limit.
			if raw.minOK {
				lo = pick(c.Type, lo, rlo, -1)
			} else {
				loOK = false
			}
			if raw.maxOK {
				hi = pick(c.Type, hi, rhi, 1)
			} else {
				hiOK = false
			}
		}
		f.FieldIDs = append(f.FieldIDs, c.ID)
		f.ValueCounts = append(f.ValueCounts, md.NumRows)
		f.NullCounts = append(f.NullCounts, nulls)
		n := int64(0)
		switch {
		case nan != nil:
			for _, x := range nan[i] {
				n += x
			}
		case c.Type.Kind == schema.Float32 || c.Type.Kind == schema.Float64:
			n = nans
		}
		f.NaNCounts = append(f.NaNCounts, n)
		f.ColumnSizes = append(f.ColumnSizes, csize)
		lb, ub := encodeOrNil(c.Type, lo, loOK), encodeOrNil(c.Type, hi, hiOK)
		f.LowerBounds = append(f.LowerBounds, lb)
		f.UpperBounds = append(f.UpperBounds, ub)
		f.BoundsExact = append(f.BoundsExact, true)
	}
	return nil
}

func encodeOrNil(t schema.Type, v any, ok bool) []byte {
	if !ok || v == nil {
		return nil
	}
	b, err := EncodeBound(t, v)
	if err != nil || len(b) > MaxBoundBytes && (t.Kind == schema.String || t.Kind == schema.Binary || t.Kind == schema.JSON) {
		return nil
	}
	return b
}

// pick returns the smaller (dir<0) or larger (dir>0) of cur and v.
func pick(t schema.Type, cur, v any, dir int) any {
	if cur == nil {
		return v
	}
	c := CompareBounds(cur, v)
	if (dir < 0 && c > 0) || (dir > 0 && c < 0) {
		return v
	}
	return cur
}

// minMax converts a column chunk's typed statistics to values of the Go
// representation of t, the column's current type (which may be wider than
// the stored one). Signedness comes from the file's logical type. ok is
// false when the statistics cannot stand for t's values (NaN in a foreign
// writer's float min/max, a physical type t does not read).
func minMax(t schema.Type, st metadata.TypedStatistics) (lo, hi any, ok bool) {
	unsigned := false
	if lt, isInt := st.Descr().LogicalType().(pqschema.IntLogicalType); isInt {
		unsigned = !lt.IsSigned()
	}
	ints := func(lo, hi int64) (any, any, bool) {
		l, ok := intValue(t, lo)
		h, _ := intValue(t, hi)
		return l, h, ok
	}
	switch s := st.(type) {
	case *metadata.BooleanStatistics:
		return s.Min(), s.Max(), t.Kind == schema.Bool
	case *metadata.Int32Statistics:
		if unsigned {
			return ints(int64(uint32(s.Min())), int64(uint32(s.Max())))
		}
		return ints(int64(s.Min()), int64(s.Max()))
	case *metadata.Int64Statistics:
		if unsigned && t.Kind != schema.Uint64 {
			return nil, nil, false // a uint64 file column only reads as uint64
		}
		return ints(s.Min(), s.Max())
	case *metadata.Float32Statistics:
		lo, hi := float64(s.Min()), float64(s.Max())
		ok := t.Kind == schema.Float32 || t.Kind == schema.Float64
		return lo, hi, ok && !math.IsNaN(lo) && !math.IsNaN(hi)
	case *metadata.Float64Statistics:
		return s.Min(), s.Max(), t.Kind == schema.Float64 && !math.IsNaN(s.Min()) && !math.IsNaN(s.Max())
	case *metadata.ByteArrayStatistics:
		switch t.Kind {
		case schema.Binary:
			return append([]byte(nil), s.Min()...), append([]byte(nil), s.Max()...), true
		case schema.String, schema.JSON:
			return string(s.Min()), string(s.Max()), true
		}
		return nil, nil, false
	case *metadata.FixedLenByteArrayStatistics:
		if t.Kind != schema.Decimal || len(s.Min()) == 0 || len(s.Max()) == 0 {
			return nil, nil, false
		}
		return fromTwosComplement(s.Min()), fromTwosComplement(s.Max()), true
	}
	return nil, nil, false
}

// intValue converts an integer of a Parquet INT32 or INT64 column (its
// signedness applied) to the Go representation of t (package doc); false
// when t is not read from integers.
func intValue(t schema.Type, v int64) (any, bool) {
	switch t.Kind {
	case schema.Date:
		return int32(v), true
	case schema.Decimal:
		return big.NewInt(v), true
	case schema.Uint64:
		return uint64(v), true
	case schema.Bool, schema.Float32, schema.Float64, schema.String, schema.JSON, schema.Binary:
		return nil, false
	}
	return v, true
}

func nanAt(counts []int64, rg int) int64 {
	if rg < len(counts) {
		return counts[rg]
	}
	return 0
}

// countNaN adds the NaN values of a float column to counts, by row group:
// the column's first row is row base of the file (Parquet statistics leave
// NaN out of min/max, so the writer counts them itself).
func countNaN(a arrow.Array, base, rgRows int64, counts *[]int64) {
	add := func(i int) {
		rg := int((base + int64(i)) / rgRows)
		for len(*counts) <= rg {
			*counts = append(*counts, 0)
		}
		(*counts)[rg]++
	}
	switch x := a.(type) {
	case *array.Float32:
		for i, v := range x.Float32Values() {
			if v != v && x.IsValid(i) {
				add(i)
			}
		}
	case *array.Float64:
		for i, v := range x.Float64Values() {
			if v != v && x.IsValid(i) {
				add(i)
			}
		}
	}
}
