package bounded

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"github.com/lakesql/lakesql/budget"
)

// partBuf is the write buffer of one partition file of a grace hash join.
const partBuf = 8 << 10

// buildHashJoin runs a top-scope inner or left outer row-path hash join
// (GMS's joinIter over a plan.HashLookup) within the budget: it builds
// the table as GMS does, from the right side read with the first left
// row, and probes it with every left row; when the table does not fit it
// becomes a grace hash join, both sides partitioned by key into files and
// joined one partition at a time. Other joins (nested scopes, semi, anti,
// exclude-nulls) are left to GMS, whose table the HashLookup bounds.
func (o *override) buildHashJoin(ctx *sql.Context, j *plan.JoinNode, row sql.Row) (sql.RowIter, error) {
	hl, ok := j.Right().(*plan.HashLookup)
	if !ok || len(row) != 0 || j.ScopeLen != 0 || (j.Op != plan.JoinTypeHash && j.Op != plan.JoinTypeLeftOuterHash) {
		return nil, nil
	}
	left, err := o.base.Build(ctx, j.Left(), row)
	if err != nil {
		return nil, err
	}
	acct := budget.From(ctx)
	return &hashJoinIter{o: o, j: j, hl: hl, left: left, acct: acct, charge: acct.NewCharge("hash join build"),
		width: len(j.Left().Schema()) + len(j.Right().Schema())}, nil
}

type hashJoinIter struct {
	o      *override
	j      *plan.JoinNode
	hl     *plan.HashLookup
	left   sql.RowIter
	acct   *budget.Account
	charge *budget.Charge
	width  int

	started bool
	table   map[any][]sql.Row
	probe   func(*sql.Context) (sql.Row, error) // the next left row
	parts   *partitions                         // grace mode
	part    int                                 // the partition being joined
	pending []sql.Row                           // joined rows not yet returned
	seen    int
}

func (h *hashJoinIter) Next(ctx *sql.Context) (sql.Row, error) {
	if !h.started {
		h.started = true
		if err := h.start(ctx); err != nil {
			return nil, err
		}
	}
	for len(h.pending) == 0 {
		if h.probe == nil {
			return nil, io.EOF
		}
		if h.seen++; h.seen%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		l, err := h.probe(ctx)
		if errors.Is(err, io.EOF) {
			if h.probe, err = h.nextPartition(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := h.join(ctx, l); err != nil {
			return nil, err
		}
	}
	r := h.pending[0]
	h.pending = h.pending[1:]
	return r, nil
}

// start reads the first left row (no left rows: GMS never reads the
// right side either) and builds the table, partitioning both sides when
// it does not fit.
func (h *hashJoinIter) start(ctx *sql.Context) error {
	first, err := h.left.Next(ctx)
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return err
	}
	right, err := h.o.base.Build(ctx, h.hl.Child, first)
	if err != nil {
		return err
	}
	defer right.Close(ctx)
	h.table = map[any][]sql.Row{}
	for i := 0; ; i++ {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r, err := right.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		key, err := h.hl.GetHashKey(ctx, h.hl.RightEntryKey, r)
		if err != nil {
			return err
		}
		if h.parts != nil {
			if err := h.parts.add(0, key, r); err != nil {
				return err
			}
			continue
		}
		if err := h.keep(key, r); err != nil {
			if !errors.Is(err, budget.ErrExceeded) {
				return err
			}
			if err := h.spillTable(ctx, err); err != nil {
				return err
			}
			if err := h.parts.add(0, key, r); err != nil {
				return err
			}
		}
	}
	if h.parts == nil {
		h.probe = h.replay(first)
		return nil
	}
	return h.partitionLeft(ctx, first)
}

// keep adds a right row to the table, charged.
func (h *hashJoinIter) keep(key any, r sql.Row) error {
	size := rowSize(r) + ifaceSize
	rows, seen := h.table[key]
	if !seen {
		size += mapEntry + valueSize(key)
	}
	if err := h.charge.Grow(size); err != nil {
		return err
	}
	h.table[key] = append(rows, r)
	return nil
}

// replay returns the left rows, first included.
func (h *hashJoinIter) replay(first sql.Row) func(*sql.Context) (sql.Row, error) {
	return func(ctx *sql.Context) (sql.Row, error) {
		if first != nil {
			r := first
			first = nil
			return r, nil
		}
		return h.left.Next(ctx)
	}
}

// join appends the joined rows of left row l: every right row with its
// key that the join condition accepts, or for a left outer join l with
// NULLs when none does.
func (h *hashJoinIter) join(ctx *sql.Context, l sql.Row) error {
	key, err := h.hl.GetHashKey(ctx, h.hl.LeftProbeKey, l)
	if err != nil {
		return err
	}
	matched := false
	for _, r := range h.table[key] {
		row := make(sql.Row, h.width)
		copy(row, l)
		copy(row[len(l):], r)
		ok, err := sql.EvaluateCondition(ctx, h.j.Filter, row)
		if err != nil {
			return err
		}
		if sql.IsTrue(ok) {
			matched = true
			h.pending = append(h.pending, row)
		}
	}
	if !matched && h.j.Op.IsLeftOuter() {
		row := make(sql.Row, h.width)
		copy(row, l)
		h.pending = append(h.pending, row)
	}
	return nil
}

// spillTable turns the join into a grace hash join: the rows in the
// table go to the right side's partitions and the table's budget back.
func (h *hashJoinIter) spillTable(ctx *sql.Context, cause error) error {
	n := int(max(4, min(128, h.acct.Limit()/(4*partBuf))))
	h.parts = &partitions{n: n, dir: h.o.spillDir, cause: cause, seed: maphash.MakeSeed()}
	for key, rows := range h.table {
		for _, r := range rows {
			if err := h.parts.add(0, key, r); err != nil {
				return err
			}
		}
	}
	h.table = nil
	h.charge.Close()
	// What the partitions' write buffers hold from now on.
	return h.charge.Grow(int64(n) * partBuf)
}

// partitionLeft writes the left rows to their partitions and starts the
// first one.
func (h *hashJoinIter) partitionLeft(ctx *sql.Context, first sql.Row) error {
	if err := h.parts.finish(0); err != nil {
		return err
	}
	next := h.replay(first)
	for i := 0; ; i++ {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		l, err := next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		key, err := h.hl.GetHashKey(ctx, h.hl.LeftProbeKey, l)
		if err != nil {
			return err
		}
		if err := h.parts.add(1, key, l); err != nil {
			return err
		}
	}
	if err := h.parts.finish(1); err != nil {
		return err
	}
	h.charge.Close()
	h.part = -1
	var err error
	h.probe, err = h.nextPartition(ctx)
	return err
}

// nextPartition loads the next partition with left rows into the table
// and returns its left rows; nil when none is left.
func (h *hashJoinIter) nextPartition(ctx *sql.Context) (func(*sql.Context) (sql.Row, error), error) {
	h.table = nil
	h.charge.Close()
	if h.parts == nil {
		return nil, nil
	}
	for h.part++; h.part < h.parts.n; h.part++ {
		left := h.parts.file(1, h.part)
		if left == nil {
			continue // no left row: nothing to emit
		}
		if err := h.loadPartition(ctx); err != nil {
			return nil, err
		}
		dec := left.reader()
		return func(*sql.Context) (sql.Row, error) { return dec.row() }, nil
	}
	return nil, nil
}

// loadPartition reads the current partition's right rows into the table.
func (h *hashJoinIter) loadPartition(ctx *sql.Context) error {
	h.table = map[any][]sql.Row{}
	right := h.parts.file(0, h.part)
	if right == nil {
		return nil
	}
	dec := right.reader()
	for i := 0; ; i++ {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r, err := dec.row()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		key, err := h.hl.GetHashKey(ctx, h.hl.RightEntryKey, r)
		if err != nil {
			return err
		}
		if err := h.keep(key, r); err != nil {
			return fmt.Errorf("%w (one partition of %d of the spilled hash join alone)", err, h.parts.n)
		}
	}
}

func (h *hashJoinIter) Close(ctx *sql.Context) error {
	h.table, h.pending = nil, nil
	if h.parts != nil {
		h.parts.close()
	}
	h.charge.Close()
	return h.left.Close(ctx)
}

// partitions are the two sides' partition files of a grace hash join:
// side 0 the right (build) rows, side 1 the left ones, each row in the
// partition of its join key's hash. Files are created on first use and
// unlinked at once, like sort runs.
type partitions struct {
	n     int
	dir   string
	cause error // the budget error that made the join spill
	seed  maphash.Seed
	files [2][]*partFile
	op    string // the spilling operator, for errors (empty: "hash join")
}

func (p *partitions) opName() string {
	if p.op == "" {
		return "hash join"
	}
	return p.op
}

type partFile struct {
	f   *os.File
	enc encoder
}

func (p *partitions) index(key any) int {
	var h maphash.Hash
	h.SetSeed(p.seed)
	switch k := key.(type) {
	case nil:
	case int64:
		_ = binary.Write(&h, binary.LittleEndian, k)
	case uint64:
		_ = binary.Write(&h, binary.LittleEndian, k)
	case string:
		_, _ = h.WriteString(k)
	default: // equal keys print alike
		_, _ = fmt.Fprintf(&h, "%T:%v", k, k)
	}
	return int(h.Sum64() % uint64(p.n))
}

func (p *partitions) add(side int, key any, r sql.Row) error {
	if p.files[side] == nil {
		p.files[side] = make([]*partFile, p.n)
	}
	i := p.index(key)
	pf := p.files[side][i]
	if pf == nil {
		f, err := os.CreateTemp(p.dir, "lakesql-join-*.part")
		if err != nil {
			return fmt.Errorf("spill %s: %w", p.opName(), err)
		}
		_ = os.Remove(f.Name())
		pf = &partFile{f: f, enc: encoder{w: bufio.NewWriterSize(f, partBuf)}}
		p.files[side][i] = pf
	}
	if err := pf.enc.row(r); err != nil {
		if errors.Is(err, errUnspillable) {
			return fmt.Errorf("%w; the %s cannot spill to disk: %v", p.cause, p.opName(), err)
		}
		return fmt.Errorf("spill %s: %w", p.opName(), err)
	}
	return nil
}

// finish flushes a side's files and rewinds them for reading.
func (p *partitions) finish(side int) error {
	for _, pf := range p.files[side] {
		if pf == nil {
			continue
		}
		if err := pf.enc.w.Flush(); err != nil {
			return fmt.Errorf("spill %s: %w", p.opName(), err)
		}
		if _, err := pf.f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("spill %s: %w", p.opName(), err)
		}
	}
	return nil
}

// file is partition i of side, as a run to read; nil when it is empty.
func (p *partitions) file(side, i int) *run {
	if p.files[side] == nil || p.files[side][i] == nil {
		return nil
	}
	return &run{f: p.files[side][i].f}
}

func (p *partitions) close() {
	for _, side := range p.files {
		for _, pf := range side {
			if pf != nil {
				pf.f.Close()
			}
		}
	}
}
