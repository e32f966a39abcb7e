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

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// MaxBoundBytes is the longest string or binary bound kept; longer ones are
// left out (unknown) rather than truncated.
const MaxBoundBytes = 256

// WriteOptions tune Write. The zero value is usable.
type WriteOptions struct {
	// RowGroupRows bounds a row group (default 128Ki rows).
	RowGroupRows int64
	// NoStats registers the file with stats pending (deferred statistics).
	NoStats bool
}

// Write writes recs, whose schema must be ArrowSchema(s), as ONE Parquet
// file at key (create-only: the key must be new) and returns its manifest
// entry with statistics taken from the writer's footer. The file is not
// referenced by any snapshot until a commit lists it.
func Write(ctx context.Context, store blob.Store, key string, s *schema.Schema, recs []arrow.Record, opts WriteOptions) (manifest.DataFile, error) {
	if opts.RowGroupRows <= 0 {
		opts.RowGroupRows = 128 * 1024
	}
	as := ArrowSchema(s)
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithStats(true),
		parquet.WithMaxRowGroupLength(opts.RowGroupRows),
		parquet.WithDictionaryDefault(true),
	)
	fw, err := pqarrow.NewFileWriter(as, &buf, props, pqarrow.NewArrowWriterProperties())
	if err != nil {
		return manifest.DataFile{}, fmt.Errorf("write %s: %w", key, err)
	}
	nan := make([]int64, len(s.Columns))
	var rows int64
	for _, rec := range recs {
		if !rec.Schema().Equal(as) {
			fw.Close()
			return manifest.DataFile{}, fmt.Errorf("write %s: record schema %s does not match the table's %s", key, rec.Schema(), as)
		}
		for j := range s.Columns {
			nan[j] += countNaN(rec.Column(j))
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
	size := int64(buf.Len())
	if err := store.Put(ctx, key, &buf, blob.PutOptions{IfNotExists: true}); err != nil {
		return manifest.DataFile{}, fmt.Errorf("write %s: %w", key, err)
	}
	f.FileSize = size
	colIdx := make([]int, len(s.Columns))
	for i := range colIdx {
		colIdx[i] = i
	}
	if err := fillStats(&f, md, s.Columns, colIdx, nan); err != nil {
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
	f.LowerBounds, f.UpperBounds, f.BoundsExact, f.ColumnSizes = nil, nil, nil, nil
	return f
}

// fillStats sets f's sizes and per-column stats from a footer. cols are
// the catalog columns; colIdx[i] is the Parquet leaf index of cols[i] (-1:
// absent from the file); nan holds NaN counts (nil: unknown).
func fillStats(f *manifest.DataFile, md *metadata.FileMetaData, cols []schema.Column, colIdx []int, nan []int64) error {
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
		for rg := 0; rg < md.NumRowGroups(); rg++ {
			cc, err := md.RowGroup(rg).ColumnChunk(idx)
			if err != nil {
				return err
			}
			csize += cc.TotalCompressedSize()
			f.UncompressedSize += cc.TotalUncompressedSize()
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
			if !st.HasMinMax() {
				// A row group of only NULLs (or NaNs) has no min/max; it
				// widens nothing.
				continue
			}
			rlo, rhi, ok := minMax(c.Type, st)
			if !ok {
				loOK, hiOK = false, false
				continue
			}
			lo = pick(c.Type, lo, rlo, -1)
			hi = pick(c.Type, hi, rhi, 1)
		}
		f.FieldIDs = append(f.FieldIDs, c.ID)
		f.ValueCounts = append(f.ValueCounts, md.NumRows)
		f.NullCounts = append(f.NullCounts, nulls)
		n := int64(0)
		if nan != nil {
			n = nan[i]
		} else if c.Type.Kind == schema.Float32 || c.Type.Kind == schema.Float64 {
			n = -1
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
	c := cmpBound(cur, v)
	if (dir < 0 && c > 0) || (dir > 0 && c < 0) {
		return v
	}
	return cur
}

func cmpBound(a, b any) int {
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case int64:
		return cmp3(x, b.(int64))
	case int32:
		return cmp3(x, b.(int32))
	case uint64:
		return cmp3(x, b.(uint64))
	case float64:
		return cmp3(x, b.(float64))
	case *big.Int:
		return x.Cmp(b.(*big.Int))
	case string:
		return cmp3(x, b.(string))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	}
	return 0
}

func cmp3[T int64 | int32 | uint64 | float64 | string](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// minMax converts a column chunk's typed statistics to bound values.
func minMax(t schema.Type, st metadata.TypedStatistics) (lo, hi any, ok bool) {
	switch s := st.(type) {
	case *metadata.BooleanStatistics:
		return s.Min(), s.Max(), t.Kind == schema.Bool
	case *metadata.Int32Statistics:
		switch t.Kind {
		case schema.Date:
			return s.Min(), s.Max(), true
		case schema.Uint8, schema.Uint16, schema.Uint32:
			return int64(uint32(s.Min())), int64(uint32(s.Max())), true
		case schema.Decimal:
			return big.NewInt(int64(s.Min())), big.NewInt(int64(s.Max())), true
		}
		return int64(s.Min()), int64(s.Max()), true
	case *metadata.Int64Statistics:
		switch t.Kind {
		case schema.Uint64:
			return uint64(s.Min()), uint64(s.Max()), true
		case schema.Decimal:
			return big.NewInt(s.Min()), big.NewInt(s.Max()), true
		}
		return s.Min(), s.Max(), true
	case *metadata.Float32Statistics:
		lo, hi := float64(s.Min()), float64(s.Max())
		return lo, hi, !math.IsNaN(lo) && !math.IsNaN(hi)
	case *metadata.Float64Statistics:
		return s.Min(), s.Max(), !math.IsNaN(s.Min()) && !math.IsNaN(s.Max())
	case *metadata.ByteArrayStatistics:
		if t.Kind == schema.Binary {
			return append([]byte(nil), s.Min()...), append([]byte(nil), s.Max()...), true
		}
		return string(s.Min()), string(s.Max()), true
	case *metadata.FixedLenByteArrayStatistics:
		if t.Kind != schema.Decimal || len(s.Min()) == 0 {
			return nil, nil, false
		}
		return fromTwosComplement(s.Min()), fromTwosComplement(s.Max()), true
	}
	return nil, nil, false
}

// countNaN counts NaN values of a float column (Parquet statistics leave
// NaN out of min/max, so the writer counts them itself).
func countNaN(a arrow.Array) int64 {
	var n int64
	switch x := a.(type) {
	case *array.Float32:
		for i, v := range x.Float32Values() {
			if x.IsValid(i) && v != v {
				n++
			}
		}
	case *array.Float64:
		for i, v := range x.Float64Values() {
			if x.IsValid(i) && v != v {
				n++
			}
		}
	}
	return n
}
