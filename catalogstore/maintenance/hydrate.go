package maintenance

import (
	"context"
	"errors"
	"fmt"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// HydrateResult is what HydrateStats did.
type HydrateResult struct {
	Pending  int // files found with pending statistics
	Provided int // of those, now provided
	Failed   int // of those, now failed (StatsError says why)
	Snapshot *catalogstore.Snapshot
}

// HydrateStats fills in the statistics of the head's files registered
// without them (deferred add_files, appends with stats off): each pending
// file's footer is read and its entry becomes provided, or failed with the
// reason when the footer cannot be read or disagrees with the manifest's
// row count. Unlike RefreshStatistics it never fails whole on one file,
// and it touches only pending entries. It commits one housekeeping
// statistics-refresh snapshot (no trigger fires) when there was anything
// pending, re-basing when concurrent commits move the head. Until then
// pending files are simply never pruned.
func HydrateStats(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, author string, opts ...Option) (*HydrateResult, error) {
	o := buildOptions(opts)
	if author == "" {
		author = "maintenance"
	}
	done := map[string]manifest.DataFile{}
	for attempt := 0; ; attempt++ {
		cur, files, err := headFiles(ctx, cat, ds)
		if err != nil {
			return nil, err
		}
		res := &HydrateResult{}
		if len(files) == 0 {
			return res, nil
		}
		out := make([]manifest.DataFile, len(files))
		for i, f := range files {
			out[i] = f
			if f.StatsState != manifest.StatsPending {
				continue
			}
			res.Pending++
			nf, ok := done[f.Path]
			if !ok {
				nf = hydrateOne(ctx, cat, cur, f)
				done[f.Path] = nf
			}
			if nf.StatsState == manifest.StatsProvided {
				res.Provided++
			} else {
				res.Failed++
			}
			out[i] = nf
		}
		if res.Pending == 0 {
			return res, nil
		}
		if attempt == 0 {
			// Only now, with work to do, take the lease: the common case
			// (nothing pending) costs one manifest read.
			lease, err := Acquire(ctx, cat, ds, author+" (hydrate_statistics)", o.leaseTTL)
			if err != nil {
				return nil, err
			}
			defer releaseQuietly(ctx, lease)
		}
		snap, err := cat.Commit(ctx, ds.Ident(), catalogstore.Commit{
			Operation: catalogstore.OpStatisticsRefresh, Author: author, Housekeeping: true,
			Message:       fmt.Sprintf("statistics hydration: %d provided, %d failed", res.Provided, res.Failed),
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

// hydrateOne reads a pending file's footer; a failure becomes the entry's
// failed state, with the reason.
func hydrateOne(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, f manifest.DataFile) manifest.DataFile {
	nf, err := refreshOne(ctx, cat, ds, f)
	if err != nil {
		failed := f
		failed.StatsState, failed.StatsError = manifest.StatsFailed, err.Error()
		return failed
	}
	nf.StatsError = ""
	return nf
}
