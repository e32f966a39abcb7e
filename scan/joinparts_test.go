package scan

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/budget"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// TestJoinAggregate_PartitionedMatchesWhole: a build side joined a hash
// partition at a time (any number of partitions, or split by a budget
// the whole side does not fit) gives the answer of the whole side, for
// inner, semi and anti joins on INT and DECIMAL keys with duplicate and
// NULL keys on both sides, and for an empty build side.
func TestJoinAggregate_PartitionedMatchesWhole(t *testing.T) {
	ctx := context.Background()
	store, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	probe := writeTopNFiles(t, store, "p", 3, 400, 64, false)
	build := writeTopNFiles(t, store, "b", 4, 1000, 256, false)
	probeIn, buildIn := AggInput{Store: store, Files: probe}, AggInput{Store: store, Files: build}
	// x > -1 keeps every build row; x < 0 none.
	x := expression.NewGetFieldWithTable(3, 4, types.Int64, "", "b", "x", true)
	every := []sql.Expression{expression.NewGreaterThan(x, expression.NewLiteral(int64(-1), types.Int64))}
	none := []sql.Expression{expression.NewLessThan(x, expression.NewLiteral(int64(0), types.Int64))}
	for _, kind := range []JoinKind{JoinInner, JoinSemi, JoinAnti} {
		for _, key := range []int{1, 2} { // g INT, d DECIMAL(10,2)
			for name, filters := range map[string][]sql.Expression{"every": every, "none": none} {
				t.Run(fmt.Sprintf("kind%d/key%d/%s", kind, key, name), func(t *testing.T) {
					cp, ok := CompileCollect(topNSchema, filters, []int{key, 4})
					if !ok {
						t.Fatal("collect not compiled")
					}
					kt := topNSchema.Columns[key-1].Type
					aggs := []JoinAggSpec{{Kind: AggCountStar}, {Kind: AggSum, Col: JoinCol{ID: 2}, Scale: 2}, {Kind: AggMax, Col: JoinCol{ID: 4}}}
					if kind == JoinInner {
						aggs = append(aggs, JoinAggSpec{Kind: AggSum, Col: JoinCol{Build: true, ID: 1}})
					}
					jp, ok := CompileJoinAggregate(topNSchema, []JoinBuild{{Types: []schema.Type{kt, topNSchema.Columns[3].Type}, Keys: []int{0}, On: []JoinCol{{ID: key}}, Kind: kind}},
						nil, []JoinCol{{ID: 3}}, aggs)
					if !ok {
						t.Fatal("join not compiled")
					}
					rec, _, ok, err := cp.Collect(ctx, buildIn, nil)
					if err != nil || !ok {
						t.Fatal(ok, err)
					}
					wholeBytes := RecordBytes(rec) + BuildIndexBytes*rec.NumRows()
					rows, _, err := jp.Run(ctx, probeIn, []arrow.Record{rec})
					rec.Release()
					if err != nil {
						t.Fatal(err)
					}
					want := sortedRows(rows)
					loads := 0
					load := func(ctx context.Context, s int, q JoinPart, charge *budget.Charge) (arrow.Record, error) {
						loads++
						pc, ok := cp.Partition(jp, s, q)
						if !ok {
							return nil, fmt.Errorf("not partitioned")
						}
						rec, _, _, err := pc.Collect(ctx, buildIn, charge)
						return rec, err
					}
					for _, parts := range []int{1, 3, 8} {
						rows, _, err := jp.RunPartitioned(ctx, probeIn, []arrow.Record{nil}, []int{0}, parts, load)
						if err != nil {
							t.Fatal(err)
						}
						if got := sortedRows(rows); !slices.Equal(got, want) {
							t.Errorf("%d partitions:\n%v\nwant\n%v", parts, got, want)
						}
					}
					if name == "none" {
						return
					}
					// A budget the whole side does not fit: partitions split
					// until each fits beside the aggregation's groups.
					loads = 0
					bctx := budget.With(ctx, budget.New(wholeBytes/2+64<<10))
					rows, _, err = jp.RunPartitioned(bctx, probeIn, []arrow.Record{nil}, []int{0}, 1, load)
					if err != nil {
						t.Fatal(err)
					}
					if got := sortedRows(rows); !slices.Equal(got, want) {
						t.Errorf("split by budget:\n%v\nwant\n%v", got, want)
					}
					if loads < 3 {
						t.Errorf("%d loads: the partition was not split", loads)
					}
				})
			}
		}
	}
}

func sortedRows(rows []sql.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprint(r...)
	}
	slices.Sort(out)
	return out
}
