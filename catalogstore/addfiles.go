package catalogstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// AddFiles registers existing Parquet files (object keys in the catalog's
// store) with a dataset in one add-files commit, reading only their
// footers: columns map to the schema by field id, or by name when the
// files carry none, and each must store a type that reads as the column's.
// With deferred, stats are not read: the files are registered pending.
// Otherwise each file is also read whole once, for the checksums every
// later read is checked against (deferred registration leaves them to
// the statistics refresh). A file that cannot be read or does not fit, or
// one already live in the dataset (ErrDuplicateFile), refuses the whole
// commit.
func (c *Catalog) AddFiles(ctx context.Context, id Ident, keys []string, author string, deferred bool) (*Snapshot, error) {
	ds, err := c.Dataset(ctx, id)
	if err != nil {
		return nil, err
	}
	if len(ds.Spec.Fields) > 0 {
		return nil, fmt.Errorf("%w: add_files to the partitioned dataset %s (its files would need partition values)", ErrNotSupported, id.Short())
	}
	if ds.CurrentSnapshotID != 0 {
		live, _, err := c.Files(ctx, ds, ds.CurrentSnapshotID)
		if err != nil {
			return nil, err
		}
		for _, f := range live {
			if slices.Contains(keys, f.Path) {
				return nil, fmt.Errorf("%w: %s is already live in %s; add_files registers a file once", ErrDuplicateFile, f.Path, id.Short())
			}
		}
	}
	files := make([]manifest.DataFile, 0, len(keys))
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			return nil, fmt.Errorf("%w: file %s is listed twice", ErrBadValue, k)
		}
		seen[k] = true
		var f manifest.DataFile
		if deferred {
			info, err := c.blob.Stat(ctx, k)
			if err != nil {
				return nil, fmt.Errorf("add file %s: %w", k, err)
			}
			f = manifest.DataFile{Path: k, Format: "parquet", FileSize: info.Size, StatsState: manifest.StatsPending}
			// The record count is needed for summaries: it is in the footer,
			// the one read deferred registration still makes.
			full, err := datafile.ReadFooter(ctx, c.blob, k, info.Size, &ds.Schema)
			if err != nil {
				return nil, err
			}
			f.RecordCount, f.UncompressedSize = full.RecordCount, full.UncompressedSize
		} else {
			f, err = datafile.ReadFooter(ctx, c.blob, k, 0, &ds.Schema)
			if err != nil {
				return nil, fmt.Errorf("%w: %v", ErrBadValue, err)
			}
			if f, err = datafile.WithChecksums(ctx, c.blob, f); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrBadValue, err)
			}
		}
		files = append(files, f)
	}
	return c.Commit(ctx, id, Commit{Operation: OpAddFiles, Author: author, Added: files,
		ExpectedUUID: ds.UUID, BaseSnapshotID: ds.CurrentSnapshotID})
}
