package maintenance

import (
	"context"
	"fmt"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// headFiles loads ds as it is now and the files of its head snapshot, for
// a pass that rewrites the head manifest and starts over when the head
// moves. A table dropped and recreated under the pass is
// ErrIncarnationChanged; an empty table has no files (nil, no error).
func headFiles(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset) (*catalogstore.Dataset, []manifest.DataFile, error) {
	cur, err := cat.Dataset(ctx, ds.Ident())
	if err != nil {
		return nil, nil, err
	}
	if cur.UUID != ds.UUID {
		return nil, nil, fmt.Errorf("%w: %s was recreated", catalogstore.ErrIncarnationChanged, ds.Ident().Short())
	}
	if cur.CurrentSnapshotID == 0 {
		return cur, nil, nil
	}
	files, _, err := cat.Files(ctx, cur, cur.CurrentSnapshotID)
	if err != nil {
		return nil, nil, err
	}
	return cur, files, nil
}
