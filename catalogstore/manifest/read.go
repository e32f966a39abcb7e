package manifest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/lakesql/lakesql/catalogstore/blob"
)

// Read reads the manifest at key. A manifest that cannot be decoded, or
// decodes into inconsistent entries, gives an error wrapping ErrCorrupt
// (IsCorrupt reports true); Read never panics on bad bytes and never
// returns entries that disagree with what Write wrote. Errors of the store
// (blob.ErrNotFound, I/O) are returned wrapped, not marked corrupt. The
// commit protocol refuses a commit whose parent manifest fails to read: it
// is never treated as empty. Safe for concurrent use.
func Read(ctx context.Context, store blob.Store, key string) ([]DataFile, error) {
	data, err := store.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("read manifest %s: %w", key, err)
	}
	files, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("read manifest %s: %w", key, err)
	}
	return files, nil
}

// Decode decodes manifest bytes as Encode produced them. Failures wrap
// ErrCorrupt.
func Decode(data []byte) (files []DataFile, err error) {
	defer func() {
		if r := recover(); r != nil {
			files, err = nil, MarkCorrupt(fmt.Errorf("decoder panic: %v", r))
		}
	}()
	files, err = decode(data)
	if err != nil {
		return nil, MarkCorrupt(err)
	}
	return files, nil
}

func decode(data []byte) ([]DataFile, error) {
	mem := memory.NewGoAllocator()
	rdr, err := file.NewParquetReader(bytes.NewReader(data), file.WithReadProps(parquet.NewReaderProperties(mem)))
	if err != nil {
		return nil, err
	}
	defer rdr.Close()
	md := rdr.MetaData()
	kv := md.KeyValueMetadata()
	if v := kv.FindValue(metaVersion); v == nil || *v != version {
		return nil, errors.New("missing or unsupported manifest version")
	}
	nv := kv.FindValue(metaFiles)
	cv := kv.FindValue(metaChecksum)
	if nv == nil || cv == nil {
		return nil, errors.New("missing file count or checksum")
	}
	n, err := strconv.ParseInt(*nv, 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("bad file count %q", *nv)
	}
	want, err := strconv.ParseUint(*cv, 16, 64)
	if err != nil {
		return nil, fmt.Errorf("bad checksum %q", *cv)
	}
	if md.NumRows != n {
		return nil, fmt.Errorf("footer lists %d rows, expected %d files", md.NumRows, n)
	}
	// Refuse absurd claims before decoding allocates for them.
	for i := 0; i < md.NumRowGroups(); i++ {
		rg := md.RowGroup(i)
		if rg.NumRows() < 0 || rg.NumRows() > n {
			return nil, fmt.Errorf("row group %d claims %d rows", i, rg.NumRows())
		}
		for c := 0; c < rg.NumColumns(); c++ {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				return nil, err
			}
			if cc.TotalCompressedSize() < 0 || cc.TotalCompressedSize() > int64(len(data)) {
				return nil, fmt.Errorf("column chunk %d/%d claims %d bytes", i, c, cc.TotalCompressedSize())
			}
		}
	}

	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: min(max(n, 1), 1<<20)}, mem)
	if err != nil {
		return nil, err
	}
	sc, err := fr.Schema()
	if err != nil {
		return nil, err
	}
	if err := checkSchema(sc); err != nil {
		return nil, err
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return nil, err
	}
	defer tbl.Release()
	if tbl.NumRows() != n || tbl.NumCols() != numCols {
		return nil, fmt.Errorf("decoded %d rows of %d columns, expected %d rows", tbl.NumRows(), tbl.NumCols(), n)
	}
	cols := make([]arrow.Array, numCols)
	for i := range cols {
		chunks := tbl.Column(i).Data().Chunks()
		var a arrow.Array
		switch len(chunks) {
		case 0:
			a = array.MakeArrayOfNull(mem, manifestSchema.Field(i).Type, 0)
		case 1:
			a = chunks[0]
			a.Retain()
		default:
			if a, err = array.Concatenate(chunks, mem); err != nil {
				return nil, err
			}
		}
		defer a.Release()
		if int64(a.Len()) != n {
			return nil, fmt.Errorf("column %s has %d values, expected %d", manifestSchema.Field(i).Name, a.Len(), n)
		}
		if !manifestSchema.Field(i).Nullable && a.NullN() != 0 {
			return nil, fmt.Errorf("column %s has nulls", manifestSchema.Field(i).Name)
		}
		cols[i] = a
	}
	files, err := fromColumns(cols, int(n))
	if err != nil {
		return nil, err
	}
	for i := range files {
		if err := files[i].Validate(); err != nil {
			return nil, fmt.Errorf("entry %d: %v", i, err)
		}
	}
	if got := checksum(files); got != want {
		return nil, fmt.Errorf("checksum mismatch: content %x, footer %x", got, want)
	}
	return files, nil
}

// checkSchema compares the file's schema with manifestSchema, by name and
// type shape (nullability and field metadata aside).
func checkSchema(sc *arrow.Schema) error {
	if sc.NumFields() != numCols {
		return fmt.Errorf("manifest has %d columns, expected %d", sc.NumFields(), numCols)
	}
	for i, want := range manifestSchema.Fields() {
		got := sc.Field(i)
		if got.Name != want.Name || !sameShape(got.Type, want.Type) {
			return fmt.Errorf("manifest column %d is %s %s, expected %s %s", i, got.Name, got.Type, want.Name, want.Type)
		}
	}
	return nil
}

func sameShape(a, b arrow.DataType) bool {
	if a.ID() != b.ID() {
		return false
	}
	if la, ok := a.(*arrow.ListType); ok {
		return sameShape(la.Elem(), b.(*arrow.ListType).Elem())
	}
	return true
}

type listCol[T arrow.Array] struct {
	l    *array.List
	vals T
}

func asList[T arrow.Array](a arrow.Array) (listCol[T], error) {
	l, ok := a.(*array.List)
	if !ok {
		return listCol[T]{}, fmt.Errorf("column is %s, not a list", a.DataType())
	}
	vals, ok := l.ListValues().(T)
	if !ok {
		return listCol[T]{}, fmt.Errorf("list values are %s", l.ListValues().DataType())
	}
	return listCol[T]{l: l, vals: vals}, nil
}

// span returns the value range of row i, ok=false for a null list.
func (c listCol[T]) span(i int) (start, end int, ok bool, err error) {
	if c.l.IsNull(i) {
		return 0, 0, false, nil
	}
	s, e := c.l.ValueOffsets(i)
	if s < 0 || e < s || e > int64(c.vals.Len()) {
		return 0, 0, false, fmt.Errorf("list offsets %d..%d out of range", s, e)
	}
	return int(s), int(e), true, nil
}

func fromColumns(cols []arrow.Array, n int) ([]DataFile, error) {
	var (
		path, format, state, serr *array.String
		recs, size, usize, rowid  *array.Int64
		snap, seq                 *array.Int64
		spec                      *array.Int32
		ok                        = true
	)
	str := func(i int) *array.String {
		a, k := cols[i].(*array.String)
		ok = ok && k
		return a
	}
	i64 := func(i int) *array.Int64 {
		a, k := cols[i].(*array.Int64)
		ok = ok && k
		return a
	}
	path, format, state, serr = str(colPath), str(colFormat), str(colStatsState), str(colStatsError)
	recs, size, usize, rowid = i64(colRecordCount), i64(colFileSize), i64(colUncompressedSize), i64(colRowIDStart)
	snap, seq = i64(colAddedSnapshotID), i64(colSequenceNumber)
	spec, k := cols[colSpecID].(*array.Int32)
	if !ok || !k {
		return nil, errors.New("unexpected scalar column types")
	}
	pv, err := asList[*array.String](cols[colPartitionValues])
	if err != nil {
		return nil, fmt.Errorf("partition_values: %w", err)
	}
	ids, err := asList[*array.Int32](cols[colFieldIDs])
	if err != nil {
		return nil, fmt.Errorf("field_ids: %w", err)
	}
	var intLists [4]listCol[*array.Int64]
	for j, c := range []int{colValueCounts, colNullCounts, colNaNCounts, colColumnSizes} {
		if intLists[j], err = asList[*array.Int64](cols[c]); err != nil {
			return nil, fmt.Errorf("%s: %w", manifestSchema.Field(c).Name, err)
		}
	}
	lower, err := asList[*array.Binary](cols[colLowerBounds])
	if err != nil {
		return nil, fmt.Errorf("lower_bounds: %w", err)
	}
	upper, err := asList[*array.Binary](cols[colUpperBounds])
	if err != nil {
		return nil, fmt.Errorf("upper_bounds: %w", err)
	}
	exact, err := asList[*array.Boolean](cols[colBoundsExact])
	if err != nil {
		return nil, fmt.Errorf("bounds_exact: %w", err)
	}
	names, err := asList[*array.String](cols[colColumnNames])
	if err != nil {
		return nil, fmt.Errorf("column_names: %w", err)
	}

	files := make([]DataFile, n)
	for i := range files {
		f := &files[i]
		f.Path = strings.Clone(path.Value(i))
		f.Format = strings.Clone(format.Value(i))
		f.RecordCount = recs.Value(i)
		f.FileSize = size.Value(i)
		f.UncompressedSize = usize.Value(i)
		f.SpecID = int(spec.Value(i))
		f.RowIDStart = rowid.Value(i)
		f.StatsState = strings.Clone(state.Value(i))
		f.StatsError = strings.Clone(serr.Value(i))
		f.AddedSnapshotID = snap.Value(i)
		f.SequenceNumber = seq.Value(i)

		if f.PartitionValues, err = readStrings(pv, i, true); err != nil {
			return nil, fmt.Errorf("partition_values: %w", err)
		}
		s, e, present, err := ids.span(i)
		if err != nil {
			return nil, fmt.Errorf("field_ids: %w", err)
		}
		if present {
			f.FieldIDs = make([]int, e-s)
			for j := s; j < e; j++ {
				if ids.vals.IsNull(j) {
					return nil, errors.New("field_ids: null element")
				}
				f.FieldIDs[j-s] = int(ids.vals.Value(j))
			}
		}
		dst := []*[]int64{&f.ValueCounts, &f.NullCounts, &f.NaNCounts, &f.ColumnSizes}
		for j, lc := range intLists {
			s, e, present, err := lc.span(i)
			if err != nil {
				return nil, err
			}
			if !present {
				continue
			}
			if lc.vals.NullN() != 0 {
				for k := s; k < e; k++ {
					if lc.vals.IsNull(k) {
						return nil, errors.New("null count element")
					}
				}
			}
			*dst[j] = append(make([]int64, 0, e-s), lc.vals.Int64Values()[s:e]...)
		}
		if f.LowerBounds, err = readBounds(lower, i); err != nil {
			return nil, fmt.Errorf("lower_bounds: %w", err)
		}
		if f.UpperBounds, err = readBounds(upper, i); err != nil {
			return nil, fmt.Errorf("upper_bounds: %w", err)
		}
		s, e, present, err = exact.span(i)
		if err != nil {
			return nil, fmt.Errorf("bounds_exact: %w", err)
		}
		if present {
			f.BoundsExact = make([]bool, e-s)
			for j := s; j < e; j++ {
				if exact.vals.IsNull(j) {
					return nil, errors.New("bounds_exact: null element")
				}
				f.BoundsExact[j-s] = exact.vals.Value(j)
			}
		}
		ns, err := readStrings(names, i, false)
		if err != nil {
			return nil, fmt.Errorf("column_names: %w", err)
		}
		if ns != nil {
			f.ColumnNames = make([]string, len(ns))
			for j, p := range ns {
				f.ColumnNames[j] = *p
			}
		}
	}
	return files, nil
}

func readStrings(c listCol[*array.String], i int, nullable bool) ([]*string, error) {
	s, e, present, err := c.span(i)
	if err != nil || !present {
		return nil, err
	}
	out := make([]*string, e-s)
	for j := s; j < e; j++ {
		if c.vals.IsNull(j) {
			if !nullable {
				return nil, errors.New("null element")
			}
			continue
		}
		v := strings.Clone(c.vals.Value(j))
		out[j-s] = &v
	}
	return out, nil
}

func readBounds(c listCol[*array.Binary], i int) ([][]byte, error) {
	s, e, present, err := c.span(i)
	if err != nil || !present {
		return nil, err
	}
	out := make([][]byte, e-s)
	for j := s; j < e; j++ {
		if c.vals.IsNull(j) {
			continue
		}
		v := c.vals.Value(j)
		out[j-s] = append(make([]byte, 0, len(v)), v...)
	}
	return out, nil
}
