package datafile_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// poisonAlloc wraps a BufferPool: it fills every freed buffer with 0xA5
// before the pool may hand it out again, and reports a free of a buffer
// not allocated (or freed twice). A record whose memory is read after a
// Free, anywhere in the decoder or in datafile, then shows poisoned values.
type poisonAlloc struct {
	pool *datafile.BufferPool
	mu   sync.Mutex
	live map[uintptr]bool
	bad  []string
}

func newPoison() *poisonAlloc {
	return &poisonAlloc{pool: datafile.NewBufferPool(64 << 20), live: map[uintptr]bool{}}
}

func ptrOf(b []byte) uintptr {
	if cap(b) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))
}

func (a *poisonAlloc) Allocate(size int) []byte {
	b := a.pool.Allocate(size)
	if p := ptrOf(b); p != 0 {
		a.mu.Lock()
		a.live[p] = true
		a.mu.Unlock()
	}
	return b
}

func (a *poisonAlloc) Reallocate(size int, b []byte) []byte {
	if cap(b) >= size {
		return a.pool.Reallocate(size, b)
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

func (a *poisonAlloc) Free(b []byte) {
	p := ptrOf(b)
	if p == 0 {
		return
	}
	a.mu.Lock()
	if !a.live[p] {
		a.bad = append(a.bad, fmt.Sprintf("free of %#x (cap %d): not live", p, cap(b)))
		a.mu.Unlock()
		return
	}
	delete(a.live, p)
	a.mu.Unlock()
	full := b[:cap(b)]
	for i := range full {
		full[i] = 0xA5
	}
	a.pool.Free(b)
}

var poisonSchema = schema.Schema{ID: 1, Columns: []schema.Column{
	{ID: 1, Name: "i", Type: schema.Type{Kind: schema.Int64}, Nullable: true},
	{ID: 2, Name: "d64", Type: schema.Type{Kind: schema.Decimal, Precision: 12, Scale: 2}, Nullable: true},
	{ID: 3, Name: "d32", Type: schema.Type{Kind: schema.Decimal, Precision: 9, Scale: 3}, Nullable: true},
	{ID: 4, Name: "s", Type: schema.Type{Kind: schema.String}, Nullable: true}, // high cardinality
	{ID: 5, Name: "g", Type: schema.Type{Kind: schema.String}, Nullable: true}, // low cardinality (dictionary)
	{ID: 6, Name: "dt", Type: schema.Type{Kind: schema.Date}, Nullable: true},
}}

func writePoisonFile(t *testing.T, st *memStore, key string, rows int, k int) manifest.DataFile {
	b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(&poisonSchema))
	defer b.Release()
	for r := range rows {
		v := int64(r*7+k) - int64(rows)
		if (r+k)%9 == 0 {
			for j := range 6 {
				b.Field(j).AppendNull()
			}
			continue
		}
		b.Field(0).(*array.Int64Builder).Append(v)
		b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(v * 101))
		b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(v % 999_999))
		b.Field(3).(*array.StringBuilder).Append(fmt.Sprint("value-", v))
		b.Field(4).(*array.StringBuilder).Append(fmt.Sprintf("group-name-%02d", r%37))
		b.Field(5).(*array.Date32Builder).Append(arrow.Date32(v % 40000))
	}
	rec := b.NewRecord()
	defer rec.Release()
	f, err := datafile.Write(context.Background(), st, key, &poisonSchema, []arrow.Record{rec}, datafile.WriteOptions{RowGroupRows: 64 * 1024})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// render is a batch's content, independent of how its arrays are typed.
func render(rec arrow.Record) string {
	var sb strings.Builder
	for i := range int(rec.NumCols()) {
		c := rec.Column(i)
		if d, ok := c.(*array.Dictionary); ok {
			for r := range d.Len() {
				if d.IsNull(r) {
					sb.WriteString("null ")
					continue
				}
				sb.WriteString(d.Dictionary().(*array.String).Value(d.GetValueIndex(r)))
				sb.WriteByte(' ')
			}
			continue
		}
		sb.WriteString(c.String())
		sb.WriteByte('\n')
	}
	return sb.String()
}

func readRendered(f manifest.DataFile, st *memStore, opts datafile.ReadOptions, ranges map[int][]datafile.RowRange) ([]string, error) {
	r, err := datafile.OpenWith(context.Background(), st, f, &poisonSchema, []int{1, 2, 3, 4, 5, 6}, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for rg, rs := range ranges {
		if err := r.SelectRows(rg, rs); err != nil {
			return nil, err
		}
	}
	var out []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, render(rec))
		rec.Release()
	}
}

// TestPoisonedPoolReadsEqual reads files through a pool that
// poisons freed buffers (plain, dictionary strings, raw decimals, dates,
// row ranges), sequentially and concurrently, and compares every batch
// with the same read from the Go heap.
func TestPoisonedPoolReadsEqual(t *testing.T) {
	st := newMemStore()
	var files []manifest.DataFile
	for k := range 2 {
		files = append(files, writePoisonFile(t, st, fmt.Sprintf("r/data/%d.parquet", k), 100_000, k))
	}
	cases := []struct {
		name   string
		opts   datafile.ReadOptions
		ranges map[int][]datafile.RowRange
	}{
		{"plain", datafile.ReadOptions{BatchRows: 30_000}, nil},
		{"dict+raw", datafile.ReadOptions{BatchRows: 30_000, DictFields: []int{4, 5}, RawDecimals: []int{2, 3}}, nil},
		{"ranges", datafile.ReadOptions{BatchRows: 7_000, DictFields: []int{5}, RawDecimals: []int{2}},
			map[int][]datafile.RowRange{0: {{Start: 5, End: 20_000}, {Start: 40_000, End: 65_000}}, 1: {{Start: 100, End: 15_000}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := make([][]string, len(files))
			for k, f := range files {
				var err error
				if want[k], err = readRendered(f, st, c.opts, c.ranges); err != nil {
					t.Fatal(err)
				}
			}
			pa := newPoison()
			check := func(k int) error {
				o := c.opts
				o.Mem = pa
				got, err := readRendered(files[k], st, o, c.ranges)
				if err != nil {
					return err
				}
				if len(got) != len(want[k]) {
					return fmt.Errorf("file %d: %d batches, want %d", k, len(got), len(want[k]))
				}
				for i := range got {
					if got[i] != want[k][i] {
						return fmt.Errorf("file %d batch %d differs (first 300 bytes):\n%.300s\nwant\n%.300s", k, i, got[i], want[k][i])
					}
				}
				return nil
			}
			for pass := range 2 {
				for k := range files {
					if err := check(k); err != nil {
						t.Fatalf("pass %d: %v", pass, err)
					}
				}
			}
			var wg sync.WaitGroup
			errs := make([]error, 2*len(files))
			for k := range errs {
				wg.Go(func() { errs[k] = check(k % len(files)) })
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatalf("concurrent: %v", err)
			}
			if len(pa.bad) > 0 {
				t.Fatalf("bad frees: %v", pa.bad[:min(5, len(pa.bad))])
			}
		})
	}
}

// TestSharedFooterConcurrentUse: readers sharing one cached footer
// use it concurrently for everything a scan does with it (row-group stats,
// page index, dictionaries, row ranges, decoding); run with -race.
func TestSharedFooterConcurrentUse(t *testing.T) {
	st := newMemStore()
	f := writePoisonFile(t, st, "fc/data/0.parquet", 150_000, 1)
	c := datafile.NewFooterCache(datafile.DefaultFooterBytes)
	ids := []int{1, 2, 3, 4, 5, 6}
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for k := range errs {
		wg.Go(func() {
			errs[k] = func() error {
				r, err := datafile.OpenWith(context.Background(), st, f, &poisonSchema, ids, datafile.ReadOptions{Footers: c, BatchRows: 20_000, DictFields: []int{5}, RawDecimals: []int{2}})
				if err != nil {
					return err
				}
				defer r.Close()
				_ = r.RowGroupStats()
				for rg := range r.NumRowGroups() {
					if _, err := r.RowGroupPages(rg, []int{0, 4}); err != nil {
						return err
					}
					if _, _, err := r.RowGroupDictionary(rg, 4); err != nil {
						return err
					}
				}
				if err := r.SelectRows(1, []datafile.RowRange{{Start: 10, End: 30_000}}); err != nil {
					return err
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
			}()
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}
