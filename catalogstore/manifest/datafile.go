package manifest

import "fmt"

// The stats states of a DataFile.
const (
	// StatsProvided: the per-column arrays were taken from the file's
	// footer when it was written or registered.
	StatsProvided = "provided"
	// StatsPending: the file is listed but its statistics are not known
	// yet (a later statistics-refresh fills them in). Planners must not
	// prune it.
	StatsPending = "pending"
	// StatsFailed: collecting statistics failed; StatsError says why.
	// Planners must not prune it.
	StatsFailed = "failed"
)

// FormatParquet is the only data file format lakesql writes.
const FormatParquet = "parquet"

// DataFile is one live data file as the manifest lists it.
//
// The per-column arrays (ValueCounts … ColumnNames) are aligned with
// FieldIDs: element i describes the column with field id FieldIDs[i]. Each
// array is either nil (not collected) or exactly as long as FieldIDs.
// A count of -1 means unknown (for example NaN counts of a file registered
// with add_files: Parquet footers do not count NaNs). Bounds use Iceberg's
// single-value binary encoding (see package datafile: EncodeBound,
// DecodeBound); a nil bound is absent or unknown, and an empty non-nil
// bound is a real value (the empty string).
type DataFile struct {
	Path             string    // blob key
	Format           string    // "parquet"
	RecordCount      int64     // rows in the file
	FileSize         int64     // bytes of the object
	UncompressedSize int64     // sum of the column chunks' uncompressed sizes
	SpecID           int       // partition spec id
	PartitionValues  []*string // transformed values as strings, by spec field order; nil = null partition value
	RowIDStart       int64     // row id of the file's first row
	StatsState       string    // StatsProvided | StatsPending | StatsFailed
	StatsError       string    // why, when failed
	AddedSnapshotID  int64     // snapshot that added the file
	SequenceNumber   int64     // sequence number of that snapshot
	FieldIDs         []int     // field ids the arrays below describe
	ValueCounts      []int64   // values (rows, including nulls) per field id
	NullCounts       []int64   // nulls per field id; -1 unknown
	NaNCounts        []int64   // NaNs per field id (0 for non-float columns); -1 unknown
	LowerBounds      [][]byte  // nil = no bound (absent/unknown)
	UpperBounds      [][]byte  // nil = no bound (absent/unknown)
	BoundsExact      []bool    // false when a writer truncated a bound (min/max answers must not use it)
	ColumnSizes      []int64   // compressed bytes per field id
	// ColumnNames maps field ids to the file's own column names, for files
	// registered without PARQUET:field_id (add_files maps them by name
	// once; readers keep using these names after a rename). nil when the
	// file carries field ids. An empty name means the file has no column
	// for the field id (every value is null).
	ColumnNames []string
	// Checksum is the whole file's checksum as "crc32c:" and 8 lower-case
	// hex digits (CRC-32C, Castagnoli), taken from the bytes written or,
	// for add_files, read once at registration; "" when not recorded
	// (entries of manifests written before checksums were). Deep
	// verification (fsck --deep, CALL verify(..., 'deep')) compares it.
	Checksum string
	// PartChecksums are CRC-32Cs of the parts of the file a reader fetches
	// separately, in the order package datafile defines (footer, page
	// index, column chunks), verified on every read; nil when not
	// recorded.
	PartChecksums []uint32
}

// Summary totals a manifest's files: count, records and bytes (file sizes),
// as a snapshot summary records them.
func Summary(files []DataFile) (totalFiles, totalRecords, totalBytes int64) {
	for i := range files {
		totalRecords += files[i].RecordCount
		totalBytes += files[i].FileSize
	}
	return int64(len(files)), totalRecords, totalBytes
}

// Validate reports why f cannot be listed in a manifest, or nil. Write
// refuses such entries with ErrInvalid; Read reports them as corrupt.
func (f *DataFile) Validate() error {
	switch {
	case f.Path == "":
		return fmt.Errorf("empty path")
	case f.Format == "":
		return fmt.Errorf("%s: empty format", f.Path)
	case f.RecordCount < 0 || f.FileSize < 0 || f.UncompressedSize < 0:
		return fmt.Errorf("%s: negative record count or size", f.Path)
	}
	if f.Checksum != "" && !ValidChecksum(f.Checksum) {
		return fmt.Errorf("%s: bad checksum %q", f.Path, f.Checksum)
	}
	switch f.StatsState {
	case StatsProvided, StatsPending, StatsFailed:
	default:
		return fmt.Errorf("%s: unknown stats state %q", f.Path, f.StatsState)
	}
	n := len(f.FieldIDs)
	if id, ok := duplicateOrInvalidID(f.FieldIDs); !ok {
		if id < 1 {
			return fmt.Errorf("%s: field id %d < 1", f.Path, id)
		}
		return fmt.Errorf("%s: duplicate field id %d", f.Path, id)
	}
	lens := []struct {
		name string
		nil  bool
		len  int
	}{
		{"value counts", f.ValueCounts == nil, len(f.ValueCounts)},
		{"null counts", f.NullCounts == nil, len(f.NullCounts)},
		{"nan counts", f.NaNCounts == nil, len(f.NaNCounts)},
		{"lower bounds", f.LowerBounds == nil, len(f.LowerBounds)},
		{"upper bounds", f.UpperBounds == nil, len(f.UpperBounds)},
		{"bounds exact", f.BoundsExact == nil, len(f.BoundsExact)},
		{"column sizes", f.ColumnSizes == nil, len(f.ColumnSizes)},
		{"column names", f.ColumnNames == nil, len(f.ColumnNames)},
	}
	for _, l := range lens {
		if !l.nil && l.len != n {
			return fmt.Errorf("%s: %d %s for %d field ids", f.Path, l.len, l.name, n)
		}
	}
	for i := range f.ValueCounts {
		if f.ValueCounts[i] < -1 {
			return fmt.Errorf("%s: value count %d", f.Path, f.ValueCounts[i])
		}
	}
	for i := range f.NullCounts {
		if f.NullCounts[i] < -1 {
			return fmt.Errorf("%s: null count %d", f.Path, f.NullCounts[i])
		}
	}
	for i := range f.NaNCounts {
		if f.NaNCounts[i] < -1 {
			return fmt.Errorf("%s: nan count %d", f.Path, f.NaNCounts[i])
		}
	}
	return nil
}

// duplicateOrInvalidID returns the first field id that is < 1 or repeats
// an earlier one, and false; or true. Read validates every entry, so this
// avoids a map per entry for the usual few dozen ids.
func duplicateOrInvalidID(ids []int) (int, bool) {
	var seen map[int]bool
	if len(ids) > 64 {
		seen = make(map[int]bool, len(ids))
	}
	for i, id := range ids {
		if id < 1 {
			return id, false
		}
		if seen != nil {
			if seen[id] {
				return id, false
			}
			seen[id] = true
			continue
		}
		for _, prev := range ids[:i] {
			if prev == id {
				return id, false
			}
		}
	}
	return 0, true
}
