package bounded

import (
	"errors"
	"fmt"
	"io"

	"github.com/cespare/xxhash/v2"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/budget"
)

// buildGroupBy replaces GMS's GROUP BY with grouping keys
// (groupByGroupingIter) by the same algorithm — groups keyed by GMS's
// grouping hash, in the order first met, one aggregation buffer per
// selected expression — that charges each new group. A GROUP BY without
// keys holds one group: GMS builds it.
func (o *override) buildGroupBy(ctx *sql.Context, n *plan.GroupBy, row sql.Row) (sql.RowIter, error) {
	if len(n.GroupByExprs) == 0 {
		return nil, nil
	}
	child, err := o.base.Build(ctx, n.Child, row)
	if err != nil {
		return nil, err
	}
	return &groupIter{selected: n.SelectedExprs, groupBy: n.GroupByExprs, child: child,
		charge: budget.From(ctx).NewCharge("group by")}, nil
}

type groupIter struct {
	selected, groupBy []sql.Expression
	child             sql.RowIter
	charge            *budget.Charge
	groups            map[uint64][]sql.AggregationBuffer
	keys              []uint64 // in the order first met
	pos               int
}

func (g *groupIter) Next(ctx *sql.Context) (sql.Row, error) {
	if g.groups == nil {
		g.groups = map[uint64][]sql.AggregationBuffer{}
		if err := g.compute(ctx); err != nil {
			return nil, err
		}
	}
	if g.pos >= len(g.keys) {
		return nil, io.EOF
	}
	// The groups are in memory: a consumer that loops over them inside
	// one Next (a join finding no match) would not see KILL QUERY.
	if g.pos%checkEvery == checkEvery-1 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	bufs := g.groups[g.keys[g.pos]]
	g.pos++
	out := make(sql.Row, len(bufs))
	for i, b := range bufs {
		v, err := b.Eval(ctx)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// groupSize estimates a new group: its key, map entry and buffers.
func (g *groupIter) groupSize() int64 {
	return mapEntry + 8 + int64(len(g.selected))*(ifaceSize+aggBuffer)
}

func (g *groupIter) compute(ctx *sql.Context) error {
	for i := 0; ; i++ {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r, err := g.child.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		key, err := groupingKey(ctx, g.groupBy, r)
		if err != nil {
			return err
		}
		bufs, ok := g.groups[key]
		if !ok {
			if err := g.charge.Grow(g.groupSize()); err != nil {
				return err
			}
			if bufs, err = g.newBuffers(); err != nil {
				return err
			}
			g.groups[key] = bufs
			g.keys = append(g.keys, key)
		}
		for _, b := range bufs {
			if err := b.Update(ctx, r); err != nil {
				return err
			}
		}
	}
}

// newBuffers makes a group's buffers as GMS does: an aggregate's own, and
// FIRST for any other expression (allowed without ONLY_FULL_GROUP_BY).
func (g *groupIter) newBuffers() ([]sql.AggregationBuffer, error) {
	bufs := make([]sql.AggregationBuffer, len(g.selected))
	for j, e := range g.selected {
		var err error
		if a, ok := e.(sql.Aggregation); ok {
			bufs[j], err = a.NewBuffer()
		} else {
			bufs[j], err = aggregation.NewFirst(e).NewBuffer()
		}
		if err != nil {
			return nil, err
		}
	}
	return bufs, nil
}

func (g *groupIter) Close(ctx *sql.Context) error {
	if holdsDisposable(g.selected) {
		for _, bufs := range g.groups {
			for _, b := range bufs {
				b.Dispose()
			}
		}
	}
	g.groups, g.keys = nil, nil
	g.charge.Close()
	return g.child.Close(ctx)
}

// holdsDisposable reports whether any of exprs contains an expression
// with state to dispose (a subquery's cache). An aggregation buffer's
// Dispose only disposes its copy of its expression, so without one the
// per-group loop does nothing — but walked 1.5M groups' expression trees
// for seconds on a large heap, after KILL QUERY too (TPC-H Q18).
func holdsDisposable(exprs []sql.Expression) bool {
	found := false
	for _, e := range exprs {
		sql.Inspect(e, func(e sql.Expression) bool {
			if _, ok := e.(sql.Disposable); ok {
				found = true
			}
			return !found
		})
	}
	return found
}

// groupingKey is GMS's grouping hash (rowexec's groupingKey): strings by
// their collation's weight, everything else by its %v text, a zero byte
// between expressions. Groups must hash exactly as on GMS's path, which
// this operator replaces.
func groupingKey(ctx *sql.Context, exprs []sql.Expression, row sql.Row) (uint64, error) {
	hash := xxhash.New()
	for i, expr := range exprs {
		v, err := expr.Eval(ctx, row)
		if err != nil {
			return 0, err
		}
		if i > 0 {
			_, _ = hash.Write([]byte{0})
		}
		t, isString := expr.Type().(sql.StringType)
		if isString && v != nil {
			v, err = types.ConvertToString(ctx, v, t, nil)
			if err == nil {
				err = t.Collation().WriteWeightString(hash, v.(string))
			}
		} else {
			_, err = fmt.Fprintf(hash, "%v", v)
		}
		if err != nil {
			return 0, err
		}
	}
	return hash.Sum64(), nil
}
