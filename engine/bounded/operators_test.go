package bounded

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/budget"
)

func drainIter(ctx *sql.Context, it sql.RowIter) (int, error) {
	n := 0
	for {
		_, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// TestHashBuild_ChargesItsTable: the build side of a row-path hash join
// keeps its table's charge while the query runs, fails past the budget,
// and gives the charge back when abandoned.
func TestHashBuild_ChargesItsTable(t *testing.T) {
	rows := sortInput(5000)
	key := expression.NewGetField(0, types.Int64, "key", true)
	cases := []struct {
		name    string
		limit   int64
		wantErr bool
	}{
		{"fits", 8 << 20, false},
		{"past the budget", 64 << 10, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := budgetContext(c.limit)
			acct := budget.From(ctx)
			hl := plan.NewHashLookup(plan.NewEmptyTableWithSchema(nil), key, key, plan.JoinTypeHash)
			it := &hashBuildIter{n: hl, child: sql.RowsToRowIter(rows...), lookup: map[any][]sql.Row{}, charge: acct.NewCharge("hash join build")}
			n, err := drainIter(ctx, it)
			if c.wantErr {
				if !errors.Is(err, budget.ErrExceeded) || !strings.Contains(err.Error(), "hash join build") {
					t.Fatalf("got %v after %d rows, want the budget error", err, n)
				}
				if hl.Lookup != nil {
					t.Fatal("a failed build left its table to the join")
				}
				it.Close(ctx)
				if acct.Used() != 0 {
					t.Fatalf("%d bytes still charged after a failed build", acct.Used())
				}
				return
			}
			if err != nil || n != len(rows) || hl.Lookup == nil || len(*hl.Lookup) != 98 {
				t.Fatalf("rows %d err %v table %v", n, err, hl.Lookup != nil)
			}
			it.Close(ctx)
			if acct.Used() <= int64(len(rows))*rowHeader {
				t.Fatalf("the built table holds only %d bytes of budget", acct.Used())
			}
		})
	}
}

// TestCachedResults_StopsCachingPastTheBudget: a materialised subquery
// past the budget streams on, stops caching (GMS reruns its child) and
// gives its budget back.
func TestCachedResults_StopsCachingPastTheBudget(t *testing.T) {
	rows := sortInput(5000)
	for _, c := range []struct {
		name        string
		limit       int64
		wantNoCache bool
	}{
		{"fits", 8 << 20, false},
		{"past the budget", 64 << 10, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := budgetContext(c.limit)
			acct := budget.From(ctx)
			n := plan.NewCachedResults(plan.NewEmptyTableWithSchema(nil))
			cache, dispose := ctx.Memory.NewRowsCache()
			it := &cachedIter{n: n, child: sql.RowsToRowIter(rows...), cache: cache, dispose: dispose, charge: acct.NewCharge("materialised subquery")}
			got, err := drainIter(ctx, it)
			it.Close(ctx)
			if err != nil || got != len(rows) {
				t.Fatalf("streamed %d rows, err %v", got, err)
			}
			if n.NoCache != c.wantNoCache || n.Finalized == c.wantNoCache {
				t.Fatalf("NoCache %t Finalized %t", n.NoCache, n.Finalized)
			}
			if c.wantNoCache && acct.Used() != 0 {
				t.Fatalf("%d bytes still charged after giving up the cache", acct.Used())
			}
			n.Dispose()
		})
	}
}

// TestDistinct_SpillsPastTheBudget: DISTINCT answers GMS's rows (first
// of each, in order) within the budget; past it, it partitions to disk
// and still gives every distinct row once; a budget too small for the
// partitions' buffers fails with the budget error. Nothing stays charged.
func TestDistinct_SpillsPastTheBudget(t *testing.T) {
	var rows []sql.Row
	for i := 0; i < 12000; i++ {
		rows = append(rows, sql.Row{int64(i*7919) % 6000, "x"})
	}
	for _, c := range []struct {
		name    string
		limit   int64
		wantErr bool
		ordered bool
	}{
		{"fits", 1 << 20, false, true},
		{"spills", 160 << 10, false, false},
		{"spills again", 72 << 10, false, false},
		{"too small to spill", 16 << 10, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := budgetContext(c.limit)
			acct := budget.From(ctx)
			d := newDistinct(ctx, sql.RowsToRowIter(rows...), t.TempDir())
			var got []int64
			var err error
			for {
				var r sql.Row
				if r, err = d.Next(ctx); err != nil {
					break
				}
				got = append(got, r[0].(int64))
			}
			spilled := d.parts != nil
			d.Close(ctx)
			if acct.Used() != 0 {
				t.Fatalf("%d bytes charged after Close", acct.Used())
			}
			if c.wantErr {
				if !errors.Is(err, budget.ErrExceeded) {
					t.Fatalf("%d rows, err %v", len(got), err)
				}
				return
			}
			if !errors.Is(err, io.EOF) || len(got) != 6000 {
				t.Fatalf("%d rows, err %v", len(got), err)
			}
			seen := map[int64]bool{}
			for i, v := range got {
				if seen[v] || c.ordered && v != rows[i][0].(int64) {
					t.Fatalf("row %d: %d out of place", i, v)
				}
				seen[v] = true
			}
			if c.ordered == spilled {
				t.Fatalf("spilled %t", spilled)
			}
		})
	}
}
