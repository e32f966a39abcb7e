package scan

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/shopspring/decimal"
	"golang.org/x/sync/errgroup"

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
}

// AggPlan is a compiled vectorised aggregation: filter conjuncts, group
// keys and aggregates over one table's columns.
type AggPlan struct {
	schema  *schema.Schema
	preds   []Predicate // for pruning files and row groups
	vpreds  []vecPred
	fields  []int // field ids read, in record order
	types   []schema.Type
	groupBy []int // record columns of the group keys
	aggs    []AggSpec
	aggCol  []int // record column per aggregate (-1: none)
	aggExpr []int // output of prog per aggregate (-1: none)
	prog    program
}

// CompileAggregate builds the plan for filters (conjuncts of column op
// literal, BETWEEN, IN, IS [NOT] NULL), GROUP BY columns and aggregates
// over s, or reports false when any part is outside what the vectorised
// path computes exactly as GMS's row path would.
func CompileAggregate(s *schema.Schema, filters []sql.Expression, groupBy []int, aggs []AggSpec) (*AggPlan, bool) {
	p := &AggPlan{schema: s, aggs: aggs}
	colOf := func(id int) (int, schema.Type, bool) {
		c, ok := s.ByID(id)
		if !ok {
			return 0, schema.Type{}, false
		}
		for i, f := range p.fields {
			if f == id {
				return i, c.Type, true
			}
		}
		p.fields = append(p.fields, id)
		p.types = append(p.types, c.Type)
		return len(p.fields) - 1, c.Type, true
	}
	for _, f := range filters {
		for _, c := range splitAnd(f) {
			preds, ok := exactPredicates(s, c)
			if !ok {
				return nil, false
			}
			for _, pr := range preds {
				col, t, ok := colOf(pr.FieldID)
				if !ok || !filterable(t) {
					return nil, false
				}
				vp, ok := compileVecPred(pr, col, t)
				if !ok {
					return nil, false
				}
				p.preds = append(p.preds, pr)
				p.vpreds = append(p.vpreds, vp)
			}
		}
	}
	for _, id := range groupBy {
		col, t, ok := colOf(id)
		c, _ := s.ByID(id)
		if !ok || !groupable(t) || (t.Kind == schema.String && !binaryCollation(c)) {
			return nil, false
		}
		p.groupBy = append(p.groupBy, col)
	}
	bind := func(id int) (int, bool) {
		col, _, ok := colOf(id)
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
	}
	return p, true
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
	// Parallelism bounds the files read at once (default GOMAXPROCS).
	Parallelism int
}

// Stats count what a run read.
type Stats struct {
	Files, FilesRead, RowGroups, RowGroupsRead int
}

// Run executes the plan: prune files, read each remaining file's columns
// (pruning row groups by footer stats) in parallel, filter with selection
// vectors, aggregate per file and merge the partials in file order. Each
// result row is the group keys (in GROUP BY order) then the aggregates.
// Without GROUP BY there is always one row.
func (p *AggPlan) Run(ctx context.Context, in AggInput) ([]sql.Row, Stats, error) {
	files := Prune(in.Files, in.Specs, p.preds)
	st := Stats{Files: len(in.Files), FilesRead: len(files)}
	parts := make([]*partial, len(files))
	rgs := make([][2]int, len(files))
	g, gctx := errgroup.WithContext(ctx)
	par := in.Parallelism
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	g.SetLimit(par)
	for i := range files {
		g.Go(func() error {
			pt, total, read, err := p.runFile(gctx, in.Store, files[i])
			parts[i], rgs[i] = pt, [2]int{total, read}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, st, err
	}
	out := p.newPartial()
	if len(p.groupBy) == 0 {
		out.group0()
	}
	for i, pt := range parts {
		st.RowGroups += rgs[i][0]
		st.RowGroupsRead += rgs[i][1]
		out.mergeFrom(pt)
	}
	return out.rows(), st, nil
}

func (p *AggPlan) runFile(ctx context.Context, store blob.Store, f manifest.DataFile) (*partial, int, int, error) {
	r, err := datafile.OpenWith(ctx, store, f, p.schema, p.fields, datafile.ReadOptions{})
	if err != nil {
		return nil, 0, 0, fmt.Errorf("open %s: %w", f.Path, err)
	}
	defer r.Close()
	stats := r.RowGroupStats()
	keep := p.pruneRowGroups(stats)
	if err := r.SelectRowGroups(keep); err != nil {
		return nil, 0, 0, err
	}
	pt := p.newPartial()
	if len(p.groupBy) == 0 {
		pt.group0()
	}
	var sel, gid []int32
	ev := p.prog.newEvaluator()
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return pt, len(stats), len(keep), nil
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("read %s: %w", f.Path, err)
		}
		n := int(rec.NumRows())
		sel = sel[:0]
		for i := 0; i < n; i++ {
			sel = append(sel, int32(i))
		}
		for _, vp := range p.vpreds {
			if len(sel) == 0 {
				break
			}
			sel = filterSel(rec.Column(vp.col), vp, sel)
		}
		if len(sel) > 0 {
			gid = pt.assign(rec, sel, gid[:0])
			if err := p.update(pt, ev, rec, sel, gid); err != nil {
				rec.Release()
				return nil, 0, 0, fmt.Errorf("read %s: %w", f.Path, err)
			}
		}
		rec.Release()
	}
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

// pruneRowGroups keeps the row groups whose footer stats may hold a
// matching row.
func (p *AggPlan) pruneRowGroups(stats []RowGroupStatsAlias) []int {
	cols := make([]int, len(p.preds))
	for k := range p.preds {
		cols[k] = p.vpreds[k].col
	}
	return keepRowGroups(stats, p.preds, cols)
}

// RowGroupStatsAlias names datafile's row-group stats here.
type RowGroupStatsAlias = datafile.RowGroupStats

// partial is the aggregation state of one file (or the merged result).
type partial struct {
	p     *AggPlan
	index map[string]int32
	keys  [][]any // per group: key values as GMS rows hold them
	encs  []string
	accs  []accum
	buf   []byte
}

func (p *AggPlan) newPartial() *partial {
	pt := &partial{p: p, index: map[string]int32{}}
	for j, a := range p.aggs {
		var t schema.Type
		if c := p.aggCol[j]; c >= 0 {
			t = p.types[c]
		} else if a.Expr != nil {
			t = a.Expr.resultType()
		}
		pt.accs = append(pt.accs, newAccum(a.Kind, t))
	}
	return pt
}

func (pt *partial) group0() {
	pt.index[""] = 0
	pt.keys = append(pt.keys, nil)
	pt.encs = append(pt.encs, "")
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
	for _, i := range sel {
		pt.buf = pt.buf[:0]
		for _, a := range cols {
			pt.buf = encodeKey(pt.buf, a, int(i))
		}
		g, ok := pt.index[string(pt.buf)]
		if !ok {
			g = int32(len(pt.keys))
			enc := string(pt.buf)
			pt.index[enc] = g
			pt.encs = append(pt.encs, enc)
			vals := make([]any, len(cols))
			for k, a := range cols {
				vals[k] = valueAt(a, int(i))
			}
			pt.keys = append(pt.keys, vals)
			for _, acc := range pt.accs {
				acc.grow(len(pt.keys))
			}
		}
		gid = append(gid, g)
	}
	return gid
}

func (pt *partial) mergeFrom(o *partial) {
	remap := make([]int32, len(o.keys))
	for g, enc := range o.encs {
		d, ok := pt.index[enc]
		if !ok {
			d = int32(len(pt.keys))
			pt.index[enc] = d
			pt.encs = append(pt.encs, enc)
			pt.keys = append(pt.keys, o.keys[g])
		}
		remap[g] = d
	}
	for j, a := range pt.accs {
		a.grow(len(pt.keys))
		a.merge(o.accs[j], remap)
	}
}

func (pt *partial) rows() []sql.Row {
	out := make([]sql.Row, len(pt.keys))
	for g := range pt.keys {
		r := make(sql.Row, 0, len(pt.p.groupBy)+len(pt.accs))
		r = append(r, pt.keys[g]...)
		for _, a := range pt.accs {
			r = append(r, a.result(g))
		}
		out[g] = r
	}
	return out
}

// encodeKey appends row i of a, typed, to a group key.
func encodeKey(b []byte, a arrow.Array, i int) []byte {
	if a.IsNull(i) {
		return append(b, 0)
	}
	b = append(b, 1)
	switch x := a.(type) {
	case *array.Int8:
		return binary.LittleEndian.AppendUint64(b, uint64(x.Value(i)))
	case *array.Int16:
		return binary.LittleEndian.AppendUint64(b, uint64(x.Value(i)))
	case *array.Int32:
		return binary.LittleEndian.AppendUint64(b, uint64(x.Value(i)))
	case *array.Int64:
		return binary.LittleEndian.AppendUint64(b, uint64(x.Value(i)))
	case *array.Uint8:
		return binary.LittleEndian.AppendUint64(b, uint64(x.Value(i)))
	case *array.Uint16:
		return binary.LittleEndian.AppendUint64(b, uint64(x.Value(i)))
	case *array.Uint32:
		return binary.LittleEndian.AppendUint64(b, uint64(x.Value(i)))
	case *array.Uint64:
		return binary.LittleEndian.AppendUint64(b, x.Value(i))
	case *array.Date32:
		return binary.LittleEndian.AppendUint64(b, uint64(x.Value(i)))
	case *array.Timestamp:
		return binary.LittleEndian.AppendUint64(b, uint64(x.Value(i)))
	case *array.Decimal128:
		v := x.Value(i)
		b = binary.LittleEndian.AppendUint64(b, v.LowBits())
		return binary.LittleEndian.AppendUint64(b, uint64(v.HighBits()))
	case *array.String:
		s := x.Value(i)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		return append(b, s...)
	}
	return b
}

// valueAt is row i of a as scan's row path (fillColumn) produces it.
func valueAt(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch x := a.(type) {
	case *array.Int8:
		return x.Value(i)
	case *array.Int16:
		return x.Value(i)
	case *array.Int32:
		return x.Value(i)
	case *array.Int64:
		return x.Value(i)
	case *array.Uint8:
		return x.Value(i)
	case *array.Uint16:
		return x.Value(i)
	case *array.Uint32:
		return x.Value(i)
	case *array.Uint64:
		return x.Value(i)
	case *array.Float32:
		return x.Value(i)
	case *array.Float64:
		return x.Value(i)
	case *array.Date32:
		return time.Unix(int64(x.Value(i))*86400, 0).UTC()
	case *array.Timestamp:
		return timestampValue(int64(x.Value(i)), x.DataType().(*arrow.TimestampType).Unit)
	case *array.Decimal128:
		return decimal.NewFromBigInt(x.Value(i).BigInt(), -x.DataType().(*arrow.Decimal128Type).Scale)
	case *array.String:
		return string([]byte(x.Value(i)))
	}
	return nil
}
