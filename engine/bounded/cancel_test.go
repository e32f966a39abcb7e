package bounded

import (
	"context"
	"errors"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/budget"
)

// endless is a leaf whose rows never end and whose iterator never looks
// at the context: rows already in memory (a finished GROUP BY's groups).
type endless struct{ plan.EmptyTable }

func (*endless) RowIter(*sql.Context, sql.Row) (sql.RowIter, error) { return endlessIter{}, nil }

type endlessIter struct{}

func (endlessIter) Next(*sql.Context) (sql.Row, error) { return sql.Row{int64(1)}, nil }
func (endlessIter) Close(*sql.Context) error           { return nil }

// TestFilter_StopsOnCancel: a WHERE / HAVING that no row passes, over an
// input that never checks the context, returns the query's cancellation
// (KILL QUERY) instead of looping over its whole input inside one Next;
// without the check this input never ends.
func TestFilter_StopsOnCancel(t *testing.T) {
	col := expression.NewGetField(0, types.Int64, "a", false)
	conds := []struct {
		name string
		cond sql.Expression
	}{
		{"false", expression.NewLiteral(false, types.Boolean)},
		{"a > 1", expression.NewGreaterThan(col, expression.NewLiteral(int64(1), types.Int64))},
		{"a IS NULL", expression.NewIsNull(col)},
	}
	for _, c := range conds {
		t.Run(c.name, func(t *testing.T) {
			base := budgetContext(1 << 20)
			cctx, cancel := context.WithCancel(base.Context)
			ctx := base.WithContext(cctx)
			cancel()
			for _, n := range []sql.Node{plan.NewFilter(c.cond, &endless{}), plan.NewHaving(c.cond, &endless{})} {
				it, err := NewBuilder(t.TempDir()).Build(ctx, n, nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := it.Next(ctx); !errors.Is(err, context.Canceled) {
					t.Fatalf("%T: got %v, want context.Canceled", n, err)
				}
				it.Close(ctx)
			}
		})
	}
}

// TestInMemoryOutput_StopsOnCancel: GROUP BY's groups and an in-memory
// sort's rows, once computed, are handed out with a look at the context
// every checkEvery rows: a consumer looping over them inside one Next (a
// join that finds no match) stops on KILL QUERY too.
func TestInMemoryOutput_StopsOnCancel(t *testing.T) {
	id := expression.NewGetField(1, types.Int64, "id", false)
	cases := []struct {
		name string
		iter func(ctx *sql.Context) sql.RowIter
	}{
		{"group by", func(ctx *sql.Context) sql.RowIter {
			return &groupIter{selected: []sql.Expression{id}, groupBy: []sql.Expression{id},
				child: sql.RowsToRowIter(sortInput(5000)...), charge: budget.From(ctx).NewCharge("group by")}
		}},
		{"sort", func(ctx *sql.Context) sql.RowIter {
			return newSortIter(ctx, keyDesc, sql.RowsToRowIter(sortInput(5000)...), t.TempDir())
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := budgetContext(64 << 20)
			cctx, cancel := context.WithCancel(base.Context)
			ctx := base.WithContext(cctx)
			it := c.iter(ctx)
			defer it.Close(ctx)
			if _, err := it.Next(ctx); err != nil {
				t.Fatal(err)
			}
			cancel()
			n, err := drainIter(ctx, it)
			if !errors.Is(err, context.Canceled) || n >= checkEvery {
				t.Fatalf("got %v after %d more rows of 5000, want context.Canceled within %d", err, n, checkEvery)
			}
		})
	}
}
