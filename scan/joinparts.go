package scan

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/budget"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// A build side too large for the query's memory budget is joined a hash
// partition at a time (grace partitioning): each pass holds one
// partition of the side's rows, re-reads the probe table and lets on, at
// that side, only the join tuples whose key tuple hashes into the
// partition; the passes aggregate into one result. Each tuple is joined
// in exactly one pass, since the build rows with its key are all in its
// partition, so inner, semi and anti joins give the answer of one run.
// The partition's rows are re-read from the side's files rather than
// written to disk: they are Parquet on the same store already.

// JoinPart is one hash partition of a build side: the rows whose key
// tuple's hash h has (h>>32) % Parts == Part. The high bits: the hash
// tables index their slots by the low ones.
type JoinPart struct{ Part, Parts int }

// maxJoinParts bounds splitting: a partition still too large at this
// count holds a few keys with very many rows, which no split divides.
const maxJoinParts = 1 << 12

func (q JoinPart) has(h uint64) bool { return (h>>32)%uint64(q.Parts) == uint64(q.Part) }

// halves splits q in two partitions that together hold exactly its rows.
func (q JoinPart) halves() (JoinPart, JoinPart) {
	return JoinPart{q.Part, 2 * q.Parts}, JoinPart{q.Part + q.Parts, 2 * q.Parts}
}

// finer splits the partitions of queue into parts partitions each (a
// power of two times theirs), in order.
func finer(queue []JoinPart, parts int) []JoinPart {
	var out []JoinPart
	for _, q := range queue {
		if q.Parts >= parts {
			out = append(out, q)
			continue
		}
		a, b := q.halves()
		out = append(out, finer([]JoinPart{a, b}, parts)...)
	}
	return out
}

// joinCut is a pass's partition of its partitioned sides, which share
// one key (SameKey): a tuple's key hash is the same at each.
type joinCut struct {
	sides []int
	q     JoinPart
}

// holds reports whether tuple t of in (hashed by key, in.h) belongs to
// the pass. A tuple with a NULL key matches no build row: it belongs to
// partition 0, so that an anti join lets it on once.
func (c *joinCut) holds(in *tuples, t int) bool {
	for k := range in.batch {
		if in.batch[k].isNull(t) {
			return c.q.Part == 0
		}
	}
	return c.q.has(in.h[t])
}

// Partitionable reports whether build side s may be joined a partition
// at a time: not NOT IN's side, whose NULL keys and emptiness decide for
// every probe row.
func (jp *JoinAggPlan) Partitionable(s int) bool {
	return s >= 0 && s < len(jp.stages) && jp.stages[s].kind != JoinAntiNulls
}

// SameKey reports whether build sides a and b are keyed on the same
// columns of the same types (TPC-H Q21's orders, l2 and l3 on
// l1.l_orderkey): they may be partitioned together, one partition of
// each in a pass.
func (jp *JoinAggPlan) SameKey(a, b int) bool {
	if !jp.Partitionable(a) || !jp.Partitionable(b) {
		return false
	}
	x, y := jp.stages[a], jp.stages[b]
	return slices.Equal(x.on, y.on) && slices.EqualFunc(x.keyTypes, y.keyTypes, func(s, t schema.Type) bool { return s == t })
}

// PartLoader reads partition q of partitioned build side s, charging its
// record to charge; a partition beyond the budget is the budget's error.
type PartLoader func(ctx context.Context, s int, q JoinPart, charge *budget.Charge) (arrow.Record, error)

// RunPartitioned is Run with the build sides sides (which share one key,
// SameKey) read by load a hash partition at a time, starting with parts
// partitions (their entries in builds are unused). A partition beyond
// the query's budget is split in two, down to maxJoinParts partitions;
// past that the budget's error is returned.
func (jp *JoinAggPlan) RunPartitioned(ctx context.Context, in AggInput, builds []arrow.Record, sides []int, parts int, load PartLoader) ([]sql.Row, Stats, error) {
	if len(builds) != len(jp.stages) || len(sides) == 0 || parts < 1 {
		return nil, Stats{}, fmt.Errorf("join cannot partition build sides %v of %d", sides, len(jp.stages))
	}
	for _, s := range sides {
		if !jp.SameKey(sides[0], s) {
			return nil, Stats{}, fmt.Errorf("join cannot partition build sides %v of %d", sides, len(jp.stages))
		}
	}
	out := jp.newOutput(ctx)
	defer out.charge.Close()
	var st Stats
	queue := make([]JoinPart, parts)
	for i := range queue {
		queue[i] = JoinPart{i, parts}
	}
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		pst, fits, err := jp.runPart(ctx, in, builds, sides, q, load, out)
		st.add(pst)
		if !fits && q.Parts < maxJoinParts {
			// The partitions left are about as large: split them all.
			queue = finer(append([]JoinPart{q}, queue...), 2*q.Parts)
			continue
		}
		if err != nil {
			return nil, st, err
		}
	}
	return out.rows(), st, nil
}

// runPart runs the pass of partition q; fits is false (with the budget's
// error) when a side's partition or its index does not fit the budget,
// before the pass aggregated anything. A budget error during the pass
// (out's groups) fails the query: splitting would not shrink them.
func (jp *JoinAggPlan) runPart(ctx context.Context, in AggInput, builds []arrow.Record, sides []int, q JoinPart, load PartLoader, out *partial) (st Stats, fits bool, err error) {
	charge := budget.From(ctx).NewCharge("hash join build")
	defer charge.Close()
	index := budget.From(ctx).NewCharge("hash join build")
	defer index.Close()
	bs := slices.Clone(builds)
	defer func() {
		for _, s := range sides {
			if bs[s] != nil {
				bs[s].Release()
			}
		}
	}()
	for _, s := range sides {
		rec, err := load(ctx, s, q, charge)
		if err != nil {
			return Stats{}, !errors.Is(err, budget.ErrExceeded), err
		}
		bs[s] = rec
	}
	// Every side's index must fit beside the records; pass charges them
	// again.
	for _, rec := range bs {
		if err := index.Grow(BuildIndexBytes * rec.NumRows()); err != nil {
			return Stats{}, false, err
		}
	}
	index.Close()
	st, err = jp.pass(ctx, in, bs, &joinCut{sides: sides, q: q}, out)
	return st, true, err
}

// Partition is cp reading only the rows of build side side of jp in
// partition q, its output columns being the side's build columns.
func (cp *CollectPlan) Partition(jp *JoinAggPlan, side int, q JoinPart) (*CollectPlan, bool) {
	if !jp.Partitionable(side) {
		return nil, false
	}
	st := jp.stages[side]
	part := &collectPart{types: st.keyTypes, seed: jp.agg.seed, q: q}
	for _, k := range st.keys {
		if k < 0 || k >= len(cp.out) {
			return nil, false
		}
		part.cols = append(part.cols, cp.out[k])
	}
	c := *cp
	c.part = part
	return &c, true
}

// collectPart picks the rows of one partition of a build side: their
// key columns (record columns cols) hashed as the join's key table
// hashes them (types, seed).
type collectPart struct {
	cols  []int
	types []schema.Type
	seed  maphash.Seed
	q     JoinPart
}

// hasher is the key table a worker hashes batches with (nil: no
// partition).
func (c *collectPart) hasher() *groupTable {
	if c == nil {
		return nil
	}
	t := &groupTable{}
	t.init(c.types, c.seed)
	return t
}

// keep narrows sel to the rows of the partition. A row with a NULL key
// matches nothing: it is dropped.
func (c *collectPart) keep(t *groupTable, batch arrow.Record, sel []int32) []int32 {
	if c == nil || len(sel) == 0 {
		return sel
	}
	cols := make([]arrow.Array, len(c.cols))
	for k, i := range c.cols {
		cols[k] = batch.Column(i)
	}
	sel = nonNullRows(cols, sel)
	h := make([]uint64, len(sel))
	t.hashRows(cols, sel, h)
	out := sel[:0]
	for k, i := range sel {
		if c.q.has(h[k]) {
			out = append(out, i)
		}
	}
	return out
}

// RecordBytes is what a record's buffers hold.
func RecordBytes(rec arrow.Record) int64 {
	var n int64
	for _, c := range rec.Columns() {
		n += arrayBytes(c.Data())
	}
	return n
}

func arrayBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += arrayBytes(c)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += arrayBytes(d.Dictionary())
	}
	return n
}
