package maintenance

import (
	"context"
	"errors"
	"fmt"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// duplicatePaths returns the data file paths a manifest lists more than
// once, in manifest order.
func duplicatePaths(files []manifest.DataFile) []string {
	seen := make(map[string]int, len(files))
	var out []string
	for _, f := range files {
		seen[f.Path]++
		if seen[f.Path] == 2 {
			out = append(out, f.Path)
		}
	}
	return out
}

// DuplicatesResult is what RepairDuplicateFiles did.
type DuplicatesResult struct {
	Removed  int   // manifest entries dropped
	Records  int64 // rows they counted (read twice before the repair)
	Snapshot *catalogstore.Snapshot
}

// RepairDuplicateFiles rewrites the head manifest keeping the first entry
// of every data file listed more than once (a registration made twice
// before add_files refused it), as one housekeeping snapshot that fires no
// trigger. With no duplicate it commits nothing (Snapshot nil). The file
// itself stays: it is still live, once. When the head moves under it, it
// starts over on the new head (at most maxRefreshAttempts times). It holds
// the dataset's maintenance lease (ErrLeaseHeld).
func RepairDuplicateFiles(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, author string, opts ...Option) (*DuplicatesResult, error) {
	o := buildOptions(opts)
	if author == "" {
		author = "maintenance"
	}
	lease, err := Acquire(ctx, cat, ds, author+" (repair_duplicate_files)", o.leaseTTL)
	if err != nil {
		return nil, err
	}
	defer releaseQuietly(ctx, lease)
	for attempt := 0; ; attempt++ {
		cur, files, err := headFiles(ctx, cat, ds)
		if err != nil {
			return nil, err
		}
		res := &DuplicatesResult{}
		if len(files) == 0 {
			return res, nil
		}
		seen := make(map[string]bool, len(files))
		out := make([]manifest.DataFile, 0, len(files))
		for _, f := range files {
			if seen[f.Path] {
				res.Removed++
				res.Records += f.RecordCount
				continue
			}
			seen[f.Path] = true
			out = append(out, f)
		}
		if res.Removed == 0 {
			return res, nil
		}
		if err := lease.Check(ctx); err != nil {
			return nil, err
		}
		snap, err := cat.Commit(ctx, ds.Ident(), catalogstore.Commit{
			Operation: catalogstore.OpDelete, Author: author, Housekeeping: true,
			Message:       fmt.Sprintf("repair duplicate files: %d entries (%d rows) listed twice dropped", res.Removed, res.Records),
			ManifestFiles: out, ExpectedUUID: ds.UUID, BaseSnapshotID: cur.CurrentSnapshotID,
		})
		if err == nil {
			res.Snapshot = snap
			return res, nil
		}
		if !errors.Is(err, catalogstore.ErrCommitConflict) || attempt+1 >= maxRefreshAttempts {
			return nil, err
		}
	}
}
