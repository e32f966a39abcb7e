package maintenance

import (
	"context"
	"fmt"
	"reflect"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// maxRefreshAttempts bounds how often a statistics refresh starts over
// because the head moved under it.
const maxRefreshAttempts = 10

// StatsResult is what RefreshStatistics did.
type StatsResult struct {
	Files    int // live files whose footers were read
	Changed  int // manifest entries whose statistics changed
	Snapshot *catalogstore.Snapshot
}

// RefreshStatistics rebuilds the head manifest's per-file statistics from
// the data files' footers (datafile.ReadFooter): sizes, record counts,
// value/NULL counts and bounds, for files registered with pending or
// failed statistics as much as for any other. It keeps each entry's
// identity (partition, row ids, the snapshot that added it) and known NaN
// counts, which Parquet footers do not carry. When an entry changed it
// commits operation=statistics-refresh as a housekeeping snapshot (no
// trigger fires); when nothing changed it commits nothing (Snapshot nil),
// so a no-op never adds history.
//
// It fails whole: one unreadable file, or a footer whose row count
// disagrees with the manifest (an alertable ErrStatsMismatch), and nothing
// is committed. When the head moves under it, it starts over on the new
// head (at most maxRefreshAttempts times). It holds the dataset's
// maintenance lease (ErrLeaseHeld).
func RefreshStatistics(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, author string, opts ...Option) (*StatsResult, error) {
	o := buildOptions(opts)
	if author == "" {
		author = "maintenance"
	}
	lease, err := Acquire(ctx, cat, ds, author+" (refresh_statistics)", o.leaseTTL)
	if err != nil {
		return nil, err
	}
	defer releaseQuietly(ctx, lease)
	done := map[string]manifest.DataFile{} // footers already read, by path
	var res *StatsResult
	snap, err := rewriteHead(ctx, cat, ds, author, catalogstore.OpStatisticsRefresh, func(cur *catalogstore.Dataset, files []manifest.DataFile) (headRewrite, error) {
		res = &StatsResult{}
		out := make([]manifest.DataFile, len(files))
		for i, f := range files {
			nf, ok := done[f.Path]
			if !ok {
				var err error
				if nf, err = refreshOne(ctx, cat, cur, f); err != nil {
					return headRewrite{}, err
				}
				done[f.Path] = nf
			}
			out[i] = nf
			if !reflect.DeepEqual(nf, f) {
				res.Changed++
			}
		}
		res.Files = len(files)
		msg := fmt.Sprintf("statistics refresh: %d files, %d changed", res.Files, res.Changed)
		return headRewrite{files: out, message: msg, commit: res.Changed > 0}, nil
	}, func() error { return lease.Check(ctx) })
	if err != nil {
		return nil, err
	}
	res.Snapshot = snap
	return res, nil
}

// refreshOne reads one file's footer into a new manifest entry.
func refreshOne(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, f manifest.DataFile) (manifest.DataFile, error) {
	s := fileSchema(&ds.Schema, f)
	// A recorded footer checksum is checked first: statistics are never
	// taken from a damaged footer.
	_, err := datafile.NumRowGroups(ctx, cat.Blob(), f, nil)
	var nf manifest.DataFile
	if err == nil {
		nf, err = datafile.ReadFooter(ctx, cat.Blob(), f.Path, f.FileSize, s)
	}
	if err != nil {
		return manifest.DataFile{}, catalogstore.MarkAlertable(fmt.Errorf("refresh statistics of %s: %w", ds.Ident().Short(), err),
			catalogstore.SeverityError, "stats-refresh-unreadable:"+ds.UUID, map[string]string{"dataset": ds.Ident().String(), "file": f.Path})
	}
	if nf.RecordCount != f.RecordCount {
		return manifest.DataFile{}, catalogstore.MarkAlertable(
			fmt.Errorf("%w: %s: %s has %d rows, the manifest says %d", ErrStatsMismatch, ds.Ident().Short(), f.Path, nf.RecordCount, f.RecordCount),
			catalogstore.SeverityCritical, "stats-refresh-rows:"+ds.UUID, map[string]string{"dataset": ds.Ident().String(), "file": f.Path})
	}
	// The entry's identity is the manifest's, not the footer's.
	nf.Format, nf.SpecID, nf.PartitionValues = f.Format, f.SpecID, f.PartitionValues
	// Checksums are never recomputed over a file already recorded (that
	// would bless damage since); files registered without them (deferred
	// add_files) get them now, from one read of the whole file.
	if f.Checksum != "" || f.PartChecksums != nil {
		nf.Checksum, nf.PartChecksums = f.Checksum, f.PartChecksums
	} else if nf, err = datafile.WithChecksums(ctx, cat.Blob(), nf); err != nil {
		return manifest.DataFile{}, catalogstore.MarkAlertable(fmt.Errorf("refresh statistics of %s: %w", ds.Ident().Short(), err),
			catalogstore.SeverityError, "stats-refresh-unreadable:"+ds.UUID, map[string]string{"dataset": ds.Ident().String(), "file": f.Path})
	}
	nf.RowIDStart, nf.AddedSnapshotID, nf.SequenceNumber = f.RowIDStart, f.AddedSnapshotID, f.SequenceNumber
	if len(f.ColumnNames) == 0 {
		nf.ColumnNames = nil
	}
	// Footers do not count NaNs: keep the counts the writer made.
	if nf.NaNCounts != nil && f.StatsState == manifest.StatsProvided {
		for i, id := range nf.FieldIDs {
			if nf.NaNCounts[i] >= 0 {
				continue
			}
			for j, oid := range f.FieldIDs {
				if oid == id && j < len(f.NaNCounts) && f.NaNCounts[j] >= 0 {
					nf.NaNCounts[i] = f.NaNCounts[j]
				}
			}
		}
	}
	return nf, nil
}

// fileSchema is the schema under which a file registered by column name
// (manifest ColumnNames) maps its columns: the current schema with the
// file's own names, so a rename since registration does not lose them.
func fileSchema(s *schema.Schema, f manifest.DataFile) *schema.Schema {
	if len(f.ColumnNames) == 0 || len(f.ColumnNames) != len(f.FieldIDs) {
		return s
	}
	names := map[int]string{}
	for i, id := range f.FieldIDs {
		if f.ColumnNames[i] != "" {
			names[id] = f.ColumnNames[i]
		}
	}
	out := schema.Schema{ID: s.ID, Columns: make([]schema.Column, len(s.Columns))}
	copy(out.Columns, s.Columns)
	for i, c := range out.Columns {
		if n, ok := names[c.ID]; ok {
			out.Columns[i].Name = n
		}
	}
	return &out
}
