package datafile_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"slices"
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

// pagesSchema has columns whose pages fill at different rates: page
// boundaries differ by column.
var pagesSchema = schema.Schema{ID: 1, Columns: []schema.Column{
	col(1, "i", schema.Int64), col(2, "s", schema.String), col(3, "d", schema.Date), col(4, "f", schema.Float64),
}}

const (
	pagesRows   = 10_000
	pagesRGRows = 4000 // row groups of 4000, 4000 and 2000 rows
)

// pagesRecord: i is the row number, s a string of varying length (NULL
// every 7th row, empty every 11th), d a date counting down across 1970,
// f a float with NULLs.
func pagesRecord(t *testing.T, s *schema.Schema) arrow.Record {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(s))
	defer b.Release()
	for r := 0; r < pagesRows; r++ {
		b.Field(0).(*array.Int64Builder).Append(int64(r))
		switch sb := b.Field(1).(*array.StringBuilder); {
		case r%7 == 0:
			sb.AppendNull()
		case r%11 == 0:
			sb.Append("")
		default:
			sb.Append(fmt.Sprintf("%0*d", 1+r%23, r))
		}
		b.Field(2).(*array.Date32Builder).Append(arrow.Date32(5000 - r))
		if r%5 == 0 {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.Float64Builder).Append(float64(r) / 3)
		}
	}
	return b.NewRecord()
}

func writePages(t *testing.T, st *memStore) (manifest.DataFile, arrow.Record) {
	t.Helper()
	rec := pagesRecord(t, &pagesSchema)
	t.Cleanup(rec.Release)
	f, err := datafile.Write(context.Background(), st, "t/data/pages.parquet", &pagesSchema, []arrow.Record{rec},
		datafile.WriteOptions{RowGroupRows: pagesRGRows, DataPageBytes: 6000})
	if err != nil {
		t.Fatal(err)
	}
	return f, rec
}

// readRanges reads f with the given row ranges per row group (absent:
// whole) and returns the rows as one record's worth of columns.
func readRanges(t *testing.T, st *memStore, f manifest.DataFile, batch int64, ranges map[int][]datafile.RowRange) []arrow.Array {
	t.Helper()
	r, err := datafile.OpenWith(context.Background(), st, f, &pagesSchema, []int{1, 2, 3, 4}, datafile.ReadOptions{BatchRows: batch})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for rg, rs := range ranges {
		if err := r.SelectRows(rg, rs); err != nil {
			t.Fatal(err)
		}
	}
	var recs []arrow.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rec.Release)
		recs = append(recs, rec)
		// Column i is the row's number in the file: Position locates
		// the record's rows.
		rg, row := r.Position()
		ids := rec.Column(0).(*array.Int64)
		for k := range ids.Len() {
			if want := int64(rg)*pagesRGRows + row + int64(k); ids.Value(k) != want {
				t.Fatalf("Position (%d, %d): record row %d is file row %d, want %d", rg, row, k, ids.Value(k), want)
			}
		}
	}
	out := make([]arrow.Array, 4)
	for j := range out {
		var parts []arrow.Array
		for _, rec := range recs {
			parts = append(parts, rec.Column(j))
		}
		if len(parts) == 0 {
			out[j] = array.MakeArrayOfNull(memory.DefaultAllocator, datafile.ArrowField(pagesSchema.Columns[j]).Type, 0)
		} else {
			var err error
			if out[j], err = array.Concatenate(parts, memory.DefaultAllocator); err != nil {
				t.Fatal(err)
			}
		}
		t.Cleanup(out[j].Release)
	}
	return out
}

// wantRanges slices the written record by the ranges (row group rg
// starts at row rg*pagesRGRows).
func wantRanges(t *testing.T, rec arrow.Record, ranges map[int][]datafile.RowRange) []arrow.Array {
	t.Helper()
	out := make([]arrow.Array, rec.NumCols())
	for j := range out {
		var parts []arrow.Array
		for rg := 0; rg*pagesRGRows < pagesRows; rg++ {
			base := int64(rg * pagesRGRows)
			rs, ok := ranges[rg]
			if !ok {
				rs = []datafile.RowRange{{Start: 0, End: min(pagesRGRows, pagesRows-base)}}
			}
			for _, x := range rs {
				s := array.NewSlice(rec.Column(j), base+x.Start, base+x.End)
				t.Cleanup(s.Release)
				parts = append(parts, s)
			}
		}
		if len(parts) == 0 {
			out[j] = array.MakeArrayOfNull(memory.DefaultAllocator, rec.Column(j).DataType(), 0)
		} else {
			var err error
			if out[j], err = array.Concatenate(parts, memory.DefaultAllocator); err != nil {
				t.Fatal(err)
			}
		}
		t.Cleanup(out[j].Release)
	}
	return out
}

// TestReader_RowRanges reads row ranges (within a page, across page
// boundaries that differ by column, at row group ends, empty, whole) and
// compares with slices of a full read.
func TestReader_RowRanges(t *testing.T) {
	st := newMemStore()
	f, rec := writePages(t, st)
	r, err := datafile.Open(context.Background(), st, f, &pagesSchema, []int{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	pages, err := r.RowGroupPages(0, []int{0, 1, 2, 3})
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	for j, p := range pages {
		if len(p.FirstRows) < 2 {
			t.Fatalf("column %d has %d pages in row group 0: the test needs several", j, len(p.FirstRows))
		}
	}
	if slices.Equal(pages[0].FirstRows, pages[2].FirstRows) {
		t.Fatalf("int64 and date columns have the same page boundaries %v: the test needs them to differ", pages[0].FirstRows)
	}
	b := pages[0].FirstRows[1] // a page boundary of column i
	cases := []struct {
		name   string
		batch  int64
		ranges map[int][]datafile.RowRange
	}{
		{"none selected", 0, nil},
		{"first row", 0, map[int][]datafile.RowRange{0: {{0, 1}}}},
		{"across a page boundary", 0, map[int][]datafile.RowRange{0: {{b - 3, b + 3}}}},
		{"several, small batches", 7, map[int][]datafile.RowRange{0: {{5, 100}, {b, b + 1}, {1500, 3100}, {3999, 4000}}}},
		{"row group ends", 0, map[int][]datafile.RowRange{0: {{3990, 4000}}, 1: {{0, 1}, {3999, 4000}}, 2: {{1999, 2000}}}},
		{"empty ranges skip row groups", 0, map[int][]datafile.RowRange{0: {}, 2: {}}},
		{"all empty", 0, map[int][]datafile.RowRange{0: {}, 1: {}, 2: {}}},
		{"whole row group as a range", 1000, map[int][]datafile.RowRange{1: {{0, 4000}}}},
		{"last pages of row group 0", 0, map[int][]datafile.RowRange{0: {{pages[0].FirstRows[len(pages[0].FirstRows)-1], 4000}}}},
	}
	rnd := rand.New(rand.NewSource(1))
	for k := 0; k < 20; k++ {
		m := map[int][]datafile.RowRange{}
		for rg, n := range []int64{4000, 4000, 2000} {
			var rs []datafile.RowRange
			for at := rnd.Int63n(300); at < n; {
				end := min(n, at+1+rnd.Int63n(900))
				rs = append(rs, datafile.RowRange{Start: at, End: end})
				at = end + 1 + rnd.Int63n(1200)
			}
			m[rg] = rs
		}
		cases = append(cases, struct {
			name   string
			batch  int64
			ranges map[int][]datafile.RowRange
		}{fmt.Sprintf("random %d", k), 1 + rnd.Int63n(2000), m})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := readRanges(t, st, f, c.batch, c.ranges)
			want := wantRanges(t, rec, c.ranges)
			for j := range want {
				if !array.Equal(got[j], want[j]) {
					t.Fatalf("column %s: read %d rows, want %d (or different values)", pagesSchema.Columns[j].Name, got[j].Len(), want[j].Len())
				}
			}
		})
	}
}

// TestReader_PageStats: the page index of a column of row numbers gives
// each page's exact first row, min and max; a NULL-counting string column
// its NULL counts.
func TestReader_PageStats(t *testing.T) {
	st := newMemStore()
	f, _ := writePages(t, st)
	r, err := datafile.Open(context.Background(), st, f, &pagesSchema, []int{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for rg := 0; rg < r.NumRowGroups(); rg++ {
		n := r.RowGroupStats()[rg].NumRows
		pages, err := r.RowGroupPages(rg, []int{0, 1, 5, -1})
		if err != nil {
			t.Fatal(err)
		}
		if pages[2].FirstRows != nil || pages[3].FirstRows != nil {
			t.Fatalf("pages of a column not opened: %+v", pages[2:])
		}
		p := pages[0]
		base := int64(rg * pagesRGRows)
		for i := range p.FirstRows {
			rows := p.Rows(i, n)
			cs := p.Stats[i]
			if cs.Min != base+rows.Start || cs.Max != base+rows.End-1 || cs.NullCount != 0 {
				t.Errorf("row group %d page %d rows %v: %+v", rg, i, rows, cs)
			}
		}
		s := pages[1]
		var nulls int64
		for i := range s.FirstRows {
			nulls += s.Stats[i].NullCount
			if s.Stats[i].Min == nil || s.Stats[i].Max == nil {
				t.Errorf("row group %d string page %d has no bounds: %+v", rg, i, s.Stats[i])
			}
		}
		var want int64
		for x := base; x < base+n; x++ {
			if x%7 == 0 {
				want++
			}
		}
		if nulls != want {
			t.Errorf("row group %d: string pages count %d NULLs, want %d", rg, nulls, want)
		}
	}
}

func TestReader_SelectRowsRefusals(t *testing.T) {
	st := newMemStore()
	f, _ := writePages(t, st)
	r, err := datafile.Open(context.Background(), st, f, &pagesSchema, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, rs := range [][]datafile.RowRange{{{-1, 3}}, {{3, 3}}, {{0, 4001}}, {{5, 9}, {8, 10}}, {{5, 9}, {1, 2}}} {
		if err := r.SelectRows(0, rs); err == nil {
			t.Errorf("SelectRows(%v) succeeded", rs)
		}
	}
	if err := r.SelectRows(3, nil); err == nil {
		t.Error("SelectRows of row group 3 of 3 succeeded")
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if err := r.SelectRows(0, nil); err == nil {
		t.Error("SelectRows after Next succeeded")
	}
}

// TestReader_RowRangesWithoutPageIndex: a foreign file without a page
// index has no pages to prune by, and still reads row ranges right
// (seeking then reads page headers from the chunk's start).
func TestReader_RowRangesWithoutPageIndex(t *testing.T) {
	st := newMemStore()
	rec := pagesRecord(t, &pagesSchema)
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(pagesRGRows), parquet.WithDataPageSize(6000))
	fw, err := pqarrow.NewFileWriter(rec.Schema(), &buf, props, pqarrow.NewArrowWriterProperties())
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	st.objs["t/data/foreign.parquet"] = buf.Bytes()
	f, err := datafile.ReadFooter(context.Background(), st, "t/data/foreign.parquet", 0, &pagesSchema)
	if err != nil {
		t.Fatal(err)
	}
	r, err := datafile.Open(context.Background(), st, f, &pagesSchema, []int{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	pages, err := r.RowGroupPages(0, []int{0, 1, 2, 3})
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	for j, p := range pages {
		if p.FirstRows != nil {
			t.Fatalf("column %d of a file without a page index has pages %v", j, p.FirstRows)
		}
	}
	ranges := map[int][]datafile.RowRange{0: {{10, 20}, {1500, 2600}}, 1: {}, 2: {{1990, 2000}}}
	got := readRanges(t, st, f, 100, ranges)
	want := wantRanges(t, rec, ranges)
	for j := range want {
		if !array.Equal(got[j], want[j]) {
			t.Fatalf("column %s: read %d rows, want %d (or different values)", pagesSchema.Columns[j].Name, got[j].Len(), want[j].Len())
		}
	}
}
