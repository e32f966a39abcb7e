package datafile_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

func TestBufferPool_Allocator(t *testing.T) {
	p := datafile.NewBufferPool(3 << 19)
	small := p.Allocate(100)
	if len(small) != 100 {
		t.Fatalf("small allocation has length %d", len(small))
	}
	b := p.Allocate(100_000)
	if len(b) != 100_000 || cap(b) != 1<<17 {
		t.Fatalf("pooled allocation: len %d cap %d, want 100000 and %d", len(b), cap(b), 1<<17)
	}
	for i := range b {
		b[i] = 0xAB
	}
	p.Free(b)
	c := p.Allocate(70_000) // the same size class: the freed buffer, zeroed
	if &c[0] != &b[0] {
		t.Errorf("a freed buffer of the size class was not reused")
	}
	for i, x := range c {
		if x != 0 {
			t.Fatalf("reused buffer byte %d = %#x, want 0", i, x)
		}
	}
	c = c[:1000]
	c[999] = 7
	c = p.Reallocate(90_000, c) // grows in place, zeroing what it grows by
	if len(c) != 90_000 || c[999] != 7 || c[1000] != 0 || c[89_999] != 0 {
		t.Fatalf("in-place reallocate: len %d, c[999]=%d c[1000]=%d", len(c), c[999], c[1000])
	}
	d := p.Reallocate(300_000, c) // a larger class: copied, c freed
	if len(d) != 300_000 || d[999] != 7 {
		t.Fatalf("reallocate to a larger class lost data")
	}
	if s := p.Scratch(100_000); &s[0] != &c[0] {
		t.Errorf("Scratch did not reuse the freed buffer")
	}
	// The pool keeps at most its limit (1.5 MiB): the second 1 MiB buffer
	// freed is left to the collector.
	e1, e2 := p.Allocate(600_000), p.Allocate(600_000)
	p.Free(e1)
	p.Free(e2)
	f1, f2 := p.Allocate(600_000), p.Allocate(600_000)
	if &f1[0] != &e1[0] {
		t.Errorf("a freed buffer within the limit was not reused")
	}
	if &f2[0] == &e1[0] || &f2[0] == &e2[0] {
		t.Errorf("the pool kept a buffer beyond its limit")
	}
}

// TestBufferPool_ReadsBackEqual reads large files (batches whose buffers
// are pooled) through one shared pool, sequentially and concurrently,
// releasing each record before the next as the aggregates do: every value
// must be what was written, so no buffer is handed out while in use and
// every recycled one is cleared.
func TestBufferPool_ReadsBackEqual(t *testing.T) {
	s := schema.Schema{ID: 1, Columns: []schema.Column{
		{ID: 1, Name: "i", Type: schema.Type{Kind: schema.Int64}, Nullable: true},
		{ID: 2, Name: "d", Type: schema.Type{Kind: schema.Decimal, Precision: 12, Scale: 2}, Nullable: true},
		{ID: 3, Name: "n", Type: schema.Type{Kind: schema.Decimal, Precision: 9, Scale: 3}, Nullable: true},
		{ID: 4, Name: "s", Type: schema.Type{Kind: schema.String}, Nullable: true},
	}}
	const rows = 150_000
	st := newMemStore()
	var files []manifest.DataFile
	for k := range 3 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(&s))
		for r := range rows {
			v := int64(r*7+k) - rows
			if (r+k)%9 == 0 {
				for j := range 4 {
					b.Field(j).AppendNull()
				}
				continue
			}
			b.Field(0).(*array.Int64Builder).Append(v)
			b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(v * 101))
			b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(v % 999_999))
			b.Field(3).(*array.StringBuilder).Append(fmt.Sprint(v))
		}
		rec := b.NewRecord()
		b.Release()
		f, err := datafile.Write(context.Background(), st, fmt.Sprintf("t/data/%d.parquet", k), &s, []arrow.Record{rec}, datafile.WriteOptions{RowGroupRows: 64 * 1024})
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	pool := datafile.NewBufferPool(64 << 20)
	check := func(k int, f manifest.DataFile) error {
		r, err := datafile.OpenWith(context.Background(), st, f, &s, []int{1, 2, 3, 4}, datafile.ReadOptions{Mem: pool, BatchRows: 40_000})
		if err != nil {
			return err
		}
		defer r.Close()
		row := 0
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			if _, ok := rec.Column(1).(*array.Decimal128); !ok {
				return fmt.Errorf("column d reads as %T", rec.Column(1))
			}
			for i := 0; i < int(rec.NumRows()); i, row = i+1, row+1 {
				v := int64(row*7+k) - rows
				null := (row+k)%9 == 0
				c0, c1, c2, c3 := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Decimal128), rec.Column(2).(*array.Decimal128), rec.Column(3).(*array.String)
				if c0.IsNull(i) != null || c1.IsNull(i) != null || c2.IsNull(i) != null || c3.IsNull(i) != null {
					return fmt.Errorf("file %d row %d: NULLs differ", k, row)
				}
				if !null && (c0.Value(i) != v || c1.Value(i) != decimal128.FromI64(v*101) || c2.Value(i) != decimal128.FromI64(v%999_999) || c3.Value(i) != fmt.Sprint(v)) {
					return fmt.Errorf("file %d row %d: read %d %v %v %q", k, row, c0.Value(i), c1.Value(i), c2.Value(i), c3.Value(i))
				}
			}
			rec.Release()
		}
		if row != rows {
			return fmt.Errorf("file %d: read %d rows", k, row)
		}
		return nil
	}
	for pass := range 2 {
		for k, f := range files {
			if err := check(k, f); err != nil {
				t.Fatalf("pass %d: %v", pass, err)
			}
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, len(files))
	for k, f := range files {
		wg.Go(func() { errs[k] = check(k, f) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent: %v", err)
	}
}

// TestOpen_RawDecimals: a DECIMAL stored as INT64 reads as its unscaled
// int64 values when asked; one stored as INT32 or as bytes still reads
// as Decimal128, and so does one not asked for.
func TestOpen_RawDecimals(t *testing.T) {
	st := newMemStore()
	f, _ := writeVocab(t, st, "t/data/all.parquet")
	r, err := datafile.OpenWith(context.Background(), st, f, &vocab, []int{12, 20}, datafile.ReadOptions{RawDecimals: []int{12, 20}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Schema().Field(0).Type; !arrow.TypeEqual(got, arrow.PrimitiveTypes.Int64) {
		t.Fatalf("dec reads as %s, want int64", got)
	}
	if got := r.Schema().Field(1).Type.ID(); got != arrow.DECIMAL128 {
		t.Fatalf("dec38 (stored as bytes) reads as %s", r.Schema().Field(1).Type)
	}
	var got []any
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		x := rec.Column(0).(*array.Int64)
		for i := range x.Len() {
			if x.IsNull(i) {
				got = append(got, nil)
			} else {
				got = append(got, x.Value(i))
			}
		}
		rec.Release()
	}
	want := vocabRows[11]
	if len(got) != len(want) {
		t.Fatalf("read %d values, want %d", len(got), len(want))
	}
	for i := range want {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) { // vocab holds unscaled integers
			t.Errorf("row %d: %v, want %v", i, got[i], want[i])
		}
	}
}
