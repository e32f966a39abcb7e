package provider

import (
	"math/big"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// TestColumnStat_Below places SQL values (as GMS evaluates literals, and
// DATE 'x' still as text) on the axis of the manifest's bounds: dates in
// days, decimals unscaled, numbers as themselves; values outside the
// range give 0 or 1, and values without an axis are refused.
func TestColumnStat_Below(t *testing.T) {
	date := schema.Type{Kind: schema.Date}
	dec := schema.Type{Kind: schema.Decimal, Precision: 10, Scale: 2}
	i64 := schema.Type{Kind: schema.Int64}
	str := schema.Type{Kind: schema.String}
	day := func(s string) int32 {
		tm, _ := time.Parse("2006-01-02", s)
		return int32(tm.Unix() / 86400)
	}
	stat := func(typ schema.Type, lo, hi any) ColumnStat {
		l, err := datafile.EncodeBound(typ, lo)
		if err != nil {
			t.Fatal(err)
		}
		h, err := datafile.EncodeBound(typ, hi)
		if err != nil {
			t.Fatal(err)
		}
		col := schema.Column{ID: 1, Name: "c", Type: typ}
		f := manifest.DataFile{RecordCount: 10, FieldIDs: []int{1}, LowerBounds: [][]byte{l}, UpperBounds: [][]byte{h}, NullCounts: []int64{0}}
		ts := &TableStats{files: []manifest.DataFile{f}, cols: map[string]schema.Column{"c": col}, seen: map[string]ColumnStat{}}
		cs, ok := ts.Column("C")
		if !ok {
			t.Fatal("no column c")
		}
		return cs
	}
	dates := stat(date, day("1994-01-01"), day("1995-01-01"))
	decs := stat(dec, big.NewInt(100), big.NewInt(300)) // 1.00 .. 3.00
	ints := stat(i64, int64(1), int64(101))
	strs := stat(str, "a", "z")
	for _, c := range []struct {
		name    string
		cs      ColumnStat
		v       any
		want    float64
		ok      bool
		outside bool
	}{
		{"date/text", dates, "1994-07-02", 182.0 / 365, true, false},
		{"date/time", dates, time.Date(1994, 7, 2, 0, 0, 0, 0, time.UTC), 182.0 / 365, true, false},
		{"date/before", dates, "1993-12-31", 0, true, true},
		{"date/after", dates, time.Date(1996, 1, 1, 0, 0, 0, 0, time.UTC), 1, true, true},
		{"date/not a date", dates, "soon", 0, false, false},
		{"decimal", decs, decimal.RequireFromString("1.50"), 0.25, true, false},
		{"decimal/int", decs, int64(2), 0.5, true, false},
		{"int", ints, int64(26), 0.25, true, false},
		{"int/float", ints, 51.0, 0.5, true, false},
		{"int/text", ints, "76", 0.75, true, false},
		{"int/outside", ints, int8(0), 0, true, true},
		{"string", strs, "m", 0, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := c.cs.Below(c.v)
			if ok != c.ok || ok && (got < c.want-1e-9 || got > c.want+1e-9) {
				t.Errorf("Below(%v) = %v, %v; want %v, %v", c.v, got, ok, c.want, c.ok)
			}
			if out := c.cs.Outside(c.v); out != c.outside {
				t.Errorf("Outside(%v) = %v, want %v", c.v, out, c.outside)
			}
		})
	}
	if ints.Distinct != 10 || ints.Rows != 10 {
		t.Errorf("ints: distinct %d rows %d, want the range bound capped by the rows (10, 10)", ints.Distinct, ints.Rows)
	}
}
