package txn

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// FlushRows is how many rows of one partition tuple are written out as one
// data file before the statement ends, so a large INSERT … SELECT streams
// instead of holding the table in memory.
const FlushRows = 256 * 1024

// target is where files go: a dataset's location and spec, under a schema.
type target struct {
	cat     *catalogstore.Catalog
	ds      *catalogstore.Dataset
	schema  *schema.Schema
	noStats bool
}

// writeFile writes recs as one data file of the dataset (step 1 of the
// commit protocol: the file is not referenced until a commit lands). With
// noStats the file is registered pending: its stats are filled later by
// the hydrator, and it is never pruned until then.
func (tg target) writeFile(ctx context.Context, recs []arrow.Record, partValues []*string) (manifest.DataFile, error) {
	f, err := datafile.Write(ctx, tg.cat.Blob(), tg.ds.DataFileKey(), tg.schema, recs, datafile.WriteOptions{NoStats: tg.noStats})
	if err != nil {
		return manifest.DataFile{}, fmt.Errorf("write data file for %s: %w", tg.ds.Ident().Short(), err)
	}
	f.SpecID, f.PartitionValues = tg.ds.Spec.ID, partValues
	return f, nil
}

// discard deletes files written for a commit that was refused; they were
// never referenced. A failed delete leaves an orphan for cleanup.
func (tg target) discard(ctx context.Context, files []manifest.DataFile) {
	ctx = context.WithoutCancel(ctx)
	for _, f := range files {
		_ = tg.cat.Blob().Delete(ctx, f.Path)
	}
}

// readFile reads every row of f as records of the full schema. The caller
// releases them.
func (tg target) readFile(ctx context.Context, f manifest.DataFile) (recs []arrow.Record, err error) {
	r, err := datafile.Open(ctx, tg.cat.Blob(), f, tg.schema, tg.schema.FieldIDs())
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			release(recs)
			return nil, err
		}
		recs = append(recs, rec)
	}
}

func release(recs []arrow.Record) {
	for _, r := range recs {
		r.Release()
	}
}

// partRecords are rows of one partition tuple, held in memory.
type partRecords struct {
	values []*string
	recs   []arrow.Record
	rows   int
}

// parts holds rows by partition tuple.
type parts struct {
	pp *partitioner // nil for an unpartitioned table
	m  map[string]*partRecords
}

func newParts(s *schema.Schema, ds *catalogstore.Dataset) (*parts, error) {
	ps := &parts{m: map[string]*partRecords{}}
	if len(ds.Spec.Fields) > 0 {
		pp, err := newPartitioner(s, ds.Spec)
		if err != nil {
			return nil, err
		}
		ps.pp = pp
	}
	return ps, nil
}

// add splits rec by partition tuple and keeps the pieces (rec is not
// kept: the caller still releases it). It returns the tuples that grew.
func (ps *parts) add(ctx context.Context, rec arrow.Record) ([]*partRecords, error) {
	if rec.NumRows() == 0 {
		return nil, nil
	}
	if ps.pp == nil {
		rec.Retain()
		return []*partRecords{ps.put("", nil, rec)}, nil
	}
	groups, err := ps.pp.split(rec)
	if err != nil {
		return nil, err
	}
	var grown []*partRecords
	for _, g := range groups {
		piece, err := take(ctx, rec, g.rows)
		if err != nil {
			return nil, err
		}
		grown = append(grown, ps.put(g.key, g.values, piece))
	}
	return grown, nil
}

// put adds rec (owned from now on) to tuple key.
func (ps *parts) put(key string, values []*string, rec arrow.Record) *partRecords {
	pr, ok := ps.m[key]
	if !ok {
		pr = &partRecords{values: values}
		ps.m[key] = pr
	}
	pr.recs = append(pr.recs, rec)
	pr.rows += int(rec.NumRows())
	return pr
}

// keys are the tuples held, sorted (files are written in a stable order).
func (ps *parts) keys() []string {
	out := make([]string, 0, len(ps.m))
	for k := range ps.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (ps *parts) rows() int {
	n := 0
	for _, pr := range ps.m {
		n += pr.rows
	}
	return n
}

func (ps *parts) release() {
	for _, pr := range ps.m {
		release(pr.recs)
	}
	ps.m = map[string]*partRecords{}
}

// Writer writes records as data files of a dataset, split by its
// partition spec, at most FlushRows rows a file: the output of a
// materialized view's refresh, which commits the files itself. It is not
// safe for concurrent use.
type Writer struct {
	tg    target
	ps    *parts
	files []manifest.DataFile
	rows  int64
}

// NewWriter returns a writer of data files of ds under schema s.
func NewWriter(cat *catalogstore.Catalog, ds *catalogstore.Dataset, s *schema.Schema) (*Writer, error) {
	ps, err := newParts(s, ds)
	if err != nil {
		return nil, err
	}
	return &Writer{tg: target{cat: cat, ds: ds, schema: s}, ps: ps}, nil
}

// Append adds rec's rows (in schema column order); the caller releases
// rec.
func (w *Writer) Append(ctx context.Context, rec arrow.Record) error {
	grown, err := w.ps.add(ctx, rec)
	if err != nil {
		return err
	}
	w.rows += rec.NumRows()
	for _, pr := range grown {
		if pr.rows >= FlushRows {
			if err := w.flush(ctx, pr); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *Writer) flush(ctx context.Context, pr *partRecords) error {
	if pr.rows == 0 {
		return nil
	}
	f, err := w.tg.writeFile(ctx, pr.recs, pr.values)
	release(pr.recs)
	pr.recs, pr.rows = nil, 0
	if err != nil {
		return err
	}
	w.files = append(w.files, f)
	return nil
}

// Close writes what is left and returns every file written and the row
// count. The files are not committed.
func (w *Writer) Close(ctx context.Context) ([]manifest.DataFile, int64, error) {
	for _, k := range w.ps.keys() {
		if err := w.flush(ctx, w.ps.m[k]); err != nil {
			return nil, 0, err
		}
	}
	return w.files, w.rows, nil
}

// Release frees rows not written (after an error).
func (w *Writer) Release() { w.ps.release() }
