package bounded

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"github.com/lakesql/lakesql/budget"
)

// maxFanIn bounds the runs one merge pass reads at once.
const maxFanIn = 128

func (o *override) buildSort(ctx *sql.Context, n *plan.Sort, row sql.Row) (sql.RowIter, error) {
	child, err := o.base.Build(ctx, n.Child, row)
	if err != nil {
		return nil, err
	}
	return newSortIter(ctx, n.SortFields, child, o.spillDir), nil
}

func newSortIter(ctx *sql.Context, fields sql.SortFields, child sql.RowIter, dir string) *sortIter {
	acct := budget.From(ctx)
	return &sortIter{fields: fields, child: child, dir: dir, acct: acct, charge: acct.NewCharge("sort")}
}

// sortIter is ORDER BY within the budget: it buffers and charges rows;
// when the next row does not fit it sorts the buffer into a run on disk
// and starts a new one; at the end it sorts in memory (no run written)
// or spills the last buffer too and merges the runs, ties going to the
// earlier run, so the order is exactly sort.Stable's over all rows.
type sortIter struct {
	fields   sql.SortFields
	child    sql.RowIter
	dir      string
	acct     *budget.Account
	charge   *budget.Charge
	exceeded error // the budget error that made the sort spill

	started bool
	rows    []sql.Row // the buffer; after an in-memory sort, the result
	pos     int
	runs    []*run
	merge   *merger
	spilled int // runs written, intermediate merges included
}

func (s *sortIter) Next(ctx *sql.Context) (sql.Row, error) {
	if !s.started {
		s.started = true
		if err := s.compute(ctx); err != nil {
			return nil, err
		}
	}
	if s.merge != nil {
		return s.merge.next()
	}
	if s.pos >= len(s.rows) {
		return nil, io.EOF
	}
	// Sorted in memory: see groupIter.Next.
	if s.pos%checkEvery == checkEvery-1 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	r := s.rows[s.pos]
	s.rows[s.pos] = nil
	s.pos++
	return r, nil
}

func (s *sortIter) compute(ctx *sql.Context) error {
	for i := 0; ; i++ {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r, err := s.child.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		size := rowSize(r)
		if err := s.charge.Grow(size); err != nil {
			if !errors.Is(err, budget.ErrExceeded) || len(s.rows) == 0 {
				return err // one row alone is past the whole budget
			}
			if s.exceeded == nil {
				s.exceeded = err
			}
			if err := s.spill(ctx); err != nil {
				return err
			}
			if err := s.charge.Grow(size); err != nil {
				return err
			}
		}
		s.rows = append(s.rows, r)
	}
	if len(s.runs) == 0 {
		return sortRows(ctx, s.fields, s.rows)
	}
	if len(s.rows) > 0 {
		if err := s.spill(ctx); err != nil {
			return err
		}
	}
	return s.startMerge(ctx)
}

// spill sorts the buffer into a new run and gives its budget back.
func (s *sortIter) spill(ctx *sql.Context) error {
	if err := sortRows(ctx, s.fields, s.rows); err != nil {
		return err
	}
	w, err := newRunWriter(s.dir)
	if err != nil {
		return err
	}
	for i, r := range s.rows {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				w.abort()
				return err
			}
		}
		if err := w.add(r); err != nil {
			w.abort()
			if errors.Is(err, errUnspillable) {
				return fmt.Errorf("%w; the sort cannot spill to disk: %v", s.exceeded, err)
			}
			return fmt.Errorf("spill sort run: %w", err)
		}
	}
	rn, err := w.finish()
	if err != nil {
		return err
	}
	s.runs = append(s.runs, rn)
	s.spilled++
	clear(s.rows)
	s.rows = s.rows[:0]
	s.charge.Close()
	return nil
}

// startMerge merges runs in passes of at most fanIn until one pass can
// read them all, then streams that last pass.
func (s *sortIter) startMerge(ctx *sql.Context) error {
	s.rows = nil
	fanIn := mergeFanIn(s.acct)
	for len(s.runs) > fanIn {
		merged, err := s.mergeToRun(ctx, s.runs[:fanIn])
		if err != nil {
			return err
		}
		// Merged runs are the earliest rows: they stay first, for ties.
		s.runs = append([]*run{merged}, s.runs[fanIn:]...)
	}
	if err := s.charge.Grow(int64(len(s.runs)) * runBuf); err != nil {
		return err
	}
	m, err := newMerger(ctx, s.fields, s.runs)
	s.merge = m
	return err
}

// mergeToRun merges runs into one new run and closes them.
func (s *sortIter) mergeToRun(ctx *sql.Context, runs []*run) (*run, error) {
	if err := s.charge.Grow(int64(len(runs)+1) * runBuf); err != nil {
		return nil, err
	}
	defer s.charge.Close()
	m, err := newMerger(ctx, s.fields, runs)
	if err != nil {
		return nil, err
	}
	defer m.close()
	w, err := newRunWriter(s.dir)
	if err != nil {
		return nil, err
	}
	for i := 0; ; i++ {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				w.abort()
				return nil, err
			}
		}
		r, err := m.next()
		if errors.Is(err, io.EOF) {
			s.spilled++
			return w.finish()
		}
		if err == nil {
			err = w.add(r)
		}
		if err != nil {
			w.abort()
			return nil, err
		}
	}
}

func (s *sortIter) Close(ctx *sql.Context) error {
	if s.merge != nil {
		s.merge.close()
		s.merge = nil
	}
	for _, r := range s.runs {
		r.close()
	}
	s.runs, s.rows = nil, nil
	s.charge.Close()
	return s.child.Close(ctx)
}

// mergeFanIn is how many runs a merge reads at once: as many read
// buffers as the budget holds beside a writer's, at least 2 (a budget
// below three buffers cannot merge and fails).
func mergeFanIn(a *budget.Account) int {
	if a.Limit() <= 0 {
		return maxFanIn
	}
	return int(max(2, min(maxFanIn, a.Limit()/runBuf-1)))
}

// sorter is GMS's row comparison (expression.Sorter: NULL ordering,
// collations, types' Compare) that also stops on the query's context:
// after KILL QUERY every comparison answers at once and the error comes
// out of LastError.
type sorter struct {
	expression.Sorter
	calls int
}

func (s *sorter) Less(i, j int) bool {
	s.calls++
	if s.calls%(checkEvery*8) == 0 && s.LastError == nil {
		s.LastError = s.Ctx.Err()
	}
	return s.Sorter.Less(i, j)
}

func sortRows(ctx *sql.Context, fields sql.SortFields, rows []sql.Row) error {
	s := &sorter{Sorter: expression.Sorter{SortFields: fields, Rows: rows, Ctx: ctx}}
	sort.Stable(s)
	return s.LastError
}

// merger streams the k-way merge of sorted runs.
type merger struct {
	h    cursorHeap
	runs []*run
}

type cursor struct {
	row sql.Row
	run int
	dec *decoder
}

// cursorHeap orders cursors by their rows, then by run: the rows of an
// earlier run came earlier in the input, so ties keep input order.
type cursorHeap struct {
	cs  []*cursor
	cmp *expression.Sorter // Rows is a two-row scratch slice
}

func (h *cursorHeap) Len() int      { return len(h.cs) }
func (h *cursorHeap) Swap(i, j int) { h.cs[i], h.cs[j] = h.cs[j], h.cs[i] }
func (h *cursorHeap) Push(x any)    { h.cs = append(h.cs, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	c := h.cs[len(h.cs)-1]
	h.cs = h.cs[:len(h.cs)-1]
	return c
}

func (h *cursorHeap) Less(i, j int) bool {
	a, b := h.cs[i], h.cs[j]
	h.cmp.Rows[0], h.cmp.Rows[1] = a.row, b.row
	if h.cmp.Less(0, 1) {
		return true
	}
	return !h.cmp.Less(1, 0) && a.run < b.run
}

func newMerger(ctx *sql.Context, fields sql.SortFields, runs []*run) (*merger, error) {
	m := &merger{runs: runs, h: cursorHeap{cmp: &expression.Sorter{SortFields: fields, Rows: make([]sql.Row, 2), Ctx: ctx}}}
	for i, r := range runs {
		d := r.reader()
		row, err := d.row()
		if errors.Is(err, io.EOF) {
			continue
		}
		if err != nil {
			return m, err
		}
		m.h.cs = append(m.h.cs, &cursor{row: row, run: i, dec: d})
	}
	heap.Init(&m.h)
	return m, m.h.cmp.LastError
}

func (m *merger) next() (sql.Row, error) {
	if len(m.h.cs) == 0 {
		return nil, io.EOF
	}
	c := m.h.cs[0]
	out := c.row
	row, err := c.dec.row()
	switch {
	case errors.Is(err, io.EOF):
		heap.Pop(&m.h)
	case err != nil:
		return nil, err
	default:
		c.row = row
		heap.Fix(&m.h, 0)
	}
	if err := m.h.cmp.LastError; err != nil {
		return nil, err
	}
	return out, nil
}

func (m *merger) close() {
	for _, r := range m.runs {
		r.close()
	}
	m.runs, m.h.cs = nil, nil
}
