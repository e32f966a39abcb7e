package bounded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/budget"
)

// sortInput is n rows (key, seq, payload): keys repeat (ties) and some
// are NULL; seq is the input position.
func sortInput(n int) []sql.Row {
	rows := make([]sql.Row, n)
	for i := range rows {
		var key any = int64((i * 7919) % 97)
		if i%31 == 0 {
			key = nil
		}
		rows[i] = sql.Row{key, int64(i), strings.Repeat(string(rune('a'+i%26)), 40)}
	}
	return rows
}

// keyDesc is ORDER BY key DESC (NULLs last, as MySQL puts them).
var keyDesc = sql.SortFields{{Column: expression.NewGetField(0, types.Int64, "key", true), Order: sql.Descending, NullOrdering: sql.NullsLast}}

func budgetContext(limit int64) *sql.Context {
	ctx := sql.NewEmptyContext()
	return ctx.WithContext(budget.With(ctx.Context, budget.New(limit)))
}

// want is sort.Stable's order of the input: what GMS answers in memory.
func want(t *testing.T, rows []sql.Row) []int64 {
	cp := append([]sql.Row(nil), rows...)
	if err := sortRows(budgetContext(0), keyDesc, cp); err != nil {
		t.Fatal(err)
	}
	out := make([]int64, len(cp))
	for i, r := range cp {
		out[i] = r[1].(int64)
	}
	return out
}

// TestSort_SpillsAndKeepsStableOrder: past the budget the sort writes
// runs (and merges them in several passes when the budget holds few read
// buffers) and answers exactly the in-memory stable order, giving all
// its budget back at the end.
func TestSort_SpillsAndKeepsStableOrder(t *testing.T) {
	rows := sortInput(20000) // some 2.6 MB as estimated
	expect := want(t, rows)
	cases := []struct {
		name       string
		limit      int64
		wantSpills bool
	}{
		{"unlimited, in memory", 0, false},
		{"within a large budget, in memory", 64 << 20, false},
		{"1 MiB, one merge pass", 1 << 20, true},
		{"128 KiB, several merge passes", 128 << 10, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := budgetContext(c.limit)
			s := newSortIter(ctx, keyDesc, sql.RowsToRowIter(rows...), t.TempDir())
			var got []int64
			for {
				r, err := s.Next(ctx)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, r[1].(int64))
			}
			if err := s.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(expect) {
				t.Fatalf("order differs from the in-memory stable sort (%d rows, want %d)", len(got), len(expect))
			}
			if (s.spilled > 0) != c.wantSpills {
				t.Fatalf("spilled %d runs, want spilling %t", s.spilled, c.wantSpills)
			}
			if c.limit == 128<<10 && s.spilled <= len(s.runs) {
				t.Fatalf("no intermediate merge: %d runs written, %d merged last", s.spilled, len(s.runs))
			}
			if used := budget.From(ctx).Used(); used != 0 {
				t.Fatalf("%d bytes still charged after Close", used)
			}
			if peak := budget.From(ctx).Peak(); c.limit > 0 && peak > c.limit {
				t.Fatalf("peak %d past the budget %d", peak, c.limit)
			}
		})
	}
}

// TestSort_UnspillableRowsFailWithTheBudgetError: a row the run format
// cannot hold exactly makes the sort fail with the budget's error.
func TestSort_UnspillableRowsFailWithTheBudgetError(t *testing.T) {
	rows := sortInput(20000)
	for _, r := range rows {
		r[2] = types.JSONDocument{Val: map[string]any{"k": r[2]}}
	}
	ctx := budgetContext(256 << 10)
	s := newSortIter(ctx, keyDesc, sql.RowsToRowIter(rows...), t.TempDir())
	defer s.Close(ctx)
	_, err := s.Next(ctx)
	if !errors.Is(err, budget.ErrExceeded) || !strings.Contains(err.Error(), budget.SysVar) {
		t.Fatalf("got %v, want the budget error", err)
	}
}

// TestSort_StopsOnCancel: KILL QUERY cancels the query's context; the
// sort returns its error instead of finishing.
func TestSort_StopsOnCancel(t *testing.T) {
	base := budgetContext(1 << 20)
	cctx, cancel := context.WithCancel(base.Context)
	ctx := base.WithContext(cctx)
	cancel()
	s := newSortIter(ctx, keyDesc, sql.RowsToRowIter(sortInput(5000)...), t.TempDir())
	defer s.Close(ctx)
	if _, err := s.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}
