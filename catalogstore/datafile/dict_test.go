package datafile_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// dictKinds are the kinds RowGroupDictionary reads; the others of the
// vocabulary are never read (ok false).
var dictKinds = []schema.Kind{
	schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32, schema.Uint64,
	schema.Decimal, schema.String, schema.Date, schema.Timestamp,
}

// asStats is a written value in the Go representation of ColumnStats
// (package doc).
func asStats(k schema.Kind, v any) any {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		if k == schema.Date {
			return x
		}
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case int64:
		if k == schema.Decimal {
			return big.NewInt(x)
		}
	}
	return v
}

// sameSet reports whether got holds exactly the values of want, in any
// order, each once.
func sameSet(got, want []any) bool {
	if len(got) != len(want) {
		return false
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g any) bool { return sameValue(g, w) }) {
			return false
		}
	}
	return true
}

// distinct is the distinct non-NULL values of vals.
func distinct(k schema.Kind, vals []any) []any {
	var out []any
	for _, v := range vals {
		if v == nil {
			continue
		}
		v = asStats(k, v)
		if !slices.ContainsFunc(out, func(o any) bool { return sameValue(o, v) }) {
			out = append(out, v)
		}
	}
	return out
}

// TestRowGroupDictionary_Vocabulary: for every column of every type and
// every row group of the vocabulary file, the dictionary of a supported
// type is exactly the row group's distinct non-NULL values (negatives,
// empty strings, pre-1970 dates, unsigned values above MaxInt64,
// FIXED_LEN_BYTE_ARRAY decimals); other types are never read.
func TestRowGroupDictionary_Vocabulary(t *testing.T) {
	st := newMemStore()
	f, _ := writeVocab(t, st, "t/data/all.parquet")
	ids := make([]int, len(vocab.Columns))
	for i, c := range vocab.Columns {
		ids[i] = c.ID
	}
	r, err := datafile.Open(context.Background(), st, f, &vocab, ids)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for rg, rows := range [][2]int{{0, 4}, {4, 8}, {8, 10}} {
		for j, c := range vocab.Columns {
			vals, ok, err := r.RowGroupDictionary(rg, j)
			if err != nil {
				t.Fatalf("row group %d column %s: %v", rg, c.Name, err)
			}
			want := distinct(c.Type.Kind, vocabRows[j][rows[0]:rows[1]])
			switch {
			case !slices.Contains(dictKinds, c.Type.Kind):
				if ok {
					t.Errorf("row group %d column %s (%s): read a dictionary %v", rg, c.Name, c.Type, vals)
				}
			case len(want) == 0:
				if ok && len(vals) > 0 {
					t.Errorf("row group %d column %s: all NULL, dictionary %v", rg, c.Name, vals)
				}
			case !ok:
				t.Errorf("row group %d column %s (%s): no dictionary", rg, c.Name, c.Type)
			case !sameSet(vals, want):
				t.Errorf("row group %d column %s: dictionary %v, want %v", rg, c.Name, vals, want)
			}
		}
	}
}

// TestRowGroupDictionary_Widened: an int32 column read as int64 gives
// int64 values; a column added later (missing from the file) and a float
// column give none.
func TestRowGroupDictionary_Widened(t *testing.T) {
	v1 := schema.Schema{ID: 1, Columns: []schema.Column{col(1, "a", schema.Int32), col(2, "f", schema.Float64), col(3, "u", schema.Uint16)}}
	rec := buildRecord(t, &v1, [][]any{
		{int32(-7), nil, int32(3), int32(-7)},
		{1.5, 2.5, nil, 1.5},
		{uint16(65535), uint16(0), nil, uint16(1)},
	}, 0, 4)
	defer rec.Release()
	st := newMemStore()
	f, err := datafile.Write(context.Background(), st, "t/data/v1.parquet", &v1, []arrow.Record{rec}, datafile.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v2 := schema.Schema{ID: 2, Columns: []schema.Column{
		col(1, "a", schema.Int64), col(2, "f", schema.Float64), col(3, "u", schema.Uint64), col(4, "added", schema.String),
	}}
	r, err := datafile.Open(context.Background(), st, f, &v2, []int{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, c := range []struct {
		col  int
		ok   bool
		want []any
	}{
		{0, true, []any{int64(-7), int64(3)}},
		{1, false, nil},
		{2, true, []any{uint64(65535), uint64(0), uint64(1)}},
		{3, false, nil},
	} {
		vals, ok, err := r.RowGroupDictionary(0, c.col)
		if err != nil || ok != c.ok || (ok && !sameSet(vals, c.want)) {
			t.Errorf("column %s: %v, %v, %v; want %v, %v", v2.Columns[c.col].Name, vals, ok, err, c.want, c.ok)
		}
	}
	if _, _, err := r.RowGroupDictionary(1, 0); err == nil {
		t.Error("row group 1 of 1: no error")
	}
	if _, _, err := r.RowGroupDictionary(0, 4); err == nil {
		t.Error("column 4 of 4: no error")
	}
}

// TestRowGroupDictionary_Fallback: a row group whose dictionary outgrew
// the writer's limit (4 KiB here, 1 MiB by default) holds a dictionary
// page and then PLAIN pages, whose values are not in the dictionary: no
// dictionary. The next row group, of a few values, keeps its own. The file
// is written as another engine would (no field ids: found by name).
func TestRowGroupDictionary_Fallback(t *testing.T) {
	s := schema.Schema{ID: 1, Columns: []schema.Column{col(1, "s", schema.String)}}
	const big, small = 2000, 1000
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	for i := 0; i < big; i++ {
		b.Append(fmt.Sprintf("%020d", i))
	}
	for i := 0; i < small; i++ {
		b.Append(fmt.Sprint(i % 3))
	}
	arr := b.NewArray()
	defer arr.Release()
	as := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	rec := array.NewRecord(as, []arrow.Array{arr}, big+small)
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(big), parquet.WithDictionaryPageSizeLimit(4<<10),
		parquet.WithDataPageSize(1<<10), parquet.WithCompression(compress.Codecs.Snappy))
	fw, err := pqarrow.NewFileWriter(as, &buf, props, pqarrow.NewArrowWriterProperties())
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	st := newMemStore()
	st.objs["t/data/fallback.parquet"] = buf.Bytes()
	// The footer says so: a dictionary page, then PLAIN data pages.
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	cc, err := pf.MetaData().RowGroup(0).ColumnChunk(0)
	pf.Close()
	if err != nil {
		t.Fatal(err)
	}
	if es := cc.EncodingStats(); !cc.HasDictionaryPage() || !slices.ContainsFunc(es, func(e metadata.PageEncodingStats) bool {
		return e.PageType == file.PageTypeDataPage && e.Encoding == parquet.Encodings.Plain
	}) {
		t.Fatalf("row group 0 did not fall back: dictionary %v, pages %v", cc.HasDictionaryPage(), es)
	}
	f, err := datafile.ReadFooter(context.Background(), st, "t/data/fallback.parquet", 0, &s)
	if err != nil {
		t.Fatal(err)
	}
	r, err := datafile.Open(context.Background(), st, f, &s, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if vals, ok, err := r.RowGroupDictionary(0, 0); err != nil || ok {
		t.Fatalf("fallen back row group: %d values, %v, %v; want no dictionary", len(vals), ok, err)
	}
	vals, ok, err := r.RowGroupDictionary(1, 0)
	if err != nil || !ok || !sameSet(vals, []any{"0", "1", "2"}) {
		t.Fatalf("small row group: %v, %v, %v", vals, ok, err)
	}
}

// TestRowGroupDictionary_TooBig: a wholly dictionary-encoded row group of
// more than MaxDictValues distinct values is not worth its dictionary.
func TestRowGroupDictionary_TooBig(t *testing.T) {
	s := schema.Schema{ID: 1, Columns: []schema.Column{col(1, "i", schema.Int32)}}
	n := datafile.MaxDictValues + 10 // 4 bytes each: well under the writer's 1 MiB limit
	b := array.NewInt32Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Append(int32(i))
	}
	arr := b.NewArray()
	defer arr.Release()
	rec := array.NewRecord(datafile.ArrowSchema(&s), []arrow.Array{arr}, int64(n))
	defer rec.Release()
	st := newMemStore()
	f, err := datafile.Write(context.Background(), st, "t/data/big.parquet", &s, []arrow.Record{rec}, datafile.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := datafile.Open(context.Background(), st, f, &s, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if vals, ok, err := r.RowGroupDictionary(0, 0); err != nil || ok {
		t.Fatalf("%d distinct values: %d values, %v, %v; want none", n, len(vals), ok, err)
	}
}

// countingStore counts the bytes read.
type countingStore struct {
	blob.Store
	read atomic.Int64
}

func (c *countingStore) ReadAt(ctx context.Context, key string, p []byte, off int64) (int, error) {
	n, err := c.Store.ReadAt(ctx, key, p, off)
	c.read.Add(int64(n))
	return n, err
}

// dictFile writes one row group of a dictionary-encoded string column of
// 1000 values beside an int64 column, and returns the
// string column chunk's dictionary page extent [from, to) and size.
func dictFile(t *testing.T, st *memStore) (f manifest.DataFile, s *schema.Schema, from, to, size int64) {
	t.Helper()
	s = &schema.Schema{ID: 1, Columns: []schema.Column{col(1, "s", schema.String), col(2, "i", schema.Int64)}}
	const n = 100_000
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	defer sb.Release()
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	defer ib.Release()
	for i := 0; i < n; i++ {
		sb.Append(fmt.Sprintf("v%d", i*7%1000))
		ib.Append(int64(i))
	}
	sa, ia := sb.NewArray(), ib.NewArray()
	defer sa.Release()
	defer ia.Release()
	rec := array.NewRecord(datafile.ArrowSchema(s), []arrow.Array{sa, ia}, n)
	defer rec.Release()
	// Compressed: uncompressed columns whose first values are distinct
	// are written PLAIN (arrow-go's cost fallback, before the first page).
	f, err := datafile.Write(context.Background(), st, "t/data/dict.parquet", s, []arrow.Record{rec}, datafile.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pf, err := file.NewParquetReader(bytes.NewReader(st.objs[f.Path]))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	cc, err := pf.MetaData().RowGroup(0).ColumnChunk(0)
	if err != nil {
		t.Fatal(err)
	}
	from, to = cc.DictionaryPageOffset(), cc.DataPageOffset()
	if from <= 0 || to <= from {
		t.Fatalf("dictionary page at [%d, %d): has %v, encodings %v, stats %v", from, to, cc.HasDictionaryPage(), cc.Encodings(), cc.EncodingStats())
	}
	return f, s, from, to, cc.TotalCompressedSize()
}

// TestRowGroupDictionary_ReadsOnlyTheDictionary: reading a dictionary
// fetches the dictionary page, not the column chunk's data pages.
func TestRowGroupDictionary_ReadsOnlyTheDictionary(t *testing.T) {
	mem := newMemStore()
	f, s, from, to, size := dictFile(t, mem)
	st := &countingStore{Store: mem}
	r, err := datafile.Open(context.Background(), st, f, s, []int{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	before := st.read.Load()
	vals, ok, err := r.RowGroupDictionary(0, 0)
	if err != nil || !ok || len(vals) != 1000 {
		t.Fatalf("%d values, %v, %v", len(vals), ok, err)
	}
	if read := st.read.Load() - before; read > to-from || size < 4*(to-from) {
		t.Fatalf("read %d bytes for a dictionary page of %d in a column chunk of %d", read, to-from, size)
	}
}

// TestRowGroupDictionary_Damaged: every byte of the dictionary page
// flipped in turn gives the dictionary (of changed values) or an error
// wrapping ErrBadFile, never a panic; some are detected.
func TestRowGroupDictionary_Damaged(t *testing.T) {
	st := newMemStore()
	f, s, from, to, _ := dictFile(t, st)
	good := st.objs[f.Path]
	detected, tried := 0, 0
	for off := from; off < to; off += 1 + (off-from)/64*16 { // every byte of the page header, fewer after
		tried++
		bad := bytes.Clone(good)
		bad[off] ^= 0xff
		st.objs["bad"] = bad
		df := f
		df.Path = "bad"
		r, err := datafile.Open(context.Background(), st, df, s, []int{1})
		if err != nil {
			t.Fatal(err) // the footer is intact
		}
		_, _, err = r.RowGroupDictionary(0, 0)
		r.Close()
		if err != nil {
			if !errors.Is(err, datafile.ErrBadFile) {
				t.Fatalf("byte %d flipped: %v, not ErrBadFile", off, err)
			}
			detected++
		}
	}
	if detected == 0 {
		t.Fatalf("none of %d damaged dictionary pages was detected", tried)
	}
	t.Logf("%d of %d damaged dictionary pages detected", detected, tried)
}
