package datafile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Reader reads one data file as Arrow records projected by field id, in
// the schema's current names and types. Not safe for concurrent use.
type Reader struct {
	pf     *file.Reader
	rr     pqarrow.RecordReader // nil when no requested column is in the file
	out    *arrow.Schema
	cols   []schema.Column
	src    []int // per output column: index in rr's records, or -1 (all NULL)
	rgRows []int64
	rgNext int
	mem    memory.Allocator
}

// ReadOptions tune Open.
type ReadOptions struct {
	// RowGroups selects row groups to read (nil: all), for scans that
	// pruned row groups by their statistics.
	RowGroups []int
	// BatchRows bounds a record (default 64Ki).
	BatchRows int64
}

// Open opens f for reading the columns fieldIDs of s.
func Open(ctx context.Context, store blob.Store, f manifest.DataFile, s *schema.Schema, fieldIDs []int) (*Reader, error) {
	return OpenWith(ctx, store, f, s, fieldIDs, ReadOptions{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, store blob.Store, f manifest.DataFile, s *schema.Schema, fieldIDs []int, opts ReadOptions) (*Reader, error) {
	if opts.BatchRows <= 0 {
		opts.BatchRows = 64 * 1024
	}
	pf, err := openParquet(ctx, store, f.Path, f.FileSize)
	if err != nil {
		return nil, err
	}
	r := &Reader{pf: pf, mem: memory.DefaultAllocator}
	byID, byName := leafIndex(pf)
	var leaves []int
	fields := make([]arrow.Field, len(fieldIDs))
	for i, id := range fieldIDs {
		c, ok := s.ByID(id)
		if !ok {
			pf.Close()
			return nil, fmt.Errorf("datafile: field id %d is not in schema %d", id, s.ID)
		}
		r.cols = append(r.cols, c)
		fields[i] = ArrowField(c)
		leaf, ok := byID[id]
		if !ok && len(byID) == 0 {
			leaf, ok = byName[strings.ToLower(c.Name)] // files without field ids
		}
		if ok {
			r.src = append(r.src, len(leaves))
			leaves = append(leaves, leaf)
		} else {
			r.src = append(r.src, -1)
		}
	}
	r.out = arrow.NewSchema(fields, nil)
	rgs := opts.RowGroups
	if rgs == nil {
		for i := 0; i < pf.NumRowGroups(); i++ {
			rgs = append(rgs, i)
		}
	}
	for _, rg := range rgs {
		r.rgRows = append(r.rgRows, pf.MetaData().RowGroup(rg).NumRows())
	}
	if len(leaves) > 0 && len(rgs) > 0 {
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: opts.BatchRows}, r.mem)
		if err != nil {
			pf.Close()
			return nil, fmt.Errorf("read %s: %w", f.Path, err)
		}
		rr, err := fr.GetRecordReader(ctx, leaves, rgs)
		if err != nil {
			pf.Close()
			return nil, fmt.Errorf("read %s: %w", f.Path, err)
		}
		r.rr = rr
	}
	return r, nil
}

func openParquet(ctx context.Context, store blob.Store, key string, size int64) (*file.Reader, error) {
	if size <= 0 {
		info, err := store.Stat(ctx, key)
		if err != nil {
			return nil, err
		}
		size = info.Size
	}
	pf, err := file.NewParquetReader(blob.NewReaderAt(ctx, store, key, size))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", key, err)
	}
	return pf, nil
}

// leafIndex maps the file's field ids and lower-cased names to leaf
// column indexes.
func leafIndex(pf *file.Reader) (map[int]int, map[string]int) {
	sc := pf.MetaData().Schema
	byID := map[int]int{}
	byName := map[string]int{}
	for i := 0; i < sc.NumColumns(); i++ {
		col := sc.Column(i)
		if id := col.SchemaNode().FieldID(); id > 0 {
			byID[int(id)] = i
		}
		byName[strings.ToLower(col.Name())] = i
	}
	return byID, byName
}

// Schema is the Arrow schema of the records Next returns.
func (r *Reader) Schema() *arrow.Schema { return r.out }

// Next returns the next record, or io.EOF. The caller releases it.
func (r *Reader) Next() (arrow.Record, error) {
	if r.rr == nil {
		// No stored column requested: rows of NULLs (or of nothing, for
		// COUNT(*)), one record per row group.
		if r.rgNext >= len(r.rgRows) {
			return nil, io.EOF
		}
		n := r.rgRows[r.rgNext]
		r.rgNext++
		return r.assemble(nil, n)
	}
	if !r.rr.Next() {
		if err := r.rr.Err(); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return nil, io.EOF
	}
	rec := r.rr.RecordBatch()
	return r.assemble(rec, rec.NumRows())
}

// assemble builds the output record: stored columns (cast to the current
// type where the file's is narrower) and NULL columns for the rest.
func (r *Reader) assemble(rec arrow.Record, n int64) (arrow.Record, error) {
	cols := make([]arrow.Array, len(r.cols))
	for i, c := range r.cols {
		want := r.out.Field(i).Type
		if r.src[i] < 0 {
			cols[i] = array.MakeArrayOfNull(r.mem, want, int(n))
			continue
		}
		a := rec.Column(r.src[i])
		if arrow.TypeEqual(a.DataType(), want) {
			a.Retain()
			cols[i] = a
			continue
		}
		conv, err := widen(r.mem, a, want)
		if err != nil {
			for _, done := range cols[:i] {
				if done != nil {
					done.Release()
				}
			}
			return nil, fmt.Errorf("column %q: %w", c.Name, err)
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
	}
	return r.pf.Close()
}

// widen converts a stored column to a wider current type: integer and
// float widening and decimal precision increases (the only type changes
// schema evolution allows).
func widen(mem memory.Allocator, a arrow.Array, to arrow.DataType) (arrow.Array, error) {
	b := array.NewBuilder(mem, to)
	defer b.Release()
	n := a.Len()
	b.Reserve(n)
	switch tb := b.(type) {
	case *array.Int16Builder:
		src, ok := a.(*array.Int8)
		if !ok {
			break
		}
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				tb.AppendNull()
			} else {
				tb.Append(int16(src.Value(i)))
			}
		}
		return b.NewArray(), nil
	case *array.Int32Builder:
		for i := 0; i < n; i++ {
			v, ok, valid := intAt(a, i)
			if !ok {
				return nil, fmt.Errorf("cannot read %s as %s", a.DataType(), to)
			}
			if !valid {
				tb.AppendNull()
			} else {
				tb.Append(int32(v))
			}
		}
		return b.NewArray(), nil
	case *array.Int64Builder:
		for i := 0; i < n; i++ {
			v, ok, valid := intAt(a, i)
			if !ok {
				return nil, fmt.Errorf("cannot read %s as %s", a.DataType(), to)
			}
			if !valid {
				tb.AppendNull()
			} else {
				tb.Append(v)
			}
		}
		return b.NewArray(), nil
	case *array.Uint16Builder, *array.Uint32Builder, *array.Uint64Builder:
		for i := 0; i < n; i++ {
			v, ok, valid := uintAt(a, i)
			if !ok {
				return nil, fmt.Errorf("cannot read %s as %s", a.DataType(), to)
			}
			switch x := tb.(type) {
			case *array.Uint16Builder:
				appendOrNull(x, valid, uint16(v))
			case *array.Uint32Builder:
				appendOrNull(x, valid, uint32(v))
			case *array.Uint64Builder:
				appendOrNull(x, valid, v)
			}
		}
		return b.NewArray(), nil
	case *array.Float64Builder:
		src, ok := a.(*array.Float32)
		if !ok {
			break
		}
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				tb.AppendNull()
			} else {
				tb.Append(float64(src.Value(i)))
			}
		}
		return b.NewArray(), nil
	case *array.Decimal128Builder:
		src, ok := a.(*array.Decimal128)
		if !ok || src.DataType().(*arrow.Decimal128Type).Scale != to.(*arrow.Decimal128Type).Scale {
			break
		}
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				tb.AppendNull()
			} else {
				tb.Append(src.Value(i))
			}
		}
		return b.NewArray(), nil
	}
	return nil, fmt.Errorf("cannot read %s as %s", a.DataType(), to)
}

type appender[T any] interface {
	Append(T)
	AppendNull()
}

func appendOrNull[T any](b appender[T], valid bool, v T) {
	if valid {
		b.Append(v)
	} else {
		b.AppendNull()
	}
}

func intAt(a arrow.Array, i int) (v int64, ok, valid bool) {
	valid = a.IsValid(i)
	switch x := a.(type) {
	case *array.Int8:
		return int64(x.Value(i)), true, valid
	case *array.Int16:
		return int64(x.Value(i)), true, valid
	case *array.Int32:
		return int64(x.Value(i)), true, valid
	case *array.Int64:
		return x.Value(i), true, valid
	}
	return 0, false, valid
}

func uintAt(a arrow.Array, i int) (v uint64, ok, valid bool) {
	valid = a.IsValid(i)
	switch x := a.(type) {
	case *array.Uint8:
		return uint64(x.Value(i)), true, valid
	case *array.Uint16:
		return uint64(x.Value(i)), true, valid
	case *array.Uint32:
		return uint64(x.Value(i)), true, valid
	case *array.Uint64:
		return x.Value(i), true, valid
	}
	return 0, false, valid
}

// ReadFooter builds the manifest entry of an existing Parquet file (for
// add_files) from its footer alone: columns map to s by field id, or by
// name when the file has no field ids, and each must store a type that
// reads as the column's. size may be 0 (then the object is stat'ed).
func ReadFooter(ctx context.Context, store blob.Store, key string, size int64, s *schema.Schema) (manifest.DataFile, error) {
	if size <= 0 {
		info, err := store.Stat(ctx, key)
		if err != nil {
			return manifest.DataFile{}, fmt.Errorf("add file %s: %w", key, err)
		}
		size = info.Size
	}
	pf, err := openParquet(ctx, store, key, size)
	if err != nil {
		return manifest.DataFile{}, fmt.Errorf("add file %s: %w", key, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return manifest.DataFile{}, fmt.Errorf("add file %s: %w", key, err)
	}
	as, err := fr.Schema()
	if err != nil {
		return manifest.DataFile{}, fmt.Errorf("add file %s: %w", key, err)
	}
	byID, byName := leafIndex(pf)
	idx := make([]int, len(s.Columns))
	for i, c := range s.Columns {
		leaf, ok := byID[c.ID]
		if !ok && len(byID) == 0 {
			leaf, ok = byName[strings.ToLower(c.Name)]
		}
		if !ok {
			idx[i] = -1
			continue
		}
		ft, err := FromArrowType(as.Field(leaf).Type)
		if err != nil {
			return manifest.DataFile{}, fmt.Errorf("add file %s: column %q: %w", key, c.Name, err)
		}
		if !readsAs(ft, c.Type) {
			return manifest.DataFile{}, fmt.Errorf("add file %s: column %q is stored as %s, which does not read as the table's %s", key, c.Name, ft, c.Type)
		}
		idx[i] = leaf
	}
	f := manifest.DataFile{Path: key, Format: "parquet", FileSize: size, StatsState: manifest.StatsProvided}
	if err := fillStats(&f, pf.MetaData(), s.Columns, idx, nil); err != nil {
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
