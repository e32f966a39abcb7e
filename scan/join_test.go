package scan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// TestJoinAggregate_MatchesNestedLoop: a join aggregation over files
// with NULL keys, a build side with duplicate and NULL keys, grouped by a
// build column, equals a nested-loop join over the same rows.
func TestJoinAggregate_MatchesNestedLoop(t *testing.T) {
	ctx := context.Background()
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := writeTopNFiles(t, store, "p", 4, 300, 64, false)
	buildTypes := []schema.Type{{Kind: schema.Int64}, {Kind: schema.String}}
	keys := []any{int64(-4), int64(0), int64(0), nil, int64(3), int64(99), int64(3), int64(0)}
	names := []string{"n", "z", "a", "x", "b", "q", "c", "z"}
	bb := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil))
	for i, k := range keys {
		if k == nil {
			bb.Field(0).AppendNull()
		} else {
			bb.Field(0).(*array.Int64Builder).Append(k.(int64))
		}
		bb.Field(1).(*array.StringBuilder).Append(names[i])
	}
	build := bb.NewRecord()
	bb.Release()
	defer build.Release()

	p, ok := CompileJoinAggregate(topNSchema, []JoinBuild{{Types: buildTypes, Keys: []int{0}, On: []JoinCol{{ID: 1}}}}, nil,
		[]JoinCol{{Build: true, ID: 1}},
		[]JoinAggSpec{{Kind: AggCountStar}, {Kind: AggSum, Col: JoinCol{ID: 2}, Scale: 2}, {Kind: AggMax, Col: JoinCol{ID: 3}}})
	if !ok {
		t.Fatal("not compiled")
	}
	rows, _, err := p.Run(ctx, AggInput{Store: store, Files: files}, []arrow.Record{build})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(rows))
	for i, r := range rows {
		got[i] = fmt.Sprint(r...)
	}
	sort.Strings(got)

	// The reference: every probe row against every build row.
	type agg struct {
		n   int64
		sum decimal.Decimal
		has bool
		max string
	}
	ref := map[string]*agg{}
	for _, f := range files {
		r, err := datafile.OpenWith(ctx, store, f, topNSchema, []int{1, 2, 3}, datafile.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			g, d, s := rec.Column(0).(*array.Int32), rec.Column(1).(*array.Decimal128), rec.Column(2).(*array.String)
			for i := range int(rec.NumRows()) {
				for b, k := range keys {
					if g.IsNull(i) || k == nil || int64(g.Value(i)) != k.(int64) {
						continue
					}
					a := ref[names[b]]
					if a == nil {
						a = &agg{}
						ref[names[b]] = a
					}
					a.n++
					if !d.IsNull(i) {
						a.sum, a.has = a.sum.Add(decimal.NewFromBigInt(d.Value(i).BigInt(), -2)), true
					}
					if v := s.Value(i); v > a.max {
						a.max = v
					}
				}
			}
			rec.Release()
		}
		r.Close()
	}
	var want []string
	for name, a := range ref {
		var sum any
		if a.has {
			sum = a.sum
		}
		want = append(want, fmt.Sprint(name, a.n, sum, a.max))
	}
	sort.Strings(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// TestJoinAggregate_RefusesKeyTypes: equalities MySQL evaluates after a
// conversion are not compiled.
func TestJoinAggregate_RefusesKeyTypes(t *testing.T) {
	count := []JoinAggSpec{{Kind: AggCountStar}}
	for _, c := range []struct {
		probeID int
		build   schema.Type
		ok      bool
	}{
		{1, schema.Type{Kind: schema.Int64}, true},                             // INT = BIGINT
		{1, schema.Type{Kind: schema.Int8}, true},                              // INT = TINYINT
		{1, schema.Type{Kind: schema.String}, false},                           // INT = VARCHAR
		{1, schema.Type{Kind: schema.Decimal, Precision: 10, Scale: 2}, false}, // INT = DECIMAL
		{1, schema.Type{Kind: schema.Uint64}, false},
		{1, schema.Type{Kind: schema.Float64}, false},
		{2, schema.Type{Kind: schema.Decimal, Precision: 12, Scale: 2}, true},
		{2, schema.Type{Kind: schema.Decimal, Precision: 12, Scale: 3}, false},
		{3, schema.Type{Kind: schema.String}, true},
		{3, schema.Type{Kind: schema.Date}, false},
	} {
		_, ok := CompileJoinAggregate(topNSchema, []JoinBuild{{Types: []schema.Type{c.build}, Keys: []int{0}, On: []JoinCol{{ID: c.probeID}}}}, nil, nil, count)
		if ok != c.ok {
			t.Errorf("probe field %d = build %s: compiled %v, want %v", c.probeID, c.build, ok, c.ok)
		}
	}
}
