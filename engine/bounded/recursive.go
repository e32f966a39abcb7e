package bounded

import (
	"errors"
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"github.com/lakesql/lakesql/budget"
)

// cteRecursionLimit is GMS's bound on a recursive CTE's iterations
// (rowexec's cteRecursionLimit).
const cteRecursionLimit = 10001

// buildRecursiveCte replaces GMS's WITH RECURSIVE (rowexec's
// recursiveCteIter) by the same algorithm within the budget: the rows of
// one iteration (the next working table) and the working table the
// recursive part reads are charged, and for UNION DISTINCT every
// remembered row hash; past the budget the query fails.
func (o *override) buildRecursiveCte(ctx *sql.Context, n *plan.RecursiveCte, row sql.Row) (sql.RowIter, error) {
	u := n.Union()
	acct := budget.From(ctx)
	it := &recursiveIter{o: o, init: n.Left(), rec: n.Right(), row: row, working: n.Working, dedup: u.Distinct,
		tempCharge: acct.NewCharge("recursive CTE"), workCharge: acct.NewCharge("recursive CTE")}
	return o.limitAndSort(ctx, it, nil, u.Limit, u.SortFields, len(u.Schema()))
}

type recursiveIter struct {
	o         *override
	init, rec sql.Node
	row       sql.Row
	working   *plan.RecursiveTable
	dedup     bool

	iter       sql.RowIter // the initial part's, then the recursive part's
	cycle      int
	temp       []sql.Row // this iteration's rows: the next working table
	seen       map[uint64]struct{}
	tempCharge *budget.Charge // temp, and seen's hashes
	workCharge *budget.Charge // the working table
	rows       int
}

func (r *recursiveIter) Next(ctx *sql.Context) (sql.Row, error) {
	if r.iter == nil {
		if r.dedup {
			r.seen = map[uint64]struct{}{}
		}
		it, err := r.o.base.Build(ctx, r.init, r.row)
		if err != nil {
			return nil, err
		}
		r.iter = it
	}
	for {
		if r.rows++; r.rows%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		row, err := r.iter.Next(ctx)
		if errors.Is(err, io.EOF) && len(r.temp) > 0 {
			if err := r.nextCycle(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		size := rowSize(row) + ifaceSize
		var h uint64
		if r.dedup {
			if h, err = sql.HashOf(ctx, row); err != nil {
				return nil, err
			}
			if _, dup := r.seen[h]; dup {
				continue
			}
			size += distinctEntry
		}
		if err := r.tempCharge.Grow(size); err != nil {
			return nil, err
		}
		if r.dedup {
			r.seen[h] = struct{}{}
		}
		r.temp = append(r.temp, row)
		return row, nil
	}
}

// nextCycle makes this iteration's rows the working table and starts the
// recursive part over it. The working table's charge moves with it; the
// remembered hashes stay charged with the next iteration's rows.
func (r *recursiveIter) nextCycle(ctx *sql.Context) error {
	r.cycle++
	if r.cycle > cteRecursionLimit {
		return sql.ErrCteRecursionLimitExceeded.New()
	}
	// The old working table goes; this iteration's rows replace it.
	r.workCharge.Close()
	moved := r.tempCharge.Held() - int64(len(r.seen))*distinctEntry
	if r.working != nil {
		r.working.Buf = r.temp
	}
	r.temp = nil
	r.tempCharge.Close()
	if err := r.tempCharge.Grow(int64(len(r.seen)) * distinctEntry); err != nil {
		return err
	}
	if err := r.workCharge.Grow(moved); err != nil {
		return err
	}
	if err := r.iter.Close(ctx); err != nil {
		return err
	}
	it, err := r.o.base.Build(ctx, r.rec, r.row)
	if err != nil {
		r.iter = nil
		return err
	}
	r.iter = it
	return nil
}

func (r *recursiveIter) Close(ctx *sql.Context) error {
	if r.working != nil {
		r.working.Buf = nil
	}
	r.temp, r.seen = nil, nil
	r.tempCharge.Close()
	r.workCharge.Close()
	if r.iter != nil {
		return r.iter.Close(ctx)
	}
	return nil
}
