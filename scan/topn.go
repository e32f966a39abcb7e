package scan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/dolthub/go-mysql-server/sql"
	"golang.org/x/sync/errgroup"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// ErrTopNRowPath is returned by TopNPlan.Run when the data holds a value
// whose order GMS's row path does not define as a total order (a NaN sort
// key: GMS compares NaN as greater than everything, both ways, so the full
// sort's result depends on its algorithm). The caller runs the row path.
var ErrTopNRowPath = errors.New("scan: top-N needs the row path")

// TopNKey is one ORDER BY column of a top-N.
type TopNKey struct {
	FieldID int
	Desc    bool
	// NullsFirst: NULLs come before every value in the result (MySQL:
	// ascending keys; descending keys put them last).
	NullsFirst bool
}

// TopNPlan is a compiled ORDER BY … LIMIT over one table: exact filter
// conjuncts, plain-column sort keys, the columns returned.
type TopNPlan struct {
	schema *schema.Schema
	filter *AggPlan // filter predicates; its fields lead the first pass's columns
	keys   []TopNKey
	fields []int // first-pass field ids: filter columns, then key columns
	types  []schema.Type
	keyCol []int // first-pass column of each key
	out    []int // field ids returned, in order
	// outCol is each returned column's first-pass column, or -1 when it is
	// fetched for the winners only.
	outCol []int
	// firstCols and firstTypes are the first-pass columns returned.
	firstCols  []int
	firstTypes []schema.Type
	limit      int64
	offset     int64
}

// CompileTopN builds the plan for the rows offset..offset+limit of the
// rows of s passing filters (conjuncts as CompileAggregate takes them),
// ordered by keys, returning the columns out. It reports false when a
// filter, key type or column is outside what it computes exactly as GMS's
// row path would (strings must compare byte-wise: the caller checks the
// collation).
func CompileTopN(s *schema.Schema, filters []sql.Expression, keys []TopNKey, out []int, limit, offset int64) (*TopNPlan, bool) {
	if len(keys) == 0 || limit < 0 || offset < 0 || limit > math.MaxInt32 || offset > math.MaxInt32 {
		return nil, false
	}
	f, ok := CompileAggregate(s, filters, nil, nil)
	if !ok {
		return nil, false
	}
	p := &TopNPlan{schema: s, filter: f, keys: keys, out: out, limit: limit, offset: offset}
	p.fields = append(p.fields, f.fields...)
	p.types = append(p.types, f.types...)
	colOf := func(id int) int {
		for i, x := range p.fields {
			if x == id {
				return i
			}
		}
		return -1
	}
	for _, k := range keys {
		c, ok := s.ByID(k.FieldID)
		if !ok || !sortable(c.Type) {
			return nil, false
		}
		col := colOf(k.FieldID)
		if col < 0 {
			col = len(p.fields)
			p.fields = append(p.fields, k.FieldID)
			p.types = append(p.types, c.Type)
		}
		p.keyCol = append(p.keyCol, col)
	}
	for _, id := range out {
		if _, ok := s.ByID(id); !ok {
			return nil, false
		}
		c := colOf(id)
		p.outCol = append(p.outCol, c)
		if c >= 0 {
			p.firstCols = append(p.firstCols, c)
			p.firstTypes = append(p.firstTypes, p.types[c])
		}
	}
	return p, true
}

func sortable(t schema.Type) bool {
	switch t.Kind {
	case schema.Bool, schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32, schema.Uint64,
		schema.Float32, schema.Float64, schema.Decimal, schema.String, schema.Date, schema.Timestamp:
		return true
	}
	return false
}

// TopNInput is where a top-N reads from.
type TopNInput struct {
	Store blob.Store
	Files []manifest.DataFile // unpruned, in the table's order: Run prunes them
	Specs []partition.Spec
	// Prune prunes Files (nil: Prune, building the bounds every run).
	Prune PruneFunc
	// Parallelism bounds the files read at once (default GOMAXPROCS).
	Parallelism int
	// Footers caches decoded file footers across queries (nil: none).
	Footers *datafile.FooterCache
	// Profile, if set, records what the run read (EXPLAIN ANALYZE).
	Profile *Profile
}

// Run returns the plan's rows, with the values and Go types the row path
// (fillColumn) produces, ordered as GMS's stable sort orders the rows in
// scan order (files in order, rows in file order): ties keep that order.
// It prunes files and row groups by the filters; workers then read the key
// columns of the files, most promising first (scanOrder), each into a
// bounded heap, skipping files and row groups whose first-key bounds
// cannot beat the tightest heap threshold yet; the heaps are merged, and
// the remaining columns are read for the winners only. A NaN sort key is
// ErrTopNRowPath. Stats count the files and row groups the first pass
// read.
func (p *TopNPlan) Run(ctx context.Context, in TopNInput) ([]sql.Row, Stats, error) {
	st := Stats{Files: len(in.Files)}
	k := p.limit + p.offset
	if k == 0 {
		return nil, st, nil
	}
	defer in.Profile.start(true)()
	files := pruneWith(in.Prune, in.Files, in.Specs, p.filter.preds)
	in.Profile.pruned(in.Files, files, in.Specs, p.filter.preds)
	defer func() { in.Profile.addStats(st) }()
	progressFrom(ctx).plan(len(files))
	par := in.Parallelism
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	par = max(1, min(par, len(files)))
	// No buffer pool: fetched rows keep strings pointing into batches.
	src := source{store: in.Profile.store(in.Store), mem: in.Profile.alloc(nil), footers: in.Footers, prof: in.Profile}
	heaps, err := p.firstPass(ctx, src, files, par, int(k))
	if err != nil {
		return nil, st, err
	}
	var all []*topItem
	for _, h := range heaps {
		all = append(all, h.items...)
		st.add(h.st)
	}
	slices.SortFunc(all, p.cmpItems)
	lo, hi := min(int(p.offset), len(all)), min(int(k), len(all))
	win := all[lo:hi]
	if err := p.fetch(ctx, src, files, win, par); err != nil {
		return nil, st, err
	}
	rows := make([]sql.Row, len(win))
	for i, it := range win {
		rows[i] = it.vals
	}
	return rows, st, nil
}

// firstPass runs par workers over files, each keeping its best k rows.
func (p *TopNPlan) firstPass(ctx context.Context, src source, files []manifest.DataFile, par, k int) ([]*topHeap, error) {
	heaps := make([]*topHeap, par)
	next := make(chan int)
	var th threshold
	g, gctx := errgroup.WithContext(ctx)
	goSafe(g, func() error {
		defer close(next)
		for _, i := range p.scanOrder(files) {
			select {
			case next <- i:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	for w := range heaps {
		h := &topHeap{p: p, k: k}
		heaps[w] = h
		goSafe(g, func() error {
			for i := range next {
				worst, known := th.get()
				if b, ok := p.fileBounds(&files[i]); ok && !p.mayEnter(worst, known, b) {
					// The file's bounds cannot beat the rows found.
					src.prof.skipped()
					progressFrom(gctx).fileDone()
					continue
				}
				err := p.scanFile(gctx, src, files[i], i, h, &th)
				progressFrom(gctx).fileDone()
				if err != nil {
					return err
				}
				p.offerThreshold(&th, h)
			}
			return nil
		})
	}
	return heaps, g.Wait()
}

// topItem is a candidate row: its key values, where it is, and its
// returned values (those of the first pass until fetch fills the rest).
type topItem struct {
	keys []keyVal
	file int   // index in the pruned files
	rg   int   // row group in the file
	row  int64 // row in the row group
	vals sql.Row
}

// keyVal is one sort key value, in the representation of its column's
// Arrow array: i for signed integers, booleans, dates (days) and
// timestamps (the array's unit); u for uint64; f for floats; d for
// decimals (unscaled at the column's scale); s for strings.
type keyVal struct {
	null bool
	i    int64
	u    uint64
	f    float64
	d    decimal128.Num
	s    string
}

// cmpItems orders candidates as the result does: keys, then scan order.
func (p *TopNPlan) cmpItems(a, b *topItem) int {
	for j, k := range p.keys {
		if c := cmpKey(k, p.types[p.keyCol[j]], &a.keys[j], &b.keys[j]); c != 0 {
			return c
		}
	}
	if a.file != b.file {
		return cmpOrdered(int64(a.file), int64(b.file))
	}
	if a.rg != b.rg {
		return cmpOrdered(int64(a.rg), int64(b.rg))
	}
	return cmpOrdered(a.row, b.row)
}

// cmpKey orders two values of key k as GMS's Sorter does (NULLs by
// k.NullsFirst, then the type's comparison, reversed for DESC).
func cmpKey(k TopNKey, t schema.Type, a, b *keyVal) int {
	switch {
	case a.null && b.null:
		return 0
	case a.null:
		return nullOrder(k)
	case b.null:
		return -nullOrder(k)
	}
	var c int
	switch t.Kind {
	case schema.Uint64:
		c = cmp3(a.u, b.u)
	case schema.Float32, schema.Float64:
		c = cmp3(a.f, b.f)
	case schema.Decimal:
		c = a.d.Cmp(b.d)
	case schema.String:
		c = strings.Compare(a.s, b.s)
	default:
		c = cmp3(a.i, b.i)
	}
	if k.Desc {
		return -c
	}
	return c
}

func nullOrder(k TopNKey) int {
	if k.NullsFirst {
		return -1
	}
	return 1
}

// cmpKeyVals orders two first-key values.
func (p *TopNPlan) cmpKeyVals(a, b keyVal) int {
	return cmpKey(p.keys[0], p.types[p.keyCol[0]], &a, &b)
}

// topHeap keeps the k best candidates seen by one worker, the worst at
// the root.
type topHeap struct {
	p     *TopNPlan
	k     int
	items []*topItem
	sel   []int32 // the worker's selection vector, reused
	st    Stats   // what the worker read (Files unused)
}

func (h *topHeap) full() bool { return len(h.items) >= h.k }

// worse reports whether item i sorts after item j.
func (h *topHeap) worse(i, j int) bool { return h.p.cmpItems(h.items[i], h.items[j]) > 0 }

func (h *topHeap) push(it *topItem) {
	h.items = append(h.items, it)
	for i := len(h.items) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h.worse(i, parent) {
			break
		}
		h.items[i], h.items[parent] = h.items[parent], h.items[i]
		i = parent
	}
}

// replaceRoot puts it in place of the worst candidate.
func (h *topHeap) replaceRoot(it *topItem) {
	h.items[0] = it
	n := len(h.items)
	for i := 0; ; {
		w, l, r := i, 2*i+1, 2*i+2
		if l < n && h.worse(l, w) {
			w = l
		}
		if r < n && h.worse(r, w) {
			w = r
		}
		if w == i {
			return
		}
		h.items[i], h.items[w] = h.items[w], h.items[i]
		i = w
	}
}

// scanFile offers the rows of file fi passing the filters to h.
func (p *TopNPlan) scanFile(ctx context.Context, src source, f manifest.DataFile, fi int, h *topHeap, th *threshold) error {
	r, err := src.open(ctx, f, p.schema, p.fields, datafile.ReadOptions{BatchRows: batchRows(f, 64*1024)})
	if err != nil {
		return fmt.Errorf("open %s: %w", f.Path, err)
	}
	defer r.Close()
	stats := r.RowGroupStats()
	worst, known := th.get()
	if h.full() && (!known || p.cmpKeyVals(h.items[0].keys[0], worst) < 0) {
		worst, known = h.items[0].keys[0], true
	}
	// The cheap cut first (no I/O): row groups whose first key cannot
	// enter the heap; then the filters' stats and dictionaries.
	t := p.types[p.keyCol[0]]
	cand := slices.DeleteFunc(slices.Clone(stats), func(rg datafile.RowGroupStats) bool {
		return !p.mayEnter(worst, known, rowGroupBounds(t, rg.Columns[p.keyCol[0]]))
	})
	keep, dictPruned := p.filter.pruneRowGroups(r, cand)
	if err := r.SelectRowGroups(keep); err != nil {
		return err
	}
	pp, err := selectPages(r, stats, keep, p.filter.preds, p.filter.predColumns())
	if err != nil {
		return err
	}
	h.st.FilesRead++
	h.st.RowGroups += len(stats)
	h.st.RowGroupsRead += len(keep)
	h.st.Rows += pp.rows
	h.st.RowsSkipped += pp.skipped
	h.st.PageIndexUnreadable += pp.unreadable
	h.st.RowGroupsDictPruned += dictPruned
	cols := make([]keyCol, len(p.keys))
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", f.Path, err)
		}
		n := rec.NumRows()
		if n == 0 {
			rec.Release()
			continue
		}
		rg, base := r.Position()
		sel := selectRows(rec, p.filter.vpreds, h.sel)
		h.sel = sel
		for j := range p.keys {
			if cols[j], err = newKeyCol(rec.Column(p.keyCol[j])); err != nil {
				break
			}
		}
		if err == nil {
			err = p.offer(h, rec, cols, sel, fi, rg, base)
		}
		rec.Release()
		if err != nil {
			return fmt.Errorf("read %s: %w", f.Path, err)
		}
	}
}

// offer pushes the selected rows of rec that beat h's worst candidate.
func (p *TopNPlan) offer(h *topHeap, rec arrow.Record, cols []keyCol, sel []int32, fi, rg int, base int64) error {
	for _, c := range cols {
		if fc, ok := c.(floatCol); ok && fc.hasNaN(sel) {
			return ErrTopNRowPath
		}
	}
	for _, i := range sel {
		if h.full() {
			// Files come in scan order or not (scanOrder): a tie on the
			// keys goes to the row earlier in scan order.
			root := h.items[0]
			c := p.cmpRow(cols, int(i), root.keys)
			if c > 0 || (c == 0 && !scanBefore(fi, rg, base+int64(i), root)) {
				continue
			}
		}
		it := &topItem{file: fi, rg: rg, row: base + int64(i), keys: make([]keyVal, len(cols))}
		for j, c := range cols {
			it.keys[j] = c.get(int(i))
		}
		vals, err := p.firstPassValues(rec, int(i))
		if err != nil {
			return err
		}
		it.vals = vals
		if h.full() {
			h.replaceRoot(it)
		} else {
			h.push(it)
		}
	}
	return nil
}

// scanBefore reports whether the row at (fi, rg, row) comes before it in
// scan order.
func scanBefore(fi, rg int, row int64, it *topItem) bool {
	if fi != it.file {
		return fi < it.file
	}
	if rg != it.rg {
		return rg < it.rg
	}
	return row < it.row
}

// cmpRow orders row i of cols against key values.
func (p *TopNPlan) cmpRow(cols []keyCol, i int, keys []keyVal) int {
	for j, c := range cols {
		k := p.keys[j]
		var r int
		switch xn, yn := c.isNull(i), keys[j].null; {
		case xn && yn:
			continue
		case xn:
			return nullOrder(k)
		case yn:
			return -nullOrder(k)
		default:
			r = c.cmp(i, &keys[j])
		}
		if k.Desc {
			r = -r
		}
		if r != 0 {
			return r
		}
	}
	return 0
}

// firstPassValues converts the returned columns the first pass read, for
// row i of rec, with the row path's conversion; the others stay nil.
func (p *TopNPlan) firstPassValues(rec arrow.Record, i int) (sql.Row, error) {
	vals := make(sql.Row, len(p.out))
	if len(p.firstCols) == 0 {
		return vals, nil
	}
	one := rec.NewSlice(int64(i), int64(i)+1)
	defer one.Release()
	rows, err := RecordRows(one, p.firstCols, p.firstTypes)
	if err != nil {
		return nil, err
	}
	k := 0
	for j, c := range p.outCol {
		if c >= 0 {
			vals[j] = rows[0][k]
			k++
		}
	}
	return vals, nil
}

// fetch fills the returned columns the first pass did not read, reading
// only the winners' files and row groups, and each file only up to its
// last winner.
func (p *TopNPlan) fetch(ctx context.Context, src source, files []manifest.DataFile, win []*topItem, par int) error {
	var ids []int
	var types []schema.Type
	var dst []int // index in vals of each fetched column
	for j, c := range p.outCol {
		if c < 0 {
			col, _ := p.schema.ByID(p.out[j])
			ids, types, dst = append(ids, p.out[j]), append(types, col.Type), append(dst, j)
		}
	}
	if len(ids) == 0 || len(win) == 0 {
		return nil
	}
	byFile := map[int][]*topItem{}
	var order []int
	for _, it := range win {
		if _, ok := byFile[it.file]; !ok {
			order = append(order, it.file)
		}
		byFile[it.file] = append(byFile[it.file], it)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(par)
	for _, fi := range order {
		goSafe(g, func() error {
			return fetchFile(gctx, src, files[fi], p.schema, ids, types, dst, byFile[fi])
		})
	}
	return g.Wait()
}

func fetchFile(ctx context.Context, src source, f manifest.DataFile, s *schema.Schema, ids []int, types []schema.Type, dst []int, items []*topItem) error {
	slices.SortFunc(items, func(a, b *topItem) int {
		if a.rg != b.rg {
			return cmpOrdered(int64(a.rg), int64(b.rg))
		}
		return cmpOrdered(a.row, b.row)
	})
	var rgs []int
	ranges := map[int][]datafile.RowRange{} // the winners' rows, by row group
	for _, it := range items {
		if len(rgs) == 0 || rgs[len(rgs)-1] != it.rg {
			rgs = append(rgs, it.rg)
		}
		rs := ranges[it.rg]
		if k := len(rs) - 1; k >= 0 && it.row <= rs[k].End {
			rs[k].End = max(rs[k].End, it.row+1)
		} else {
			rs = append(rs, datafile.RowRange{Start: it.row, End: it.row + 1})
		}
		ranges[it.rg] = rs
	}
	// Small batches: decoding stops soon after the last winner.
	r, err := src.open(ctx, f, s, ids, datafile.ReadOptions{RowGroups: rgs, BatchRows: batchRows(f, 8192)})
	if err != nil {
		return fmt.Errorf("open %s: %w", f.Path, err)
	}
	defer r.Close()
	// Only the pages holding the winners are decoded, where the file
	// has an offset index (else each row group reads up to its winners).
	for _, rg := range rgs {
		if err := r.SelectRows(rg, ranges[rg]); err != nil {
			return err
		}
	}
	cols := make([]int, len(ids))
	for j := range cols {
		cols[j] = j
	}
	for len(items) > 0 {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("read %s: %w: row group %d ended before row %d", f.Path, datafile.ErrBadFile, items[0].rg, items[0].row)
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", f.Path, err)
		}
		n := rec.NumRows()
		if n == 0 {
			rec.Release()
			continue
		}
		rg, base := r.Position()
		for len(items) > 0 && items[0].rg == rg && items[0].row < base+n {
			it := items[0]
			one := rec.NewSlice(it.row-base, it.row-base+1)
			rows, err := RecordRows(one, cols, types)
			one.Release()
			if err != nil {
				rec.Release()
				return fmt.Errorf("read %s: %w", f.Path, err)
			}
			for j, d := range dst {
				it.vals[d] = rows[0][j]
			}
			items = items[1:]
		}
		rec.Release()
	}
	return nil
}

// batchRows is the record size for reading f: at most limit, and no more
// than the file holds (the decoder reserves a whole batch per record).
func batchRows(f manifest.DataFile, limit int64) int64 {
	return max(1, min(limit, f.RecordCount))
}
