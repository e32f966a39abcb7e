package catalogstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrMetastoreLost: the metastore holds no workspace at all while the
// object store holds datasets' manifests: the metastore was lost (a
// deleted or emptied lakesql.db, a wrong Firestore project or database)
// rather than new. Initialising it would present an empty warehouse over
// data that is still there, and later commits would never see it.
var ErrMetastoreLost = errors.New("metastore holds no workspaces but the storage holds datasets")

// CheckNotLost returns ErrMetastoreLost, naming a manifest the object
// store holds, when the metastore has no workspace but the store holds
// any dataset manifest ({workspace}/{collection}/{dataset}-{uuid}/metadata/
// manifest-*.parquet); nil otherwise. Call it before creating the first
// workspace of a metastore. It lists the store only when the metastore is
// empty.
func (c *Catalog) CheckNotLost(ctx context.Context) error {
	wss, err := c.ListWorkspaces(ctx)
	if err != nil {
		return err
	}
	if len(wss) > 0 {
		return nil
	}
	objs, err := c.blob.List(ctx, "")
	if err != nil {
		return fmt.Errorf("check the storage for datasets: %w", err)
	}
	datasets := map[string]bool{}
	sample := ""
	for _, o := range objs {
		dir, file, ok := strings.Cut(o.Key, "/metadata/")
		if !ok || !strings.HasPrefix(file, "manifest-") || strings.Count(dir, "/") != 2 {
			continue
		}
		if sample == "" {
			sample = o.Key
		}
		datasets[dir] = true
	}
	if len(datasets) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %d datasets' files are in %s (for example %s)", ErrMetastoreLost, len(datasets), c.blob.URI(), sample)
}
