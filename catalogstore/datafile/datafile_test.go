package datafile_test

import (
	"context"
	"errors"
	"io"
	"math"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Appendix D of the Iceberg spec: single-value serialisation.
func TestEncodeBound_AppendixD(t *testing.T) {
	cases := []struct {
		name string
		typ  schema.Type
		v    any
		want []byte
	}{
		{"appendixD/boolean/true", schema.Type{Kind: schema.Bool}, true, []byte{1}},
		{"appendixD/int/34", schema.Type{Kind: schema.Int32}, int64(34), []byte{34, 0, 0, 0}},
		{"appendixD/int/-1", schema.Type{Kind: schema.Int32}, int64(-1), []byte{0xff, 0xff, 0xff, 0xff}},
		{"appendixD/long/34", schema.Type{Kind: schema.Int64}, int64(34), []byte{34, 0, 0, 0, 0, 0, 0, 0}},
		{"appendixD/float/1.0", schema.Type{Kind: schema.Float32}, 1.0, []byte{0, 0, 0x80, 0x3f}},
		{"appendixD/double/1.0", schema.Type{Kind: schema.Float64}, 1.0, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}},
		{"appendixD/date/2017-11-16", schema.Type{Kind: schema.Date}, int32(17486), []byte{0x4e, 0x44, 0, 0}},
		{"appendixD/date/1969-12-31", schema.Type{Kind: schema.Date}, int32(-1), []byte{0xff, 0xff, 0xff, 0xff}},
		{"appendixD/timestamp/epoch+1us", schema.Type{Kind: schema.Timestamp}, int64(1), []byte{1, 0, 0, 0, 0, 0, 0, 0}},
		{"appendixD/string/iceberg", schema.Type{Kind: schema.String}, "iceberg", []byte("iceberg")},
		{"appendixD/binary", schema.Type{Kind: schema.Binary}, []byte{0, 1, 2, 3}, []byte{0, 1, 2, 3}},
		{"appendixD/decimal/14.20", schema.Type{Kind: schema.Decimal, Precision: 9, Scale: 2}, big.NewInt(1420), []byte{0x05, 0x8c}},
		{"appendixD/decimal/-1", schema.Type{Kind: schema.Decimal, Precision: 9, Scale: 0}, big.NewInt(-1), []byte{0xff}},
		{"appendixD/decimal/128", schema.Type{Kind: schema.Decimal, Precision: 9, Scale: 0}, big.NewInt(128), []byte{0x00, 0x80}},
		{"appendixD/decimal/-129", schema.Type{Kind: schema.Decimal, Precision: 9, Scale: 0}, big.NewInt(-129), []byte{0xff, 0x7f}},
		{"appendixD/decimal/0", schema.Type{Kind: schema.Decimal, Precision: 9, Scale: 0}, big.NewInt(0), []byte{0x00}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := datafile.EncodeBound(c.typ, c.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(c.want) {
				t.Fatalf("encode = % x, want % x", got, c.want)
			}
			back, err := datafile.DecodeBound(c.typ, got)
			if err != nil {
				t.Fatal(err)
			}
			if bi, ok := back.(*big.Int); ok {
				if bi.Cmp(c.v.(*big.Int)) != 0 {
					t.Fatalf("decode = %v, want %v", back, c.v)
				}
			} else if b, ok := back.([]byte); ok {
				if string(b) != string(c.want) {
					t.Fatalf("decode = %v", back)
				}
			} else if back != c.v {
				t.Fatalf("decode = %v (%T), want %v (%T)", back, back, c.v, c.v)
			}
		})
	}
	if _, err := datafile.DecodeBound(schema.Type{Kind: schema.Int64}, []byte{1, 2, 3}); err == nil {
		t.Fatal("a 3-byte long bound decoded")
	}
}

var allTypes = schema.Schema{ID: 0, Columns: []schema.Column{
	{ID: 1, Name: "b", Type: schema.Type{Kind: schema.Bool}, Nullable: true},
	{ID: 2, Name: "i8", Type: schema.Type{Kind: schema.Int8}, Nullable: true},
	{ID: 3, Name: "i64", Type: schema.Type{Kind: schema.Int64}, Nullable: true},
	{ID: 4, Name: "u32", Type: schema.Type{Kind: schema.Uint32}, Nullable: true},
	{ID: 5, Name: "f64", Type: schema.Type{Kind: schema.Float64}, Nullable: true},
	{ID: 6, Name: "dec", Type: schema.Type{Kind: schema.Decimal, Precision: 12, Scale: 2}, Nullable: true},
	{ID: 7, Name: "s", Type: schema.Type{Kind: schema.String}, Nullable: true},
	{ID: 8, Name: "d", Type: schema.Type{Kind: schema.Date}, Nullable: true},
	{ID: 9, Name: "ts", Type: schema.Type{Kind: schema.Timestamp}, Nullable: true},
	{ID: 10, Name: "allnull", Type: schema.Type{Kind: schema.Int32}, Nullable: true},
}}

func record(t *testing.T) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(&allTypes))
	defer b.Release()
	b.Field(0).(*array.BooleanBuilder).AppendValues([]bool{true, false, false}, []bool{true, true, false})
	b.Field(1).(*array.Int8Builder).AppendValues([]int8{-128, 127, 0}, []bool{true, true, false})
	b.Field(2).(*array.Int64Builder).AppendValues([]int64{-5, math.MaxInt64, 0}, []bool{true, true, false})
	b.Field(3).(*array.Uint32Builder).AppendValues([]uint32{math.MaxUint32, 1, 0}, []bool{true, true, false})
	b.Field(4).(*array.Float64Builder).AppendValues([]float64{-1.5, math.NaN(), 2.5}, nil)
	b.Field(5).(*array.Decimal128Builder).AppendValues([]decimal128.Num{decimal128.FromI64(-25), decimal128.FromI64(1250), {}}, []bool{true, true, false})
	b.Field(6).(*array.StringBuilder).AppendValues([]string{"", "zed", "ab"}, nil)
	b.Field(7).(*array.Date32Builder).AppendValues([]arrow.Date32{-1, 19723, 0}, []bool{true, true, false})
	b.Field(8).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{-1, 1700000000000000, 0}, []bool{true, true, false})
	b.Field(9).AppendNulls(3)
	return b.NewRecord()
}

// TestWrite_StatsFromFooter: the footer-derived stats are exact for every
// type, NaNs are counted, all-NULL columns have no bounds.
func TestWrite_StatsFromFooter(t *testing.T) {
	ctx := context.Background()
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rec := record(t)
	defer rec.Release()
	f, err := datafile.Write(ctx, store, "t/data/a.parquet", &allTypes, []arrow.Record{rec}, datafile.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.RecordCount != 3 || f.StatsState != manifest.StatsProvided || len(f.FieldIDs) != 10 {
		t.Fatalf("file %+v", f)
	}
	info, _ := store.Stat(ctx, f.Path)
	if info.Size != f.FileSize || f.UncompressedSize <= 0 {
		t.Fatalf("sizes: recorded %d, stored %d, uncompressed %d", f.FileSize, info.Size, f.UncompressedSize)
	}
	bounds := func(i int) (any, any) {
		c := allTypes.Columns[i]
		if f.LowerBounds[i] == nil {
			return nil, nil
		}
		lo, err1 := datafile.DecodeBound(c.Type, f.LowerBounds[i])
		hi, err2 := datafile.DecodeBound(c.Type, f.UpperBounds[i])
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", c.Name, err1, err2)
		}
		return lo, hi
	}
	want := []struct {
		nulls  int64
		lo, hi any
	}{
		{1, false, true},
		{1, int64(-128), int64(127)},
		{1, int64(-5), int64(math.MaxInt64)},
		{1, int64(1), int64(math.MaxUint32)},
		{0, -1.5, 2.5},
		{1, "dec", "dec"},
		{0, "", "zed"},
		{1, int32(-1), int32(19723)},
		{1, int64(-1), int64(1700000000000000)},
		{3, nil, nil},
	}
	for i, w := range want {
		lo, hi := bounds(i)
		if f.NullCounts[i] != w.nulls || f.ValueCounts[i] != 3 {
			t.Errorf("%s: nulls %d values %d", allTypes.Columns[i].Name, f.NullCounts[i], f.ValueCounts[i])
		}
		if w.lo == "dec" {
			if lo.(*big.Int).Int64() != -25 || hi.(*big.Int).Int64() != 1250 {
				t.Errorf("dec bounds %v %v", lo, hi)
			}
			continue
		}
		if lo != w.lo || hi != w.hi {
			t.Errorf("%s: bounds [%v, %v], want [%v, %v]", allTypes.Columns[i].Name, lo, hi, w.lo, w.hi)
		}
	}
	if f.NaNCounts[4] != 1 {
		t.Errorf("NaN count %d, want 1", f.NaNCounts[4])
	}

	// Read back projected by field id, including an id the file lacks
	// (a column added later reads as NULL) and a renamed column.
	evolved := allTypes
	evolved.Columns = append([]schema.Column{}, allTypes.Columns...)
	evolved.Columns[6].Name = "renamed"
	evolved.Columns = append(evolved.Columns, schema.Column{ID: 11, Name: "added", Type: schema.Type{Kind: schema.String}, Nullable: true})
	r, err := datafile.Open(ctx, store, f, &evolved, []int{11, 7, 3})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if got.NumRows() != 3 || got.ColumnName(1) != "renamed" || got.Column(0).NullN() != 3 {
		t.Fatalf("projection: %v", got)
	}
	if s := got.Column(1).(*array.String); s.Value(1) != "zed" || s.Value(0) != "" {
		t.Fatalf("renamed column values %v", s)
	}
	if v := got.Column(2).(*array.Int64); v.Value(1) != math.MaxInt64 || !v.IsNull(2) {
		t.Fatalf("i64 values %v", v)
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("second Next: %v", err)
	}
	// A narrower stored type widens to the current one (int8 -> int64).
	widened := allTypes
	widened.Columns = append([]schema.Column{}, allTypes.Columns...)
	widened.Columns[1].Type = schema.Type{Kind: schema.Int64}
	r2, err := datafile.Open(ctx, store, f, &widened, []int{2})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	w, err := r2.Next()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Release()
	if v := w.Column(0).(*array.Int64); v.Value(0) != -128 || !v.IsNull(2) {
		t.Fatalf("widened %v", v)
	}
	// Registering the same file from its footer gives the same stats.
	reg, err := datafile.ReadFooter(ctx, store, f.Path, 0, &allTypes)
	if err != nil {
		t.Fatal(err)
	}
	if reg.RecordCount != 3 || string(reg.LowerBounds[2]) != string(f.LowerBounds[2]) || reg.NullCounts[9] != 3 {
		t.Fatalf("footer registration %+v", reg)
	}
	// A second write to the same key is refused (write-once).
	if _, err := datafile.Write(ctx, store, f.Path, &allTypes, []arrow.Record{rec}, datafile.WriteOptions{}); err == nil {
		t.Fatal("overwrote a data file")
	}
}

func TestFromArrowType_RefusesByName(t *testing.T) {
	_, err := datafile.FromArrowType(arrow.ListOf(arrow.PrimitiveTypes.Int32))
	if !errors.Is(err, schema.ErrUnsupportedType) {
		t.Fatalf("list type: %v", err)
	}
	if got, err := datafile.FromArrowType(&arrow.Decimal128Type{Precision: 10, Scale: 2}); err != nil || got.String() != "decimal(10,2)" {
		t.Fatalf("decimal: %v %v", got, err)
	}
}
