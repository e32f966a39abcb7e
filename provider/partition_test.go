package provider

import (
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

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
	days := []any{time.Date(1969, 12, 31, 23, 0, 0, 0, time.UTC), time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), nil}
	keys := map[string]bool{}
	for i := 0; i < 10000; i++ {
		row := sql.Row{days[i%3], int64(34 + i%2)}
		key, vals, err := pp.tuple(row)
		if err != nil {
			t.Fatal(err)
		}
		keys[key] = true
		fresh, err := newPartitioner(s, spec)
		if err != nil {
			t.Fatal(err)
		}
		if i < 6 {
			_, want, err := fresh.tuple(row)
			if err != nil {
				t.Fatal(err)
			}
			for j := range want {
				if (want[j] == nil) != (vals[j] == nil) || (want[j] != nil && *want[j] != *vals[j]) {
					t.Fatalf("row %d field %d: memoised %v, computed %v", i, j, vals[j], want[j])
				}
			}
		}
	}
	if n := len(pp.fields[0].memo); n != 3 {
		t.Fatalf("day transform memo holds %d values, want 3 (one per distinct timestamp)", n)
	}
	if n := len(pp.fields[1].memo); n != 2 {
		t.Fatalf("bucket transform memo holds %d values, want 2", n)
	}
	if len(keys) != 6 {
		t.Fatalf("%d distinct tuples, want 6", len(keys))
	}
	// The bucket of 34 is 3 (Iceberg's published vector).
	_, vals, _ := pp.tuple(sql.Row{nil, int64(34)})
	if vals[0] != nil || vals[1] == nil || *vals[1] != "3" {
		t.Fatalf("tuple of (NULL, 34) = %v", vals)
	}
}
