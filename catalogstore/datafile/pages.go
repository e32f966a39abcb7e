package datafile

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// RowRange is the rows [Start, End) of one row group, counted from the row
// group's first row.
type RowRange struct {
	Start, End int64
}

// Len is the number of rows in the range.
func (r RowRange) Len() int64 { return r.End - r.Start }

// ColumnPages is one column chunk's page index: for each data page its
// first row (within the row group; page i holds rows FirstRows[i] up to
// FirstRows[i+1], the last one up to the row group's end) and its
// statistics, in the form RowGroupStats gives them.
type ColumnPages struct {
	FirstRows []int64
	Stats     []ColumnStats
}

// Rows is the row range of page i in a row group of n rows.
func (p ColumnPages) Rows(i int, n int64) RowRange {
	end := n
	if i+1 < len(p.FirstRows) {
		end = p.FirstRows[i+1]
	}
	return RowRange{Start: p.FirstRows[i], End: end}
}

// RowGroupPages returns the page index of row group rg for the columns
// cols (indexes into the field ids given to Open), aligned with cols. An
// entry without pages (FirstRows nil) means the file has no page index
// for that column (foreign files, columns the file lacks): it prunes
// nothing. It reads the row group's page index (one or two reads); a
// damaged one is an error wrapping ErrBadFile.
func (r *Reader) RowGroupPages(rg int, cols []int) (out []ColumnPages, err error) {
	if rg < 0 || rg >= r.pf.NumRowGroups() {
		return nil, fmt.Errorf("read %s: row group %d of %d", r.path, rg, r.pf.NumRowGroups())
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("read %s: %w: page index decoder panic: %v", r.path, ErrBadFile, p)
		}
	}()
	out = make([]ColumnPages, len(cols))
	rmd := r.pf.MetaData().RowGroup(rg)
	var pir *metadata.RowGroupPageIndexReader // read on first need
	for k, col := range cols {
		if col < 0 || col >= len(r.cols) || r.src[col] < 0 {
			continue
		}
		leaf := r.leaves[r.src[col]]
		_, hasCI := rmd.ColumnIndexLocation(leaf)
		_, hasOI := rmd.OffsetIndexLocation(leaf)
		if !hasCI || !hasOI {
			continue
		}
		if pir == nil {
			if pir, err = r.pf.GetPageIndexReader().RowGroup(rg); err != nil {
				return nil, fmt.Errorf("read %s: row group %d page index: %w", r.path, rg, r.decodeErr(err))
			}
			if pir == nil {
				return out, nil
			}
		}
		if out[k], err = r.columnPages(pir, rmd, rg, col, leaf); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// columnPages decodes one column chunk's column and offset indexes.
func (r *Reader) columnPages(pir *metadata.RowGroupPageIndexReader, rmd *metadata.RowGroupMetaData, rg, col, leaf int) (ColumnPages, error) {
	bad := func(format string, args ...any) (ColumnPages, error) {
		return ColumnPages{}, fmt.Errorf("read %s: row group %d column %q page index: %w: %s", r.path, rg, r.cols[col].Name, ErrBadFile, fmt.Sprintf(format, args...))
	}
	// A checksum mismatch or failed read is reported as itself, anything
	// else as damage (decodeErr).
	ci, err := pir.GetColumnIndex(leaf)
	if err != nil {
		return ColumnPages{}, fmt.Errorf("read %s: row group %d column %q page index: %w", r.path, rg, r.cols[col].Name, r.decodeErr(err))
	}
	oi, err := pir.GetOffsetIndex(leaf)
	if err != nil {
		return ColumnPages{}, fmt.Errorf("read %s: row group %d column %q page index: %w", r.path, rg, r.cols[col].Name, r.decodeErr(err))
	}
	if ci == nil || oi == nil {
		return ColumnPages{}, nil
	}
	locs, nullPages := oi.GetPageLocations(), ci.GetNullPages()
	mins, maxs := ci.GetMinValues(), ci.GetMaxValues()
	if len(locs) == 0 || len(locs) != len(nullPages) || len(mins) != len(locs) || len(maxs) != len(locs) {
		return bad("%d page locations for %d pages", len(locs), len(nullPages))
	}
	var nulls []int64
	if ci.IsSetNullCounts() && len(ci.GetNullCounts()) == len(locs) {
		nulls = ci.GetNullCounts()
	}
	n := rmd.NumRows()
	p := ColumnPages{FirstRows: make([]int64, len(locs)), Stats: make([]ColumnStats, len(locs))}
	for i, loc := range locs {
		p.FirstRows[i] = loc.FirstRowIndex
		if (i == 0 && loc.FirstRowIndex != 0) || (i > 0 && loc.FirstRowIndex <= p.FirstRows[i-1]) || loc.FirstRowIndex >= n {
			return bad("page %d starts at row %d", i, loc.FirstRowIndex)
		}
	}
	c := r.cols[col]
	descr := r.pf.MetaData().Schema.Column(leaf)
	// arrow-go writes exact page bounds (it drops a column's index rather
	// than truncate). Other writers truncate long string bounds: a
	// truncated min is still a lower bound (a prefix), but a truncated max
	// need not be an upper bound, as with footer stats (BoundsExact).
	exactMax := descr.PhysicalType() != parquet.Types.ByteArray && descr.PhysicalType() != parquet.Types.FixedLenByteArray ||
		strings.HasPrefix(r.pf.MetaData().GetCreatedBy(), "parquet-go")
	for i := range locs {
		rows := p.Rows(i, n).Len()
		cs := ColumnStats{FieldID: c.ID, NullCount: -1}
		if nulls != nil {
			cs.NullCount = nulls[i]
		}
		if nullPages[i] {
			cs.NullCount = rows
			p.Stats[i] = cs
			continue
		}
		enc := metadata.EncodedStatistics{HasMin: true, Min: mins[i], HasMax: true, Max: maxs[i], Signed: true}
		ts := metadata.NewStatisticsFromEncoded(descr, r.mem, rows, enc.ToThrift())
		if ts.HasMinMax() {
			if lo, hi, ok := minMax(c.Type, ts); ok {
				cs.Min = lo
				if exactMax {
					cs.Max = hi
				}
			}
		}
		p.Stats[i] = cs
	}
	return p, nil
}

// SelectRows restricts reading row group rg to the given row ranges:
// sorted, disjoint, non-empty, within the row group. No ranges read
// nothing of rg; row groups never given are read whole. Each range is read
// from the pages holding it (the offset index of every projected column
// locates them; a column without one is read from its first page and
// decoded up to the range). Call it before the first Next, after
// SelectRowGroups.
func (r *Reader) SelectRows(rg int, ranges []RowRange) error {
	if r.rgNext > 0 || r.rr != nil {
		return fmt.Errorf("read %s: SelectRows after Next", r.path)
	}
	if rg < 0 || rg >= r.pf.NumRowGroups() {
		return fmt.Errorf("read %s: row group %d of %d", r.path, rg, r.pf.NumRowGroups())
	}
	n := r.pf.MetaData().RowGroup(rg).NumRows()
	for i, x := range ranges {
		if x.Start < 0 || x.End <= x.Start || x.End > n || (i > 0 && x.Start < ranges[i-1].End) {
			return fmt.Errorf("read %s: row group %d of %d rows: bad row range %d [%d, %d)", r.path, rg, n, i, x.Start, x.End)
		}
	}
	if r.ranges == nil {
		r.ranges = map[int][]RowRange{}
	}
	r.ranges[rg] = append([]RowRange(nil), ranges...)
	// Seeking opens a column chunk anew: read it page by page rather
	// than whole, or every range would read the whole chunk again.
	r.props.BufferedStreamEnabled = true
	return nil
}

// startRowGroup begins reading row group rg by the row ranges selected
// for it, if any: the ranges are queued and ok is true.
func (r *Reader) startRowGroup(rg int) (ok bool) {
	ranges, ok := r.ranges[rg]
	if !ok {
		r.left = -1
		return false
	}
	r.queued, r.rangeRG = ranges, rg
	return true
}

// rangeRows is the number of rows in the queued ranges.
func (r *Reader) rangeRows() int64 {
	var n int64
	for _, x := range r.queued {
		n += x.Len()
	}
	return n
}

// openRange opens a record reader on the next queued range, positioned at
// its first row. Records are sized to divide the range evenly, so the
// decoder never reads past its end.
func (r *Reader) openRange() error {
	x := r.queued[0]
	r.queued = r.queued[1:]
	parts := (x.Len() + r.batch - 1) / r.batch
	saved := r.fr.Props.BatchSize
	r.fr.Props.BatchSize = (x.Len() + parts - 1) / parts
	rr, err := r.fr.GetRecordReader(r.ctx, r.leaves, []int{r.rangeRG})
	r.fr.Props.BatchSize = saved
	if err != nil {
		return fmt.Errorf("read %s: row group %d: %w", r.path, r.rangeRG, r.decodeErr(err))
	}
	if x.Start > 0 {
		if err := rr.SeekToRow(x.Start); err != nil {
			rr.Release()
			return fmt.Errorf("read %s: row group %d: seek to row %d: %w", r.path, r.rangeRG, x.Start, r.decodeErr(err))
		}
	}
	r.rr, r.left = rr, x.Len()
	r.posNext = x.Start
	return nil
}

// take assembles a record read by the current record reader, cut to the
// rows left in the current range (all of it outside ranges).
func (r *Reader) take(rec arrow.Record) (arrow.Record, error) {
	n := rec.NumRows()
	r.posRow = r.posNext
	if r.left < 0 {
		r.posNext += n
		return r.assemble(rec, n)
	}
	if n > r.left {
		short := rec.NewSlice(0, r.left)
		defer short.Release()
		rec, n = short, r.left
	}
	r.left -= n
	r.posNext += n
	return r.assemble(rec, n)
}

// endReader releases the current record reader; a range it ended before
// filling is ErrBadFile.
func (r *Reader) endReader() error {
	err := r.rr.Err()
	r.rr.Release()
	r.rr = nil
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read %s: %w", r.path, r.decodeErr(err))
	}
	if r.left > 0 {
		return fmt.Errorf("read %s: %w: row group %d ended %d rows before its row range", r.path, ErrBadFile, r.rangeRG, r.left)
	}
	return nil
}
