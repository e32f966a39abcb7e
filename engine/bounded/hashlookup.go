package bounded

import (
	"errors"
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"github.com/lakesql/lakesql/budget"
)

// buildHashLookup replaces GMS's build of a row-path hash join's table:
// the same map, filled the same way, with every kept row charged. Once
// the table is built (n.Lookup is set) GMS answers the probes itself.
func (o *override) buildHashLookup(ctx *sql.Context, n *plan.HashLookup, row sql.Row) (sql.RowIter, error) {
	n.Mutex.Lock()
	defer n.Mutex.Unlock()
	if n.Lookup != nil {
		return nil, nil
	}
	child, err := o.base.Build(ctx, n.Child, row)
	if err != nil {
		return nil, err
	}
	return &hashBuildIter{n: n, child: child, lookup: map[any][]sql.Row{}, charge: budget.From(ctx).NewCharge("hash join build")}, nil
}

// hashBuildIter passes the build side's rows on (the first probe row
// joins them as they come, as in GMS) while filling the table, which
// becomes n.Lookup at the end. The charge stays with the query while the
// table does; a build abandoned early gives its charge back.
type hashBuildIter struct {
	n      *plan.HashLookup
	child  sql.RowIter
	lookup map[any][]sql.Row
	charge *budget.Charge
	rows   int
	done   bool
}

func (h *hashBuildIter) Next(ctx *sql.Context) (sql.Row, error) {
	if h.rows%checkEvery == 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	r, err := h.child.Next(ctx)
	if errors.Is(err, io.EOF) {
		// Only a table read to the end answers probes (a LIMIT may stop
		// the first probe early).
		h.n.Lookup = &h.lookup
		h.done = true
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	key, err := h.n.GetHashKey(ctx, h.n.RightEntryKey, r)
	if err != nil {
		return nil, err
	}
	size := rowSize(r) + ifaceSize
	rows, seen := h.lookup[key]
	if !seen {
		size += mapEntry + valueSize(key)
	}
	if err := h.charge.Grow(size); err != nil {
		return nil, err
	}
	h.lookup[key] = append(rows, r)
	h.rows++
	return r, nil
}

func (h *hashBuildIter) Close(ctx *sql.Context) error {
	if !h.done {
		h.lookup = nil
		h.charge.Close()
	}
	return h.child.Close(ctx)
}
