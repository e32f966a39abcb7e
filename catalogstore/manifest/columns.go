package manifest

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// fromColumns turns decoded manifest columns (nil: not read) into entries.
// Values are copied out of the Arrow buffers into a few shared arenas, one
// per field, rather than one allocation per list and per bound: a 100,000
// entry manifest with 16 columns otherwise makes millions of small
// allocations. Each entry's slices are capped (s[a:b:b]), so appending to
// one never writes into its neighbour. keepIDs, if not nil, keeps only
// those field ids (see DecodeOptions.FieldIDs).
func fromColumns(cols []arrow.Array, n int, keepIDs []int) ([]DataFile, error) {
	files := make([]DataFile, n)
	if err := scalars(cols, files); err != nil {
		return nil, err
	}
	ids, err := asList[*array.Int32](cols[colFieldIDs])
	if err != nil {
		return nil, fmt.Errorf("field_ids: %w", err)
	}
	sel, err := fieldIDs(ids, files, keepIDs)
	if err != nil {
		return nil, fmt.Errorf("field_ids: %w", err)
	}
	for _, c := range []struct {
		col int
		dst func(f *DataFile) *[]int64
	}{
		{colValueCounts, func(f *DataFile) *[]int64 { return &f.ValueCounts }},
		{colNullCounts, func(f *DataFile) *[]int64 { return &f.NullCounts }},
		{colNaNCounts, func(f *DataFile) *[]int64 { return &f.NaNCounts }},
		{colColumnSizes, func(f *DataFile) *[]int64 { return &f.ColumnSizes }},
	} {
		if cols[c.col] == nil {
			continue
		}
		lc, err := asList[*array.Int64](cols[c.col])
		if err == nil {
			err = fillLists(lc, lc.vals.Int64Values(), sel, files, c.dst)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", manifestSchema.Field(c.col).Name, err)
		}
	}
	if cols[colBoundsExact] != nil {
		lc, err := asList[*array.Boolean](cols[colBoundsExact])
		if err == nil {
			flat := make([]bool, lc.vals.Len())
			for j := range flat {
				flat[j] = lc.vals.Value(j)
			}
			err = fillLists(lc, flat, sel, files, func(f *DataFile) *[]bool { return &f.BoundsExact })
		}
		if err != nil {
			return nil, fmt.Errorf("bounds_exact: %w", err)
		}
	}
	for _, c := range []struct {
		col int
		dst func(f *DataFile) *[][]byte
	}{
		{colLowerBounds, func(f *DataFile) *[][]byte { return &f.LowerBounds }},
		{colUpperBounds, func(f *DataFile) *[][]byte { return &f.UpperBounds }},
	} {
		if cols[c.col] == nil {
			continue
		}
		lc, err := asList[*array.Binary](cols[c.col])
		if err == nil {
			err = fillBounds(lc, sel, files, c.dst)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", manifestSchema.Field(c.col).Name, err)
		}
	}
	if cols[colPartitionValues] != nil {
		lc, err := asList[*array.String](cols[colPartitionValues])
		if err == nil {
			err = fillPartitionValues(lc, files)
		}
		if err != nil {
			return nil, fmt.Errorf("partition_values: %w", err)
		}
	}
	if cols[colColumnNames] != nil {
		lc, err := asList[*array.String](cols[colColumnNames])
		if err == nil {
			if lc.vals.NullN() != 0 {
				err = errors.New("null element")
			} else {
				all, offs, verr := valueBytes(lc.vals)
				flat := make([]string, lc.vals.Len())
				for j := range flat {
					if verr == nil {
						flat[j] = string(all[offs[j]:offs[j+1]])
					}
				}
				err = verr
				if err == nil {
					err = fillLists(lc, flat, sel, files, func(f *DataFile) *[]string { return &f.ColumnNames })
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("column_names: %w", err)
		}
	}
	if err := checksums(cols, files); err != nil {
		return nil, err
	}
	return files, nil
}

// checksums fills the data files' checksums, when the manifest has them
// (version 3); older manifests leave them unrecorded.
func checksums(cols []arrow.Array, files []DataFile) error {
	if cols[colChecksum] != nil {
		a, ok := cols[colChecksum].(*array.String)
		if !ok {
			return errors.New("checksum: unexpected column type")
		}
		for i := range files {
			files[i].Checksum = intern(a.Value(i), "")
		}
	}
	if cols[colPartChecksums] != nil {
		a, ok := cols[colPartChecksums].(*array.Binary)
		if !ok {
			return errors.New("part_checksums: unexpected column type")
		}
		vb, offs, err := valueBytes(a)
		if err != nil {
			return fmt.Errorf("part_checksums: %w", err)
		}
		// One arena for all entries, as for the per-column lists.
		arena, err := unpackSums(vb)
		if err != nil {
			return fmt.Errorf("part_checksums: %w", err)
		}
		for i := range files {
			if a.IsNull(i) {
				continue
			}
			s, e := offs[i], offs[i+1]
			if s%4 != 0 || e%4 != 0 {
				return fmt.Errorf("part_checksums: entry %d not a multiple of 4 bytes", i)
			}
			files[i].PartChecksums = arena[s/4 : e/4 : e/4]
		}
	}
	return nil
}

// scalars fills the fields of one value per entry.
func scalars(cols []arrow.Array, files []DataFile) error {
	ok := true
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
	path, format, state, serr := str(colPath), str(colFormat), str(colStatsState), str(colStatsError)
	recs, size, usize, rowid := i64(colRecordCount), i64(colFileSize), i64(colUncompressedSize), i64(colRowIDStart)
	snap, seq := i64(colAddedSnapshotID), i64(colSequenceNumber)
	spec, k := cols[colSpecID].(*array.Int32)
	if !ok || !k {
		return errors.New("unexpected scalar column types")
	}
	pb, offs, err := valueBytes(path)
	if err != nil {
		return fmt.Errorf("path: %w", err)
	}
	paths := string(pb)
	for i := range files {
		f := &files[i]
		f.Path = paths[offs[i]:offs[i+1]]
		f.Format = intern(format.Value(i), FormatParquet)
		f.RecordCount = recs.Value(i)
		f.FileSize = size.Value(i)
		f.UncompressedSize = usize.Value(i)
		f.SpecID = int(spec.Value(i))
		f.RowIDStart = rowid.Value(i)
		f.StatsState = intern(state.Value(i), StatsProvided, StatsPending, StatsFailed)
		f.StatsError = intern(serr.Value(i), "")
		f.AddedSnapshotID = snap.Value(i)
		f.SequenceNumber = seq.Value(i)
	}
	return nil
}

// intern returns the constant among known that equals v (v aliases an
// Arrow buffer), or a copy of v.
func intern(v string, known ...string) string {
	for _, k := range known {
		if v == k {
			return k
		}
	}
	return strings.Clone(v)
}

// selection is which elements of each entry's per-column lists a decode
// keeps: all of them (rel nil), or for entry i the positions
// rel[off[i]:off[i+1]] of its list.
type selection struct {
	rel   []int32
	off   []int
	ncols []int // entry i's number of field ids before filtering
}

// fieldIDs fills each entry's FieldIDs, keeping only keep when not nil,
// and returns the selection the other per-column lists follow.
func fieldIDs(c listCol[*array.Int32], files []DataFile, keep []int) (*selection, error) {
	if c.vals.NullN() != 0 {
		return nil, errors.New("null element")
	}
	raw := c.vals.Int32Values()
	sel := &selection{}
	if keep != nil {
		sel.off = make([]int, len(files)+1)
		sel.ncols = make([]int, len(files))
	}
	total := 0
	for i := range files {
		s, e, ok, err := c.span(i)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if keep == nil {
			total += e - s
			continue
		}
		sel.ncols[i] = e - s
		for j := s; j < e; j++ {
			if slices.Contains(keep, int(raw[j])) {
				sel.rel = append(sel.rel, int32(j-s))
			}
		}
		sel.off[i+1] = len(sel.rel)
	}
	if keep != nil {
		// Entries with a null list have no range: carry offsets forward.
		for i := 1; i < len(sel.off); i++ {
			sel.off[i] = max(sel.off[i], sel.off[i-1])
		}
		total = len(sel.rel)
		if sel.rel == nil {
			sel.rel = []int32{} // keep the selection "filtered" even when empty
		}
	}
	arena := make([]int, total)
	pos := 0
	for i := range files {
		s, e, ok, _ := c.span(i)
		if !ok {
			continue
		}
		start := pos
		if keep == nil {
			for j := s; j < e; j++ {
				arena[pos] = int(raw[j])
				pos++
			}
		} else {
			for _, r := range sel.rel[sel.off[i]:sel.off[i+1]] {
				arena[pos] = int(raw[s+int(r)])
				pos++
			}
		}
		files[i].FieldIDs = arena[start:pos:pos]
	}
	return sel, nil
}

// each calls fn with the element indexes entry i keeps of a list whose
// elements for i are [s, e). A filtered list must be aligned with the
// entry's field ids, or the positions would pick the wrong elements.
func (sel *selection) each(i, s, e int, fn func(j int)) error {
	if sel.rel == nil {
		for j := s; j < e; j++ {
			fn(j)
		}
		return nil
	}
	if e-s != sel.ncols[i] {
		return fmt.Errorf("entry %d: %d elements for %d field ids", i, e-s, sel.ncols[i])
	}
	for _, r := range sel.rel[sel.off[i]:sel.off[i+1]] {
		fn(s + int(r))
	}
	return nil
}

// kept is the number of elements entry i keeps of a list of m.
func (sel *selection) kept(i, m int) int {
	if sel.rel == nil {
		return m
	}
	return sel.off[i+1] - sel.off[i]
}

// fillLists sets each entry's list of non-null elements (flat holds all
// elements of the column) through dst.
func fillLists[E any, A arrow.Array](c listCol[A], flat []E, sel *selection, files []DataFile, dst func(*DataFile) *[]E) error {
	if c.vals.NullN() != 0 {
		return errors.New("null element")
	}
	total := 0
	for i := range files {
		s, e, ok, err := c.span(i)
		if err != nil {
			return err
		}
		if ok {
			total += sel.kept(i, e-s)
		}
	}
	arena := make([]E, total)
	pos := 0
	for i := range files {
		s, e, ok, _ := c.span(i)
		if !ok {
			continue
		}
		start := pos
		if sel.rel == nil {
			pos += copy(arena[pos:], flat[s:e])
		} else if err := sel.each(i, s, e, func(j int) { arena[pos] = flat[j]; pos++ }); err != nil {
			return err
		}
		*dst(&files[i]) = arena[start:pos:pos]
	}
	return nil
}

// fillBounds sets each entry's bounds: nil for a null element, a capped
// slice of one copy of the column's bytes otherwise (empty, not nil, for
// an empty bound).
func fillBounds(c listCol[*array.Binary], sel *selection, files []DataFile, dst func(*DataFile) *[][]byte) error {
	vb, offs, err := valueBytes(c.vals)
	if err != nil {
		return err
	}
	buf := append(make([]byte, 0, len(vb)), vb...)
	total := 0
	for i := range files {
		s, e, ok, err := c.span(i)
		if err != nil {
			return err
		}
		if ok {
			total += sel.kept(i, e-s)
		}
	}
	arena := make([][]byte, total)
	pos := 0
	for i := range files {
		s, e, ok, _ := c.span(i)
		if !ok {
			continue
		}
		start := pos
		err := sel.each(i, s, e, func(j int) {
			if !c.vals.IsNull(j) {
				arena[pos] = buf[offs[j]:offs[j+1]:offs[j+1]]
			}
			pos++
		})
		if err != nil {
			return err
		}
		*dst(&files[i]) = arena[start:pos:pos]
	}
	return nil
}

// fillPartitionValues sets each entry's partition values (by spec field,
// not by field id: never filtered).
func fillPartitionValues(c listCol[*array.String], files []DataFile) error {
	vb, offs, err := valueBytes(c.vals)
	if err != nil {
		return err
	}
	all := string(vb)
	strs := make([]string, c.vals.Len())
	ptrs := make([]*string, c.vals.Len())
	for i := range files {
		s, e, ok, err := c.span(i)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		for j := s; j < e; j++ {
			if !c.vals.IsNull(j) {
				strs[j] = all[offs[j]:offs[j+1]]
				ptrs[j] = &strs[j]
			}
		}
		files[i].PartitionValues = ptrs[s:e:e]
	}
	return nil
}

// varBinary is an Arrow string or binary array.
type varBinary interface {
	Len() int
	ValueOffsets() []int32
	ValueBytes() []byte
}

// valueBytes returns a's concatenated values (aliasing a's buffer) and the
// offsets of its elements in them: element j is [offs[j], offs[j+1]).
func valueBytes(a varBinary) ([]byte, []int, error) {
	if a.Len() == 0 {
		return nil, []int{0}, nil
	}
	raw, vb := a.ValueOffsets(), a.ValueBytes()
	offs := make([]int, len(raw))
	for j, o := range raw {
		offs[j] = int(o - raw[0])
		if offs[j] < 0 || offs[j] > len(vb) || (j > 0 && offs[j] < offs[j-1]) {
			return nil, nil, fmt.Errorf("value offset %d out of range", o)
		}
	}
	return vb, offs, nil
}
