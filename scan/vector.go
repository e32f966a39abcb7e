package scan

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/shopspring/decimal"
	"golang.org/x/sync/errgroup"

	"github.com/lakesql/lakesql/budget"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// AggSpec is one aggregate of a vectorised aggregation.
type AggSpec struct {
	Kind    AggKind
	FieldID int   // the column aggregated; unused for AggCountStar or with Expr
	Expr    *Expr // an expression aggregated instead of a column
	// Scale is the result's scale for SUM and AVG over integers and
	// DECIMALs, which answer an exact DECIMAL (MySQL's type, the row
	// path's mysqlfix.Sum and Avg).
	Scale int32
}

// AggPlan is a compiled vectorised aggregation: filter conjuncts, group
// keys and aggregates over one table's columns.
type AggPlan struct {
	schema  *schema.Schema
	preds   []Predicate // for pruning files and row groups
	vpreds  []vecPred
	cpreds  []colPred // comparisons of two columns (joins and their build sides only)
	fields  []int     // field ids read, in record order
	types   []schema.Type
	groupBy []int // record columns of the group keys
	aggs    []AggSpec
	aggCol  []int // record column per aggregate (-1: none)
	aggExpr []int // output of prog per aggregate (-1: none)
	prog    program
	// keyTypes are the group keys' column types; seed hashes them (one
	// per plan, so partials merge by stored hashes).
	keyTypes []schema.Type
	seed     maphash.Seed
	// dictFields are the string columns used only as group keys: read
	// dictionary-encoded, their keys are coded once per dictionary value
	// instead of once per row (no per-value string copy either).
	dictFields []int
	// rawDecimals are the DECIMAL fields read as unscaled int64 values
	// where the files store them so (datafile.ReadOptions.RawDecimals).
	rawDecimals []int
}

// CompileAggregate builds the plan for filters (conjuncts of column op
// literal, BETWEEN, IN, IS [NOT] NULL), GROUP BY columns and aggregates
// over s, or reports false when any part is outside what the vectorised
// path computes exactly as GMS's row path would.
func CompileAggregate(s *schema.Schema, filters []sql.Expression, groupBy []int, aggs []AggSpec) (*AggPlan, bool) {
	p := &AggPlan{schema: s, aggs: aggs}
	colOf := p.column
	if !p.addFilters(filters) {
		return nil, false
	}
	for _, id := range groupBy {
		col, t, ok := colOf(id)
		c, _ := s.ByID(id)
		if !ok || !groupable(t) || (t.Kind == schema.String && !binaryCollation(c)) {
			return nil, false
		}
		p.groupBy = append(p.groupBy, col)
		p.keyTypes = append(p.keyTypes, t)
	}
	p.seed = maphash.MakeSeed()
	used := map[int]bool{} // record columns read other than as group keys
	for _, vp := range p.vpreds {
		used[vp.col] = true
	}
	bind := func(id int) (int, bool) {
		col, _, ok := colOf(id)
		used[col] = true
		return col, ok
	}
	for _, a := range aggs {
		if a.Kind == AggCountStar {
			p.aggCol, p.aggExpr = append(p.aggCol, -1), append(p.aggExpr, -1)
			continue
		}
		if a.Expr != nil {
			k, ok := p.prog.add(a.Expr, bind)
			if !ok || !supportsAgg(a.Kind, a.Expr.resultType()) {
				return nil, false
			}
			if (a.Kind == AggMin || a.Kind == AggMax) && !a.Expr.goTyped() {
				return nil, false
			}
			p.aggCol, p.aggExpr = append(p.aggCol, -1), append(p.aggExpr, k)
			continue
		}
		p.aggExpr = append(p.aggExpr, -1)
		col, t, ok := colOf(a.FieldID)
		c, _ := s.ByID(a.FieldID)
		if !ok || !supportsAgg(a.Kind, t) || (t.Kind == schema.String && !binaryCollation(c)) {
			return nil, false
		}
		p.aggCol = append(p.aggCol, col)
		used[col] = true
	}
	for k, col := range p.groupBy {
		if p.keyTypes[k].Kind == schema.String && !used[col] {
			p.dictFields = append(p.dictFields, p.fields[col])
		}
	}
	p.rawDecimals = rawDecimals(p)
	return p, true
}

// rawDecimals are the DECIMAL fields only filtered, summed, averaged,
// counted or computed on: those consumers take a DECIMAL's unscaled int64
// values as well as Decimal128 (group keys, MIN/MAX and COUNT(DISTINCT)
// need Decimal128).
func rawDecimals(p *AggPlan) []int {
	strict := map[int]bool{}
	for _, col := range p.groupBy {
		strict[col] = true
	}
	for j, a := range p.aggs {
		if col := p.aggCol[j]; col >= 0 && a.Kind != AggCount && a.Kind != AggSum && a.Kind != AggAvg {
			strict[col] = true
		}
	}
	var ids []int
	for col, id := range p.fields {
		if p.types[col].Kind == schema.Decimal && !strict[col] {
			ids = append(ids, id)
		}
	}
	return ids
}

// column is the record column reading field id, added to the fields read
// on first use, and its type.
func (p *AggPlan) column(id int) (int, schema.Type, bool) {
	c, ok := p.schema.ByID(id)
	if !ok {
		return 0, schema.Type{}, false
	}
	if i := slices.Index(p.fields, id); i >= 0 {
		return i, c.Type, true
	}
	p.fields = append(p.fields, id)
	p.types = append(p.types, c.Type)
	return len(p.fields) - 1, c.Type, true
}

// addFilters compiles filters (conjuncts of column op literal, BETWEEN,
// IN, IS [NOT] NULL) into pruning predicates and vector predicates, or
// reports false when any conjunct is not one the kernels decide exactly.
func (p *AggPlan) addFilters(filters []sql.Expression) bool {
	return p.addFiltersWith(filters, false)
}

// addFiltersWith is addFilters that, with columns, also takes
// comparisons of two columns (into cpreds, which the caller applies:
// selectColumns).
func (p *AggPlan) addFiltersWith(filters []sql.Expression, columns bool) bool {
	for _, f := range filters {
		for _, c := range splitAnd(f) {
			preds, ok := exactPredicates(p.schema, c)
			if !ok && columns {
				cp, ok := p.columnComparison(c)
				if !ok {
					return false
				}
				p.cpreds = append(p.cpreds, cp)
				continue
			}
			if !ok {
				return false
			}
			for _, pr := range preds {
				col, t, ok := p.column(pr.FieldID)
				if !ok || !filterable(t) {
					return false
				}
				vp, ok := compileVecPred(pr, col, t)
				if !ok {
					return false
				}
				p.preds = append(p.preds, pr)
				p.vpreds = append(p.vpreds, vp)
			}
		}
	}
	return true
}

func filterable(t schema.Type) bool {
	switch t.Kind {
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32, schema.Uint64,
		schema.Float32, schema.Float64, schema.Decimal, schema.String, schema.Date, schema.Timestamp:
		return true
	}
	return false
}

func groupable(t schema.Type) bool {
	switch t.Kind {
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32, schema.Uint64,
		schema.Decimal, schema.String, schema.Date, schema.Timestamp:
		return true
	}
	return false
}

// exactPredicates translates one conjunct completely, or reports false.
func exactPredicates(s *schema.Schema, e sql.Expression) ([]Predicate, bool) {
	want := 1
	switch x := e.(type) {
	case *expression.Between:
		want = 2
	case *expression.HashInTuple:
		// Same semantics as InTuple for exact, in-domain literals (no
		// floats: hashing does not treat NaN as equal to everything).
		col, isCol := column(s, x.Children()[0])
		if !isCol || col.Type.Kind == schema.Float32 || col.Type.Kind == schema.Float64 {
			return nil, false
		}
		tup, ok := x.Children()[1].(expression.Tuple)
		if !ok {
			return nil, false
		}
		e = expression.NewInTuple(x.Children()[0], tup)
	case *expression.InTuple:
		if col, ok := column(s, x.Left()); ok && (col.Type.Kind == schema.Float32 || col.Type.Kind == schema.Float64) {
			return nil, false
		}
	case *expression.Not:
		if _, ok := x.Child.(*expression.IsNull); !ok {
			return nil, false
		}
	case *expression.IsNull:
	case expression.Comparer:
		if _, ok := compareOp(x); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	preds := predicate(s, e)
	return preds, len(preds) == want
}

// AggInput is where an aggregation reads from.
type AggInput struct {
	Store blob.Store
	Files []manifest.DataFile // unpruned: Run prunes them
	Specs []partition.Spec
	// Prune prunes Files (nil: Prune, building the bounds every run).
	Prune PruneFunc
	// Parallelism bounds the files read at once (default GOMAXPROCS).
	Parallelism int
	// Mem recycles decode buffers across batches, files and queries
	// (nil: a pool for this run only).
	Mem *datafile.BufferPool
	// Footers caches decoded file footers across queries (nil: none).
	Footers *datafile.FooterCache
	// Profile, if set, records what the run read (EXPLAIN ANALYZE).
	Profile *Profile
}

// resources returns what a run over in reads with, defaulting what in
// leaves unset: the files read at once (GOMAXPROCS), the decode-buffer
// pool (one for this run only) and the source over in's store and caches.
func (in AggInput) resources() (par int, mem *datafile.BufferPool, src source) {
	par = in.Parallelism
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	mem = in.Mem
	if mem == nil {
		mem = datafile.NewBufferPool(datafile.DefaultPoolBytes)
	}
	return par, mem, source{store: in.Profile.store(in.Store), mem: in.Profile.alloc(mem), footers: in.Footers}
}

// Stats count what a run read.
type Stats struct {
	Files, FilesRead, RowGroups, RowGroupsRead int
	// RowGroupsDictPruned is the row groups the footer stats kept that
	// the dictionary of an = or IN column ruled out (not read).
	RowGroupsDictPruned int
	// Rows is the rows of the row groups read, RowsSkipped those of them
	// the page index ruled out (never decoded).
	Rows, RowsSkipped int64
	// PageIndexUnreadable is the row groups read whole because their
	// page index is damaged (a file to check with `lakesql fsck`).
	PageIndexUnreadable int
}

// add accumulates o into st.
func (st *Stats) add(o Stats) {
	st.Files += o.Files
	st.FilesRead += o.FilesRead
	st.RowGroups += o.RowGroups
	st.RowGroupsRead += o.RowGroupsRead
	st.RowGroupsDictPruned += o.RowGroupsDictPruned
	st.Rows += o.Rows
	st.RowsSkipped += o.RowsSkipped
	st.PageIndexUnreadable += o.PageIndexUnreadable
}

// Run executes the plan: prune files, read each remaining file's columns
// (pruning row groups by footer stats) in parallel, filter with selection
// vectors, aggregate per file and merge the partials in file order. Each
// result row is the group keys (in GROUP BY order) then the aggregates.
// Without GROUP BY there is always one row.
func (p *AggPlan) Run(ctx context.Context, in AggInput) ([]sql.Row, Stats, error) {
	return p.run(ctx, in, p.runFile)
}

// fileRunner aggregates row groups rgs of a data file (nil: all) into a
// partial, counting what it read.
type fileRunner func(ctx context.Context, src source, f manifest.DataFile, rgs []int, ev *evaluator) (*partial, Stats, error)

// unit is a share of a scan's work: row groups rgs of file (nil: all).
type unit struct {
	file int
	rgs  []int
}

// units splits the files into work for par workers: a file each, and,
// when there are fewer than two files per worker, the files of several
// row groups cut into row-group ranges (their footers read through the
// cache), so that one big file is still read in parallel. The units are
// in scan order, so merging their partials in order is deterministic.
func units(ctx context.Context, src source, files []manifest.DataFile, par int) []unit {
	out := make([]unit, 0, len(files))
	per := (2*par + len(files) - 1) / max(len(files), 1) // ranges per file
	for i, f := range files {
		n := 1
		if per > 1 {
			// An unreadable footer reads as one unit: reading it reports.
			n, _ = datafile.NumRowGroups(ctx, src.store, f, src.footers)
		}
		k := min(n, per)
		if k < 2 {
			out = append(out, unit{file: i})
			continue
		}
		for c := range k {
			lo, hi := c*n/k, (c+1)*n/k
			rgs := make([]int, 0, hi-lo)
			for rg := lo; rg < hi; rg++ {
				rgs = append(rgs, rg)
			}
			out = append(out, unit{file: i, rgs: rgs})
		}
	}
	return out
}

// source is where a scan reads its data files from, with the engine's
// shared caches.
type source struct {
	store   blob.Store
	mem     memory.Allocator // decode buffers (nil: the Go heap)
	footers *datafile.FooterCache
	prof    *Profile // what the scan read (nil: not profiled)
}

// open opens f with opts, through src's caches.
func (src source) open(ctx context.Context, f manifest.DataFile, s *schema.Schema, ids []int, opts datafile.ReadOptions) (*datafile.Reader, error) {
	opts.Mem, opts.Footers = src.mem, src.footers
	return datafile.OpenWith(ctx, src.store, f, s, ids, opts)
}

// run is Run with each file aggregated by runFile.
func (p *AggPlan) run(ctx context.Context, in AggInput, runFile fileRunner) ([]sql.Row, Stats, error) {
	out := p.newPartial(ctx)
	defer out.charge.Close()
	if len(p.groupBy) == 0 {
		out.group0()
	}
	st, err := p.runInto(ctx, in, runFile, out)
	if err != nil {
		return nil, st, err
	}
	return out.rows(), st, nil
}

// runInto aggregates in's files into out, a partial of p or of a plan
// with the same groups and aggregates (a partitioned join's passes all
// merge into one).
func (p *AggPlan) runInto(ctx context.Context, in AggInput, runFile fileRunner, out *partial) (Stats, error) {
	defer in.Profile.start(true)()
	files := pruneWith(in.Prune, in.Files, in.Specs, p.preds)
	in.Profile.pruned(in.Files, files, in.Specs, p.preds)
	st := Stats{Files: len(in.Files), FilesRead: len(files)}
	defer func() { in.Profile.addStats(st) }()
	// The aggregates copy what they keep from a batch, so its buffers
	// can be recycled once it is released.
	par, mem, src := in.resources()
	work := units(ctx, src, files, par)
	pr := progressFrom(ctx)
	pr.plan(len(files))
	// A large file is read as several units: it is done with its last.
	unitsLeft := make([]atomic.Int32, len(files))
	for _, u := range work {
		unitsLeft[u.file].Add(1)
	}
	parts := make([]*partial, len(work))
	fst := make([]Stats, len(work))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(par)
	// Evaluators hold batch-sized buffers: reuse them across files, and
	// give the buffers back to mem at the end.
	evs := evaluators{p: &p.prog, mem: mem}
	defer evs.release()
	for i, u := range work {
		goSafe(g, func() error {
			ev := evs.get()
			defer evs.put(ev)
			pt, fs, err := runFile(gctx, src, files[u.file], u.rgs, ev)
			parts[i], fst[i] = pt, fs
			if unitsLeft[u.file].Add(-1) == 0 {
				pr.fileDone()
			}
			return err
		})
	}
	defer func() {
		for _, pt := range parts {
			if pt != nil {
				pt.charge.Close()
			}
		}
	}()
	if err := g.Wait(); err != nil {
		return st, err
	}
	for _, pt := range parts {
		if pt.rejected() {
			return st, fmt.Errorf("%w: an aggregate met a value GMS's row path rejects", ErrOverflow)
		}
	}
	for i, pt := range parts {
		st.add(fst[i])
		out.mergeFrom(pt)
		pt.charge.Close() // merged: its groups are out's now
		if out.err != nil {
			return st, out.err
		}
	}
	return st, nil
}

// runFile aggregates row groups rgs of a file (nil: all), pruning them by
// footer stats and their pages by the page index; the Stats count those
// row groups and their rows.
func (p *AggPlan) runFile(ctx context.Context, src source, f manifest.DataFile, rgs []int, ev *evaluator) (*partial, Stats, error) {
	r, st, err := p.openPruned(ctx, src, f, datafile.ReadOptions{RowGroups: rgs, DictFields: p.dictFields, RawDecimals: p.rawDecimals})
	if err != nil {
		return nil, Stats{}, err
	}
	defer r.Close()
	pt := p.newPartial(ctx)
	if len(p.groupBy) == 0 {
		pt.group0()
	}
	var sel, gid []int32
	for {
		if err := ctx.Err(); err != nil { // KILL QUERY
			pt.charge.Close()
			return nil, Stats{}, err
		}
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return pt, st, nil
		}
		if err != nil {
			return nil, Stats{}, fmt.Errorf("read %s: %w", f.Path, err)
		}
		sel = selectRows(rec, p.vpreds, sel)
		if len(sel) > 0 {
			gid = pt.assign(rec, sel, gid[:0])
			if pt.err != nil {
				rec.Release()
				pt.charge.Close()
				return nil, Stats{}, pt.err
			}
			err := p.update(pt, ev, rec, sel, gid)
			if pt.chargeAccs(); err == nil {
				err = pt.err
			}
			if err != nil {
				rec.Release()
				pt.charge.Close()
				return nil, Stats{}, fmt.Errorf("read %s: %w", f.Path, err)
			}
		}
		rec.Release()
	}
}

// openPruned opens f for the plan's columns with its row groups (those of
// opts.RowGroups, nil: all) pruned by footer stats and their pages by the
// page index.
func (p *AggPlan) openPruned(ctx context.Context, src source, f manifest.DataFile, opts datafile.ReadOptions) (*datafile.Reader, Stats, error) {
	r, err := src.open(ctx, f, p.schema, p.fields, opts)
	if err != nil {
		return nil, Stats{}, fmt.Errorf("open %s: %w", f.Path, err)
	}
	stats := r.RowGroupStats() // all the file's: selectPages indexes them by row group
	mine := stats
	if opts.RowGroups != nil {
		mine = make([]datafile.RowGroupStats, 0, len(opts.RowGroups))
		for _, rg := range opts.RowGroups {
			mine = append(mine, stats[rg])
		}
	}
	keep, dictPruned := p.pruneRowGroups(r, mine)
	if err := r.SelectRowGroups(keep); err != nil {
		r.Close()
		return nil, Stats{}, err
	}
	pp, err := selectPages(r, stats, keep, p.preds, p.predColumns())
	if err != nil {
		r.Close()
		return nil, Stats{}, err
	}
	return r, Stats{RowGroups: len(mine), RowGroupsRead: len(keep), RowGroupsDictPruned: dictPruned, Rows: pp.rows, RowsSkipped: pp.skipped, PageIndexUnreadable: pp.unreadable}, nil
}

// update feeds the selected rows of rec into pt's accumulators.
func (p *AggPlan) update(pt *partial, ev *evaluator, rec arrow.Record, sel, gid []int32) error {
	if len(p.prog.nodes) > 0 {
		if err := ev.eval(rec, sel); err != nil {
			return err
		}
	}
	n := int(rec.NumRows())
	for j, a := range pt.accs {
		var col arrow.Array
		if c := p.aggCol[j]; c >= 0 {
			col = rec.Column(c)
		} else if k := p.aggExpr[j]; k >= 0 {
			col = ev.output(k, n)
			a.update(col, sel, gid)
			col.Release()
			continue
		}
		a.update(col, sel, gid)
	}
	return nil
}

// pruneRowGroups keeps the row groups of r whose footer stats and
// dictionaries may hold a matching row (keepRowGroups).
func (p *AggPlan) pruneRowGroups(r *datafile.Reader, stats []RowGroupStatsAlias) (keep []int, dictPruned int) {
	return keepRowGroups(r, stats, p.preds, p.predColumns())
}

// predColumns is the index of each predicate's column among the columns
// read.
func (p *AggPlan) predColumns() []int {
	cols := make([]int, len(p.preds))
	for k := range p.preds {
		cols[k] = p.vpreds[k].col
	}
	return cols
}

// RowGroupStatsAlias names datafile's row-group stats here.
type RowGroupStatsAlias = datafile.RowGroupStats

// partial is the aggregation state of one file (or the merged result).
type partial struct {
	p    *AggPlan
	tab  groupTable
	accs []accum
	hbuf []uint64
	// charge holds the partial's groups against the query's budget; err
	// is the budget error of the first group that did not fit.
	charge *budget.Charge
	err    error
	// accBytes is what the accumulators holding per-value state have
	// been charged for (heldBytes).
	accBytes int64
}

// newPartial makes an empty partial whose groups are charged to ctx's
// query budget.
func (p *AggPlan) newPartial(ctx context.Context) *partial {
	pt := &partial{p: p, charge: budget.From(ctx).NewCharge("aggregation")}
	pt.tab.init(p.keyTypes, p.seed)
	for j, a := range p.aggs {
		var t schema.Type
		if c := p.aggCol[j]; c >= 0 {
			t = p.types[c]
		} else if a.Expr != nil {
			t = a.Expr.resultType()
		}
		pt.accs = append(pt.accs, newAccum(a.Kind, t, a.Scale))
	}
	return pt
}

// groupBytes estimates what one group holds: its key columns in the
// table, hash, slots and accumulator cells.
func (p *AggPlan) groupBytes() int64 {
	return 24 + 24*int64(len(p.keyTypes)) + 24*int64(len(p.aggs))
}

// charged charges the groups added since the table had before of them.
func (pt *partial) charged(before int) {
	if pt.err == nil && pt.tab.n > before {
		pt.err = pt.charge.Grow(int64(pt.tab.n-before) * pt.p.groupBytes())
	}
}

// holder is an accumulator whose state grows with the values it meets,
// not only with the groups (COUNT(DISTINCT)'s set): heldBytes estimates
// it.
type holder interface{ heldBytes() int64 }

// chargeAccs charges what the holding accumulators grew by.
func (pt *partial) chargeAccs() {
	if pt.err != nil {
		return
	}
	var n int64
	for _, a := range pt.accs {
		if h, ok := a.(holder); ok {
			n += h.heldBytes()
		}
	}
	if n > pt.accBytes {
		if pt.err = pt.charge.Grow(n - pt.accBytes); pt.err == nil {
			pt.accBytes = n
		}
	}
}

// group0 creates the single group of an aggregation without GROUP BY.
func (pt *partial) group0() {
	pt.tab.n = 1
	for _, a := range pt.accs {
		a.grow(1)
	}
}

// assign returns the group of every selected row, creating groups.
func (pt *partial) assign(rec arrow.Record, sel, gid []int32) []int32 {
	if len(pt.p.groupBy) == 0 {
		for range sel {
			gid = append(gid, 0)
		}
		return gid
	}
	cols := make([]arrow.Array, len(pt.p.groupBy))
	for k, c := range pt.p.groupBy {
		cols[k] = rec.Column(c)
	}
	if cap(pt.hbuf) < len(sel) {
		pt.hbuf = make([]uint64, len(sel))
	}
	h := pt.hbuf[:len(sel)]
	pt.tab.hashRows(cols, sel, h)
	return pt.groups(h, gid)
}

// groups appends to gid the group of each key hashed into h (in the
// table's batch), adding new groups and growing the accumulators.
func (pt *partial) groups(h []uint64, gid []int32) []int32 {
	before := pt.tab.n
	gid = pt.tab.findOrAdd(pt.tab.batch, h, gid)
	if pt.tab.n != before {
		for _, acc := range pt.accs {
			acc.grow(pt.tab.n)
		}
		pt.charged(before)
	}
	return gid
}

func (pt *partial) mergeFrom(o *partial) {
	before := pt.tab.n
	defer pt.chargeAccs()
	defer pt.charged(before)
	remap := pt.tab.mergeKeys(&o.tab)
	for j, a := range pt.accs {
		a.grow(pt.tab.n)
		a.merge(o.accs[j], remap)
	}
}

func (pt *partial) rows() []sql.Row {
	out := make([]sql.Row, pt.tab.n)
	for g := range out {
		r := make(sql.Row, 0, len(pt.p.groupBy)+len(pt.accs))
		for k := range pt.tab.keys {
			r = append(r, pt.tab.value(k, g))
		}
		for _, a := range pt.accs {
			r = append(r, a.result(g))
		}
		out[g] = r
	}
	return out
}

// keyVals is one group-key column in canonical form, indexed by row of a
// batch or by group: integers, dates and unsigned values as int64 bits,
// DECIMALs and timestamps (seconds, nanoseconds) in 128 bits, strings.
type keyVals struct {
	ints []int64 // integers; for strings, their code (strCode)
	wide []decimal128.Num
	strs []string // strings longer than 7 bytes (others: only the code)
	null []bool   // nil: none NULL (batches only)
}

// longStr marks the code of a string longer than 7 bytes, whose low bits
// are a hash: only those compare as strings.
const longStr = 0xFF << 56

// strCode is s packed with its length when it is at most 7 bytes (equal
// codes: equal strings), else longStr and a hash of s.
func strCode(seed maphash.Seed, s []byte) uint64 {
	if len(s) > 7 {
		return longStr | maphash.Bytes(seed, s)&(1<<56-1)
	}
	x := uint64(len(s)) << 56
	for i, c := range s {
		x |= uint64(c) << (8 * i)
	}
	return x
}

// sized is s with length n, contents unspecified.
func sized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func (kv *keyVals) isNull(k int) bool { return kv.null != nil && kv.null[k] }

// keyForm is how a column type's keys are held: 'i', 'w' or 's'.
func keyForm(t schema.Type) byte {
	switch t.Kind {
	case schema.Decimal, schema.Timestamp:
		return 'w'
	case schema.String:
		return 's'
	}
	return 'i'
}

// groupTable maps group keys to dense group ids by open addressing
// (linear probing) on a 64-bit hash of the typed key columns; keys are
// compared typed, never encoded to bytes.
type groupTable struct {
	types []schema.Type
	forms []byte
	seed  maphash.Seed
	keys  []keyVals // stored keys, by group
	hash  []uint64  // by group
	slots []int32   // group+1; 0: empty
	n     int       // groups
	batch []keyVals // scratch: the current batch's keys, by position in sel
}

func (t *groupTable) init(types []schema.Type, seed maphash.Seed) {
	t.types, t.seed = types, seed
	t.keys = make([]keyVals, len(types))
	t.batch = make([]keyVals, len(types))
	for _, ty := range types {
		t.forms = append(t.forms, keyForm(ty))
	}
	t.slots = make([]int32, 64)
}

// hashRows extracts rows sel of cols into t.batch and hashes them into h.
func (t *groupTable) hashRows(cols []arrow.Array, sel []int32, h []uint64) {
	for k := range h {
		h[k] = 0x9E3779B97F4A7C15
	}
	for c, a := range cols {
		kv := &t.batch[c]
		extractKeys(kv, a, sel, t.seed)
		hashKeys(kv, t.forms[c], h)
	}
	for k := range h {
		h[k] = fmix64(h[k])
	}
}

func extractKeys(kv *keyVals, a arrow.Array, sel []int32, seed maphash.Seed) {
	n := len(sel)
	if a.NullN() > 0 {
		kv.null = sized(kv.null[:cap(kv.null)], n)
		for k, i := range sel {
			kv.null[k] = a.IsNull(int(i))
		}
	} else {
		kv.null = nil
	}
	switch x := a.(type) {
	case *array.Dictionary:
		extractDictKeys(kv, x, sel, seed)
	case *array.String:
		kv.ints = sized(kv.ints, n)
		offs, data := x.ValueOffsets(), x.ValueBytes()
		for k, i := range sel {
			code := strCode(seed, data[offs[i]:offs[i+1]])
			kv.ints[k] = int64(code)
			if code&longStr == longStr {
				kv.strs = sized(kv.strs[:cap(kv.strs)], n)
				kv.strs[k] = x.Value(int(i))
			}
		}
	case *array.Decimal128:
		kv.wide = sized(kv.wide, n)
		v := x.Values()
		for k, i := range sel {
			kv.wide[k] = v[i]
		}
	case *array.Timestamp:
		kv.wide = sized(kv.wide, n)
		unit := x.DataType().(*arrow.TimestampType).Unit
		v := x.TimestampValues()
		for k, i := range sel {
			ts := timestampValue(int64(v[i]), unit)
			kv.wide[k] = decimal128.New(ts.Unix(), uint64(ts.Nanosecond()))
		}
	default:
		kv.ints = sized(kv.ints, n)
		switch x := a.(type) {
		case *array.Int8:
			gatherInts(kv.ints, x.Int8Values(), sel)
		case *array.Int16:
			gatherInts(kv.ints, x.Int16Values(), sel)
		case *array.Int32:
			gatherInts(kv.ints, x.Int32Values(), sel)
		case *array.Int64:
			gatherInts(kv.ints, x.Int64Values(), sel)
		case *array.Uint8:
			gatherInts(kv.ints, x.Uint8Values(), sel)
		case *array.Uint16:
			gatherInts(kv.ints, x.Uint16Values(), sel)
		case *array.Uint32:
			gatherInts(kv.ints, x.Uint32Values(), sel)
		case *array.Uint64:
			gatherInts(kv.ints, x.Uint64Values(), sel)
		case *array.Date32:
			gatherInts(kv.ints, x.Date32Values(), sel)
		default: // all NULL
			clear(kv.ints)
		}
	}
	if a.NullN() == a.Len() {
		kv.ints, kv.wide = sized(kv.ints, n), sized(kv.wide, n)
		clear(kv.ints)
		clear(kv.wide)
	}
}

// extractDictKeys codes a dictionary-encoded string column: each
// dictionary value once, then each row by its index.
func extractDictKeys(kv *keyVals, x *array.Dictionary, sel []int32, seed maphash.Seed) {
	n := len(sel)
	kv.ints = sized(kv.ints, n)
	dict, ok := x.Dictionary().(*array.String)
	if !ok || dict.Len() == 0 {
		clear(kv.ints) // no values: every row is NULL
		return
	}
	codes := make([]int64, dict.Len())
	long := false
	offs, data := dict.ValueOffsets(), dict.ValueBytes()
	for v := range codes {
		code := strCode(seed, data[offs[v]:offs[v+1]])
		codes[v] = int64(code)
		long = long || code&longStr == longStr
	}
	idx := x.Indices().(*array.Int32).Int32Values()
	if long {
		kv.strs = sized(kv.strs[:cap(kv.strs)], n)
	}
	for k, i := range sel {
		v := idx[i]
		if kv.isNull(k) || v < 0 || int(v) >= len(codes) {
			kv.ints[k] = 0 // as a NULL of a String array codes: hashes agree
			continue
		}
		kv.ints[k] = codes[v]
		if long && uint64(codes[v])&longStr == longStr {
			kv.strs[k] = dict.Value(int(v))
		}
	}
}

func gatherInts[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | arrow.Date32](dst []int64, v []T, sel []int32) {
	for k, i := range sel {
		dst[k] = int64(v[i])
	}
}

const nullHash = 0x5bd1e9955bd1e995

func mix(h, x uint64) uint64 {
	return bits.RotateLeft64((h^x)*0xff51afd7ed558ccd, 31)
}

func fmix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// hashKeys mixes column kv (of form f) into h.
func hashKeys(kv *keyVals, f byte, h []uint64) {
	switch f {
	case 'i', 's':
		for k := range h {
			h[k] = mix(h[k], uint64(kv.ints[k]))
		}
	case 'w':
		for k := range h {
			h[k] = mix(mix(h[k], kv.wide[k].LowBits()), uint64(kv.wide[k].HighBits()))
		}
	}
	if kv.null != nil {
		for k := range h {
			if kv.null[k] {
				h[k] = mix(h[k], nullHash)
			}
		}
	}
}

// eq reports whether row k of batch equals stored group g.
func (t *groupTable) eq(batch []keyVals, k int, g int32) bool {
	for c := range batch {
		b, s := &batch[c], &t.keys[c]
		bn, sn := b.isNull(k), s.null[g]
		if bn || sn {
			if bn != sn {
				return false
			}
			continue
		}
		switch t.forms[c] {
		case 'i':
			if b.ints[k] != s.ints[g] {
				return false
			}
		case 'w':
			if b.wide[k] != s.wide[g] {
				return false
			}
		case 's':
			if b.ints[k] != s.ints[g] || uint64(b.ints[k])&longStr == longStr && b.strs[k] != s.strs[g] {
				return false
			}
		}
	}
	return true
}

// findOrAdd appends to gid the group of each row of batch (hashes h),
// adding new groups.
func (t *groupTable) findOrAdd(batch []keyVals, h []uint64, gid []int32) []int32 {
	for k, hk := range h {
		mask := uint64(len(t.slots) - 1)
		s := hk & mask
		for {
			e := t.slots[s]
			if e == 0 {
				g := t.add(batch, k, hk)
				t.slots[s] = g + 1
				gid = append(gid, g)
				if 2*t.n > len(t.slots) {
					t.rehash()
				}
				break
			}
			if g := e - 1; t.hash[g] == hk && t.eq(batch, k, g) {
				gid = append(gid, g)
				break
			}
			s = (s + 1) & mask
		}
	}
	return gid
}

func (t *groupTable) add(batch []keyVals, k int, hk uint64) int32 {
	for c := range batch {
		b, s := &batch[c], &t.keys[c]
		s.null = append(s.null, b.isNull(k))
		switch t.forms[c] {
		case 'i':
			s.ints = append(s.ints, b.ints[k])
		case 'w':
			s.wide = append(s.wide, b.wide[k])
		case 's':
			s.ints = append(s.ints, b.ints[k])
			var long string
			if uint64(b.ints[k])&longStr == longStr {
				long = strings.Clone(b.strs[k]) // the batch is released
			}
			s.strs = append(s.strs, long)
		}
	}
	t.hash = append(t.hash, hk)
	t.n++
	return int32(t.n - 1)
}

func (t *groupTable) rehash() {
	t.slots = make([]int32, 2*len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for g, hk := range t.hash {
		s := hk & mask
		for t.slots[s] != 0 {
			s = (s + 1) & mask
		}
		t.slots[s] = int32(g) + 1
	}
}

// mergeKeys adds o's groups and returns the receiver's group of each.
func (t *groupTable) mergeKeys(o *groupTable) []int32 {
	if len(t.keys) == 0 { // no GROUP BY: one group
		return make([]int32, o.n)
	}
	return t.findOrAdd(o.keys, o.hash, make([]int32, 0, o.n))
}

// value is group g's key column c as scan's row path (fillColumn)
// produces it.
func (t *groupTable) value(c, g int) any {
	kv := &t.keys[c]
	if kv.null[g] {
		return nil
	}
	ty := t.types[c]
	switch t.forms[c] {
	case 's':
		code := uint64(kv.ints[g])
		if code&longStr == longStr {
			return kv.strs[g]
		}
		b := make([]byte, code>>56)
		for i := range b {
			b[i] = byte(code >> (8 * i))
		}
		return string(b)
	case 'w':
		w := kv.wide[g]
		if ty.Kind == schema.Timestamp {
			return time.Unix(w.HighBits(), int64(w.LowBits())).UTC()
		}
		return decimal.NewFromBigInt(w.BigInt(), -int32(ty.Scale))
	}
	x := kv.ints[g]
	switch ty.Kind {
	case schema.Int8:
		return int8(x)
	case schema.Int16:
		return int16(x)
	case schema.Int32:
		return int32(x)
	case schema.Uint8:
		return uint8(x)
	case schema.Uint16:
		return uint16(x)
	case schema.Uint32:
		return uint32(x)
	case schema.Uint64:
		return uint64(x)
	case schema.Date:
		return time.Unix(x*86400, 0).UTC()
	}
	return x
}
