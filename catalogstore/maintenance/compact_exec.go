package maintenance

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// sortBatchRows bounds the slices of a sorted bin fed to the output sink.
const sortBatchRows = 64 * 1024

// executor is the execute step of one compaction pass.
type executor struct {
	ctx     context.Context
	cat     *catalogstore.Catalog
	ds      *catalogstore.Dataset
	cfg     Config
	lease   *Lease
	plan    *Plan
	renewed time.Time

	written   []string // every key an output was (or may have been) written to
	outputs   []manifest.DataFile
	filesDone int
	bytesDone int64
}

// run compacts every bin of the plan and checks each balances.
func (ex *executor) run() ([]manifest.DataFile, error) {
	for i := range ex.plan.Bins {
		b := &ex.plan.Bins[i]
		before := len(ex.outputs)
		var read int64
		var err error
		if b.Sorted {
			read, err = ex.sortedBin(b)
		} else {
			read, err = ex.streamBin(b)
		}
		if err != nil {
			return nil, err
		}
		var wrote int64
		for _, f := range ex.outputs[before:] {
			wrote += f.RecordCount
		}
		if read != b.Rows || wrote != b.Rows {
			return nil, catalogstore.MarkAlertable(
				fmt.Errorf("%w: %s: the manifest lists %d rows in %d input files, %d were read and %d written; the compaction outputs were deleted",
					ErrRowCountMismatch, ex.ds.Ident().Short(), b.Rows, len(b.Files), read, wrote),
				catalogstore.SeverityCritical, "compaction-rows:"+ex.ds.UUID, map[string]string{"dataset": ex.ds.Ident().String()})
		}
	}
	return ex.outputs, nil
}

// discard deletes every output the pass wrote: they were never committed.
func (ex *executor) discard() {
	ctx := context.WithoutCancel(ex.ctx)
	for _, key := range ex.written {
		_ = ex.cat.Blob().Delete(ctx, key)
	}
}

func (ex *executor) fieldIDs() []int {
	ids := make([]int, len(ex.ds.Schema.Columns))
	for i, c := range ex.ds.Schema.Columns {
		ids[i] = c.ID
	}
	return ids
}

// read streams one input file's records to fn (which must not keep them
// without retaining), with the position of each record's first row in the
// file, and returns the rows read.
func (ex *executor) read(f manifest.DataFile, fn func(rec arrow.Record, off int64) error) (int64, error) {
	ex.progress(StageRead)
	r, err := datafile.Open(ex.ctx, ex.cat.Blob(), f, &ex.ds.Schema, ex.fieldIDs())
	if err != nil {
		return 0, fmt.Errorf("compact %s: %w", ex.ds.Ident().Short(), err)
	}
	defer r.Close()
	var rows int64
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return rows, fmt.Errorf("compact %s: read %s: %w", ex.ds.Ident().Short(), f.Path, err)
		}
		off := rows
		rows += rec.NumRows()
		err = fn(rec, off)
		rec.Release()
		if err != nil {
			return rows, err
		}
	}
	ex.filesDone++
	ex.bytesDone += estimate(f)
	return rows, ex.keepAlive()
}

// streamBin merges a bin's files in row-id order, never holding more than
// one output's worth of records; an output of files whose row-id ranges
// follow each other keeps their row ids.
func (ex *executor) streamBin(b *Bin) (int64, error) {
	s := &sink{ex: ex, bin: b, limit: ex.cfg.outputLimit()}
	defer s.release()
	files := slices.Clone(b.Files)
	slices.SortStableFunc(files, func(x, y manifest.DataFile) int { return cmp.Compare(x.RowIDStart, y.RowIDStart) })
	var rows int64
	for _, f := range files {
		rb := rowBytes(f)
		n, err := ex.read(f, func(rec arrow.Record, off int64) error { return s.add(rec, rb, seqIDs(f.RowIDStart+off)) })
		rows += n
		if err != nil {
			return rows, err
		}
	}
	return rows, s.flush()
}

// sortedBin reads a whole bin (at most Config.sortLimit bytes), sorts it on
// the dataset's sort key and writes it as consecutive outputs, whose key
// ranges are therefore disjoint.
func (ex *executor) sortedBin(b *Bin) (int64, error) {
	var recs []arrow.Record
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	mem := memory.DefaultAllocator
	// The rows' ids travel with them through the sort.
	idb := array.NewInt64Builder(mem)
	defer idb.Release()
	var rows int64
	for _, f := range b.Files {
		n, err := ex.read(f, func(rec arrow.Record, off int64) error {
			rec.Retain()
			recs = append(recs, rec)
			for i := range rec.NumRows() {
				idb.Append(f.RowIDStart + off + i)
			}
			return nil
		})
		rows += n
		if err != nil {
			return rows, err
		}
	}
	if rows == 0 {
		return 0, nil
	}
	ids := idb.NewInt64Array()
	defer ids.Release()
	as := datafile.ArrowSchema(&ex.ds.Schema)
	cols := make([]arrow.Array, len(ex.ds.Schema.Columns))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for j := range cols {
		parts := make([]arrow.Array, len(recs))
		for i, r := range recs {
			parts[i] = r.Column(j)
		}
		c, err := array.Concatenate(parts, mem)
		if err != nil {
			return rows, fmt.Errorf("compact %s: %w", ex.ds.Ident().Short(), err)
		}
		cols[j] = c
	}
	for _, r := range recs {
		r.Release()
	}
	recs = nil
	whole := array.NewRecord(as, cols, rows)
	defer whole.Release()

	var keys []compute.SortKey
	for _, c := range sortKey(ex.ds) {
		for j, sc := range ex.ds.Schema.Columns {
			if sc.ID == c.ID {
				keys = append(keys, compute.SortKey{ColumnIndex: j, Order: compute.SortOrderAscending, NullPlacement: compute.SortNullsAtStart})
			}
		}
	}
	idx, err := compute.SortIndicesRecordBatch(ex.ctx, whole, keys)
	if err != nil {
		return rows, fmt.Errorf("compact %s: sort: %w", ex.ds.Ident().Short(), err)
	}
	defer idx.Release()
	sorted := make([]arrow.Array, len(cols))
	defer func() {
		for _, c := range sorted {
			if c != nil {
				c.Release()
			}
		}
	}()
	for j := range cols {
		t, err := compute.TakeArray(ex.ctx, whole.Column(j), idx)
		if err != nil {
			return rows, fmt.Errorf("compact %s: sort: %w", ex.ds.Ident().Short(), err)
		}
		sorted[j] = t
	}
	out := array.NewRecord(as, sorted, rows)
	defer out.Release()
	sortedIDs, err := compute.TakeArray(ex.ctx, ids, idx)
	if err != nil {
		return rows, fmt.Errorf("compact %s: sort: %w", ex.ds.Ident().Short(), err)
	}
	defer sortedIDs.Release()
	runIDs := arrIDs{sortedIDs.(*array.Int64)}

	s := &sink{ex: ex, bin: b, limit: min(ex.cfg.TargetSize, ex.cfg.outputLimit())}
	defer s.release()
	rb := float64(b.Bytes) / float64(max(1, b.Rows))
	for off := int64(0); off < rows; off += sortBatchRows {
		end := min(rows, off+sortBatchRows)
		sl := out.NewSlice(off, end)
		err := s.add(sl, rb, runIDs.from(off))
		sl.Release()
		if err != nil {
			return rows, err
		}
	}
	return rows, s.flush()
}

// keepAlive renews the lease once half its TTL has passed.
func (ex *executor) keepAlive() error {
	if ex.cat.Now().Sub(ex.renewed) < ex.cfg.LeaseTTL/2 {
		return nil
	}
	if err := ex.lease.Renew(ex.ctx, ex.cfg.LeaseTTL); err != nil {
		return err
	}
	ex.renewed = ex.cat.Now()
	return nil
}

func (ex *executor) progress(stage string) {
	if ex.cfg.Progress == nil {
		return
	}
	ex.cfg.Progress(Progress{Stage: stage, FilesDone: ex.filesDone, FilesTotal: len(ex.plan.Files),
		BytesDone: ex.bytesDone, BytesTotal: ex.plan.InputBytes, Outputs: len(ex.outputs)})
}

// sink collects records for one bin and writes an output file each time
// the estimate reaches its limit.
type sink struct {
	ex    *executor
	bin   *Bin
	limit int64
	recs  []arrow.Record
	est   float64
	// The row ids of the collected rows: first, the one after the last,
	// and whether they are one run (first, first+1, ...).
	firstID, nextID int64
	oneRun          bool
}

// rowIDs gives the row ids of a record's rows.
type rowIDs interface {
	// run returns the id of row off and whether rows off..off+n-1 have
	// consecutive ids.
	run(off, n int64) (first int64, ok bool)
}

// seqIDs are the ids of rows read in file order: start, start+1, ...
type seqIDs int64

func (s seqIDs) run(off, _ int64) (int64, bool) { return int64(s) + off, true }

// arrIDs are ids carried in an array (through a sort), from offset base.
type arrIDs struct{ a *array.Int64 }

func (a arrIDs) from(base int64) rowIDs { return offIDs{a.a, base} }

type offIDs struct {
	a    *array.Int64
	base int64
}

func (o offIDs) run(off, n int64) (int64, bool) {
	first := o.a.Value(int(o.base + off))
	for i := int64(1); i < n; i++ {
		if o.a.Value(int(o.base+off+i)) != first+i {
			return first, false
		}
	}
	return first, true
}

// add takes the rows of rec (retaining what it keeps), cutting it where an
// output fills; rb is the uncompressed estimate per row, ids their row ids.
func (s *sink) add(rec arrow.Record, rb float64, ids rowIDs) error {
	n := rec.NumRows()
	for off := int64(0); off < n; {
		take := n - off
		if rb > 0 {
			fit := int64((float64(s.limit) - s.est) / rb)
			if fit < 1 {
				if len(s.recs) > 0 {
					if err := s.flush(); err != nil {
						return err
					}
					continue
				}
				fit = 1
			}
			take = min(take, fit)
		}
		first, ok := ids.run(off, take)
		if len(s.recs) == 0 {
			s.firstID, s.oneRun = first, ok
		} else {
			s.oneRun = s.oneRun && ok && first == s.nextID
		}
		s.nextID = first + take
		s.recs = append(s.recs, rec.NewSlice(off, off+take))
		s.est += float64(take) * rb
		off += take
		if s.est >= float64(s.limit) {
			if err := s.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush writes the collected records as one output file.
func (s *sink) flush() error {
	if len(s.recs) == 0 {
		return nil
	}
	ex := s.ex
	key := ex.ds.DataFileKey()
	ex.written = append(ex.written, key)
	f, err := datafile.Write(ex.ctx, ex.cat.Blob(), key, &ex.ds.Schema, s.recs, datafile.WriteOptions{RowGroupRows: ex.cfg.RowGroupRows})
	first, oneRun := s.firstID, s.oneRun
	s.release()
	if err != nil {
		return fmt.Errorf("compact %s: %w", ex.ds.Ident().Short(), err)
	}
	f.SpecID, f.PartitionValues = s.bin.SpecID, s.bin.PartitionValues
	// Rows that were one run of row ids keep them; otherwise the commit
	// gives the output new ones (see package documentation, "Row ids").
	f.RowIDStart = -1
	if oneRun {
		f.RowIDStart = first
	}
	ex.outputs = append(ex.outputs, f)
	ex.progress(StageWrite)
	return ex.keepAlive()
}

func (s *sink) release() {
	for _, r := range s.recs {
		r.Release()
	}
	s.recs, s.est = nil, 0
}
