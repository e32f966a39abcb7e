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
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/shopspring/decimal"
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
	files := pruneWith(in.Prune, in.Files, in.Specs, p.filter.preds)
	par := in.Parallelism
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	par = max(1, min(par, len(files)))
	// No buffer pool: fetched rows keep strings pointing into batches.
	src := source{store: in.Store, footers: in.Footers}
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
	g.Go(func() error {
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
		g.Go(func() error {
			for i := range next {
				worst, known := th.get()
				if b, ok := p.fileBounds(&files[i]); ok && !p.mayEnter(worst, known, b) {
					continue
				}
				if err := p.scanFile(gctx, src, files[i], i, h, &th); err != nil {
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

// threshold is the tightest first-key value known to sort at or before
// the k-th best row: the worst of any worker's full heap. Safe for
// concurrent use.
type threshold struct {
	mu  sync.Mutex
	set bool
	v   keyVal
}

func (t *threshold) get() (keyVal, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.v, t.set
}

// offerThreshold tightens t with the worst first key of h, once full.
func (p *TopNPlan) offerThreshold(t *threshold, h *topHeap) {
	if !h.full() {
		return
	}
	v := h.items[0].keys[0]
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.set || cmpKey(p.keys[0], p.types[p.keyCol[0]], &v, &t.v) < 0 {
		t.v, t.set = v, true
	}
}

// bounds are what footer or manifest statistics say of the first key in
// a row group or file: lo and hi in the stats domain (nil: unknown).
type bounds struct {
	allNull bool
	nulls   int64 // -1: unknown
	lo, hi  any
}

func rowGroupBounds(t schema.Type, cs datafile.ColumnStats) bounds {
	b := bounds{allNull: cs.Missing, nulls: cs.NullCount}
	if cs.Min != nil {
		b.lo = domainValue(t, cs.Min)
	}
	if cs.Max != nil {
		b.hi = domainValue(t, cs.Max)
	}
	return b
}

// fileBounds reads the manifest's statistics of the first key, or false.
func (p *TopNPlan) fileBounds(f *manifest.DataFile) (bounds, bool) {
	if f.StatsState != "" && f.StatsState != manifest.StatsProvided {
		return bounds{}, false
	}
	st, ok := statsFor(f, p.keys[0].FieldID, p.types[p.keyCol[0]])
	if !ok {
		return bounds{}, false
	}
	return bounds{
		allNull: st.values > 0 && st.nulls == st.values,
		nulls:   st.nulls,
		lo:      st.lower,
		hi:      st.upper,
	}, true
}

// judged reports whether bounds of the first key may skip data: only
// integer, decimal, date and timestamp keys (float bounds leave NaN out,
// which must reach the NaN check; string bounds may be absent).
func (p *TopNPlan) judged() bool {
	switch p.types[p.keyCol[0]].Kind {
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32, schema.Uint64,
		schema.Decimal, schema.Date, schema.Timestamp:
		return true
	}
	return false
}

// mayEnter reports whether data with first-key bounds b may hold a row
// that is not strictly after the threshold worst on the first key alone
// (so might beat it on the other keys or scan order).
func (p *TopNPlan) mayEnter(worst keyVal, known bool, b bounds) bool {
	if !known || worst.null || !p.judged() {
		return true
	}
	k, t := p.keys[0], p.types[p.keyCol[0]]
	if b.allNull {
		return k.NullsFirst // all NULL: they win only if NULLs come first
	}
	if k.NullsFirst && b.nulls != 0 {
		return true
	}
	w, ok := keyDomain(t, worst)
	if !ok {
		return true
	}
	bound := b.lo
	if k.Desc {
		bound = b.hi
	}
	if bound == nil {
		return true
	}
	c, ok := compare(bound, w)
	if !ok {
		return true
	}
	if k.Desc {
		return c >= 0 // the largest value is not below the worst
	}
	return c <= 0
}

// scanOrder orders the files to read most promising first: by the
// manifest's best first-key bound (files without one first), so the
// threshold tightens early and later files skip on their bounds alone.
// Ties break on scan order, which the result never depends on.
func (p *TopNPlan) scanOrder(files []manifest.DataFile) []int {
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	if !p.judged() {
		return order
	}
	k := p.keys[0]
	best := make([]any, len(files)) // nil: unknown, or NULLs that may come first
	for i := range files {
		b, ok := p.fileBounds(&files[i])
		switch {
		case !ok || (k.NullsFirst && b.nulls != 0):
		case k.Desc:
			best[i] = b.hi
		default:
			best[i] = b.lo
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := best[a], best[b]
		switch {
		case x == nil && y == nil:
			return 0
		case x == nil:
			return -1
		case y == nil:
			return 1
		}
		c, ok := compare(x, y)
		if !ok {
			return 0
		}
		if k.Desc {
			return -c
		}
		return c
	})
	return order
}

// keyDomain converts a key value to the stats comparison domain (see
// colStats), for the kinds mayEnter judges.
func keyDomain(t schema.Type, v keyVal) (any, bool) {
	switch t.Kind {
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32:
		return v.i, true
	case schema.Uint64:
		if v.u > math.MaxInt64 {
			return nil, false
		}
		return int64(v.u), true
	case schema.Date:
		return v.i * 86400 * 1e6, true
	case schema.Timestamp:
		return v.i, true // microseconds: datafile.ArrowType
	case schema.Decimal:
		return decimal.NewFromBigInt(v.d.BigInt(), -int32(t.Scale)), true
	}
	return nil, false
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
		g.Go(func() error {
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

// keyCol reads sort key values from one record column.
type keyCol interface {
	isNull(i int) bool
	// cmp orders the (non-NULL) value of row i against a non-NULL v.
	cmp(i int, v *keyVal) int
	get(i int) keyVal
}

func newKeyCol(a arrow.Array) (keyCol, error) {
	var c keyCol
	switch x := a.(type) {
	case *array.Int8:
		c = intCol[int8]{x, x.Int8Values()}
	case *array.Int16:
		c = intCol[int16]{x, x.Int16Values()}
	case *array.Int32:
		c = intCol[int32]{x, x.Int32Values()}
	case *array.Int64:
		c = intCol[int64]{x, x.Int64Values()}
	case *array.Uint8:
		c = intCol[uint8]{x, x.Uint8Values()}
	case *array.Uint16:
		c = intCol[uint16]{x, x.Uint16Values()}
	case *array.Uint32:
		c = intCol[uint32]{x, x.Uint32Values()}
	case *array.Date32:
		c = intCol[arrow.Date32]{x, x.Date32Values()}
	case *array.Timestamp:
		c = intCol[arrow.Timestamp]{x, x.TimestampValues()}
	case *array.Uint64:
		c = uintCol{x, x.Uint64Values()}
	case *array.Float32:
		c = floatCol{a: x, f32: x.Float32Values()}
	case *array.Float64:
		c = floatCol{a: x, f64: x.Float64Values()}
	case *array.Decimal128:
		c = decCol{x}
	case *array.String:
		c = strCol{x}
	case *array.Boolean:
		c = boolCol{x}
	default:
		return nil, fmt.Errorf("scan: no sort key reader for Arrow array %s", a.DataType())
	}
	return c, nil
}

type intCol[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | arrow.Date32 | arrow.Timestamp] struct {
	a nullable
	v []T
}

func (c intCol[T]) isNull(i int) bool        { return c.a.IsNull(i) }
func (c intCol[T]) cmp(i int, v *keyVal) int { return cmp3(int64(c.v[i]), v.i) }
func (c intCol[T]) get(i int) keyVal {
	if c.a.IsNull(i) {
		return keyVal{null: true}
	}
	return keyVal{i: int64(c.v[i])}
}

type uintCol struct {
	a *array.Uint64
	v []uint64
}

func (c uintCol) isNull(i int) bool        { return c.a.IsNull(i) }
func (c uintCol) cmp(i int, v *keyVal) int { return cmp3(c.v[i], v.u) }
func (c uintCol) get(i int) keyVal {
	if c.a.IsNull(i) {
		return keyVal{null: true}
	}
	return keyVal{u: c.v[i]}
}

// floatCol compares as GMS does: equal, less, else greater (so -0 and 0
// tie). NaN never gets here: offer refuses it first.
type floatCol struct {
	a   arrow.Array
	f32 []float32
	f64 []float64
}

func (c floatCol) at(i int) float64 {
	if c.f32 != nil {
		return float64(c.f32[i])
	}
	return c.f64[i]
}

func (c floatCol) hasNaN(sel []int32) bool {
	for _, i := range sel {
		if !c.a.IsNull(int(i)) && math.IsNaN(c.at(int(i))) {
			return true
		}
	}
	return false
}

func (c floatCol) isNull(i int) bool        { return c.a.IsNull(i) }
func (c floatCol) cmp(i int, v *keyVal) int { return cmp3(c.at(i), v.f) }
func (c floatCol) get(i int) keyVal {
	if c.a.IsNull(i) {
		return keyVal{null: true}
	}
	return keyVal{f: c.at(i)}
}

type decCol struct{ a *array.Decimal128 }

func (c decCol) isNull(i int) bool        { return c.a.IsNull(i) }
func (c decCol) cmp(i int, v *keyVal) int { return c.a.Value(i).Cmp(v.d) }
func (c decCol) get(i int) keyVal {
	if c.a.IsNull(i) {
		return keyVal{null: true}
	}
	return keyVal{d: c.a.Value(i)}
}

type strCol struct{ a *array.String }

func (c strCol) isNull(i int) bool        { return c.a.IsNull(i) }
func (c strCol) cmp(i int, v *keyVal) int { return strings.Compare(c.a.Value(i), v.s) }
func (c strCol) get(i int) keyVal {
	if c.a.IsNull(i) {
		return keyVal{null: true}
	}
	return keyVal{s: strings.Clone(c.a.Value(i))} // the batch's buffer is released
}

type boolCol struct{ a *array.Boolean }

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (c boolCol) isNull(i int) bool        { return c.a.IsNull(i) }
func (c boolCol) cmp(i int, v *keyVal) int { return cmp3(b2i(c.a.Value(i)), v.i) }
func (c boolCol) get(i int) keyVal {
	if c.a.IsNull(i) {
		return keyVal{null: true}
	}
	return keyVal{i: b2i(c.a.Value(i))}
}
