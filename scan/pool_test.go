package scan

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

var poolSchema = &schema.Schema{Columns: []schema.Column{
	{ID: 1, Name: "g", Type: schema.Type{Kind: schema.String}, Nullable: true}, // long, low cardinality: dictionary group key
	{ID: 2, Name: "s", Type: schema.Type{Kind: schema.String}, Nullable: true}, // long, medium cardinality: DISTINCT, MIN, MAX
	{ID: 3, Name: "x", Type: schema.Type{Kind: schema.Int64}, Nullable: true},  // filter
}}

// TestPoolStringsSurviveRecycling: GROUP BY a long dictionary string,
// COUNT(DISTINCT s), MIN(s), MAX(s) over many batches, run concurrently
// through one shared BufferPool (as the engine does) and compared with the
// row path's answer (ReadAll, no pool).
func TestPoolStringsSurviveRecycling(t *testing.T) {
	ctx := context.Background()
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var files []manifest.DataFile
	n := 0
	for fi := range 3 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(poolSchema))
		for range 120_000 {
			b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("group-key-number-%02d", (n*7)%23))
			if n%11 == 0 {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("distinct-value-%05d-padding", (n*31)%5003))
			}
			b.Field(2).(*array.Int64Builder).Append(int64(n))
			n++
		}
		rec := b.NewRecord()
		b.Release()
		f, err := datafile.Write(ctx, store, fmt.Sprintf("p/data/f%d.parquet", fi), poolSchema, []arrow.Record{rec}, datafile.WriteOptions{RowGroupRows: 50_000})
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	x := expression.NewGetFieldWithTable(2, 1, types.Int64, "p", "t", "x", true)
	filter := expression.NewGreaterThanOrEqual(x, expression.NewLiteral(int64(30_000), types.Int64))
	p, ok := CompileAggregate(poolSchema, []sql.Expression{filter}, []int{1}, []AggSpec{
		{Kind: AggCountStar}, {Kind: AggCountDistinct, FieldID: 2}, {Kind: AggMin, FieldID: 2}, {Kind: AggMax, FieldID: 2},
	})
	if !ok {
		t.Fatal("not compiled")
	}
	// Reference: the row path.
	all, err := ReadAll(ctx, Request{Store: store, Files: files, Schema: poolSchema, FieldIDs: []int{1, 2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	type agg struct {
		n        int64
		distinct map[string]bool
		lo, hi   string
	}
	ref := map[string]*agg{}
	for _, r := range all {
		if r[2].(int64) < 30_000 {
			continue
		}
		g := r[0].(string)
		a := ref[g]
		if a == nil {
			a = &agg{distinct: map[string]bool{}}
			ref[g] = a
		}
		a.n++
		if r[1] != nil {
			s := r[1].(string)
			a.distinct[s] = true
			if a.lo == "" || s < a.lo {
				a.lo = s
			}
			a.hi = max(a.hi, s)
		}
	}
	var want []string
	for g, a := range ref {
		want = append(want, fmt.Sprint(g, a.n, int64(len(a.distinct)), a.lo, a.hi))
	}
	sort.Strings(want)

	pool := datafile.NewBufferPool(datafile.DefaultPoolBytes)
	var wg sync.WaitGroup
	errs := make([]string, 6)
	for k := range errs {
		wg.Go(func() {
			rows, _, err := p.Run(ctx, AggInput{Store: store, Files: files, Parallelism: 2, Mem: pool})
			if err != nil {
				errs[k] = err.Error()
				return
			}
			got := make([]string, len(rows))
			for i, r := range rows {
				got[i] = fmt.Sprint(r...)
			}
			sort.Strings(got)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				errs[k] = fmt.Sprintf("run %d:\ngot  %v\nwant %v", k, got, want)
			}
		})
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Error(e)
		}
	}
}
