package manifest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

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
	return ReadWith(ctx, store, key, DecodeOptions{})
}

// ReadWith is Read decoding only what opts selects.
func ReadWith(ctx context.Context, store blob.Store, key string, opts DecodeOptions) ([]DataFile, error) {
	data, err := store.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("read manifest %s: %w", key, err)
	}
	files, err := DecodeWith(data, opts)
	if err != nil {
		return nil, fmt.Errorf("read manifest %s: %w", key, err)
	}
	return files, nil
}

// Parts selects the per-entry fields DecodeWith decodes besides those it
// always decodes: the scalar fields (Path … SequenceNumber) and FieldIDs.
type Parts uint16

const (
	PartPartitionValues Parts = 1 << iota
	PartValueCounts
	PartNullCounts
	PartNaNCounts
	PartBounds // LowerBounds, UpperBounds and BoundsExact
	PartColumnSizes
	PartColumnNames

	AllParts = PartPartitionValues | PartValueCounts | PartNullCounts | PartNaNCounts | PartBounds | PartColumnSizes | PartColumnNames
	// PlanParts is what file pruning reads (scan.Prune).
	PlanParts = PartPartitionValues | PartValueCounts | PartNullCounts | PartNaNCounts | PartBounds
)

// DecodeOptions project a decode. The zero value decodes everything.
type DecodeOptions struct {
	// Parts to decode; zero means AllParts. Fields of parts not decoded
	// are nil.
	Parts Parts
	// FieldIDs, if not nil, keeps only these field ids in each entry's
	// FieldIDs and the per-column arrays aligned with it (in the entry's
	// own order). An id an entry lacks stays absent, as in a full decode.
	FieldIDs []int
	// AddedBy, if not zero, keeps only the entries snapshot AddedBy added
	// (AddedSnapshotID == AddedBy), in file order: the other rows are
	// decoded from Parquet but never turned into entries, which is most of
	// a full decode's cost for a large manifest (an incremental Iceberg
	// export of an append needs only the files the append added).
	AddedBy int64
}

func (o DecodeOptions) parts() Parts {
	if o.Parts == 0 {
		return AllParts
	}
	return o.Parts
}

// columns reports which manifest columns opts needs read.
func (o DecodeOptions) columns() [allCols]bool {
	p := o.parts()
	var need [allCols]bool
	for c := range need {
		need[c] = true
	}
	for c, part := range map[int]Parts{
		colPartitionValues: PartPartitionValues,
		colValueCounts:     PartValueCounts,
		colNullCounts:      PartNullCounts,
		colNaNCounts:       PartNaNCounts,
		colLowerBounds:     PartBounds,
		colUpperBounds:     PartBounds,
		colBoundsExact:     PartBounds,
		colColumnSizes:     PartColumnSizes,
		colColumnNames:     PartColumnNames,
	} {
		need[c] = p&part != 0
	}
	return need
}

// Decode decodes manifest bytes as Encode produced them. Failures wrap
// ErrCorrupt.
func Decode(data []byte) ([]DataFile, error) {
	return DecodeWith(data, DecodeOptions{})
}

// DecodeWith decodes what opts selects of manifest bytes. The file's
// checksum is checked first, over all of it, whatever is selected (for
// version 1 manifests, whose checksum covers decoded content, everything is
// decoded and then projected). Failures wrap ErrCorrupt.
func DecodeWith(data []byte, opts DecodeOptions) (files []DataFile, err error) {
	defer func() {
		if r := recover(); r != nil {
			files, err = nil, MarkCorrupt(fmt.Errorf("decoder panic: %v", r))
		}
	}()
	d, err := decode(data, opts, false)
	if err != nil {
		return nil, MarkCorrupt(err)
	}
	return d.Added, nil
}

// decode decodes a consolidated manifest (delta false: its entries are
// Added) or a delta manifest (delta true), refusing the other kind.
func decode(data []byte, opts DecodeOptions, delta bool) (*Delta, error) {
	mem := memory.NewGoAllocator()
	rdr, err := file.NewParquetReader(bytes.NewReader(data), file.WithReadProps(parquet.NewReaderProperties(mem)))
	if err != nil {
		return nil, err
	}
	defer rdr.Close()
	md := rdr.MetaData()
	kv := md.KeyValueMetadata()
	ver := kv.FindValue(metaVersion)
	if ver == nil || (*ver != version && *ver != versionV2 && *ver != versionV1) {
		return nil, errors.New("missing or unsupported manifest version")
	}
	ncols := numCols
	if *ver != version {
		ncols = legacyCols // before data file checksums
	}
	kind := kv.FindValue(metaKind)
	isDelta := kind != nil && *kind == kindDelta
	switch {
	case kind != nil && !isDelta:
		return nil, fmt.Errorf("unknown manifest kind %q", *kind)
	case isDelta && !delta:
		return nil, errors.New("a delta manifest, read as a consolidated one")
	case delta && !isDelta:
		return nil, errors.New("a consolidated manifest, read as a delta")
	case isDelta && *ver != version:
		return nil, fmt.Errorf("delta manifest of version %s", *ver)
	case isDelta:
		ncols = allCols
	}
	out := &Delta{}
	if isDelta {
		if err := out.readLink(kv); err != nil {
			return nil, err
		}
	}
	v1 := *ver == versionV1
	asked := opts
	nv := kv.FindValue(metaFiles)
	if nv == nil {
		return nil, errors.New("missing file count")
	}
	n, err := strconv.ParseInt(*nv, 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("bad file count %q", *nv)
	}
	var want uint64
	if v1 {
		cv := kv.FindValue(metaChecksum)
		if cv == nil {
			return nil, errors.New("missing checksum")
		}
		if want, err = strconv.ParseUint(*cv, 16, 64); err != nil {
			return nil, fmt.Errorf("bad checksum %q", *cv)
		}
		opts = DecodeOptions{} // the checksum needs every column
	} else {
		cv := kv.FindValue(metaCRC)
		if cv == nil {
			return nil, errors.New("missing checksum")
		}
		if err := verifyCRC(data, *cv); err != nil {
			return nil, err
		}
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

	rgs, rows := allRowGroups(rdr), n
	if opts.AddedBy != 0 {
		if rgs, rows, err = rowGroupsAddedBy(rdr, mem, n, ncols, opts.AddedBy); err != nil {
			return nil, err
		}
	}
	cols, release, err := readColumns(rdr, mem, rows, opts.columns(), ncols, rgs)
	if err != nil {
		return nil, err
	}
	defer release()
	if opts.AddedBy != 0 {
		sel, selRelease, err := selectAddedBy(cols, mem, opts.AddedBy)
		if err != nil {
			return nil, err
		}
		defer selRelease()
		cols, rows = sel, int64(sel[colAddedSnapshotID].Len())
	}
	files, err := fromColumns(cols, int(rows), opts.FieldIDs)
	if err != nil {
		return nil, err
	}
	if isDelta {
		if files, out.Removed, err = splitRemoved(files, cols[colRemoved]); err != nil {
			return nil, err
		}
	}
	for i := range files {
		if err := files[i].Validate(); err != nil {
			return nil, fmt.Errorf("entry %d: %v", i, err)
		}
	}
	out.Added = files
	if v1 {
		if got := checksum(files); got != want {
			return nil, fmt.Errorf("checksum mismatch: content %x, footer %x", got, want)
		}
		if asked.Parts != 0 || asked.FieldIDs != nil || asked.AddedBy != 0 {
			// Verified: now project the columns already read.
			need, proj := asked.columns(), slices.Clone(cols)
			for c := range proj {
				if !need[c] {
					proj[c] = nil
				}
			}
			rows := int(n)
			if asked.AddedBy != 0 {
				sel, selRelease, err := selectAddedBy(proj, mem, asked.AddedBy)
				if err != nil {
					return nil, err
				}
				defer selRelease()
				proj, rows = sel, sel[colAddedSnapshotID].Len()
			}
			out.Added, err = fromColumns(proj, rows, asked.FieldIDs)
			return out, err
		}
	}
	return out, nil
}

// readColumns reads the manifest columns marked in need of row groups
// rgs, each as one array of n values (nil where not needed). Each manifest column is one
// Parquet leaf, so column and leaf indexes coincide.
// The file has ncols columns (fewer than numCols for older versions); the
// columns it lacks are nil.
func readColumns(rdr *file.Reader, mem memory.Allocator, n int64, need [allCols]bool, ncols int, rgs []int) ([]arrow.Array, func(), error) {
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: min(max(n, 1), 1<<20)}, mem)
	if err != nil {
		return nil, nil, err
	}
	sc, err := fr.Schema()
	if err != nil {
		return nil, nil, err
	}
	if err := checkSchema(sc, ncols); err != nil {
		return nil, nil, err
	}
	var leaves []int
	for c := range need[:ncols] {
		if need[c] {
			leaves = append(leaves, c)
		}
	}
	tbl, err := fr.ReadRowGroups(context.Background(), leaves, rgs)
	if err != nil {
		return nil, nil, err
	}
	defer tbl.Release()
	if tbl.NumRows() != n || tbl.NumCols() != int64(len(leaves)) {
		return nil, nil, fmt.Errorf("decoded %d rows of %d columns, expected %d rows", tbl.NumRows(), tbl.NumCols(), n)
	}
	cols := make([]arrow.Array, allCols)
	release := func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}
	for k, c := range leaves {
		chunks := tbl.Column(k).Data().Chunks()
		var a arrow.Array
		switch len(chunks) {
		case 0:
			a = array.MakeArrayOfNull(mem, deltaSchema.Field(c).Type, 0)
		case 1:
			a = chunks[0]
			a.Retain()
		default:
			if a, err = array.Concatenate(chunks, mem); err != nil {
				release()
				return nil, nil, err
			}
		}
		cols[c] = a
		if int64(a.Len()) != n {
			release()
			return nil, nil, fmt.Errorf("column %s has %d values, expected %d", deltaSchema.Field(c).Name, a.Len(), n)
		}
		if !deltaSchema.Field(c).Nullable && a.NullN() != 0 {
			release()
			return nil, nil, fmt.Errorf("column %s has nulls", deltaSchema.Field(c).Name)
		}
	}
	return cols, release, nil
}

// checkSchema compares the file's schema with the first ncols columns of
// deltaSchema (manifestSchema's followed by the removed flag), by name and
// type shape (nullability and field metadata aside).
func checkSchema(sc *arrow.Schema, ncols int) error {
	if sc.NumFields() != ncols {
		return fmt.Errorf("manifest has %d columns, expected %d", sc.NumFields(), ncols)
	}
	for i, want := range deltaSchema.Fields()[:ncols] {
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

func allRowGroups(rdr *file.Reader) []int {
	rgs := make([]int, rdr.NumRowGroups())
	for i := range rgs {
		rgs[i] = i
	}
	return rgs
}

// rowGroupsAddedBy reads only the added_snapshot_id column of the n-entry
// manifest and returns the row groups holding an entry snapshot snap
// added, with their total number of rows: the only ones a decode of
// DecodeOptions.AddedBy needs to read in full.
func rowGroupsAddedBy(rdr *file.Reader, mem memory.Allocator, n int64, ncols int, snap int64) ([]int, int64, error) {
	var need [allCols]bool
	need[colAddedSnapshotID] = true
	cols, release, err := readColumns(rdr, mem, n, need, ncols, allRowGroups(rdr))
	if err != nil {
		return nil, 0, err
	}
	defer release()
	ids, ok := cols[colAddedSnapshotID].(*array.Int64)
	if !ok {
		return nil, 0, errors.New("added_snapshot_id: unexpected column type")
	}
	vals := ids.Int64Values()
	var rgs []int
	var rows, start int64
	for i := 0; i < rdr.NumRowGroups(); i++ {
		m := rdr.MetaData().RowGroup(i).NumRows()
		if start+m > int64(len(vals)) {
			return nil, 0, fmt.Errorf("row group %d ends past the %d entries", i, len(vals))
		}
		if slices.Contains(vals[start:start+m], snap) {
			rgs = append(rgs, i)
			rows += m
		}
		start += m
	}
	return rgs, rows, nil
}
