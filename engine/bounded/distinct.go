package bounded

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"github.com/lakesql/lakesql/budget"
)

// distinctEntry estimates one remembered row hash: the key and its share
// of the set's table.
const distinctEntry = 40

// maxDistinctDepth bounds how often a partition of a spilled DISTINCT is
// partitioned again (each level splits by a fresh hash seed; a partition
// that still does not fit after this many is past the budget).
const maxDistinctDepth = 6

// buildDistinct replaces GMS's DISTINCT (iters.distinctIter) by the same
// algorithm — rows passed on unless their sql.HashOf was seen — with each
// remembered hash charged, spilling past the budget (newDistinct).
func (o *override) buildDistinct(ctx *sql.Context, n *plan.Distinct, row sql.Row) (sql.RowIter, error) {
	child, err := o.base.Build(ctx, n.Child, row)
	if err != nil {
		return nil, err
	}
	return newDistinct(ctx, child, o.spillDir), nil
}

// newDistinct passes on the first row of each sql.HashOf, as GMS's
// DISTINCT does, remembering the hashes within the budget. When they do
// not fit it becomes a hash-partitioned DISTINCT: the hashes it
// remembers go to partition files as markers (rows already passed on),
// every later row to the partition of its hash, and once the input is
// done each partition is made distinct on its own (partitioned again if
// it still does not fit). Every distinct row comes out once; the rows of
// the partitions come after the ones passed on before the spill.
func newDistinct(ctx *sql.Context, child sql.RowIter, dir string) *distinctIter {
	return &distinctIter{child: child, dir: dir, seen: map[uint64]struct{}{}, charge: budget.From(ctx).NewCharge("distinct")}
}

type distinctIter struct {
	child  sql.RowIter
	dir    string
	seen   map[uint64]struct{}
	charge *budget.Charge
	rows   int

	// encoded: the child reads a partition: rows are [hash, marker,
	// values...]; a marker row is a hash already passed on.
	encoded bool
	depth   int

	parts    *partitions // after a spill: where the input goes
	draining bool        // the input is done: the partitions are read
	part     int
	sub      *distinctIter // the partition being read
}

func (d *distinctIter) Next(ctx *sql.Context) (sql.Row, error) {
	for {
		if d.rows++; d.rows%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if d.draining {
			r, err := d.nextFromPartitions(ctx)
			if errors.Is(err, io.EOF) {
				d.release()
			}
			return r, err
		}
		r, err := d.child.Next(ctx)
		if errors.Is(err, io.EOF) {
			if d.parts == nil {
				d.release()
				return nil, io.EOF
			}
			if err := d.parts.finish(0); err != nil {
				return nil, err
			}
			d.charge.Close() // the write buffers are done with
			d.draining, d.part = true, -1
			continue
		}
		if err != nil {
			return nil, err
		}
		h, marker, vals, err := d.decode(ctx, r)
		if err != nil {
			return nil, err
		}
		if d.parts != nil {
			if err := d.parts.add(0, h, encodeDistinct(h, marker, vals)); err != nil {
				return nil, err
			}
			continue
		}
		if _, dup := d.seen[h]; dup {
			continue
		}
		if err := d.charge.Grow(distinctEntry); err != nil {
			if !errors.Is(err, budget.ErrExceeded) {
				return nil, err
			}
			if err := d.spill(err); err != nil {
				return nil, err
			}
			if err := d.parts.add(0, h, encodeDistinct(h, marker, vals)); err != nil {
				return nil, err
			}
			continue
		}
		d.seen[h] = struct{}{}
		if !marker {
			return vals, nil
		}
	}
}

// decode splits an input row into its hash, whether it is a marker, and
// its values.
func (d *distinctIter) decode(ctx *sql.Context, r sql.Row) (uint64, bool, sql.Row, error) {
	if !d.encoded {
		h, err := sql.HashOf(ctx, r)
		return h, false, r, err
	}
	h, _ := r[0].(uint64)
	marker, _ := r[1].(bool)
	return h, marker, r[2:], nil
}

func encodeDistinct(h uint64, marker bool, vals sql.Row) sql.Row {
	return append(sql.Row{h, marker}, vals...)
}

// spill writes the remembered hashes to the partitions as markers and
// gives their budget back; the partitions' write buffers are charged.
func (d *distinctIter) spill(cause error) error {
	if d.depth >= maxDistinctDepth {
		return fmt.Errorf("%w (a partition of the spilled DISTINCT, split %d times)", cause, d.depth)
	}
	n := int(max(4, min(64, d.charge.Held()/(4*partBuf))))
	d.parts = &partitions{n: n, dir: d.dir, cause: cause, seed: maphash.MakeSeed(), op: "DISTINCT"}
	for h := range d.seen {
		if err := d.parts.add(0, h, sql.Row{h, true}); err != nil {
			return err
		}
	}
	d.seen = nil
	d.charge.Close()
	return d.charge.Grow(int64(n) * partBuf)
}

// nextFromPartitions reads the partitions one after the other, each
// through a DISTINCT of its own.
func (d *distinctIter) nextFromPartitions(ctx *sql.Context) (sql.Row, error) {
	for {
		if d.sub != nil {
			r, err := d.sub.Next(ctx)
			if !errors.Is(err, io.EOF) {
				return r, err
			}
			if err := d.sub.Close(ctx); err != nil {
				return nil, err
			}
			d.sub = nil
		}
		for d.part++; d.part < d.parts.n; d.part++ {
			if f := d.parts.file(0, d.part); f != nil {
				sub := newDistinct(ctx, &runIter{dec: f.reader()}, d.dir)
				sub.encoded, sub.depth = true, d.depth+1
				d.sub = sub
				break
			}
		}
		if d.sub == nil {
			return nil, io.EOF
		}
	}
}

// release drops the set once the input is done, as GMS does.
func (d *distinctIter) release() {
	d.seen = nil
	d.charge.Close()
}

func (d *distinctIter) Close(ctx *sql.Context) error {
	d.release()
	if d.sub != nil {
		d.sub.Close(ctx)
		d.sub = nil
	}
	if d.parts != nil {
		d.parts.close()
		d.parts = nil
	}
	return d.child.Close(ctx)
}

// runIter reads a spilled file as a row iterator; its owner closes the
// file.
type runIter struct{ dec *decoder }

func (r *runIter) Next(*sql.Context) (sql.Row, error) { return r.dec.row() }
func (r *runIter) Close(*sql.Context) error           { return nil }
