package manifest

// ColumnStats are one column's statistics in one data file, as the
// manifest records them. The bounds stay encoded: how to decode them
// depends on the reader's comparison domain.
type ColumnStats struct {
	// Values (rows, nulls included), Nulls and NaNs; -1: unknown.
	Values, Nulls, NaNs int64
	// Lower and Upper are the encoded bounds; nil: none.
	Lower, Upper []byte
	// Exact is false when a writer truncated the bounds: Lower is still a
	// lower bound but Upper is not an upper bound of the values, and
	// neither is a min or a max.
	Exact bool
	// Missing: the file has no such column (it was added after the file
	// was written), so every value in it is NULL.
	Missing bool
}

// FieldIndex returns fieldID's position in f.FieldIDs, or -1. hint is a
// position to try first (files of one table list their field ids in the
// same order, so a loop over files passes the last answer); -1 for none.
func (f *DataFile) FieldIndex(fieldID, hint int) int {
	if hint >= 0 && hint < len(f.FieldIDs) && f.FieldIDs[hint] == fieldID {
		return hint
	}
	for i, id := range f.FieldIDs {
		if id == fieldID {
			return i
		}
	}
	return -1
}

// ColumnStats returns f's statistics for fieldID. See ColumnStatsAt.
func (f *DataFile) ColumnStats(fieldID int) (ColumnStats, bool) {
	return f.ColumnStatsAt(f.FieldIndex(fieldID, -1))
}

// ColumnStatsAt returns f's statistics for the field at position pos of
// f.FieldIDs (FieldIndex; -1 for a column the file lacks, reported all
// NULL). ok is false when the stats say nothing: pending or failed stats,
// or a column a file without a stats state (one described in memory, not
// read from a manifest) does not list.
func (f *DataFile) ColumnStatsAt(pos int) (st ColumnStats, ok bool) {
	if pos < 0 {
		return ColumnStats{Values: f.RecordCount, Nulls: f.RecordCount, Exact: true, Missing: true}, f.StatsState == StatsProvided
	}
	st = ColumnStats{Values: at(f.ValueCounts, pos), Nulls: at(f.NullCounts, pos), NaNs: at(f.NaNCounts, pos), Exact: true}
	if pos < len(f.LowerBounds) {
		st.Lower = f.LowerBounds[pos]
	}
	if pos < len(f.UpperBounds) {
		st.Upper = f.UpperBounds[pos]
	}
	if pos < len(f.BoundsExact) {
		st.Exact = f.BoundsExact[pos]
	}
	return st, f.StatsState == StatsProvided || f.StatsState == ""
}

// at is counts[pos], or -1 (unknown) where the file records no counts.
func at(counts []int64, pos int) int64 {
	if pos < len(counts) {
		return counts[pos]
	}
	return -1
}
