package bounded

import (
	"errors"
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"github.com/lakesql/lakesql/budget"
)

// distinctEntry estimates one remembered row hash: the key and its share
// of the set's table.
const distinctEntry = 40

// buildDistinct replaces GMS's DISTINCT (iters.distinctIter) by the same
// algorithm — rows passed on unless their sql.HashOf was seen — with each
// remembered hash charged.
func (o *override) buildDistinct(ctx *sql.Context, n *plan.Distinct, row sql.Row) (sql.RowIter, error) {
	child, err := o.base.Build(ctx, n.Child, row)
	if err != nil {
		return nil, err
	}
	return &distinctIter{child: child, seen: map[uint64]struct{}{}, charge: budget.From(ctx).NewCharge("distinct")}, nil
}

type distinctIter struct {
	child  sql.RowIter
	seen   map[uint64]struct{}
	charge *budget.Charge
	rows   int
}

func (d *distinctIter) Next(ctx *sql.Context) (sql.Row, error) {
	for {
		if d.rows++; d.rows%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		r, err := d.child.Next(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) {
				d.release()
			}
			return nil, err
		}
		h, err := sql.HashOf(ctx, r)
		if err != nil {
			return nil, err
		}
		if _, dup := d.seen[h]; dup {
			continue
		}
		if err := d.charge.Grow(distinctEntry); err != nil {
			return nil, err
		}
		d.seen[h] = struct{}{}
		return r, nil
	}
}

// release drops the set once the input is done, as GMS does.
func (d *distinctIter) release() {
	d.seen = nil
	d.charge.Close()
}

func (d *distinctIter) Close(ctx *sql.Context) error {
	d.release()
	return d.child.Close(ctx)
}
