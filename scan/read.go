package scan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dolthub/go-mysql-server/sql"
	"golang.org/x/sync/errgroup"

	"github.com/lakesql/lakesql/arrowrow"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Request describes one scan: which files, which columns.
type Request struct {
	Store    blob.Store
	Files    []manifest.DataFile // already pruned, in output order
	Schema   *schema.Schema      // the schema rows are read as
	FieldIDs []int               // projected columns, in output order
	// Cache, if set, keeps decoded files for later scans.
	Cache *Cache
	// Footers caches decoded file footers across scans (nil: none).
	Footers *datafile.FooterCache
	// Parallelism bounds the files decoded at once (default GOMAXPROCS).
	Parallelism int
	// Filters are informational here (for row-group pruning by the
	// reader); rows are not filtered by scan.
	Filters []sql.Expression
	// Limit, if positive, is the most rows the consumer reads of those
	// passing Filters: the iterator then reads files one at a time, a
	// batch at a time, in the consumer's goroutine. Without Filters it
	// stops after Limit rows; with them it cannot count (it does not
	// filter) and reads on until the consumer closes it.
	Limit int64
	// Profile, if set, records what the scan read (EXPLAIN ANALYZE); the
	// caller records the file pruning (Profile.Pruned).
	Profile *Profile
}

// batch is one decoded file's rows, or the error reading it; held: a
// read-ahead slot that the consumer frees on taking it.
type batch struct {
	rows []sql.Row
	err  error
	held bool
}

// rowIter returns rows in file order while later files decode in the
// background.
type rowIter struct {
	cancel  context.CancelFunc
	results []chan batch
	ahead   chan struct{} // read-ahead slots: files decoding or decoded, not yet taken
	g       *errgroup.Group
	next    int
	cur     []sql.Row
	pos     int
}

// NewRowIter starts reading req's files and returns an iterator over their
// rows in file order. Close stops the readers and waits for them.
func NewRowIter(ctx context.Context, req Request) sql.RowIter {
	end := req.Profile.start(false)
	defer end()
	req.Store = req.Profile.store(req.Store)
	progressFrom(ctx).plan(len(req.Files))
	if req.Limit > 0 {
		it := &limitIter{req: req, left: req.Limit, batch: min(max(req.Limit, 1024), 64*1024)}
		if len(req.Filters) > 0 {
			it.left, it.batch = math.MaxInt64, 4096
		}
		return req.Profile.timed(it)
	}
	ctx, cancel := context.WithCancel(ctx)
	par := req.Parallelism
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	it := &rowIter{cancel: cancel, results: make([]chan batch, len(req.Files)), ahead: make(chan struct{}, par)}
	for i := range it.results {
		it.results[i] = make(chan batch, 1)
	}
	g, gctx := errgroup.WithContext(ctx)
	it.g = g
	// A feeder hands files to at most par workers, in order, so the
	// consumer's next file is always among those being decoded. A file's
	// slot is freed when the consumer takes its rows, not when it is
	// decoded: decoded rows are not charged to the query's budget, and a
	// consumer slower than the decoders (a row-path join) let every file
	// of the table pile up in memory (TPC-H Q09 at SF1: 1.5 GB of
	// lineitem rows). The feeder runs in g too, so Close's Wait covers
	// the workers it starts.
	goSafe(g, func() error {
		for i, f := range req.Files {
			select {
			case it.ahead <- struct{}{}:
			case <-gctx.Done():
				for k := i; k < len(req.Files); k++ {
					it.results[k] <- batch{err: gctx.Err()}
				}
				return nil
			}
			goSafe(g, func() error {
				rows, err := readFile(gctx, req, f)
				progressFrom(gctx).fileDone()
				it.results[i] <- batch{rows: rows, err: err, held: true}
				return nil
			})
		}
		return nil
	})
	return req.Profile.timed(it)
}

// Next implements sql.RowIter.
func (it *rowIter) Next(ctx *sql.Context) (sql.Row, error) {
	for it.pos >= len(it.cur) {
		if it.next >= len(it.results) {
			return nil, io.EOF
		}
		var b batch
		select {
		case b = <-it.results[it.next]:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		it.next++
		if b.held {
			<-it.ahead
		}
		if b.err != nil {
			return nil, b.err
		}
		it.cur, it.pos = b.rows, 0
	}
	r := it.cur[it.pos]
	it.pos++
	return r, nil
}

// Close implements sql.RowIter: it cancels the readers still running and
// waits for them (each stops at its next batch), so none outlives the
// query. Results are buffered: no reader blocks on a consumer gone.
func (it *rowIter) Close(*sql.Context) error {
	it.cancel()
	return it.g.Wait()
}

// limitIter serves a Request with a Limit: it reads in the consumer's
// goroutine, one file and one batch at a time, and opens nothing once
// Limit rows are out, so a bare LIMIT decodes about what it returns. (A
// LIMIT over a filter that passes few rows reads on one core: the price
// of not decoding ahead.)
type limitIter struct {
	req   Request
	left  int64 // rows still to return
	batch int64 // rows per record read
	next  int   // the next file to open
	r     *datafile.Reader
	path  string
	cols  []schema.Type
	cur   []sql.Row
	pos   int
}

// Next implements sql.RowIter.
func (it *limitIter) Next(ctx *sql.Context) (sql.Row, error) {
	for it.pos >= len(it.cur) {
		if it.left <= 0 {
			return nil, io.EOF
		}
		if err := it.fill(ctx); err != nil {
			return nil, err
		}
	}
	r := it.cur[it.pos]
	it.pos++
	it.left--
	return r, nil
}

// fill decodes the next batch, opening the next file when the current one
// is done; io.EOF after the last file.
func (it *limitIter) fill(ctx context.Context) error {
	for {
		if it.r == nil {
			if it.next >= len(it.req.Files) {
				return io.EOF
			}
			if err := it.open(ctx, it.req.Files[it.next]); err != nil {
				return err
			}
			it.next++
		}
		rec, err := it.r.Next()
		if errors.Is(err, io.EOF) {
			it.r.Close()
			it.r = nil
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", it.path, err)
		}
		if rec.NumRows() > it.left {
			short := rec.NewSlice(0, it.left)
			rec.Release()
			rec = short
		}
		it.cur, err = appendRecord(it.cur[:0], rec, it.cols)
		it.pos = 0
		rec.Release()
		if err != nil {
			return fmt.Errorf("read %s: %w", it.path, err)
		}
		if len(it.cur) > 0 {
			return nil
		}
	}
}

func (it *limitIter) open(ctx context.Context, f manifest.DataFile) error {
	req := it.req
	if it.cols == nil {
		it.cols = make([]schema.Type, len(req.FieldIDs))
		for i, id := range req.FieldIDs {
			c, _ := req.Schema.ByID(id)
			it.cols[i] = c.Type
		}
	}
	batch := max(1, min(it.batch, f.RecordCount)) // the decoder reserves a whole batch
	r, err := datafile.OpenWith(ctx, req.Store, f, req.Schema, req.FieldIDs, datafile.ReadOptions{BatchRows: batch, Footers: req.Footers, Mem: req.Profile.alloc(nil)})
	if err != nil {
		return fmt.Errorf("open %s: %w", f.Path, err)
	}
	if preds := Predicates(req.Schema, req.Filters); len(preds) > 0 {
		stats, cols := r.RowGroupStats(), predicateColumns(preds, req.FieldIDs)
		keep, dictPruned := keepRowGroups(r, stats, preds, cols)
		if err := r.SelectRowGroups(keep); err != nil {
			r.Close()
			return err
		}
		pp, err := selectPages(r, stats, keep, preds, cols)
		if err != nil {
			r.Close()
			return err
		}
		req.Profile.addStats(Stats{RowGroups: len(stats), RowGroupsRead: len(keep), RowGroupsDictPruned: dictPruned, Rows: pp.rows, RowsSkipped: pp.skipped})
	} else {
		req.Profile.addStats(wholeFile(r))
	}
	progressFrom(ctx).fileDone()
	it.r, it.path = r, f.Path
	return nil
}

// Close implements sql.RowIter.
func (it *limitIter) Close(*sql.Context) error {
	if it.r != nil {
		it.r.Close()
		it.r = nil
	}
	return nil
}

// ReadAll reads every row of req into memory (for small rewrites). req's
// Filters must be empty: every row is returned.
func ReadAll(ctx context.Context, req Request) ([]sql.Row, error) {
	var out []sql.Row
	for _, f := range req.Files {
		rows, err := readFile(ctx, req, f)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

// readFile decodes one file into rows, through the cache. Rows from the
// cache are copied, since callers may modify them.
func readFile(ctx context.Context, req Request, f manifest.DataFile) ([]sql.Row, error) {
	key := cacheKey(f.Path, req.Schema.ID, req.FieldIDs)
	if req.Cache != nil {
		if rows, ok := req.Cache.get(key); ok {
			req.Profile.cached(ctx, req, f, int64(len(rows)))
			return copyRows(rows), nil
		}
	}
	rows, partial, err := decodeFile(ctx, req, f)
	if err != nil {
		return nil, err
	}
	if req.Cache != nil && !partial {
		req.Cache.put(key, rows, estimateRows(rows))
		return copyRows(rows), nil
	}
	return rows, nil
}

// decodeFile reads a file's rows, skipping row groups whose footer stats
// rule out the pushed filters and pages whose page index does; partial
// reports that some rows were skipped (the rows are then not the whole
// file, and are not cached). A partial read also drops the rows failing
// the filters' exact conjuncts before converting them (the filter above
// would drop them anyway; a whole read keeps every row, for the cache).
func decodeFile(ctx context.Context, req Request, f manifest.DataFile) (rows []sql.Row, partial bool, err error) {
	var vps []vecPred
	r, err := datafile.OpenWith(ctx, req.Store, f, req.Schema, req.FieldIDs, datafile.ReadOptions{Footers: req.Footers, Mem: req.Profile.alloc(nil)})
	if err != nil {
		return nil, false, fmt.Errorf("open %s: %w", f.Path, err)
	}
	defer r.Close()
	preds := Predicates(req.Schema, req.Filters)
	if len(preds) == 0 {
		req.Profile.addStats(wholeFile(r))
	} else {
		stats, cols := r.RowGroupStats(), predicateColumns(preds, req.FieldIDs)
		keep, dictPruned := keepRowGroups(r, stats, preds, cols)
		if len(keep) < len(stats) {
			if err := r.SelectRowGroups(keep); err != nil {
				return nil, false, err
			}
			partial = true
		}
		pp, err := selectPages(r, stats, keep, preds, cols)
		if err != nil {
			return nil, false, err
		}
		req.Profile.addStats(Stats{RowGroups: len(stats), RowGroupsRead: len(keep), RowGroupsDictPruned: dictPruned, Rows: pp.rows, RowsSkipped: pp.skipped})
		if pp.skipped > 0 {
			partial, vps = true, exactFilter(req.Schema, req.Filters, req.FieldIDs)
		}
	}
	rows, err = decodeRows(ctx, r, req, f, vps)
	return rows, partial, err
}

// decodeRows converts the records of r, only the rows passing vps.
func decodeRows(ctx context.Context, r *datafile.Reader, req Request, f manifest.DataFile, vps []vecPred) ([]sql.Row, error) {
	cols := make([]schema.Type, len(req.FieldIDs))
	for i, id := range req.FieldIDs {
		c, _ := req.Schema.ByID(id)
		cols[i] = c.Type
	}
	var rows []sql.Row
	if len(vps) == 0 {
		rows = make([]sql.Row, 0, f.RecordCount)
	}
	var sel []int32
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f.Path, err)
		}
		rows, sel, err = appendSelected(rows, rec, cols, vps, sel)
		rec.Release()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f.Path, err)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// appendRecord converts a record a column at a time.
func appendRecord(rows []sql.Row, rec arrow.Record, cols []schema.Type) ([]sql.Row, error) {
	n := int(rec.NumRows())
	start := len(rows)
	vals := make([]any, n*len(cols)) // one allocation for the batch's values
	for i := 0; i < n; i++ {
		rows = append(rows, sql.Row(vals[i*len(cols):(i+1)*len(cols):(i+1)*len(cols)]))
	}
	for j := range cols {
		if err := fillColumn(rows[start:], j, rec.Column(j), cols[j]); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

func copyRows(rows []sql.Row) []sql.Row {
	if len(rows) == 0 {
		return nil
	}
	w := len(rows[0])
	vals := make([]any, len(rows)*w)
	out := make([]sql.Row, len(rows))
	for i, r := range rows {
		copy(vals[i*w:(i+1)*w], r)
		out[i] = sql.Row(vals[i*w : (i+1)*w : (i+1)*w])
	}
	return out
}

func cacheKey(path string, schemaID int, ids []int) string {
	var sb strings.Builder
	sb.WriteString(path)
	sb.WriteByte('#')
	sb.WriteString(strconv.Itoa(schemaID))
	for _, id := range ids {
		sb.WriteByte(',')
		sb.WriteString(strconv.Itoa(id))
	}
	return sb.String()
}

// RecordRows converts columns cols (indexes into rec) of a record to rows;
// types are the columns' catalog types.
func RecordRows(rec arrow.Record, cols []int, types []schema.Type) ([]sql.Row, error) {
	return arrowrow.Rows(rec, cols, types)
}

// ConcatIter returns the rows of it followed by extra.
func ConcatIter(it sql.RowIter, extra []sql.Row) sql.RowIter {
	return &concatIter{it: it, extra: extra}
}

type concatIter struct {
	it    sql.RowIter
	extra []sql.Row
}

func (c *concatIter) Next(ctx *sql.Context) (sql.Row, error) {
	if c.it != nil {
		r, err := c.it.Next(ctx)
		if !errors.Is(err, io.EOF) {
			return r, err
		}
		c.it.Close(ctx)
		c.it = nil
	}
	if len(c.extra) == 0 {
		return nil, io.EOF
	}
	r := c.extra[0]
	c.extra = c.extra[1:]
	return r, nil
}

func (c *concatIter) Close(ctx *sql.Context) error {
	if c.it != nil {
		return c.it.Close(ctx)
	}
	return nil
}
