package maintenance

import (
	"context"
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
	var res *DuplicatesResult
	snap, err := rewriteHead(ctx, cat, ds, author, catalogstore.OpDelete, func(_ *catalogstore.Dataset, files []manifest.DataFile) (headRewrite, error) {
		res = &DuplicatesResult{}
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
		msg := fmt.Sprintf("repair duplicate files: %d entries (%d rows) listed twice dropped", res.Removed, res.Records)
		return headRewrite{files: out, message: msg, commit: res.Removed > 0}, nil
	}, func() error { return lease.Check(ctx) })
	if err != nil {
		return nil, err
	}
	res.Snapshot = snap
	return res, nil
}
