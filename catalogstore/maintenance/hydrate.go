package maintenance

import (
	"context"
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
	var res *HydrateResult
	var lease *Lease
	defer func() {
		if lease != nil {
			releaseQuietly(ctx, lease)
		}
	}()
	snap, err := rewriteHead(ctx, cat, ds, author, catalogstore.OpStatisticsRefresh, func(cur *catalogstore.Dataset, files []manifest.DataFile) (headRewrite, error) {
		res = &HydrateResult{}
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
		msg := fmt.Sprintf("statistics hydration: %d provided, %d failed", res.Provided, res.Failed)
		return headRewrite{files: out, message: msg, commit: res.Pending > 0}, nil
	}, func() error {
		if lease != nil {
			return nil
		}
		// Only now, with work to do, take the lease: the common case
		// (nothing pending) costs one manifest read.
		l, err := Acquire(ctx, cat, ds, author+" (hydrate_statistics)", o.leaseTTL)
		if err != nil {
			return err
		}
		lease = l
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Snapshot = snap
	return res, nil
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
