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

// buildRecord makes a build record of int64 and string columns from
// rows of int64, string or nil values.
func buildRecord(t *testing.T, types []schema.Type, rows [][]any) arrow.Record {
	t.Helper()
	fields := make([]arrow.Field, len(types))
	for c, ty := range types {
		fields[c] = arrow.Field{Name: fmt.Sprint("c", c), Type: arrow.BinaryTypes.String, Nullable: true}
		if ty.Kind == schema.Int64 {
			fields[c].Type = arrow.PrimitiveTypes.Int64
		}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for _, r := range rows {
		for c, v := range r {
			switch x := v.(type) {
			case nil:
				b.Field(c).AppendNull()
			case int64:
				b.Field(c).(*array.Int64Builder).Append(x)
			case string:
				b.Field(c).(*array.StringBuilder).Append(x)
			}
		}
	}
	return b.NewRecord()
}

// TestJoinAggregate_ChainMatchesNestedLoop: a probe passed through an
// inner join on a probe key, an inner join on another probe key, and a
// semi, anti or NULL-aware anti join on a column of the first build side
// (with and without NULL keys, empty) equals nested loops over the same
// rows.
func TestJoinAggregate_ChainMatchesNestedLoop(t *testing.T) {
	ctx := context.Background()
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := writeTopNFiles(t, store, "p", 3, 400, 64, false)
	i64, str := schema.Type{Kind: schema.Int64}, schema.Type{Kind: schema.String}
	aRows := [][]any{{int64(-4), "n"}, {int64(0), "z"}, {int64(0), "a"}, {nil, "x"}, {int64(3), "b"}, {int64(99), "q"}, {int64(3), nil}, {int64(0), "z"}}
	bRows := [][]any{{"a", int64(1)}, {"a", int64(2)}, {"ab", int64(3)}, {nil, int64(4)}, {"é", int64(5)}}
	type probeRow struct {
		g *int32
		d *decimal.Decimal
		s string
	}
	var probe []probeRow
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
				var pr probeRow
				if !g.IsNull(i) {
					v := g.Value(i)
					pr.g = &v
				}
				if !d.IsNull(i) {
					v := decimal.NewFromBigInt(d.Value(i).BigInt(), -2)
					pr.d = &v
				}
				pr.s = s.Value(i)
				probe = append(probe, pr)
			}
			rec.Release()
		}
		r.Close()
	}
	for _, c := range []struct {
		kind JoinKind
		rows [][]any
	}{
		{JoinSemi, [][]any{{"z"}, {"x"}, {nil}, {"z"}}},
		{JoinAnti, [][]any{{"z"}, {"x"}, {nil}, {"z"}}},
		{JoinAnti, nil},
		{JoinAntiNulls, [][]any{{"z"}, {"x"}, {"z"}}},
		{JoinAntiNulls, [][]any{{"z"}, {nil}}},
		{JoinAntiNulls, nil},
		{JoinSemi, nil},
	} {
		t.Run(fmt.Sprintf("kind %d, %d rows", c.kind, len(c.rows)), func(t *testing.T) {
			builds := []JoinBuild{
				{Types: []schema.Type{i64, str}, Keys: []int{0}, On: []JoinCol{{ID: 1}}},
				{Types: []schema.Type{str, i64}, Keys: []int{0}, On: []JoinCol{{ID: 3}}},
				{Types: []schema.Type{str}, Keys: []int{0}, On: []JoinCol{{Build: true, Side: 0, ID: 1}}, Kind: c.kind},
			}
			p, ok := CompileJoinAggregate(topNSchema, builds, nil,
				[]JoinCol{{Build: true, Side: 0, ID: 1}, {Build: true, Side: 1, ID: 1}},
				[]JoinAggSpec{{Kind: AggCountStar}, {Kind: AggSum, Col: JoinCol{ID: 2}, Scale: 2}})
			if !ok {
				t.Fatal("not compiled")
			}
			recs := []arrow.Record{buildRecord(t, builds[0].Types, aRows), buildRecord(t, builds[1].Types, bRows), buildRecord(t, builds[2].Types, c.rows)}
			for _, r := range recs {
				defer r.Release()
			}
			rows, _, err := p.Run(ctx, AggInput{Store: store, Files: files}, recs)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]string, len(rows))
			for i, r := range rows {
				got[i] = fmt.Sprint(r...)
			}
			sort.Strings(got)

			passes := func(name any) bool { // the third side's verdict
				match, null := false, false
				for _, r := range c.rows {
					null = null || r[0] == nil
					match = match || name != nil && r[0] == name
				}
				switch c.kind {
				case JoinSemi:
					return match
				case JoinAnti:
					return !match
				}
				return len(c.rows) == 0 || name != nil && !null && !match
			}
			type agg struct {
				n   int64
				sum decimal.Decimal
				has bool
			}
			ref := map[[2]any]*agg{}
			for _, pr := range probe {
				for _, a := range aRows {
					if pr.g == nil || a[0] == nil || int64(*pr.g) != a[0].(int64) {
						continue
					}
					for _, b := range bRows {
						if b[0] == nil || pr.s != b[0].(string) || !passes(a[1]) {
							continue
						}
						k := [2]any{a[1], b[1]}
						if ref[k] == nil {
							ref[k] = &agg{}
						}
						ref[k].n++
						if pr.d != nil {
							ref[k].sum, ref[k].has = ref[k].sum.Add(*pr.d), true
						}
					}
				}
			}
			var want []string
			for k, a := range ref {
				var sum any
				if a.has {
					sum = a.sum
				}
				want = append(want, fmt.Sprint(k[0], k[1], a.n, sum))
			}
			sort.Strings(want)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("got  %v\nwant %v", got, want)
			}
		})
	}
}

// TestJoinAggregate_RefusesAntiColumns: an anti side's columns are not
// tuples' columns.
func TestJoinAggregate_RefusesAntiColumns(t *testing.T) {
	i64 := schema.Type{Kind: schema.Int64}
	for _, kind := range []JoinKind{JoinAnti, JoinAntiNulls} {
		builds := []JoinBuild{{Types: []schema.Type{i64, i64}, Keys: []int{0}, On: []JoinCol{{ID: 1}}, Kind: kind}}
		if _, ok := CompileJoinAggregate(topNSchema, builds, nil, []JoinCol{{Build: true, ID: 1}}, []JoinAggSpec{{Kind: AggCountStar}}); ok {
			t.Errorf("kind %d: grouping by an anti side's column compiled", kind)
		}
	}
	builds := []JoinBuild{{Types: []schema.Type{i64, i64}, Keys: []int{0, 1}, On: []JoinCol{{ID: 1}, {ID: 4}}, Kind: JoinAntiNulls}}
	if _, ok := CompileJoinAggregate(topNSchema, builds, nil, nil, []JoinAggSpec{{Kind: AggCountStar}}); ok {
		t.Error("NOT IN over two keys compiled")
	}
}
