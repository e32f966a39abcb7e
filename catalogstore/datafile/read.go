package datafile

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Reader reads one data file as Arrow records projected by field id, in
// the schema's current names and types, row group by row group (a record
// never spans two row groups). Not safe for concurrent use.
type Reader struct {
	ctx    context.Context
	path   string
	pf     *file.Reader
	obj    readSource          // pf's reads, for telling a failed read from damage (decodeErr)
	fr     *pqarrow.FileReader // nil when no requested column is in the file
	leaves []int               // Parquet leaf index per stored output column
	out    *arrow.Schema
	cols   []schema.Column
	src    []int // per output column: index in the stored records, or -1 (all NULL)
	rgs    []int // row groups to read, in order
	rgNext int
	rr     pqarrow.RecordReader // the current row group's reader
	batch  int64
	mem    memory.Allocator

	// Row ranges (pages.go): props is the file's reader properties,
	// ranges the row groups read by row ranges, queued the current row
	// group's ranges not yet opened, left the rows still to return of
	// the open range (-1: reading a whole row group).
	props   *parquet.ReaderProperties
	ranges  map[int][]RowRange
	queued  []RowRange
	rangeRG int
	left    int64

	// posRG and posRow locate the last record returned (Position);
	// posNext is the row in posRG the next record read starts at.
	posRG           int
	posRow, posNext int64

	// raw is, per stored column, the integer type a DECIMAL or DATE is
	// read as (readRaw), or nil.
	raw []arrow.DataType
}

// ReadOptions tune Open.
type ReadOptions struct {
	// RowGroups selects row groups to read (nil: all), for scans that
	// pruned row groups by their statistics (see RowGroupStats).
	RowGroups []int
	// BatchRows bounds a record (default 64Ki).
	BatchRows int64
	// Footers caches decoded footers across readers (nil: none).
	Footers *FooterCache
	// DictFields are field ids of string columns to read as Arrow
	// dictionary arrays (int32 indices into the column chunk's values),
	// which decode without copying each value: for low-cardinality
	// columns such as group keys. A column the file does not store as
	// UTF-8 strings reads as usual.
	DictFields []int
	// Mem allocates the decoded buffers (nil: the Go heap); a BufferPool
	// for readers whose records are not referenced after Release.
	Mem memory.Allocator
	// RawDecimals are field ids of DECIMAL columns to return as their
	// unscaled values in an Int64 array, without converting to
	// Decimal128, where the file stores them as INT64; elsewhere they
	// read as Decimal128 as usual.
	RawDecimals []int
}

// Open opens f for reading the columns fieldIDs of s, reading only the
// footer until Next. A field id the file lacks (a column added later)
// reads as NULLs of the column's type; a column stored as a narrower type
// (int32 for a now int64 column) is widened. Columns are found by
// PARQUET:field_id; in files without field ids (registered by add_files)
// by f.ColumnNames, else by the column's current name. A field id that is
// not in s is an error.
func Open(ctx context.Context, store blob.Store, f manifest.DataFile, s *schema.Schema, fieldIDs []int) (*Reader, error) {
	return OpenWith(ctx, store, f, s, fieldIDs, ReadOptions{})
}

// OpenWith is Open with options. ctx bounds every read of the Reader.
func OpenWith(ctx context.Context, store blob.Store, f manifest.DataFile, s *schema.Schema, fieldIDs []int, opts ReadOptions) (*Reader, error) {
	if opts.BatchRows <= 0 {
		opts.BatchRows = 64 * 1024
	}
	mem := opts.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	props := parquet.NewReaderProperties(mem)
	pf, obj, err := openParquet(ctx, store, f.Path, f.FileSize, opts.Footers, f.PartChecksums, file.WithReadProps(props))
	if err != nil {
		return nil, err
	}
	r := &Reader{ctx: ctx, path: f.Path, pf: pf, obj: obj, batch: opts.BatchRows, mem: mem, props: props, left: -1}
	lm := leafMap(pf.MetaData())
	names := fileNames(f)
	arrowProps := pqarrow.ArrowReadProperties{BatchSize: opts.BatchRows}
	fields := make([]arrow.Field, len(fieldIDs))
	for i, id := range fieldIDs {
		c, ok := s.ByID(id)
		if !ok {
			pf.Close()
			return nil, fmt.Errorf("read %s: field id %d is not in schema %d", f.Path, id, s.ID)
		}
		r.cols = append(r.cols, c)
		fields[i] = ArrowField(c)
		if leaf, ok := lm.find(c, names); ok {
			r.src = append(r.src, len(r.leaves))
			r.leaves = append(r.leaves, leaf)
			if slices.Contains(opts.DictFields, id) && storedAsString(pf.MetaData(), leaf) && c.Type.Kind == schema.String {
				arrowProps.SetReadDict(leaf, true)
				fields[i].Type = dictString
			}
			raw := rawType(pf.MetaData(), leaf, c.Type)
			r.raw = append(r.raw, raw)
			if raw != nil && raw.ID() == arrow.INT64 && c.Type.Kind == schema.Decimal && slices.Contains(opts.RawDecimals, id) {
				fields[i].Type = raw
			}
		} else {
			r.src = append(r.src, -1)
		}
	}
	r.out = arrow.NewSchema(fields, nil)
	if err := r.SelectRowGroups(opts.RowGroups); err != nil {
		pf.Close()
		return nil, err
	}
	if len(r.leaves) > 0 {
		fr, err := pqarrow.NewFileReader(pf, arrowProps, r.mem)
		if err != nil {
			pf.Close()
			return nil, fmt.Errorf("read %s: %w", f.Path, err)
		}
		r.fr = fr
		r.readRaw()
	}
	return r, nil
}

// readRaw has pqarrow return DECIMAL columns stored as INT32/INT64, and
// DATEs, as plain integer arrays (zero-copy from the decoder's buffers).
// assemble converts the decimals to Decimal128 in r.mem (unless
// ReadOptions.RawDecimals asked for the integers) and relabels the dates:
// pqarrow's own conversions copy every batch's values into new Go heap
// slices, which a BufferPool cannot recycle.
func (r *Reader) readRaw() {
	for k, leaf := range r.leaves {
		if r.raw[k] == nil {
			continue
		}
		for i := range r.fr.Manifest.Fields {
			f := &r.fr.Manifest.Fields[i]
			if id := f.Field.Type.ID(); f.ColIndex == leaf && (id == arrow.DECIMAL128 || id == arrow.DATE32) {
				f.Field.Type = r.raw[k]
			}
		}
	}
}

// rawType is the integer type a leaf of a DECIMAL or DATE column of type
// t is stored as, or nil.
func rawType(md *metadata.FileMetaData, leaf int, t schema.Type) arrow.DataType {
	col := md.Schema.Column(leaf)
	switch col.LogicalType().(type) {
	case pqschema.DecimalLogicalType:
		if t.Kind != schema.Decimal {
			return nil
		}
	case pqschema.DateLogicalType:
		if t.Kind != schema.Date || col.PhysicalType() != parquet.Types.Int32 {
			return nil
		}
	default:
		return nil
	}
	switch col.PhysicalType() {
	case parquet.Types.Int32:
		return arrow.PrimitiveTypes.Int32
	case parquet.Types.Int64:
		return arrow.PrimitiveTypes.Int64
	}
	return nil
}

// dictString is the Arrow type of a string column read with
// ReadOptions.DictFields.
var dictString = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

// storedAsString reports whether leaf is a UTF-8 string column, which
// pqarrow can read dictionary-encoded.
func storedAsString(md *metadata.FileMetaData, leaf int) bool {
	col := md.Schema.Column(leaf)
	return col.PhysicalType() == parquet.Types.ByteArray && col.LogicalType().Equals(pqschema.StringLogicalType{})
}

// fileNames maps field ids to the file's own column names, for files
// registered by name (manifest.DataFile.ColumnNames).
func fileNames(f manifest.DataFile) map[int]string {
	if len(f.ColumnNames) == 0 || len(f.ColumnNames) != len(f.FieldIDs) {
		return nil
	}
	m := make(map[int]string, len(f.FieldIDs))
	for i, id := range f.FieldIDs {
		m[id] = f.ColumnNames[i]
	}
	return m
}

// NumRowGroups is the number of row groups in the file.
func (r *Reader) NumRowGroups() int { return r.pf.NumRowGroups() }

// SelectRowGroups restricts reading to the given row groups, in the given
// order (nil: all). Call it before the first Next, typically after
// RowGroupStats.
func (r *Reader) SelectRowGroups(rgs []int) error {
	if r.rgNext > 0 || r.rr != nil {
		return fmt.Errorf("read %s: SelectRowGroups after Next", r.path)
	}
	if rgs == nil {
		rgs = make([]int, r.pf.NumRowGroups())
		for i := range rgs {
			rgs[i] = i
		}
	}
	for _, rg := range rgs {
		if rg < 0 || rg >= r.pf.NumRowGroups() {
			return fmt.Errorf("read %s: row group %d of %d", r.path, rg, r.pf.NumRowGroups())
		}
	}
	r.rgs = append([]int(nil), rgs...)
	return nil
}

// Schema is the Arrow schema of the records Next returns.
func (r *Reader) Schema() *arrow.Schema { return r.out }

// Next returns the next record, or io.EOF after the last selected row
// group. The caller releases it. Undecodable data (a damaged file, or a
// foreign one the decoder trips over) is an error wrapping ErrBadFile,
// never a panic.
func (r *Reader) Next() (rec arrow.Record, err error) {
	defer func() {
		if p := recover(); p != nil {
			rec, err = nil, fmt.Errorf("read %s: %w: decoder panic: %v", r.path, ErrBadFile, p)
		}
	}()
	for {
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
		if r.rr != nil {
			if r.left != 0 && r.rr.Next() {
				return r.take(r.rr.RecordBatch())
			}
			if err := r.endReader(); err != nil {
				return nil, err
			}
		}
		if len(r.queued) > 0 {
			if r.fr == nil { // no stored column: a record of NULLs per range
				x := r.queued[0]
				r.queued, r.posRow = r.queued[1:], x.Start
				return r.assemble(nil, x.Len())
			}
			if err := r.openRange(); err != nil {
				return nil, err
			}
			continue
		}
		if r.rgNext >= len(r.rgs) {
			return nil, io.EOF
		}
		rg := r.rgs[r.rgNext]
		r.rgNext++
		n := r.pf.MetaData().RowGroup(rg).NumRows()
		ranged := r.startRowGroup(rg)
		r.posRG, r.posNext = rg, 0
		if ranged {
			n = r.rangeRows()
		}
		if r.fr == nil && !ranged {
			// No stored column requested: rows of NULLs (or of nothing,
			// for COUNT(*)), one record per row group.
			r.posRow = 0
			return r.assemble(nil, n)
		}
		if n == 0 || ranged {
			continue // nothing to read, or the queued ranges open next
		}
		rr, err := r.fr.GetRecordReader(r.ctx, r.leaves, []int{rg})
		if err != nil {
			return nil, fmt.Errorf("read %s: row group %d: %w", r.path, rg, r.decodeErr(err))
		}
		r.rr = rr
	}
}

// decodeErr classifies an error from the Parquet decoder, which does not
// always wrap what it passes on: the scan's cancellation or a failed read
// of the object as itself, anything else as damage (ErrBadFile).
func (r *Reader) decodeErr(err error) error {
	if cerr := r.ctx.Err(); cerr != nil {
		return cerr
	}
	if rerr := r.obj.Err(); rerr != nil {
		if errors.Is(err, rerr) {
			return err
		}
		return fmt.Errorf("%w (decoding: %v)", rerr, err)
	}
	if errors.Is(err, ErrBadFile) {
		return err
	}
	return fmt.Errorf("%w: %v", ErrBadFile, err)
}

// Position is the row group of the record Next last returned and the row
// within it of the record's first row; the record's rows follow it in
// order (a record never spans two row ranges).
func (r *Reader) Position() (rg int, row int64) { return r.posRG, r.posRow }

// assemble builds the output record: stored columns (widened where the
// file's type is narrower) and NULL columns for the rest.
func (r *Reader) assemble(rec arrow.Record, n int64) (arrow.Record, error) {
	cols := make([]arrow.Array, len(r.cols))
	for i, c := range r.cols {
		want := r.out.Field(i).Type
		if r.src[i] < 0 {
			cols[i] = array.MakeArrayOfNull(r.mem, want, int(n))
			continue
		}
		a := rec.Column(r.src[i])
		if r.raw[r.src[i]] != nil {
			switch want.ID() {
			case arrow.DECIMAL128:
				cols[i] = decimalFromInts(r.mem, a, want)
				continue
			case arrow.DATE32:
				cols[i] = retype(a, want)
				continue
			}
		}
		if arrow.TypeEqual(a.DataType(), want) {
			a.Retain()
			cols[i] = a
			continue
		}
		conv, err := widen(r.mem, a, want)
		if err != nil {
			for _, done := range cols[:i] {
				done.Release()
			}
			return nil, fmt.Errorf("read %s: column %q: %w", r.path, c.Name, err)
		}
		cols[i] = conv
	}
	out := array.NewRecord(r.out, cols, n)
	for _, a := range cols {
		a.Release()
	}
	return out, nil
}

// Close releases the reader.
func (r *Reader) Close() error {
	if r.rr != nil {
		r.rr.Release()
		r.rr = nil
	}
	return r.pf.Close()
}

// ColumnStats are one column chunk's footer statistics for the scan
// planner. Min and Max exclude NaN (Parquet statistics do).
type ColumnStats struct {
	FieldID int
	// Missing: the file has no column for the field id; every value is
	// NULL.
	Missing bool
	// NullCount is -1 when the footer does not say.
	NullCount int64
	// Min and Max are in the Go representation of the column's current
	// type (package doc), or nil: unknown, or no non-NULL non-NaN value.
	Min, Max any
}

// RowGroupStats are the statistics of one row group.
type RowGroupStats struct {
	RowGroup int // index in the file, as SelectRowGroups takes it
	NumRows  int64
	Columns  []ColumnStats // aligned with the field ids given to Open
}

// RowGroupStats decodes the footer statistics of every row group of the
// file for the columns the Reader was opened with. It reads nothing beyond
// the footer Open already read.
func (r *Reader) RowGroupStats() []RowGroupStats {
	md := r.pf.MetaData()
	out := make([]RowGroupStats, md.NumRowGroups())
	for rg := range out {
		rmd := md.RowGroup(rg)
		st := RowGroupStats{RowGroup: rg, NumRows: rmd.NumRows(), Columns: make([]ColumnStats, len(r.cols))}
		for i, c := range r.cols {
			cs := ColumnStats{FieldID: c.ID, NullCount: -1}
			if r.src[i] < 0 {
				cs.Missing, cs.NullCount = true, rmd.NumRows()
				st.Columns[i] = cs
				continue
			}
			cc, err := rmd.ColumnChunk(r.leaves[r.src[i]])
			if err != nil {
				st.Columns[i] = cs
				continue
			}
			ts, err := cc.Statistics()
			if err != nil || ts == nil {
				st.Columns[i] = cs
				continue
			}
			if ts.HasNullCount() {
				cs.NullCount = ts.NullCount()
			}
			if ts.HasMinMax() {
				if lo, hi, ok := minMax(c.Type, ts); ok {
					raw := chunkStatsOf(md, rg, r.leaves[r.src[i]])
					if raw.minOK {
						cs.Min = lo
					}
					if raw.maxOK {
						cs.Max = hi
					}
				}
			}
			st.Columns[i] = cs
		}
		out[rg] = st
	}
	return out
}

// footerTail is how much of a file's end one read fetches: enough for the
// footer of most files, so opening costs a single request.
const footerTail = 64 << 10

// openParquet opens the file at key, its footer from footers when cached
// there (nil: no cache). It reads the footer with one ReadAt of the file's
// tail (two when the footer is larger). A file that is not Parquet is
// ErrBadFile. The footer's ARROW:schema entry is dropped, so column types
// come from the Parquet logical types alone (a pyarrow large_string or
// dictionary hint would otherwise change the Arrow types read). With sums
// (a manifest entry's PartChecksums; nil: none recorded) the footer is
// checked before it is decoded and every other part before the decoder
// reads it (checksum.go): damage is ErrChecksum.
func openParquet(ctx context.Context, store blob.Store, key string, size int64, footers *FooterCache, sums []uint32, opts ...file.ReadOption) (pf *file.Reader, src readSource, err error) {
	md, size, n, err := footerOf(ctx, store, key, size, footers, sums)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			pf, src, err = nil, nil, fmt.Errorf("open %s: %w: decoder panic: %v", key, ErrBadFile, p)
		}
	}()
	raw := blob.NewReaderAt(ctx, store, key, size)
	src = raw
	if sums != nil {
		spans, names, err := partSpans(md, size, int64(n))
		if err != nil {
			return nil, nil, fmt.Errorf("open %s: %w", key, err)
		}
		if len(spans) != len(sums) {
			return nil, nil, fmt.Errorf("open %s: %w: the manifest records %d part checksums, the file has %d parts", key, ErrChecksum, len(sums), len(spans))
		}
		src = newCheckedSource(raw, key, spans, names, sums)
	}
	pf, err = file.NewParquetReader(src, append(opts, file.WithMetadata(md))...)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w: %v", key, ErrBadFile, err)
	}
	return pf, src, nil
}

// readSource is what a Reader decodes from: the object, checked or not.
type readSource interface {
	parquet.ReaderAtSeeker
	// Err is the first failed read (or checksum mismatch), or nil.
	Err() error
}

// footerOf is the decoded footer of the file at key, the file's size
// (size, or its Stat when size <= 0) and the footer's encoded length, from
// footers when cached there (nil: no cache). With sums, the footer's bytes
// are checked against sums[0] first (ErrChecksum). A decoder panic is
// ErrBadFile.
func footerOf(ctx context.Context, store blob.Store, key string, size int64, footers *FooterCache, sums []uint32) (md *metadata.FileMetaData, _ int64, n int, err error) {
	if size <= 0 {
		info, err := store.Stat(ctx, key)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("open %s: %w", key, err)
		}
		size = info.Size
	}
	k := footerKey{path: key, size: size}
	if len(sums) > 0 {
		k.checked, k.sum = true, sums[0]
	}
	if md, n, ok := footers.lookup(k); ok {
		return md, size, n, nil
	}
	defer func() {
		if p := recover(); p != nil {
			md, err = nil, fmt.Errorf("open %s: %w: footer decoder panic: %v", key, ErrBadFile, p)
		}
	}()
	var want *uint32
	if k.checked {
		want = &k.sum
	}
	md, n, err = readFooter(ctx, store, key, size, want)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("open %s: %w", key, err)
	}
	footers.add(k, md, n)
	return md, size, n, nil
}

// NumRowGroups is the number of row groups of f, from its footer (read
// through footers, nil: no cache), for splitting a scan of a file into
// row-group ranges.
func NumRowGroups(ctx context.Context, store blob.Store, f manifest.DataFile, footers *FooterCache) (int, error) {
	md, _, _, err := footerOf(ctx, store, f.Path, f.FileSize, footers, f.PartChecksums)
	if err != nil {
		return 0, err
	}
	return md.NumRowGroups(), nil
}

// readFooter reads and decodes the footer of the file at key, returning
// its encoded length too. With want, the footer's bytes (with the
// trailer) must have that CRC-32C, or it is ErrChecksum and nothing is
// decoded.
func readFooter(ctx context.Context, store blob.Store, key string, size int64, want *uint32) (*metadata.FileMetaData, int, error) {
	const trailer = trailerLen // footer length + "PAR1"
	if size < 12 {
		return nil, 0, fmt.Errorf("%w: %d bytes", ErrBadFile, size)
	}
	tail := make([]byte, min(size, footerTail))
	if err := readFull(ctx, store, key, tail, size-int64(len(tail))); err != nil {
		return nil, 0, err
	}
	t := tail[len(tail)-trailer:]
	check := func(footer []byte) error {
		if want == nil {
			return nil
		}
		h := manifest.NewCRC32C()
		h.Write(footer)
		h.Write(t)
		if got := h.Sum32(); got != *want {
			return checksumError(key, "the footer", span{size - trailer - int64(len(footer)), size}, got, *want)
		}
		return nil
	}
	n := int64(binary.LittleEndian.Uint32(t[:4]))
	if want != nil && (n <= 0 || n+trailer+4 > size || !bytes.Equal(t[4:], []byte("PAR1"))) {
		// The recorded checksum was taken over a sound trailer: this one
		// changed since.
		return nil, 0, checksumError(key, "the footer", span{size - trailer, size}, manifest.CRC32C(t), *want)
	}
	switch {
	case bytes.Equal(t[4:], []byte("PARE")):
		return nil, 0, fmt.Errorf("%w: encrypted footers are not supported", ErrBadFile)
	case !bytes.Equal(t[4:], []byte("PAR1")):
		return nil, 0, fmt.Errorf("%w: no PAR1 magic at the end", ErrBadFile)
	}
	if n <= 0 || n+trailer+4 > size {
		return nil, 0, fmt.Errorf("%w: footer of %d bytes in a %d-byte file", ErrBadFile, n, size)
	}
	var buf []byte
	if n+trailer <= int64(len(tail)) {
		buf = tail[int64(len(tail))-trailer-n : len(tail)-trailer]
	} else {
		buf = make([]byte, n)
		if err := readFull(ctx, store, key, buf, size-trailer-n); err != nil {
			return nil, 0, err
		}
	}
	if err := check(buf); err != nil {
		return nil, 0, err
	}
	md, err := metadata.NewFileMetaData(buf, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrBadFile, err)
	}
	md.SetSourceFileSize(size)
	kv := md.FileMetaData.KeyValueMetadata[:0:0]
	for _, e := range md.FileMetaData.KeyValueMetadata {
		if e.GetKey() != "ARROW:schema" {
			kv = append(kv, e)
		}
	}
	md.FileMetaData.KeyValueMetadata = kv
	return md, int(n), nil
}

func readFull(ctx context.Context, store blob.Store, key string, p []byte, off int64) error {
	n, err := store.ReadAt(ctx, key, p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: short read at %d (the recorded size is wrong?)", ErrBadFile, off)
	}
	return err
}

// leaves maps a file's top-level primitive columns (nested ones are not in
// the vocabulary) by field id and by lower-cased name.
type leaves struct {
	byID   map[int]int
	byName map[string]int
	name   map[int]string // leaf → name
}

func leafMap(md *metadata.FileMetaData) leaves {
	sc := md.Schema
	l := leaves{byID: map[int]int{}, byName: map[string]int{}, name: map[int]string{}}
	for i := 0; i < sc.NumColumns(); i++ {
		col := sc.Column(i)
		if len(col.ColumnPath()) != 1 || col.MaxRepetitionLevel() != 0 {
			continue
		}
		if id := col.SchemaNode().FieldID(); id > 0 {
			l.byID[int(id)] = i
		}
		l.byName[strings.ToLower(col.Name())] = i
		l.name[i] = col.Name()
	}
	return l
}

// find returns the leaf of column c: by field id when the file has field
// ids, else by the recorded file name (names, from add_files), else by
// c's current name.
func (l leaves) find(c schema.Column, names map[int]string) (int, bool) {
	if len(l.byID) > 0 {
		leaf, ok := l.byID[c.ID]
		return leaf, ok
	}
	name := c.Name
	if names != nil {
		var ok bool
		if name, ok = names[c.ID]; !ok || name == "" {
			return 0, false
		}
	}
	leaf, ok := l.byName[strings.ToLower(name)]
	return leaf, ok
}

// widen converts a stored column to a wider current type: integer and
// float widening (typed loops, no per-value dispatch), and same-storage
// changes shared without copying (decimal precision increases, a time
// zone on timestamps). These are the only changes schema evolution allows.
func widen(mem memory.Allocator, a arrow.Array, to arrow.DataType) (arrow.Array, error) {
	switch x := a.(type) {
	case *array.Int8:
		return widenInts(mem, a, x.Int8Values(), to)
	case *array.Int16:
		return widenInts(mem, a, x.Int16Values(), to)
	case *array.Int32:
		return widenInts(mem, a, x.Int32Values(), to)
	case *array.Uint8:
		return widenUints(mem, a, x.Uint8Values(), to)
	case *array.Uint16:
		return widenUints(mem, a, x.Uint16Values(), to)
	case *array.Uint32:
		return widenUints(mem, a, x.Uint32Values(), to)
	case *array.Float32:
		if to.ID() == arrow.FLOAT64 {
			return convert[float32, float64](mem, a, x.Float32Values(), to), nil
		}
	case *array.Decimal128:
		if d, ok := to.(*arrow.Decimal128Type); ok {
			from := x.DataType().(*arrow.Decimal128Type)
			if from.Scale == d.Scale && from.Precision <= d.Precision {
				return retype(a, to), nil
			}
		}
	case *array.Timestamp:
		if ts, ok := to.(*arrow.TimestampType); ok && x.DataType().(*arrow.TimestampType).Unit == ts.Unit {
			return retype(a, to), nil
		}
	}
	return nil, fmt.Errorf("%w: cannot read %s as %s", ErrIncompatible, a.DataType(), to)
}

func widenInts[S int8 | int16 | int32](mem memory.Allocator, a arrow.Array, v []S, to arrow.DataType) (arrow.Array, error) {
	switch to.ID() {
	case arrow.INT16:
		if _, ok := any(v).([]int8); ok {
			return convert[S, int16](mem, a, v, to), nil
		}
	case arrow.INT32:
		if _, ok := any(v).([]int32); !ok {
			return convert[S, int32](mem, a, v, to), nil
		}
	case arrow.INT64:
		return convert[S, int64](mem, a, v, to), nil
	}
	return nil, fmt.Errorf("%w: cannot read %s as %s", ErrIncompatible, a.DataType(), to)
}

func widenUints[S uint8 | uint16 | uint32](mem memory.Allocator, a arrow.Array, v []S, to arrow.DataType) (arrow.Array, error) {
	switch to.ID() {
	case arrow.UINT16:
		if _, ok := any(v).([]uint8); ok {
			return convert[S, uint16](mem, a, v, to), nil
		}
	case arrow.UINT32:
		if _, ok := any(v).([]uint32); !ok {
			return convert[S, uint32](mem, a, v, to), nil
		}
	case arrow.UINT64:
		return convert[S, uint64](mem, a, v, to), nil
	}
	return nil, fmt.Errorf("%w: cannot read %s as %s", ErrIncompatible, a.DataType(), to)
}

type number interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64
}

// convert copies v (the values of a, offset applied) into a new array of
// type to, sharing nothing but the NULL positions.
func convert[S, D number](mem memory.Allocator, a arrow.Array, v []S, to arrow.DataType) arrow.Array {
	n := a.Len()
	vals := memory.NewResizableBuffer(mem)
	defer vals.Release()
	vals.Resize(n * int(to.(arrow.FixedWidthDataType).Bytes()))
	dst := arrow.GetData[D](vals.Bytes())[:n]
	for i, x := range v[:n] {
		dst[i] = D(x)
	}
	var valid *memory.Buffer
	if a.NullN() > 0 {
		valid = memory.NewResizableBuffer(mem)
		defer valid.Release()
		valid.Resize(int(bitutil.BytesForBits(int64(n))))
		bitutil.CopyBitmap(a.NullBitmapBytes(), a.Data().Offset(), n, valid.Bytes(), 0)
	}
	data := array.NewData(to, n, []*memory.Buffer{valid, vals}, nil, a.NullN(), 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// decimalFromInts converts the unscaled values of a DECIMAL read as an
// Int32 or Int64 array to a Decimal128 array of type to (the same scale:
// readsAs allows only precision to change), sharing the NULL positions.
func decimalFromInts(mem memory.Allocator, a arrow.Array, to arrow.DataType) arrow.Array {
	d := a.Data()
	n, off := a.Len(), d.Offset()
	vals := memory.NewResizableBuffer(mem)
	defer vals.Release()
	vals.Resize(arrow.Decimal128Traits.BytesRequired(off + n))
	dst := arrow.Decimal128Traits.CastFromBytes(vals.Bytes())[off : off+n]
	switch x := a.(type) {
	case *array.Int64:
		for i, v := range x.Int64Values()[:n] {
			dst[i] = decimal128.FromI64(v)
		}
	case *array.Int32:
		for i, v := range x.Int32Values()[:n] {
			dst[i] = decimal128.FromI64(int64(v))
		}
	}
	data := array.NewData(to, n, []*memory.Buffer{d.Buffers()[0], vals}, nil, a.NullN(), off)
	defer data.Release()
	return array.MakeFromData(data)
}

// retype shares a's buffers under another type with the same layout.
func retype(a arrow.Array, to arrow.DataType) arrow.Array {
	d := a.Data()
	data := array.NewData(to, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
	defer data.Release()
	return array.MakeFromData(data)
}

// ReadFooter builds the manifest entry of an existing Parquet file (for
// add_files) from its footer alone (one or two reads of the file's tail).
// Columns map to s by PARQUET:field_id when the file has field ids, else
// by name (case-insensitively); then the entry records the file's names in
// ColumnNames, so that reads keep finding the columns after a rename. Each
// mapped column must store a type that reads as the column's: the same, or
// a widening (int8→int64, float32→float64, decimal(9,2)→decimal(18,2), a
// string for json); anything else is ErrIncompatible naming both types.
// Columns of s the file lacks are not listed (they read as NULL); columns
// of the file s lacks are ignored. NaN counts of float columns are -1
// (unknown: Parquet footers do not count NaN). size may be 0 (then the
// object is stat'ed). A file that is not Parquet is ErrBadFile.
func ReadFooter(ctx context.Context, store blob.Store, key string, size int64, s *schema.Schema) (manifest.DataFile, error) {
	if size <= 0 {
		info, err := store.Stat(ctx, key)
		if err != nil {
			return manifest.DataFile{}, fmt.Errorf("add file %s: %w", key, err)
		}
		size = info.Size
	}
	pf, _, err := openParquet(ctx, store, key, size, nil, nil)
	if err != nil {
		return manifest.DataFile{}, fmt.Errorf("add file %s: %w", key, err)
	}
	defer pf.Close()
	md := pf.MetaData()
	sm, err := pqarrow.NewSchemaManifest(md.Schema, md.KeyValueMetadata(), &pqarrow.ArrowReadProperties{})
	if err != nil {
		return manifest.DataFile{}, fmt.Errorf("add file %s: %w: %v", key, ErrIncompatible, err)
	}
	lm := leafMap(md)
	byName := len(lm.byID) == 0
	idx := make([]int, len(s.Columns))
	var names []string
	mapped := 0
	for i, c := range s.Columns {
		leaf, ok := lm.find(c, nil)
		if !ok {
			if !c.Nullable {
				return manifest.DataFile{}, fmt.Errorf("add file %s: %w: it has no column %q, which is NOT NULL", key, ErrIncompatible, c.Name)
			}
			idx[i] = -1
			continue
		}
		mapped++
		sf, err := sm.GetColumnField(leaf)
		if err != nil {
			return manifest.DataFile{}, fmt.Errorf("add file %s: column %q: %w: %v", key, c.Name, ErrIncompatible, err)
		}
		ft, err := FromArrowType(sf.Field.Type)
		if err != nil {
			return manifest.DataFile{}, fmt.Errorf("add file %s: column %q: %w: %w", key, c.Name, ErrIncompatible, err)
		}
		if !readsAs(ft, c.Type) {
			return manifest.DataFile{}, fmt.Errorf("add file %s: %w: column %q is stored as %s, which does not read as the table's %s", key, ErrIncompatible, c.Name, ft, c.Type)
		}
		idx[i] = leaf
		if byName {
			names = append(names, lm.name[leaf])
		}
	}
	if mapped == 0 && len(s.Columns) > 0 {
		return manifest.DataFile{}, fmt.Errorf("add file %s: %w: none of its columns is a column of the table (matched by %s)", key, ErrIncompatible, map[bool]string{true: "name", false: "field id"}[byName])
	}
	f := manifest.DataFile{Path: key, Format: "parquet", FileSize: size, StatsState: manifest.StatsProvided, ColumnNames: names}
	if err := fillStats(&f, md, s.Columns, idx, nil); err != nil {
		return manifest.DataFile{}, fmt.Errorf("add file %s: %w", key, err)
	}
	return f, nil
}

// readsAs reports whether values stored as from read as to: the same type,
// or a widening.
func readsAs(from, to schema.Type) bool {
	if from == to || (from.Kind == schema.String && to.Kind == schema.JSON) {
		return true
	}
	order := []schema.Kind{schema.Int8, schema.Int16, schema.Int32, schema.Int64}
	uorder := []schema.Kind{schema.Uint8, schema.Uint16, schema.Uint32, schema.Uint64}
	for _, o := range [][]schema.Kind{order, uorder} {
		fi, ti := indexOf(o, from.Kind), indexOf(o, to.Kind)
		if fi >= 0 && ti >= 0 {
			return fi <= ti
		}
	}
	if from.Kind == schema.Float32 && to.Kind == schema.Float64 {
		return true
	}
	return from.Kind == schema.Decimal && to.Kind == schema.Decimal && from.Scale == to.Scale && from.Precision <= to.Precision
}

func indexOf(ks []schema.Kind, k schema.Kind) int {
	for i, x := range ks {
		if x == k {
			return i
		}
	}
	return -1
}
