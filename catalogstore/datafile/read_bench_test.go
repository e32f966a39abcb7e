package datafile_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// BenchmarkRead reads 4 columns (an int64 and three decimals, the shape of
// TPC-H Q6's inputs) of a 600k-row file from an in-memory store: footer,
// decode, assemble. Compare runs with benchstat; nothing is asserted.
func BenchmarkRead(b *testing.B) {
	const rows = 600_000
	s := schema.Schema{Columns: []schema.Column{
		col(1, "l_orderkey", schema.Int64),
		{ID: 2, Name: "l_quantity", Type: dec(15, 2), Nullable: true},
		{ID: 3, Name: "l_extendedprice", Type: dec(15, 2), Nullable: true},
		{ID: 4, Name: "l_discount", Type: dec(15, 2), Nullable: true},
	}}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(&s))
	defer rb.Release()
	keys := rb.Field(0).(*array.Int64Builder)
	for i := 0; i < rows; i++ {
		keys.Append(int64(i / 4))
		rb.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(100 + i%5000)))
		rb.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(90000 + (i*7919)%10_000_000)))
		rb.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i % 11)))
	}
	rec := rb.NewRecord()
	defer rec.Release()
	st := newMemStore()
	f, err := datafile.Write(context.Background(), st, "bench/data/a.parquet", &s, []arrow.Record{rec}, datafile.WriteOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, checked := range []bool{true, false} {
		name := "checked"
		g := f
		if !checked {
			name = "unchecked"
			g.Checksum, g.PartChecksums = "", nil
		}
		b.Run(name, func(b *testing.B) { benchRead(b, st, g, &s, rows) })
	}
}

// benchRead reads f whole b.N times: with its checksums checked, or not
// (entries of manifests written before they were recorded).
func benchRead(b *testing.B, st *memStore, f manifest.DataFile, s *schema.Schema, rows int64) {
	ids := []int{1, 2, 3, 4}
	b.ReportAllocs()
	b.SetBytes(f.UncompressedSize)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := datafile.Open(context.Background(), st, f, s, ids)
		if err != nil {
			b.Fatal(err)
		}
		n := int64(0)
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n += rec.NumRows()
			rec.Release()
		}
		r.Close()
		if n != rows {
			b.Fatalf("read %d rows", n)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
}
