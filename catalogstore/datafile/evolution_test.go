package datafile_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

func readAll(t *testing.T, r *datafile.Reader) []arrow.Record {
	t.Helper()
	var out []arrow.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rec.Release)
		out = append(out, rec)
	}
}

// TestOpen_SchemaEvolution reads a file written under an old schema with
// the current one: a renamed column by id, an added column as NULLs, a
// dropped column left out, and every allowed widening.
func TestOpen_SchemaEvolution(t *testing.T) {
	v1 := schema.Schema{ID: 1, Columns: []schema.Column{
		col(1, "a", schema.Int32), col(2, "u", schema.Uint16), col(3, "f", schema.Float32),
		{ID: 4, Name: "d", Type: dec(9, 2), Nullable: true}, col(5, "gone", schema.String), col(7, "i8", schema.Int8),
	}}
	rows := [][]any{
		{int32(-7), nil, int32(math.MaxInt32)},
		{uint16(65535), uint16(0), nil},
		{float32(1.5), nil, float32(nan)},
		{int64(-1420), int64(99), nil},
		{"x", "y", "z"},
		{int8(-128), nil, int8(127)},
	}
	rec := buildRecord(t, &v1, rows, 0, 3)
	defer rec.Release()
	st := newMemStore()
	f, err := datafile.Write(context.Background(), st, "t/data/v1.parquet", &v1, []arrow.Record{rec}, datafile.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v2 := schema.Schema{ID: 2, Columns: []schema.Column{
		col(1, "a_renamed", schema.Int64), col(2, "u", schema.Uint64), col(3, "f", schema.Float64),
		{ID: 4, Name: "d", Type: dec(18, 2), Nullable: true}, col(6, "added", schema.Date), col(7, "i8", schema.Int16),
	}}
	r, err := datafile.Open(context.Background(), st, f, &v2, []int{6, 1, 2, 3, 4, 7})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	recs := readAll(t, r)
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	got := recs[0]
	wantNames := []string{"added", "a_renamed", "u", "f", "d", "i8"}
	for i, n := range wantNames {
		if got.ColumnName(i) != n || !arrow.TypeEqual(got.Column(i).DataType(), r.Schema().Field(i).Type) {
			t.Fatalf("column %d is %s %s", i, got.ColumnName(i), got.Column(i).DataType())
		}
	}
	if a := got.Column(0); a.NullN() != 3 || a.DataType().ID() != arrow.DATE32 {
		t.Errorf("added column: %v", a)
	}
	if a := got.Column(1).(*array.Int64); a.Value(0) != -7 || !a.IsNull(1) || a.Value(2) != math.MaxInt32 {
		t.Errorf("int32->int64: %v", a)
	}
	if a := got.Column(2).(*array.Uint64); a.Value(0) != 65535 || a.Value(1) != 0 || !a.IsNull(2) {
		t.Errorf("uint16->uint64: %v", a)
	}
	if a := got.Column(3).(*array.Float64); a.Value(0) != 1.5 || !a.IsNull(1) || !math.IsNaN(a.Value(2)) {
		t.Errorf("float32->float64: %v", a)
	}
	if a := got.Column(4).(*array.Decimal128); a.Value(0).BigInt().Int64() != -1420 || a.Value(1).BigInt().Int64() != 99 || !a.IsNull(2) {
		t.Errorf("decimal(9,2)->decimal(18,2): %v", a)
	}
	if a := got.Column(5).(*array.Int16); a.Value(0) != -128 || !a.IsNull(1) || a.Value(2) != 127 {
		t.Errorf("int8->int16: %v", a)
	}
	// Bounds written under v1 decode under v2 (not rewritten).
	for i, id := range f.FieldIDs {
		c, ok := v2.ByID(id)
		if !ok {
			continue
		}
		if _, err := datafile.DecodeBound(c.Type, f.LowerBounds[i]); err != nil {
			t.Errorf("v1 bound of %s under v2: %v", c.Name, err)
		}
	}
	// Row group stats are in the current type's representation.
	rgs := r.RowGroupStats()
	if len(rgs) != 1 || rgs[0].NumRows != 3 {
		t.Fatalf("row group stats %+v", rgs)
	}
	cs := rgs[0].Columns
	if !cs[0].Missing || cs[0].NullCount != 3 || cs[0].Min != nil {
		t.Errorf("missing column stats %+v", cs[0])
	}
	if cs[1].Min != int64(-7) || cs[1].Max != int64(math.MaxInt32) || cs[1].NullCount != 1 {
		t.Errorf("a stats %+v", cs[1])
	}
	if cs[2].Min != uint64(0) || cs[2].Max != uint64(65535) {
		t.Errorf("u stats %+v (%T)", cs[2], cs[2].Min)
	}
	if cs[4].Min.(*big.Int).Int64() != -1420 || cs[4].Max.(*big.Int).Int64() != 99 {
		t.Errorf("d stats %+v", cs[4])
	}
	// A field id outside the schema is an error, not a NULL column.
	if _, err := datafile.Open(context.Background(), st, f, &v2, []int{5}); err == nil {
		t.Error("opened a field id the schema does not have")
	}
}

// TestReader_RowGroups: RowGroupStats per row group, and reading only the
// selected row groups, in the given order.
func TestReader_RowGroups(t *testing.T) {
	st := newMemStore()
	f, _ := writeVocab(t, st, "t/data/all.parquet")
	ctx := context.Background()
	st.readAts.Store(0)
	r, err := datafile.Open(ctx, st, f, &vocab, []int{11, 9, 5})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n := st.readAts.Load(); n != 1 {
		t.Errorf("Open made %d reads, want 1 (the footer, in one request)", n)
	}
	rgs := r.RowGroupStats()
	if len(rgs) != 3 || r.NumRowGroups() != 3 {
		t.Fatalf("%d row groups", len(rgs))
	}
	type mm struct {
		nulls    int64
		min, max any
	}
	want := [][]mm{
		{{1, 1.0, 3.0}, {0, uint64(5), uint64(math.MaxUint64)}, {1, int64(-5), int64(math.MaxInt64)}},
		{{0, nil, nil}, {0, uint64(6), uint64(9)}, {2, int64(1), int64(2)}}, // f64 all NaN
		{{0, -7.25, -7.25}, {0, uint64(7), uint64(10)}, {0, int64(math.MinInt64), int64(3)}},
	}
	for rg, cols := range want {
		if rgs[rg].RowGroup != rg {
			t.Fatalf("row group index %d", rgs[rg].RowGroup)
		}
		for i, w := range cols {
			c := rgs[rg].Columns[i]
			if c.NullCount != w.nulls || c.Min != w.min || c.Max != w.max {
				t.Errorf("row group %d field %d: %+v, want %+v", rg, c.FieldID, c, w)
			}
		}
	}
	if err := r.SelectRowGroups([]int{2, 0}); err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, r)
	if len(recs) != 2 || recs[0].NumRows() != 2 || recs[1].NumRows() != 4 {
		t.Fatalf("selected row groups read %d records", len(recs))
	}
	if v := recs[0].Column(0).(*array.Float64).Value(0); v != -7.25 {
		t.Errorf("first record starts with %v, want row group 2's -7.25", v)
	}
	if err := r.SelectRowGroups(nil); err == nil {
		t.Error("SelectRowGroups after Next succeeded")
	}
	if _, err := datafile.OpenWith(ctx, st, f, &vocab, []int{1}, datafile.ReadOptions{RowGroups: []int{3}}); err == nil {
		t.Error("opened row group 3 of 3")
	}
	// No stored column requested (COUNT(*)): NULL rows, one record per
	// selected row group.
	only, err := datafile.OpenWith(ctx, st, f, &schema.Schema{Columns: []schema.Column{col(99, "new", schema.String)}}, []int{99},
		datafile.ReadOptions{RowGroups: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	defer only.Close()
	if recs := readAll(t, only); len(recs) != 1 || recs[0].NumRows() != 4 || recs[0].Column(0).NullN() != 4 {
		t.Fatalf("NULL-only read: %d records", len(recs))
	}
}

// writeForeign writes a Parquet file the way another engine would: no
// field ids, a nested column, a naive timestamp, pyarrow's ARROW:schema
// with a large_string.
func writeForeign(t *testing.T, st *memStore, key string) {
	t.Helper()
	nested := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true})
	as := arrow.NewSchema([]arrow.Field{
		{Name: "ID", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "nested", Type: nested, Nullable: true},
		{Name: "Name", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "extra", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, as)
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{3, -1, 7}, nil)
	sb := b.Field(1).(*array.StructBuilder)
	for i := 0; i < 3; i++ {
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int32Builder).Append(int32(i))
	}
	b.Field(2).(*array.LargeStringBuilder).AppendValues([]string{"ann", "bo", ""}, []bool{true, true, false})
	b.Field(3).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{-1, 0, 1_510_871_468_000_000}, nil)
	b.Field(4).(*array.Float32Builder).AppendValues([]float32{float32(nan), 2, 1}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	var buf bytes.Buffer
	fw, err := pqarrow.NewFileWriter(as, &buf, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	st.objs[key] = buf.Bytes()
}

// TestReadFooter_ByName registers a foreign file: columns map by name,
// stats come from the footer, and reads keep finding the columns by the
// recorded names after a rename.
func TestReadFooter_ByName(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	writeForeign(t, st, "ext/x.parquet")
	s := schema.Schema{ID: 1, Columns: []schema.Column{
		col(1, "id", schema.Int64), col(2, "name", schema.String), col(3, "ts", schema.Timestamp),
		col(4, "extra", schema.Float64), col(5, "absent", schema.String),
	}}
	st.readAts.Store(0)
	f, err := datafile.ReadFooter(ctx, st, "ext/x.parquet", 0, &s)
	if err != nil {
		t.Fatal(err)
	}
	if n := st.readAts.Load(); n != 1 {
		t.Errorf("ReadFooter made %d reads, want 1", n)
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	if f.RecordCount != 3 || f.StatsState != manifest.StatsProvided || f.FileSize != int64(len(st.objs["ext/x.parquet"])) {
		t.Fatalf("entry %+v", f)
	}
	if want := []int{1, 2, 3, 4}; len(f.FieldIDs) != 4 || f.FieldIDs[3] != 4 || f.ColumnNames[0] != "ID" || f.ColumnNames[1] != "Name" || f.ColumnNames[3] != "extra" {
		t.Fatalf("field ids %v names %v, want %v", f.FieldIDs, f.ColumnNames, want)
	}
	wantB := []struct {
		nulls, nans int64
		lo, hi      any
	}{
		{0, 0, int64(-1), int64(7)},
		{1, 0, "ann", "bo"},
		{0, 0, int64(-1), int64(1_510_871_468_000_000)},
		{0, -1, 1.0, 2.0}, // NaN count unknown: footers do not count NaN
	}
	for i, w := range wantB {
		c, _ := s.ByID(f.FieldIDs[i])
		lo, _ := datafile.DecodeBound(c.Type, f.LowerBounds[i])
		hi, _ := datafile.DecodeBound(c.Type, f.UpperBounds[i])
		if f.NullCounts[i] != w.nulls || f.NaNCounts[i] != w.nans || !sameValue(lo, w.lo) || !sameValue(hi, w.hi) {
			t.Errorf("%s: nulls %d nans %d bounds [%v, %v]; want %+v", c.Name, f.NullCounts[i], f.NaNCounts[i], lo, hi, w)
		}
	}

	// Rename name -> full_name, then add a new column called "Name": the
	// new one is NULL (it is not the file's), the renamed one keeps its
	// values.
	s2 := schema.Schema{ID: 2, Columns: append(append([]schema.Column{}, s.Columns...), col(6, "Name", schema.String))}
	s2.Columns[1].Name = "full_name"
	r, err := datafile.Open(ctx, st, f, &s2, []int{6, 2, 1, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	recs := readAll(t, r)
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	got := recs[0]
	if got.Column(0).NullN() != 3 || got.Column(5).NullN() != 3 {
		t.Errorf("new and absent columns are not NULL: %v %v", got.Column(0), got.Column(5))
	}
	if a := got.Column(1).(*array.String); a.Value(0) != "ann" || a.Value(1) != "bo" || !a.IsNull(2) {
		t.Errorf("renamed column %v", a)
	}
	if a := got.Column(2).(*array.Int64); a.Value(0) != 3 || a.Value(1) != -1 {
		t.Errorf("id %v", a)
	}
	if a := got.Column(3).(*array.Timestamp); a.Value(2) != 1_510_871_468_000_000 || a.DataType().(*arrow.TimestampType).TimeZone != "UTC" {
		t.Errorf("ts %v %s", a, a.DataType())
	}
	if a := got.Column(4).(*array.Float64); !math.IsNaN(a.Value(0)) || a.Value(2) != 1 {
		t.Errorf("extra %v", a)
	}
}

func TestReadFooter_Refusals(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	writeForeign(t, st, "ext/x.parquet")
	for _, tc := range []struct {
		name string
		cols []schema.Column
	}{
		{"string as int64", []schema.Column{col(1, "name", schema.Int64)}},
		{"int32 as int16", []schema.Column{col(1, "id", schema.Int16)}},
		{"timestamp as date", []schema.Column{col(1, "ts", schema.Date)}},
		{"float as decimal", []schema.Column{{ID: 1, Name: "extra", Type: dec(9, 2), Nullable: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := datafile.ReadFooter(ctx, st, "ext/x.parquet", 0, &schema.Schema{Columns: tc.cols})
			if !errors.Is(err, datafile.ErrIncompatible) {
				t.Fatalf("ReadFooter: %v, want ErrIncompatible", err)
			}
		})
	}
	data := st.objs["ext/x.parquet"]
	st.objs["ext/garbage"] = []byte("this is not a parquet file at all")
	st.objs["ext/truncated"] = data[:len(data)-10]
	st.objs["ext/tiny"] = []byte("PAR1")
	for _, key := range []string{"ext/garbage", "ext/truncated", "ext/tiny"} {
		if _, err := datafile.ReadFooter(ctx, st, key, 0, &schema.Schema{}); !errors.Is(err, datafile.ErrBadFile) {
			t.Errorf("%s: %v, want ErrBadFile", key, err)
		}
	}
}
