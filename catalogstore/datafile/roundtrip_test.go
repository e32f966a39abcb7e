package datafile_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

func col(id int, name string, k schema.Kind) schema.Column {
	return schema.Column{ID: id, Name: name, Type: schema.Type{Kind: k}, Nullable: true}
}

var nan = math.NaN()

// vocab has one column of every type of the vocabulary.
var vocab = schema.Schema{ID: 3, Columns: []schema.Column{
	col(1, "b", schema.Bool), col(2, "i8", schema.Int8), col(3, "i16", schema.Int16),
	col(4, "i32", schema.Int32), col(5, "i64", schema.Int64), col(6, "u8", schema.Uint8),
	col(7, "u16", schema.Uint16), col(8, "u32", schema.Uint32), col(9, "u64", schema.Uint64),
	col(10, "f32", schema.Float32), col(11, "f64", schema.Float64),
	{ID: 12, Name: "dec", Type: schema.Type{Kind: schema.Decimal, Precision: 12, Scale: 2}, Nullable: true},
	col(13, "s", schema.String), col(14, "bin", schema.Binary), col(15, "d", schema.Date),
	col(16, "tm", schema.Time), col(17, "ts", schema.Timestamp), col(18, "j", schema.JSON),
	col(19, "nul", schema.Int32),
	// Precision over 18: stored as FIXED_LEN_BYTE_ARRAY, not INT64.
	{ID: 20, Name: "dec38", Type: schema.Type{Kind: schema.Decimal, Precision: 38, Scale: 10}, Nullable: true},
}}

// vocabRows are 10 rows by column (nil = NULL), written as two records
// (rows 0-5, 6-9) into row groups of 4 rows (0-3, 4-7, 8-9).
var vocabRows = [][]any{
	{true, false, nil, true, false, false, nil, true, true, false},
	{int8(-128), int8(127), int8(0), nil, int8(-1), int8(5), int8(6), int8(7), int8(8), int8(9)},
	{int16(-32768), nil, int16(2), int16(3), int16(4), int16(5), int16(6), int16(7), int16(8), int16(32767)},
	{int32(1), int32(2), int32(3), int32(4), int32(5), int32(6), int32(7), int32(8), int32(9), int32(math.MinInt32)},
	{int64(-5), int64(math.MaxInt64), int64(0), nil, nil, nil, int64(1), int64(2), int64(3), int64(math.MinInt64)},
	{uint8(0), uint8(255), uint8(1), uint8(1), uint8(1), uint8(1), uint8(1), uint8(1), uint8(1), nil},
	{uint16(65535), uint16(3), uint16(4), uint16(5), uint16(6), uint16(7), uint16(8), uint16(9), uint16(10), uint16(11)},
	{uint32(math.MaxUint32), uint32(1), uint32(2), nil, uint32(4), uint32(5), uint32(6), uint32(7), uint32(8), uint32(9)},
	// 1<<63 and MaxUint64 are negative as int64: unsigned order must win.
	{uint64(math.MaxUint64), uint64(1 << 63), uint64(5), uint64(5), uint64(6), uint64(7), uint64(8), uint64(9), uint64(10), uint64(7)},
	{float32(nan), float32(-1.5), float32(2.5), float32(nan), float32(0), float32(1), float32(2), nil, float32(3), float32(4)},
	// Row group 1 (rows 4-7) is all NaN: it has no Parquet min/max.
	{1.0, 2.0, 3.0, nil, nan, nan, nan, nan, -7.25, nan},
	{int64(-25), int64(1250), nil, int64(999_999_999_999), int64(-999_999_999_999), int64(0), int64(1), int64(2), int64(3), int64(4)},
	{"", "zed", "ab", nil, "😀", "a", "b", "c", "d", "e"},
	{[]byte{}, []byte{0xff}, []byte{0}, nil, []byte("x"), []byte("y"), []byte("z"), []byte{1, 2}, []byte{3}, []byte{4}},
	// 1969-12-31, 2017-11-16, 0001-01-01
	{int32(-1), int32(17486), int32(-719162), nil, int32(0), int32(1), int32(2), int32(3), int32(4), int32(5)},
	// 00:00, 22:31:08, 23:59:59.999999
	{int64(0), int64(81_068_000_000), int64(86_399_999_999), nil, int64(1), int64(2), int64(3), int64(4), int64(5), int64(6)},
	// 1969-12-31T23:59:59.999999, 2017-11-16T22:31:08, 0001-01-01
	{int64(-1), int64(1_510_871_468_000_000), int64(-62_135_596_800_000_000), nil, int64(0), int64(1), int64(2), int64(3), int64(4), int64(5)},
	{`{"a":1}`, `[]`, nil, `{"b":[1,2]}`, `1`, `2`, `3`, `4`, `5`, `"x"`},
	{nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
	{int64(5), nil, int64(math.MinInt64), int64(-1), int64(0), int64(1), int64(2), int64(3), int64(math.MaxInt64), int64(-300)},
}

type want struct {
	nulls, nans int64
	lo, hi      any // nil: no bounds
}

// vocabWant is the exact footer statistics of vocabRows.
var vocabWant = []want{
	{2, 0, false, true},
	{1, 0, int64(-128), int64(127)},
	{1, 0, int64(-32768), int64(32767)},
	{0, 0, int64(math.MinInt32), int64(9)},
	{3, 0, int64(math.MinInt64), int64(math.MaxInt64)},
	{1, 0, int64(0), int64(255)},
	{0, 0, int64(3), int64(65535)},
	{1, 0, int64(1), int64(math.MaxUint32)},
	{0, 0, uint64(5), uint64(math.MaxUint64)},
	{1, 2, -1.5, 4.0},
	{1, 5, -7.25, 3.0},
	{1, 0, big.NewInt(-999_999_999_999), big.NewInt(999_999_999_999)},
	{1, 0, "", "😀"},
	{1, 0, []byte{}, []byte{0xff}},
	{1, 0, int32(-719162), int32(17486)},
	{1, 0, int64(0), int64(86_399_999_999)},
	{1, 0, int64(-62_135_596_800_000_000), int64(1_510_871_468_000_000)},
	{1, 0, `"x"`, `{"b":[1,2]}`},
	{10, 0, nil, nil},
	{1, 0, big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)},
}

func appendValue(t testing.TB, b array.Builder, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(v.(bool))
	case *array.Int8Builder:
		bb.Append(v.(int8))
	case *array.Int16Builder:
		bb.Append(v.(int16))
	case *array.Int32Builder:
		bb.Append(v.(int32))
	case *array.Int64Builder:
		bb.Append(v.(int64))
	case *array.Uint8Builder:
		bb.Append(v.(uint8))
	case *array.Uint16Builder:
		bb.Append(v.(uint16))
	case *array.Uint32Builder:
		bb.Append(v.(uint32))
	case *array.Uint64Builder:
		bb.Append(v.(uint64))
	case *array.Float32Builder:
		bb.Append(v.(float32))
	case *array.Float64Builder:
		bb.Append(v.(float64))
	case *array.Decimal128Builder:
		bb.Append(decimal128.FromI64(v.(int64)))
	case *array.StringBuilder:
		bb.Append(v.(string))
	case *array.BinaryBuilder:
		bb.Append(v.([]byte))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(v.(int32)))
	case *array.Time64Builder:
		bb.Append(arrow.Time64(v.(int64)))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(v.(int64)))
	default:
		t.Fatalf("no appender for %T", b)
	}
}

// buildRecord builds rows [from, to) of cols (by column) under s.
func buildRecord(t testing.TB, s *schema.Schema, cols [][]any, from, to int) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(s))
	defer b.Release()
	for j := range s.Columns {
		for _, v := range cols[j][from:to] {
			appendValue(t, b.Field(j), v)
		}
	}
	return b.NewRecord()
}

func sameValue(a, b any) bool {
	switch x := a.(type) {
	case *big.Int:
		y, ok := b.(*big.Int)
		return ok && x.Cmp(y) == 0
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	}
	return a == b
}

func writeVocab(t *testing.T, st blob.Store, key string) (manifest.DataFile, []arrow.Record) {
	t.Helper()
	recs := []arrow.Record{buildRecord(t, &vocab, vocabRows, 0, 6), buildRecord(t, &vocab, vocabRows, 6, 10)}
	t.Cleanup(func() {
		for _, r := range recs {
			r.Release()
		}
	})
	f, err := datafile.Write(context.Background(), st, key, &vocab, recs, datafile.WriteOptions{RowGroupRows: 4, Compression: datafile.Zstd})
	if err != nil {
		t.Fatal(err)
	}
	return f, recs
}

// TestWrite_AllTypesStatsExact checks every footer statistic of a file
// holding every type, with NULLs, NaNs (one row group all NaN), negatives,
// empty strings and bytes, pre-1970 dates and timestamps and unsigned
// values above MaxInt64, merged over three row groups, against values
// computed by hand and against an independent read of the footer.
func TestWrite_AllTypesStatsExact(t *testing.T) {
	st := newMemStore()
	f, _ := writeVocab(t, st, "t/data/all.parquet")
	data, _ := st.object(f.Path)
	if f.RecordCount != 10 || f.FileSize != int64(len(data)) || f.Format != "parquet" || f.StatsState != manifest.StatsProvided {
		t.Fatalf("entry %+v (stored %d bytes)", f, len(data))
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	// Sizes against the footer read independently.
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	if pf.NumRowGroups() != 3 {
		t.Fatalf("%d row groups, want 3", pf.NumRowGroups())
	}
	var unc int64
	for i, id := range f.FieldIDs {
		if id != vocab.Columns[i].ID {
			t.Fatalf("field ids %v", f.FieldIDs)
		}
		var comp int64
		for rg := 0; rg < pf.NumRowGroups(); rg++ {
			cc, _ := pf.MetaData().RowGroup(rg).ColumnChunk(i)
			comp += cc.TotalCompressedSize()
			unc += cc.TotalUncompressedSize()
		}
		if f.ColumnSizes[i] != comp || comp <= 0 {
			t.Errorf("column %d size %d, footer %d", id, f.ColumnSizes[i], comp)
		}
		if got := pf.MetaData().Schema.Column(i).SchemaNode().FieldID(); int(got) != id {
			t.Errorf("column %d carries field id %d", id, got)
		}
	}
	if f.UncompressedSize != unc {
		t.Errorf("uncompressed %d, footer %d", f.UncompressedSize, unc)
	}
	for i, w := range vocabWant {
		c := vocab.Columns[i]
		if f.ValueCounts[i] != 10 || f.NullCounts[i] != w.nulls || f.NaNCounts[i] != w.nans || !f.BoundsExact[i] {
			t.Errorf("%s: values %d nulls %d nans %d exact %v, want 10 %d %d true", c.Name,
				f.ValueCounts[i], f.NullCounts[i], f.NaNCounts[i], f.BoundsExact[i], w.nulls, w.nans)
		}
		if w.lo == nil {
			if f.LowerBounds[i] != nil || f.UpperBounds[i] != nil {
				t.Errorf("%s: bounds on an all-NULL column", c.Name)
			}
			continue
		}
		lo, err1 := datafile.DecodeBound(c.Type, f.LowerBounds[i])
		hi, err2 := datafile.DecodeBound(c.Type, f.UpperBounds[i])
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v, %v", c.Name, err1, err2)
		}
		if !sameValue(lo, w.lo) || !sameValue(hi, w.hi) {
			t.Errorf("%s: bounds [%v, %v] (%T), want [%v, %v] (%T)", c.Name, lo, hi, lo, w.lo, w.hi, w.lo)
		}
	}
}

// TestOpen_ReadsBackEqual reads every column back and compares it with
// what was written, record by record (one per row group).
func TestOpen_ReadsBackEqual(t *testing.T) {
	st := newMemStore()
	f, recs := writeVocab(t, st, "t/data/all.parquet")
	ids := make([]int, len(vocab.Columns))
	for i, c := range vocab.Columns {
		ids[i] = c.ID
	}
	r, err := datafile.Open(context.Background(), st, f, &vocab, ids)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Schema().Equal(datafile.ArrowSchema(&vocab)) {
		t.Fatalf("reader schema %s", r.Schema())
	}
	var got []arrow.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Release()
		got = append(got, rec)
	}
	if len(got) != 3 || got[0].NumRows() != 4 || got[1].NumRows() != 4 || got[2].NumRows() != 2 {
		t.Fatalf("records by row group: %d", len(got))
	}
	for j := range vocab.Columns {
		in := concat(t, recs, j)
		out := concat(t, got, j)
		if !array.ApproxEqual(in, out, array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
			t.Errorf("column %s:\n wrote %v\n  read %v", vocab.Columns[j].Name, in, out)
		}
		in.Release()
		out.Release()
	}
}

func concat(t *testing.T, recs []arrow.Record, j int) arrow.Array {
	parts := make([]arrow.Array, len(recs))
	for i, r := range recs {
		parts[i] = r.Column(j)
	}
	a, err := array.Concatenate(parts, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestWrite_LongStringBounds: a bound longer than MaxBoundBytes is left
// out, never cut; a row group whose values are too long for Parquet's own
// statistics leaves the file's bounds unknown instead of narrowing them to
// the other row groups.
func TestWrite_LongStringBounds(t *testing.T) {
	s := schema.Schema{Columns: []schema.Column{col(1, "s", schema.String), col(2, "bin", schema.Binary)}}
	huge := string(bytes.Repeat([]byte("z"), 5000))
	for _, tc := range []struct {
		name   string
		rows   []any
		rgRows int64
		lo, hi any // want; nil = no bound
	}{
		{"upper over 256 bytes", []any{"a", string(bytes.Repeat([]byte("y"), 300))}, 10, "a", nil},
		{"lower over 256 bytes", []any{string(bytes.Repeat([]byte("b"), 257)), "c"}, 10, nil, "c"},
		{"exactly 256 bytes", []any{string(bytes.Repeat([]byte("b"), 256)), "c"}, 10, string(bytes.Repeat([]byte("b"), 256)), "c"},
		// Row group 0's max is beyond Parquet's 4 KiB statistics limit: the
		// writer drops it alone. The upper bound must not shrink to "n".
		{"max beyond Parquet stats", []any{"a", huge, "m", "n"}, 2, "a", nil},
		{"min beyond Parquet stats", []any{"b" + huge, "c", "m", "n"}, 2, nil, "n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bins := make([]any, len(tc.rows))
			for i, v := range tc.rows {
				bins[i] = []byte(v.(string))
			}
			rec := buildRecord(t, &s, [][]any{tc.rows, bins}, 0, len(tc.rows))
			defer rec.Release()
			f, err := datafile.Write(context.Background(), newMemStore(), "k", &s, []arrow.Record{rec}, datafile.WriteOptions{RowGroupRows: tc.rgRows})
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range s.Columns {
				for _, side := range []struct {
					got  []byte
					want any
				}{{f.LowerBounds[i], tc.lo}, {f.UpperBounds[i], tc.hi}} {
					if side.want == nil {
						if side.got != nil {
							t.Errorf("%s: bound %.20q…, want none", c.Name, side.got)
						}
						continue
					}
					if string(side.got) != side.want.(string) {
						t.Errorf("%s: bound %.20q, want %.20q", c.Name, side.got, side.want)
					}
				}
			}
		})
	}
}

func TestWrite_RefusesMismatchAndExisting(t *testing.T) {
	st := newMemStore()
	f, recs := writeVocab(t, st, "t/data/a.parquet")
	if _, err := datafile.Write(context.Background(), st, f.Path, &vocab, recs, datafile.WriteOptions{}); !errors.Is(err, blob.ErrExists) {
		t.Fatalf("second write to one key: %v, want ErrExists", err)
	}
	other := schema.Schema{Columns: vocab.Columns[:3]}
	if _, err := datafile.Write(context.Background(), st, "t/data/b.parquet", &other, recs, datafile.WriteOptions{}); err == nil {
		t.Fatal("records of another schema were written")
	}
	if _, ok := st.object("t/data/b.parquet"); ok {
		t.Fatal("a refused write stored an object")
	}
}

func TestWrite_NoStatsIsPending(t *testing.T) {
	rec := buildRecord(t, &vocab, vocabRows, 0, 10)
	defer rec.Release()
	f, err := datafile.Write(context.Background(), newMemStore(), "k", &vocab, []arrow.Record{rec}, datafile.WriteOptions{NoStats: true})
	if err != nil {
		t.Fatal(err)
	}
	if f.StatsState != manifest.StatsPending || f.FieldIDs != nil || f.LowerBounds != nil || f.RecordCount != 10 || f.FileSize == 0 {
		t.Fatalf("pending entry %+v", f)
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestWrite_NoRecords(t *testing.T) {
	st := newMemStore()
	f, err := datafile.Write(context.Background(), st, "t/data/empty.parquet", &vocab, nil, datafile.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.RecordCount != 0 || f.FileSize == 0 || len(f.FieldIDs) != len(vocab.Columns) || f.LowerBounds[0] != nil {
		t.Fatalf("empty entry %+v", f)
	}
	r, err := datafile.Open(context.Background(), st, f, &vocab, []int{1, 13})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if rec, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("Next on an empty file: %v, %v", rec, err)
	}
}

// TestOpen_DamagedFile: a byte flipped anywhere in a data file whose
// manifest entry records its checksums is ErrChecksum (also ErrBadFile)
// from Open or Next, before anything is decoded: never a wrong answer,
// never a panic. Without recorded checksums (entries of older manifests)
// a flip is an error or goes unnoticed, but still never panics.
func TestOpen_DamagedFile(t *testing.T) {
	st := newMemStore()
	f, _ := writeVocab(t, st, "t/data/all.parquet")
	if f.Checksum == "" || len(f.PartChecksums) < 3 {
		t.Fatalf("Write recorded no checksums: %q %v", f.Checksum, f.PartChecksums)
	}
	good := st.objs[f.Path]
	ids := make([]int, len(vocab.Columns))
	for i, c := range vocab.Columns {
		ids[i] = c.ID
	}
	cols := make([]int, len(ids))
	for i := range cols {
		cols[i] = i
	}
	// read returns the first error reading the whole file, page index
	// included (as a pruning scan reads it), or nil.
	read := func(df manifest.DataFile) error {
		r, err := datafile.Open(context.Background(), st, df, &vocab, ids)
		if err != nil {
			return err
		}
		defer r.Close()
		for rg := range r.NumRowGroups() {
			if _, err := r.RowGroupPages(rg, cols); err != nil {
				return err
			}
		}
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			rec.Release()
		}
	}
	tried, unchecked := 0, 0
	for off := 4; off < len(good); off += 37 {
		tried++
		bad := bytes.Clone(good)
		bad[off] ^= 0xff
		st.objs["bad"] = bad
		df := f
		df.Path = "bad"
		err := read(df)
		if !errors.Is(err, datafile.ErrChecksum) || !errors.Is(err, datafile.ErrBadFile) {
			t.Fatalf("byte %d flipped: %v, want ErrChecksum", off, err)
		}
		if !strings.Contains(err.Error(), "bad") || !strings.Contains(err.Error(), "checksum mismatch") {
			t.Fatalf("byte %d flipped: %q does not name the file and the mismatch", off, err)
		}
		df.Checksum, df.PartChecksums = "", nil
		if err := read(df); err != nil {
			if !errors.Is(err, datafile.ErrBadFile) {
				t.Errorf("byte %d flipped, no checksums: %v, want an error wrapping ErrBadFile", off, err)
			}
		} else {
			unchecked++
		}
	}
	t.Logf("%d flips all detected by checksums; %d went unnoticed without them", tried, unchecked)
}

// TestOpen_DictFields: a string column asked for by DictFields reads as
// dictionary arrays holding the same values (and NULLs); a non-string
// field in DictFields and the columns not asked for read as usual.
func TestOpen_DictFields(t *testing.T) {
	st := newMemStore()
	f, _ := writeVocab(t, st, "t/data/all.parquet")
	ids := []int{13, 5, 18} // s, i64, j (JSON: stored as a string, not asked for)
	r, err := datafile.OpenWith(context.Background(), st, f, &vocab, ids, datafile.ReadOptions{DictFields: []int{13, 5}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Schema().Field(0).Type.ID(); got != arrow.DICTIONARY {
		t.Fatalf("s reads as %s, want a dictionary", r.Schema().Field(0).Type)
	}
	if got := r.Schema().Field(1).Type; !arrow.TypeEqual(got, arrow.PrimitiveTypes.Int64) {
		t.Fatalf("i64 reads as %s", got)
	}
	var got []any
	var rows int64
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		d, ok := rec.Column(0).(*array.Dictionary)
		if !ok {
			t.Fatalf("column s is %T", rec.Column(0))
		}
		dict := d.Dictionary().(*array.String)
		for i := 0; i < d.Len(); i++ {
			if d.IsNull(i) {
				got = append(got, nil)
				continue
			}
			got = append(got, dict.Value(d.GetValueIndex(i)))
		}
		if _, ok := rec.Column(2).(*array.String); !ok {
			t.Fatalf("column j is %T, want a plain string array", rec.Column(2))
		}
		rows += rec.NumRows()
		rec.Release()
	}
	want := vocabRows[12]
	if rows != int64(len(want)) || len(got) != len(want) {
		t.Fatalf("read %d rows, want %d", rows, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: s = %v, want %v", i, got[i], want[i])
		}
	}
}
