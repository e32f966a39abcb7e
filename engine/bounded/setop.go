package bounded

import (
	"errors"
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/iters"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"github.com/lakesql/lakesql/budget"
)

// buildSetOp replaces GMS's UNION / INTERSECT / EXCEPT (rowexec's
// buildSetOp) by the same iterators within the budget: DISTINCT through
// newDistinct (which spills), the right side's multiset of INTERSECT and
// EXCEPT charged (past the budget the query fails), ORDER BY through the
// bounded sort.
func (o *override) buildSetOp(ctx *sql.Context, s *plan.SetOp, row sql.Row) (sql.RowIter, error) {
	iter, err := o.base.Build(ctx, s.Left(), row)
	if err != nil {
		return nil, err
	}
	buildRight := func() (sql.RowIter, error) { return o.base.Build(ctx, s.Right(), row) }
	switch s.SetOpType {
	case plan.UnionType:
		iter = &iters.UnionIter{Cur: iter, NextIter: func(*sql.Context) (sql.RowIter, error) { return buildRight() }}
	case plan.IntersectType, plan.ExceptType:
		right, err := buildRight()
		if err != nil {
			iter.Close(ctx)
			return nil, err
		}
		if s.Distinct && s.SetOpType == plan.ExceptType {
			iter, right = newDistinct(ctx, iter, o.spillDir), newDistinct(ctx, right, o.spillDir)
		}
		op := "INTERSECT"
		if s.SetOpType == plan.ExceptType {
			op = "EXCEPT"
		}
		iter = &multisetIter{left: iter, right: right, except: s.SetOpType == plan.ExceptType,
			charge: budget.From(ctx).NewCharge(op)}
	}
	if s.Distinct && s.SetOpType != plan.ExceptType {
		iter = newDistinct(ctx, iter, o.spillDir)
	}
	return o.limitAndSort(ctx, iter, s.Offset, s.Limit, s.SortFields, len(s.Schema()))
}

// limitAndSort wraps a set operation's rows in its OFFSET, LIMIT and
// ORDER BY, as GMS does (LIMIT wraps OFFSET).
func (o *override) limitAndSort(ctx *sql.Context, iter sql.RowIter, offset, limit sql.Expression, fields sql.SortFields, width int) (sql.RowIter, error) {
	if offset != nil {
		n, err := iters.GetInt64Value(ctx, offset)
		if err != nil {
			iter.Close(ctx)
			return nil, err
		}
		iter = &offsetIter{skip: n, child: iter}
	}
	switch {
	case limit != nil:
		n, err := iters.GetInt64Value(ctx, limit)
		if err != nil {
			iter.Close(ctx)
			return nil, err
		}
		if len(fields) > 0 {
			return iters.NewTopRowsIter(fields, n, false, iter, width), nil
		}
		return &iters.LimitIter{Limit: n, ChildIter: iter}, nil
	case len(fields) > 0:
		return newSortIter(ctx, fields, iter, o.spillDir), nil
	}
	return iter, nil
}

// multisetIter is GMS's INTERSECT / EXCEPT (iters.IntersectIter,
// ExceptIter): the right side's rows counted by sql.HashOf, then each
// left row passed on (INTERSECT) or dropped (EXCEPT) while its hash has
// a count left, using one up. Each counted hash is charged.
type multisetIter struct {
	left, right sql.RowIter
	except      bool
	charge      *budget.Charge
	counts      map[uint64]int
	built       bool
}

func (m *multisetIter) Next(ctx *sql.Context) (sql.Row, error) {
	if !m.built {
		if err := m.build(ctx); err != nil {
			return nil, err
		}
		m.built = true
	}
	for i := 0; ; i++ {
		if i%checkEvery == checkEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		r, err := m.left.Next(ctx)
		if err != nil {
			return nil, err
		}
		h, err := sql.HashOf(ctx, r)
		if err != nil {
			return nil, err
		}
		left := m.counts[h] > 0
		if left {
			m.counts[h]--
		}
		if left != m.except {
			return r, nil
		}
	}
}

func (m *multisetIter) build(ctx *sql.Context) error {
	m.counts = map[uint64]int{}
	for i := 0; ; i++ {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r, err := m.right.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		h, err := sql.HashOf(ctx, r)
		if err != nil {
			return err
		}
		if _, ok := m.counts[h]; !ok {
			if err := m.charge.Grow(mapEntry); err != nil {
				return err
			}
		}
		m.counts[h]++
	}
}

func (m *multisetIter) Close(ctx *sql.Context) error {
	m.counts = nil
	m.charge.Close()
	err := m.left.Close(ctx)
	if rerr := m.right.Close(ctx); err == nil {
		err = rerr
	}
	return err
}

// offsetIter skips the first rows of its child (OFFSET).
type offsetIter struct {
	skip  int64
	child sql.RowIter
}

func (i *offsetIter) Next(ctx *sql.Context) (sql.Row, error) {
	for ; i.skip > 0; i.skip-- {
		if _, err := i.child.Next(ctx); err != nil {
			return nil, err
		}
	}
	return i.child.Next(ctx)
}

func (i *offsetIter) Close(ctx *sql.Context) error { return i.child.Close(ctx) }
