package datafile

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// The largest dictionary RowGroupDictionary reads: a bigger one costs more
// to fetch and search than the row group it might spare, and a column
// with that many distinct values rarely misses a value its min/max admit.
const (
	MaxDictValues = 64 << 10
	MaxDictBytes  = 1 << 20
)

// RowGroupDictionary returns the distinct values of column col (an index
// into the field ids given to Open) in row group rg, read from the column
// chunk's dictionary page, in the Go representation of the column's
// current type (package doc; as ColumnStats.Min and Max), widened where
// the stored type is narrower. NULLs are never in a dictionary.
//
// ok is false, and vals nil, when the dictionary cannot stand for the
// chunk's values or is not worth reading:
//   - the chunk is not wholly dictionary-encoded: a writer falls back to
//     PLAIN pages when the dictionary grows too big (arrow-go and
//     parquet-mr both do), and those pages hold values the dictionary
//     lacks; a footer that does not tell (see wholeDict) counts as not;
//   - the file lacks the column;
//   - the type is not a string, an integer, a date, a timestamp (µs) or a
//     decimal: never floats (GMS compares NaN as matching), booleans or
//     binary;
//   - the dictionary holds more than MaxDictValues values or MaxDictBytes
//     bytes.
//
// It reads the dictionary page alone (one or two reads), never the data
// pages. A damaged one is an error wrapping ErrBadFile, never a panic.
func (r *Reader) RowGroupDictionary(rg, col int) (vals []any, ok bool, err error) {
	if rg < 0 || rg >= r.pf.NumRowGroups() {
		return nil, false, fmt.Errorf("read %s: row group %d of %d", r.path, rg, r.pf.NumRowGroups())
	}
	if col < 0 || col >= len(r.cols) {
		return nil, false, fmt.Errorf("read %s: column %d of %d", r.path, col, len(r.cols))
	}
	if r.src[col] < 0 {
		return nil, false, nil
	}
	c, leaf := r.cols[col], r.leaves[r.src[col]]
	descr := r.pf.MetaData().Schema.Column(leaf)
	if !dictReadsAs(descr, c.Type) {
		return nil, false, nil
	}
	bad := func(format string, args ...any) ([]any, bool, error) {
		return nil, false, fmt.Errorf("read %s: row group %d column %q dictionary: %w: %s", r.path, rg, c.Name, ErrBadFile, fmt.Sprintf(format, args...))
	}
	cc, err := r.pf.MetaData().RowGroup(rg).ColumnChunk(leaf)
	if err != nil {
		return bad("%v", err)
	}
	if !wholeDict(cc) {
		return nil, false, nil
	}
	// The dictionary page lies before the first data page: the gap is
	// its compressed size, known before reading it.
	size := cc.DataPageOffset() - cc.DictionaryPageOffset()
	if size <= 0 {
		return bad("dictionary page at %d, data pages at %d", cc.DictionaryPageOffset(), cc.DataPageOffset())
	}
	if size > MaxDictBytes {
		return nil, false, nil
	}
	defer func() {
		if p := recover(); p != nil {
			vals, ok, err = bad("decoder panic: %v", p)
		}
	}()
	raw, n, err := r.dictionaryPage(rg, leaf)
	if err != nil {
		// Cancelled, a failed read or a checksum mismatch as itself,
		// anything else as damage.
		return nil, false, fmt.Errorf("read %s: row group %d column %q dictionary: %w", r.path, rg, c.Name, r.decodeErr(err))
	}
	if n > MaxDictValues || len(raw) > MaxDictBytes {
		return nil, false, nil
	}
	vals, err = plainValues(descr, c.Type, raw, n)
	if err != nil {
		return bad("%v", err)
	}
	return vals, true, nil
}

// dictionaryPage reads the dictionary page of a column chunk: its
// uncompressed bytes (PLAIN-encoded values) and number of values.
func (r *Reader) dictionaryPage(rg, leaf int) ([]byte, int, error) {
	// A page reader on an unbuffered stream reads the whole column chunk
	// up front; a buffered one reads only what is asked of it.
	pr, err := func() (file.PageReader, error) {
		defer func(saved bool) { r.props.BufferedStreamEnabled = saved }(r.props.BufferedStreamEnabled)
		r.props.BufferedStreamEnabled = true
		return r.pf.RowGroup(rg).GetColumnPageReader(leaf)
	}()
	if err != nil {
		return nil, 0, err
	}
	defer pr.Close()
	dp, err := pr.GetDictionaryPage()
	if err != nil {
		return nil, 0, err
	}
	if dp == nil {
		return nil, 0, fmt.Errorf("no dictionary page")
	}
	if e := parquet.Encoding(dp.Encoding()); e != parquet.Encodings.Plain && e != parquet.Encodings.PlainDict {
		return nil, 0, fmt.Errorf("dictionary page encoded %s", e)
	}
	// The page's buffer belongs to the page reader: copy it out.
	return append([]byte(nil), dp.Data()...), int(dp.NumValues()), nil
}

// wholeDict reports whether every data page of a column chunk is
// dictionary-encoded, as its footer metadata tells. With page encoding
// stats (arrow-go and parquet-mr write them): a dictionary page, and only
// dictionary-encoded data pages. Without them, parquet-mr's rule: the
// chunk lists PLAIN_DICTIONARY (format 1.0) and otherwise only level
// encodings (RLE, BIT_PACKED); a PLAIN among them is a fallback page. A
// format 2.0 chunk (RLE_DICTIONARY) without stats cannot be told (its
// dictionary page is PLAIN whether or not data pages fell back): false.
func wholeDict(cc *metadata.ColumnChunkMetaData) bool {
	if !cc.HasDictionaryPage() || cc.DictionaryPageOffset() <= 0 {
		return false
	}
	if stats := cc.EncodingStats(); len(stats) > 0 {
		dict := false
		for _, s := range stats {
			switch s.PageType {
			case file.PageTypeDictionaryPage:
				dict = true
			case file.PageTypeDataPage, file.PageTypeDataPageV2:
				if s.Encoding != parquet.Encodings.RLEDict && s.Encoding != parquet.Encodings.PlainDict {
					return false
				}
			}
		}
		return dict
	}
	dict := false
	for _, e := range cc.Encodings() {
		switch e {
		case parquet.Encodings.PlainDict:
			dict = true
		case parquet.Encodings.RLE, parquet.Encodings.BitPacked:
		default:
			return false
		}
	}
	return dict
}

// dictReadsAs reports whether RowGroupDictionary decodes a column stored
// as descr for the current type t: strings from UTF-8 BYTE_ARRAY;
// integers from INT32/INT64 integers of t's signedness (any width: a
// narrower stored type widens); dates from INT32 dates; timestamps from
// INT64 microsecond timestamps; decimals of t's scale from INT32, INT64 or
// FIXED_LEN_BYTE_ARRAY decimals.
func dictReadsAs(descr *pqschema.Column, t schema.Type) bool {
	phys, lt := descr.PhysicalType(), descr.LogicalType()
	isInt := phys == parquet.Types.Int32 || phys == parquet.Types.Int64
	switch t.Kind {
	case schema.String:
		return phys == parquet.Types.ByteArray && lt.Equals(pqschema.StringLogicalType{})
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64:
		return isInt && !unsignedInt(lt) && (isNone(lt) || isIntType(lt))
	case schema.Uint8, schema.Uint16, schema.Uint32, schema.Uint64:
		return isInt && unsignedInt(lt)
	case schema.Date:
		_, ok := lt.(pqschema.DateLogicalType)
		return ok && phys == parquet.Types.Int32
	case schema.Timestamp:
		ts, ok := lt.(pqschema.TimestampLogicalType)
		return ok && phys == parquet.Types.Int64 && ts.TimeUnit() == pqschema.TimeUnitMicros
	case schema.Decimal:
		d, ok := lt.(pqschema.DecimalLogicalType)
		return ok && int(d.Scale()) == t.Scale && (isInt || phys == parquet.Types.FixedLenByteArray)
	}
	return false
}

func isNone(lt pqschema.LogicalType) bool {
	return lt == nil || lt.Equals(pqschema.NoLogicalType{})
}

func isIntType(lt pqschema.LogicalType) bool {
	_, ok := lt.(pqschema.IntLogicalType)
	return ok
}

func unsignedInt(lt pqschema.LogicalType) bool {
	it, ok := lt.(pqschema.IntLogicalType)
	return ok && !it.IsSigned()
}

// plainValues decodes n PLAIN-encoded values of a column stored as descr
// into the Go representation of t (dictReadsAs(descr, t) holds). The
// values must fill raw exactly.
func plainValues(descr *pqschema.Column, t schema.Type, raw []byte, n int) ([]any, error) {
	if n < 0 {
		return nil, fmt.Errorf("%d values", n)
	}
	out := make([]any, 0, n)
	switch phys := descr.PhysicalType(); phys {
	case parquet.Types.ByteArray:
		for i := 0; i < n; i++ {
			if len(raw) < 4 {
				return nil, fmt.Errorf("value %d of %d: %d bytes left, no length", i, n, len(raw))
			}
			l := binary.LittleEndian.Uint32(raw)
			if uint64(l) > uint64(len(raw)-4) {
				return nil, fmt.Errorf("value %d of %d: %d bytes, %d left", i, n, l, len(raw)-4)
			}
			out = append(out, string(raw[4:4+l]))
			raw = raw[4+l:]
		}
	case parquet.Types.Int32, parquet.Types.Int64, parquet.Types.FixedLenByteArray:
		w := 4
		switch phys {
		case parquet.Types.Int64:
			w = 8
		case parquet.Types.FixedLenByteArray:
			w = descr.TypeLength()
		}
		if w <= 0 || len(raw) != n*w {
			return nil, fmt.Errorf("%d bytes for %d values of %d bytes", len(raw), n, w)
		}
		unsigned := unsignedInt(descr.LogicalType())
		for i := 0; i < n; i++ {
			b := raw[i*w : (i+1)*w]
			if phys == parquet.Types.FixedLenByteArray {
				out = append(out, fromTwosComplement(b))
				continue
			}
			var v int64
			switch {
			case w == 8:
				v = int64(binary.LittleEndian.Uint64(b))
			case unsigned:
				v = int64(binary.LittleEndian.Uint32(b))
			default:
				v = int64(int32(binary.LittleEndian.Uint32(b)))
			}
			x, ok := intValue(t, v)
			if !ok {
				return nil, fmt.Errorf("%s values as %s", phys, t)
			}
			out = append(out, x)
		}
	default:
		return nil, fmt.Errorf("%s values", phys)
	}
	if len(raw) > 0 && descr.PhysicalType() == parquet.Types.ByteArray {
		return nil, fmt.Errorf("%d bytes after the last value", len(raw))
	}
	return out, nil
}
