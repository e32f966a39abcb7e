package main

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/shopspring/decimal"
)

func duckDec(unscaled int64, scale uint8) duckdb.Decimal {
	return duckdb.Decimal{Width: 38, Scale: scale, Value: big.NewInt(unscaled)}
}

func TestCellsAgree(t *testing.T) {
	day := time.Date(1995, 3, 15, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		lake, duck any
		want       bool
	}{
		{int64(3), int32(3), true},
		{int64(3), int64(4), false},
		{decimal.RequireFromString("12.50"), duckDec(1250, 2), true},
		{decimal.RequireFromString("12.5"), duckDec(1250, 2), true},
		{decimal.RequireFromString("12.51"), duckDec(1250, 2), false},
		{1234567.8900000001, duckDec(123456789, 2), true}, // GMS's float SUM of a decimal
		{1234567.9, duckDec(123456789, 2), false},
		{decimal.RequireFromString("25.5021"), 25.502134, true}, // MySQL AVG(decimal) rounds to scale+4
		{decimal.RequireFromString("25.5022"), 25.502134, false},
		{decimal.RequireFromString("0.049921"), 0.049921468278478778, true}, // no double rounding (…4683 → …47 → …5)
		{decimal.RequireFromString("0.049922"), 0.049921468278478778, false},
		{decimal.RequireFromString("0.049983"), duckDec(49983, 6), true},
		{decimal.RequireFromString("0.0499834"), duckDec(49983, 6), true}, // finer formats to the coarser
		{decimal.RequireFromString("0.0499844"), duckDec(49983, 6), false},
		{0.1 + 0.2, 0.3, true},
		{25.575154999999999, 25.575154611454693, true}, // a decimal AVG sent as DOUBLE over the wire
		{25.575154, 25.575154611454693, false},
		{25.58, 25.575154611454693, false}, // fewer than 4 digits: not a MySQL rounding
		{532348211.64999998, duckDec(53234821165, 2), true},
		{1.0, 1.001, false},
		{"N", "N", true},
		{"N", "R", false},
		{day, day, true},
		{nil, nil, true},
		{nil, int64(0), false},
		{"12.50", duckDec(1250, 2), true},
	}
	for _, c := range cases {
		if got := cellsAgree(normalise(c.lake), normalise(c.duck)); got != c.want {
			t.Errorf("cellsAgree(%v, %v) = %v, want %v", c.lake, c.duck, got, c.want)
		}
	}
}

func TestDiffResults(t *testing.T) {
	q := query{Name: "t"}
	lake := [][]any{{int64(2), "b"}, {int64(1), "a"}}
	duck := [][]any{{int64(1), "a"}, {int64(2), "b"}}
	if d := diffResults(q, lake, duck); d != "" {
		t.Fatalf("unordered results that agree differ:\n%s", d)
	}
	q.Ordered = true
	if d := diffResults(q, lake, duck); !strings.Contains(d, "row 0") {
		t.Fatalf("ordered results in a different order agree:\n%s", d)
	}
	q.Ordered = false
	fine := [][]any{{decimal.RequireFromString("0.0499834")}}
	coarse := [][]any{{duckDec(49983, 6)}}
	if d := diffResults(q, fine, coarse); d != "" {
		t.Fatalf("a finer decimal that rounds to the coarser differs:\n%s", d)
	}
	if d := diffResults(query{ExactDecimals: true}, fine, coarse); d == "" {
		t.Fatal("ExactDecimals accepts a finer decimal")
	}
	duck = append(duck, []any{int64(3), "c"})
	if d := diffResults(q, lake, duck); !strings.Contains(d, "row count: lakesql 2, duckdb 3") {
		t.Fatalf("diff %q", d)
	}
}

func TestGenerateDeterministic(t *testing.T) {
	a, ao := generate(5000)
	b, bo := generate(5000)
	if len(a.orderkey) != 5000 || len(ao.orderkey) == 0 {
		t.Fatalf("%d lineitems, %d orders", len(a.orderkey), len(ao.orderkey))
	}
	for i := range a.orderkey {
		if a.orderkey[i] != b.orderkey[i] || a.price[i] != b.price[i] || a.ship[i] != b.ship[i] {
			t.Fatalf("row %d differs between runs", i)
		}
	}
	if len(ao.orderkey) != len(bo.orderkey) {
		t.Fatal("orders differ between runs")
	}
	perm := byShipdate(a)
	runs := splitFiles(a, perm, 24)
	if len(runs) == 0 || runs[len(runs)-1][1] != len(perm) {
		t.Fatalf("runs %v do not cover %d rows", runs, len(perm))
	}
	for k, r := range runs {
		if k > 0 && a.ship[perm[r[0]]] <= a.ship[perm[runs[k-1][1]-1]] {
			t.Fatalf("file %d's shipdates overlap file %d's", k, k-1)
		}
		for i := r[0] + 1; i < r[1]; i++ {
			if a.ship[perm[i]] < a.ship[perm[i-1]] {
				t.Fatalf("not sorted by shipdate at %d", i)
			}
		}
	}
}
