package catalogstore

import (
	"context"
	"fmt"

	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// RollbackToSnapshot makes the live files of an earlier snapshot current
// again, as a new user-created snapshot (operation rollback) on top of the
// head that points at the old snapshot's manifest. History is kept: the
// snapshots rolled back over stay readable AS OF. Rolling back to the head
// changes nothing and returns it. ErrSnapshotNotFound (missing or expired),
// *CommitError when the head moved meanwhile.
func (c *Catalog) RollbackToSnapshot(ctx context.Context, id Ident, snapshotID int64, author string) (*Snapshot, error) {
	ds, err := c.Dataset(ctx, id)
	if err != nil {
		return nil, err
	}
	if snapshotID <= 0 {
		return nil, fmt.Errorf("%w: rollback to snapshot %d: give the id of a snapshot of %s (see `%s$snapshots`); TRUNCATE empties a table",
			ErrSnapshotNotFound, snapshotID, id.Short(), ds.Name)
	}
	target, err := c.LiveSnapshot(ctx, ds, snapshotID)
	if err != nil {
		return nil, err
	}
	if snapshotID == ds.CurrentSnapshotID {
		return target, nil
	}
	files, _, err := c.Files(ctx, ds, snapshotID)
	if err != nil {
		return nil, err
	}
	if files == nil {
		files = []manifest.DataFile{}
	}
	return c.Commit(ctx, id, Commit{
		Operation: OpRollback, Author: author,
		Message:      fmt.Sprintf("rollback to snapshot %d", snapshotID),
		ExpectedUUID: ds.UUID, BaseSnapshotID: ds.CurrentSnapshotID,
		ManifestFiles: files, ReuseManifest: target,
	})
}
