package catalogstore

import (
	"context"
	"fmt"
	"io"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// FileSource is one file for AddFileSources.
type FileSource struct {
	// Name is how the caller named the file (a URI, path or key); errors
	// about the file quote it.
	Name string
	// Store holds the file at Key. nil means the catalog's own store: the
	// file is registered in place and recorded as external (never
	// deleted). Otherwise it is copied into the dataset's data/ folder.
	Store blob.Store
	Key   string
}

func (s FileSource) inPlace() bool { return s.Store == nil }

// AddFiles registers existing Parquet files (object keys in the catalog's
// store) in place; see AddFileSources.
func (c *Catalog) AddFiles(ctx context.Context, id Ident, keys []string, author string, deferred bool) (*Snapshot, error) {
	srcs := make([]FileSource, len(keys))
	for i, k := range keys {
		srcs[i] = FileSource{Name: k, Key: k}
	}
	return c.AddFileSources(ctx, id, srcs, author, deferred)
}

// AddFileSources registers existing Parquet files with a dataset in one
// add-files commit. Files in the catalog's store are registered in place
// (and recorded as external: no maintenance ever deletes them); files in
// other stores are copied into the dataset's data/ folder first. Columns
// map to the schema by field id, or by name when a file carries none, and
// each must store a type that reads as the column's (datafile.ReadFooter).
//
// Every file is checked before anything is copied or committed: one that
// is missing, not Parquet, or does not fit, or one already live in the
// dataset (ErrDuplicateFile), refuses the whole call with an error naming
// it, and nothing is registered (copies already made by a failed commit
// are orphans for cleanup). With deferred, in-place files are registered
// with pending stats and no checksum read; copied files always get theirs
// (the copy reads them anyway).
func (c *Catalog) AddFileSources(ctx context.Context, id Ident, srcs []FileSource, author string, deferred bool) (*Snapshot, error) {
	ds, err := c.Dataset(ctx, id)
	if err != nil {
		return nil, err
	}
	if len(ds.Spec.Fields) > 0 {
		return nil, fmt.Errorf("%w: add_files to the partitioned dataset %s (its files would need partition values)", ErrNotSupported, id.Short())
	}
	if len(ds.Schema.Key()) > 0 {
		// Registered files are not checked row by row, so nothing would
		// keep the key unique.
		return nil, fmt.Errorf("%w: add_files to %s, which has a primary key (load with INSERT … SELECT, or DROP PRIMARY KEY first)", ErrNotSupported, id.Short())
	}
	if err := c.checkNotLive(ctx, ds, srcs); err != nil {
		return nil, err
	}
	files := make([]manifest.DataFile, len(srcs))
	for i, s := range srcs {
		if files[i], err = c.checkSource(ctx, ds, s, deferred); err != nil {
			return nil, err
		}
	}
	var external []string
	for i, s := range srcs {
		if s.inPlace() {
			external = append(external, s.Key)
			continue
		}
		if files[i], err = c.copyIn(ctx, ds, s, files[i]); err != nil {
			return nil, err
		}
	}
	// Recorded before the commit: a refused commit leaves an entry that
	// only keeps a file alive, never one that lets a file be deleted.
	if err := c.recordExternal(ctx, ds, external); err != nil {
		return nil, err
	}
	return c.Commit(ctx, id, Commit{Operation: OpAddFiles, Author: author, Added: files,
		ExpectedUUID: ds.UUID, BaseSnapshotID: ds.CurrentSnapshotID})
}

// checkNotLive refuses a file listed twice, or an in-place key the dataset
// already lists.
func (c *Catalog) checkNotLive(ctx context.Context, ds *Dataset, srcs []FileSource) error {
	seen := map[string]bool{}
	for _, s := range srcs {
		k := fmt.Sprintf("%p\x00%s", s.Store, s.Key)
		if seen[k] {
			return fmt.Errorf("%w: file %s is listed twice", ErrBadValue, s.Name)
		}
		seen[k] = true
	}
	if ds.CurrentSnapshotID == 0 {
		return nil
	}
	live, _, err := c.Files(ctx, ds, ds.CurrentSnapshotID)
	if err != nil {
		return err
	}
	for _, f := range live {
		for _, s := range srcs {
			if s.inPlace() && s.Key == f.Path {
				return fmt.Errorf("%w: %s is already live in %s; add_files registers a file once", ErrDuplicateFile, s.Name, ds.Ident().Short())
			}
		}
	}
	return nil
}

// checkSource reads a file's footer (and, registered in place without
// deferral, its checksums) and returns its manifest entry.
func (c *Catalog) checkSource(ctx context.Context, ds *Dataset, s FileSource, deferred bool) (manifest.DataFile, error) {
	store := s.Store
	if store == nil {
		store = c.blob
	}
	bad := func(err error) (manifest.DataFile, error) {
		return manifest.DataFile{}, fmt.Errorf("%w: add_files %s: %w", ErrBadValue, s.Name, err)
	}
	info, err := store.Stat(ctx, s.Key)
	if err != nil {
		return bad(err)
	}
	f, err := datafile.ReadFooter(ctx, store, s.Key, info.Size, &ds.Schema)
	if err != nil {
		return bad(err)
	}
	if !s.inPlace() {
		return f, nil
	}
	if deferred {
		return manifest.DataFile{Path: s.Key, Format: manifest.FormatParquet, FileSize: info.Size,
			StatsState: manifest.StatsPending, RecordCount: f.RecordCount, UncompressedSize: f.UncompressedSize}, nil
	}
	if f, err = datafile.WithChecksums(ctx, store, f); err != nil {
		return bad(err)
	}
	return f, nil
}

// copyIn copies a checked foreign file to a new data file key of ds and
// returns its entry, with the checksums of the copy.
func (c *Catalog) copyIn(ctx context.Context, ds *Dataset, s FileSource, f manifest.DataFile) (manifest.DataFile, error) {
	key := ds.DataFileKey()
	src := io.NewSectionReader(blob.NewReaderAt(ctx, s.Store, s.Key, f.FileSize), 0, f.FileSize)
	if err := c.blob.Put(ctx, key, src, blob.PutOptions{IfNotExists: true}); err != nil {
		return manifest.DataFile{}, fmt.Errorf("add_files: copy %s into %s: %w", s.Name, ds.Ident().Short(), err)
	}
	f.Path = key
	out, err := datafile.WithChecksums(ctx, c.blob, f)
	if err != nil {
		return manifest.DataFile{}, fmt.Errorf("%w: add_files %s: %w", ErrBadValue, s.Name, err)
	}
	return out, nil
}
