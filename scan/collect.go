package scan

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"golang.org/x/sync/errgroup"

	"github.com/lakesql/lakesql/budget"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// CollectPlan is a compiled filtered read of some of a table's columns
// into memory: a join's build side read on column vectors instead of
// GMS's row path.
type CollectPlan struct {
	agg  *AggPlan // the filters and the fields read
	out  []int    // record column per output column
	cols []schema.Column
	part *collectPart // nil: every matching row
}

// CompileCollect builds the plan for filters (conjuncts of column op
// literal, BETWEEN, IN, IS [NOT] NULL, as CompileAggregate takes them,
// and comparisons of two columns)
// and the output fields, or reports false when a filter is outside what
// the kernels decide exactly.
func CompileCollect(s *schema.Schema, filters []sql.Expression, fields []int) (*CollectPlan, bool) {
	p := &AggPlan{schema: s}
	if !p.addFiltersWith(filters, true) {
		return nil, false
	}
	cp := &CollectPlan{agg: p}
	for _, id := range fields {
		col, _, ok := p.column(id)
		c, _ := s.ByID(id)
		if !ok {
			return nil, false
		}
		cp.out = append(cp.out, col)
		cp.cols = append(cp.cols, c)
	}
	return cp, true
}

// Collect reads the rows matching the filters, pruning files, row groups
// and pages like AggPlan.Run, and returns their output fields as one
// record, in scan order, charged to charge; ok is false when the files
// hold a column in different Arrow types. When the rows do not fit the
// query's memory budget it returns the budget's error (errors.Is
// budget.ErrExceeded) and holds nothing.
func (cp *CollectPlan) Collect(ctx context.Context, in AggInput, charge *budget.Charge) (rec arrow.Record, st Stats, ok bool, err error) {
	p := cp.agg
	defer in.Profile.start(true)()
	files := pruneWith(in.Prune, in.Files, in.Specs, p.preds)
	in.Profile.pruned(in.Files, files, in.Specs, p.preds)
	st = Stats{Files: len(in.Files), FilesRead: len(files)}
	defer func() { in.Profile.addStats(st) }()
	par, _, src := in.resources()
	work := units(ctx, src, files, par)
	parts := make([][]arrow.Record, len(work))
	// Each unit charges what it takes (a Charge is one worker's); the
	// record concatenated from them is charge's.
	taken := make([]*budget.Charge, len(work))
	defer func() {
		for i, recs := range parts {
			for _, r := range recs {
				r.Release()
			}
			taken[i].Close()
		}
	}()
	fst := make([]Stats, len(work))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(par)
	for i, u := range work {
		taken[i] = budget.From(ctx).NewCharge("hash join build")
		goSafe(g, func() error {
			var err error
			parts[i], fst[i], err = cp.collectUnit(gctx, src, files[u.file].Path, u, files, taken[i])
			return err
		})
	}
	err = g.Wait()
	for i := range fst {
		st.add(fst[i])
	}
	if err != nil {
		return nil, st, false, err
	}
	var n int64
	for _, c := range taken {
		n += c.Held()
	}
	if err := charge.Grow(n); err != nil { // the concatenated copy
		return nil, st, false, err
	}
	rec, ok = cp.concat(parts)
	return rec, st, ok, nil
}

// collectUnit reads one unit's matching rows (of cp's partition, if
// any), each batch's output columns taken into memory of their own (the
// batch's buffers are recycled) and charged to charge.
func (cp *CollectPlan) collectUnit(ctx context.Context, src source, path string, u unit, files []manifest.DataFile, charge *budget.Charge) ([]arrow.Record, Stats, error) {
	p := cp.agg
	r, st, err := p.openPruned(ctx, src, files[u.file], datafile.ReadOptions{RowGroups: u.rgs})
	if err != nil {
		return nil, Stats{}, err
	}
	defer r.Close()
	var out []arrow.Record
	var sel []int32
	hasher := cp.part.hasher()
	for {
		batch, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, st, nil
		}
		if err == nil {
			sel = selectColumns(batch, p.cpreds, selectRows(batch, p.vpreds, sel))
			sel = cp.part.keep(hasher, batch, sel)
			var taken arrow.Record
			if len(sel) > 0 {
				taken, err = cp.take(ctx, batch, sel)
			}
			batch.Release()
			if taken != nil {
				out = append(out, taken)
				err = charge.Grow(RecordBytes(taken))
			}
		}
		if err != nil {
			for _, r := range out {
				r.Release()
			}
			if errors.Is(err, budget.ErrExceeded) {
				return nil, st, err
			}
			return nil, Stats{}, fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// take copies rows sel of the output columns of batch.
func (cp *CollectPlan) take(ctx context.Context, batch arrow.Record, sel []int32) (arrow.Record, error) {
	ib := array.NewInt32Builder(memory.DefaultAllocator)
	ib.AppendValues(sel, nil)
	idx := ib.NewArray()
	ib.Release()
	defer idx.Release()
	cols := make([]arrow.Array, 0, len(cp.out))
	fields := make([]arrow.Field, 0, len(cp.out))
	for _, c := range cp.out {
		a, err := compute.TakeArray(ctx, batch.Column(c), idx)
		if err != nil {
			for _, x := range cols {
				x.Release()
			}
			return nil, err
		}
		cols = append(cols, a)
		fields = append(fields, arrow.Field{Name: batch.ColumnName(c), Type: a.DataType(), Nullable: true})
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(len(sel)))
	for _, a := range cols {
		a.Release()
	}
	return rec, nil
}

// concat joins the units' records in scan order into one, or reports
// false when their files hold a column in different Arrow types.
func (cp *CollectPlan) concat(parts [][]arrow.Record) (arrow.Record, bool) {
	var recs []arrow.Record
	for _, p := range parts {
		recs = append(recs, p...)
	}
	if len(recs) == 0 {
		sch := datafile.ArrowSchema(&schema.Schema{Columns: cp.cols})
		cols := make([]arrow.Array, len(cp.cols))
		for k, f := range sch.Fields() {
			cols[k] = array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, 0)
			defer cols[k].Release()
		}
		return array.NewRecord(sch, cols, 0), true
	}
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	cols := make([]arrow.Array, len(cp.out))
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for k := range cp.out {
		arrs := make([]arrow.Array, len(recs))
		for i, r := range recs {
			arrs[i] = r.Column(k)
		}
		for _, a := range arrs[1:] {
			if !arrow.TypeEqual(a.DataType(), arrs[0].DataType()) {
				return nil, false
			}
		}
		a, err := array.Concatenate(arrs, memory.DefaultAllocator)
		if err != nil {
			return nil, false
		}
		cols[k] = a
	}
	return array.NewRecord(recs[0].Schema(), cols, n), true
}
