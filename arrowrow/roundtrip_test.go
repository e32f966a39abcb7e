package arrowrow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/sqlerr"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// every is one column of each catalog type, with the values a row of it
// holds in GMS's form (what FillColumn gives back): NULLs, the type's
// edges and a plain value.
var every = []struct {
	typ  schema.Type
	vals []any
}{
	{schema.Type{Kind: schema.Bool}, []any{nil, int8(0), int8(1)}},
	{schema.Type{Kind: schema.Int8}, []any{nil, int8(math.MinInt8), int8(math.MaxInt8)}},
	{schema.Type{Kind: schema.Int16}, []any{nil, int16(math.MinInt16), int16(math.MaxInt16)}},
	{schema.Type{Kind: schema.Int32}, []any{nil, int32(math.MinInt32), int32(math.MaxInt32)}},
	{schema.Type{Kind: schema.Int64}, []any{nil, int64(math.MinInt64), int64(math.MaxInt64)}},
	{schema.Type{Kind: schema.Uint8}, []any{nil, uint8(0), uint8(math.MaxUint8)}},
	{schema.Type{Kind: schema.Uint16}, []any{nil, uint16(0), uint16(math.MaxUint16)}},
	{schema.Type{Kind: schema.Uint32}, []any{nil, uint32(0), uint32(math.MaxUint32)}},
	{schema.Type{Kind: schema.Uint64}, []any{nil, uint64(0), uint64(math.MaxUint64)}},
	{schema.Type{Kind: schema.Float32}, []any{nil, float32(-math.MaxFloat32), float32(math.SmallestNonzeroFloat32)}},
	{schema.Type{Kind: schema.Float64}, []any{nil, math.Inf(-1), -0.5}},
	{schema.Type{Kind: schema.Decimal, Precision: 38, Scale: 0}, []any{nil, dec("-99999999999999999999999999999999999999"), dec("99999999999999999999999999999999999999")}},
	{schema.Type{Kind: schema.Decimal, Precision: 38, Scale: 10}, []any{nil, dec("-9999999999999999999999999999.9999999999"), dec("0.0000000001")}},
	{schema.Type{Kind: schema.Decimal, Precision: 5, Scale: 2}, []any{nil, dec("-999.99"), dec("0.05")}},
	{schema.Type{Kind: schema.String}, []any{nil, "", "héllo\x00wörld"}},
	{schema.Type{Kind: schema.Binary}, []any{nil, []byte{}, []byte{0, 0xff, 'a'}}},
	{schema.Type{Kind: schema.Date}, []any{nil, time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)}},
	{schema.Type{Kind: schema.Time}, []any{nil, types.Timespan(-838*3600e6 - 59*60e6 - 59e6), types.Timespan(838*3600e6 + 59*60e6 + 59e6 + 999999)}},
	{schema.Type{Kind: schema.Timestamp}, []any{nil, time.Date(1969, 12, 31, 23, 59, 59, 999999000, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)}},
	{schema.Type{Kind: schema.JSON}, []any{nil, mustJSON(`{"a": [1, 2.5, null], "b": "x"}`), mustJSON(`[]`)}},
}

func mustJSON(s string) any {
	doc, _, err := types.JSON.Convert(context.Background(), s)
	if err != nil {
		panic(err)
	}
	return doc
}

func everySchema() (*schema.Schema, []sql.Row) {
	s := &schema.Schema{ID: 1}
	rows := make([]sql.Row, len(every[0].vals))
	for j, c := range every {
		s.Columns = append(s.Columns, schema.Column{ID: j + 1, Name: fmt.Sprintf("c%d", j), Type: c.typ, Nullable: true})
		for i, v := range c.vals {
			rows[i] = append(rows[i], v)
		}
	}
	return s, rows
}

// same compares values as GMS sees them: decimals by value, JSON by text.
func same(t schema.Type, a, b any) bool {
	switch x := a.(type) {
	case decimal.Decimal:
		y, ok := b.(decimal.Decimal)
		return ok && x.Equal(y)
	case sql.JSONWrapper:
		y, ok := b.(sql.JSONWrapper)
		if !ok {
			return false
		}
		xs, _ := types.JsonToMySqlString(x)
		ys, _ := types.JsonToMySqlString(y)
		return xs == ys
	}
	return reflect.DeepEqual(a, b)
}

func checkRows(t *testing.T, s *schema.Schema, got, want []sql.Row) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows back, want %d", len(got), len(want))
	}
	for i := range want {
		for j, c := range s.Columns {
			if !same(c.Type, got[i][j], want[i][j]) {
				t.Errorf("row %d %s: got %#v (%T), want %#v (%T)", i, c.Type, got[i][j], got[i][j], want[i][j], want[i][j])
			}
		}
	}
}

// TestRoundTrip_EveryType: rows of every column type (NULLs, edge values,
// DECIMAL(38), unsigned, temporal, JSON) built into a record and read back
// are the rows given, both straight from the record and through a Parquet
// data file.
func TestRoundTrip_EveryType(t *testing.T) {
	s, rows := everySchema()
	b := NewBuilder(s)
	defer b.Release()
	for _, r := range rows {
		if err := b.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	rec := b.Record()
	defer rec.Release()
	cols := make([]int, len(s.Columns))
	typs := make([]schema.Type, len(s.Columns))
	for i, c := range s.Columns {
		cols[i], typs[i] = i, c.Type
	}
	got, err := Rows(rec, cols, typs)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, s, got, rows)

	t.Run("parquet", func(t *testing.T) {
		ctx := context.Background()
		store, err := local.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		f, err := datafile.Write(ctx, store, "t/data/x.parquet", s, []arrow.Record{rec}, datafile.WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := datafile.Open(ctx, store, f, s, s.FieldIDs())
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var back []sql.Row
		for {
			rr, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			rs, err := Rows(rr, cols, typs)
			rr.Release()
			if err != nil {
				t.Fatal(err)
			}
			back = append(back, rs...)
		}
		checkRows(t, s, back, rows)
	})
}

// TestBuilder_Conversions: INSERT's conversions into a column's type,
// and the values refused with the column named.
func TestBuilder_Conversions(t *testing.T) {
	for _, c := range []struct {
		typ  schema.Type
		in   any
		want any // nil: refused
	}{
		{schema.Type{Kind: schema.Int8}, int64(127), int8(127)},
		{schema.Type{Kind: schema.Int8}, int64(128), nil},
		{schema.Type{Kind: schema.Uint8}, int64(-1), nil},
		{schema.Type{Kind: schema.Uint64}, uint64(math.MaxUint64), uint64(math.MaxUint64)},
		{schema.Type{Kind: schema.Int64}, uint64(math.MaxUint64), nil},
		{schema.Type{Kind: schema.Bool}, true, int8(1)},
		{schema.Type{Kind: schema.Float64}, int32(3), float64(3)},
		{schema.Type{Kind: schema.Decimal, Precision: 5, Scale: 2}, dec("1.005"), dec("1.01")}, // rounds half away from zero
		{schema.Type{Kind: schema.Decimal, Precision: 5, Scale: 2}, dec("1000.00"), nil},
		{schema.Type{Kind: schema.Decimal, Precision: 5, Scale: 2}, "-2.5", dec("-2.50")},
		{schema.Type{Kind: schema.String}, []byte("b"), "b"},
		{schema.Type{Kind: schema.Binary}, "s", []byte("s")},
		{schema.Type{Kind: schema.Time}, time.Duration(90 * time.Second), types.Timespan(90e6)},
		{schema.Type{Kind: schema.Date}, time.Date(2024, 2, 29, 23, 59, 0, 0, time.UTC), time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
	} {
		s := &schema.Schema{Columns: []schema.Column{{ID: 1, Name: "c", Type: c.typ, Nullable: true}}}
		b := NewBuilder(s)
		err := b.Append([]any{c.in})
		rec := b.Record()
		b.Release()
		if c.want == nil {
			if !errors.Is(err, sqlerr.ErrValueRange) {
				t.Errorf("%s <- %#v: %v, want a refusal wrapping ErrValueRange", c.typ, c.in, err)
			}
			rec.Release()
			continue
		}
		if err != nil {
			t.Errorf("%s <- %#v: %v", c.typ, c.in, err)
			rec.Release()
			continue
		}
		got, err := Rows(rec, []int{0}, []schema.Type{c.typ})
		rec.Release()
		if err != nil || !same(c.typ, got[0][0], c.want) {
			t.Errorf("%s <- %#v: got %#v, %v; want %#v", c.typ, c.in, got[0][0], err, c.want)
		}
	}
}
