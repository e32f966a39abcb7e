package txn

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// TestPartitioner_PerUniqueValue: the partition tuple is computed once per
// distinct source value, not per row — a 10,000-row batch over three
// timestamps and two keys runs each transform on 3 and 2 values — and the
// memoised answers equal freshly computed ones.
func TestPartitioner_PerUniqueValue(t *testing.T) {
	s := &schema.Schema{Columns: []schema.Column{
		{ID: 1, Name: "ts", Type: schema.Type{Kind: schema.Timestamp}, Nullable: true},
		{ID: 2, Name: "id", Type: schema.Type{Kind: schema.Int64}},
	}}
	spec := partition.Spec{Fields: []partition.Field{
		{SourceID: 1, FieldID: 1000, Name: "ts_day", Transform: partition.Day},
		{SourceID: 2, FieldID: 1001, Name: "id_bucket", Transform: partition.Bucket(16)},
	}}
	pp, err := newPartitioner(s, spec)
	if err != nil {
		t.Fatal(err)
	}
	days := []*time.Time{ptr(time.Date(1969, 12, 31, 23, 0, 0, 0, time.UTC)), ptr(time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)), nil}
	build := func(n int, first int) arrow.Record {
		b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(s))
		defer b.Release()
		for i := first; i < first+n; i++ {
			if d := days[i%3]; d == nil {
				b.Field(0).AppendNull()
			} else {
				b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(d.UnixMicro()))
			}
			b.Field(1).(*array.Int64Builder).Append(int64(34 + i%2))
		}
		return b.NewRecord()
	}
	rec := build(10000, 0)
	defer rec.Release()
	groups, err := pp.split(rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 6 {
		t.Fatalf("%d distinct tuples, want 6", len(groups))
	}
	rows := 0
	for _, g := range groups {
		rows += len(g.rows)
		// A fresh partitioner computes the same tuple for the group's first row.
		one := build(1, int(g.rows[0]))
		fresh, err := newPartitioner(s, spec)
		if err != nil {
			t.Fatal(err)
		}
		want, err := fresh.split(one)
		one.Release()
		if err != nil {
			t.Fatal(err)
		}
		for j := range want[0].values {
			a, b := want[0].values[j], g.values[j]
			if (a == nil) != (b == nil) || (a != nil && *a != *b) {
				t.Fatalf("tuple %q field %d: memoised %v, computed %v", g.key, j, b, a)
			}
		}
	}
	if rows != 10000 {
		t.Fatalf("groups hold %d rows, want 10000", rows)
	}
	if n := len(pp.fields[0].memo); n != 3 {
		t.Fatalf("day transform memo holds %d values, want 3 (one per distinct timestamp, NULL included)", n)
	}
	if n := len(pp.fields[1].memo); n != 2 {
		t.Fatalf("bucket transform memo holds %d values, want 2", n)
	}
	// The bucket of 34 is 3 (Iceberg's published vector).
	for _, g := range groups {
		if g.rows[0]%2 == 0 && (g.values[1] == nil || *g.values[1] != "3") {
			t.Fatalf("bucket of 34 = %v, want 3", g.values[1])
		}
	}
}

func ptr[T any](v T) *T { return &v }
