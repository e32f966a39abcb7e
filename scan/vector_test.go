package scan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/datafile"
)

// TestAggregate_LargeBatches runs an aggregation whose batches are big
// enough for their buffers to be recycled through the query's BufferPool
// (four workers on files split into row-group ranges, several batches
// each) and checks it against sums
// computed from the same files read without a pool: a buffer reused while
// a batch still needs it, or a group key or MAX string kept pointing into
// a released buffer, shows as a wrong group or value.
func TestAggregate_LargeBatches(t *testing.T) {
	ctx := context.Background()
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := writeTopNFiles(t, store, "big", 4, 150_000, 64*1024, false)
	p, ok := CompileAggregate(topNSchema, nil, []int{1}, []AggSpec{
		{Kind: AggCountStar}, {Kind: AggSum, FieldID: 2, Scale: 2}, {Kind: AggMax, FieldID: 3}, {Kind: AggMin, FieldID: 4}, {Kind: AggAvg, FieldID: 2, Scale: 6},
	})
	if !ok {
		t.Fatal("not compiled")
	}
	rows, _, err := p.Run(ctx, AggInput{Store: store, Files: files, Parallelism: 4}) // 4 files, 3 row groups each: split in two
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(rows))
	for i, r := range rows {
		got[i] = fmt.Sprint(r[:5]...) // AVG's rounding is checked by the engine tests
	}
	sort.Strings(got)

	type agg struct {
		n    int64
		sum  decimal.Decimal
		has  bool
		max  string
		minX int64
	}
	ref := map[any]*agg{}
	for _, f := range files {
		r, err := datafile.OpenWith(ctx, store, f, topNSchema, []int{1, 2, 3, 4}, datafile.ReadOptions{})
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
			g, d, s, x := rec.Column(0).(*array.Int32), rec.Column(1).(*array.Decimal128), rec.Column(2).(*array.String), rec.Column(3).(*array.Int64)
			for i := range int(rec.NumRows()) {
				var key any
				if !g.IsNull(i) {
					key = g.Value(i)
				}
				a := ref[key]
				if a == nil {
					a = &agg{minX: x.Value(i)}
					ref[key] = a
				}
				a.n++
				if !d.IsNull(i) {
					a.sum, a.has = a.sum.Add(decimal.NewFromBigInt(d.Value(i).BigInt(), -2)), true
				}
				a.max = max(a.max, s.Value(i))
				a.minX = min(a.minX, x.Value(i))
			}
			rec.Release()
		}
		r.Close()
	}
	var want []string
	for key, a := range ref {
		var sum any
		if a.has {
			sum = a.sum
		}
		want = append(want, fmt.Sprint(key, a.n, sum, a.max, a.minX))
	}
	sort.Strings(want)
	if len(want) < 5 {
		t.Fatalf("reference has %d groups: the fixture needs more", len(want))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// TestAggregate_SplitsRowGroups: with fewer files than workers, a file's
// row groups are shared out as separate units, and the answer and the
// counts are those of reading it whole.
func TestAggregate_SplitsRowGroups(t *testing.T) {
	ctx := context.Background()
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := writeTopNFiles(t, store, "one", 1, 8000, 1000, false) // one file, 8 row groups
	src := source{store: store}
	if u := units(ctx, src, files, 4); len(u) != 8 || u[0].file != 0 || len(u[0].rgs) != 1 || u[7].rgs[0] != 7 {
		t.Fatalf("units for 4 workers: %+v, want one per row group", u)
	}
	if u := units(ctx, src, files, 1); len(u) != 2 || len(u[0].rgs) != 4 || u[1].rgs[0] != 4 {
		t.Fatalf("units for 1 worker: %+v, want two halves", u)
	}
	if u := units(ctx, src, append(files, files...), 1); len(u) != 2 || u[0].rgs != nil {
		t.Fatalf("units for 2 files and 1 worker: %+v, want the files whole", u)
	}
	x := expression.NewGetFieldWithTable(3, 1, types.Int64, "d", "t", "x", true)
	filter := expression.NewGreaterThanOrEqual(x, expression.NewLiteral(int64(2500), types.Int64))
	p, ok := CompileAggregate(topNSchema, []sql.Expression{filter}, []int{1}, []AggSpec{
		{Kind: AggCountStar}, {Kind: AggSum, FieldID: 2, Scale: 2}, {Kind: AggMax, FieldID: 3}, {Kind: AggMin, FieldID: 4},
	})
	if !ok {
		t.Fatal("not compiled")
	}
	var want string
	for _, par := range []int{1, 3, 8} {
		rows, st, err := p.Run(ctx, AggInput{Store: store, Files: files, Parallelism: par})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(rows))
		for i, r := range rows {
			got[i] = fmt.Sprint(r...)
		}
		sort.Strings(got)
		if st.RowGroups != 8 || st.RowGroupsRead != 6 {
			t.Errorf("parallelism %d: %d row groups, %d read; want 8 and 6 (x >= 2500 rules out the first two)", par, st.RowGroups, st.RowGroupsRead)
		}
		if par == 1 {
			want = fmt.Sprint(got)
		} else if fmt.Sprint(got) != want {
			t.Errorf("parallelism %d:\n%v\nwant\n%v", par, got, want)
		}
	}
}
