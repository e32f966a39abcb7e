package maintenance

import (
	"context"
	"errors"
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

// headRewrite is one pass's plan for the head manifest: the new file list
// and the commit's message; commit false when there is nothing to commit.
type headRewrite struct {
	files   []manifest.DataFile
	message string
	commit  bool
}

// rewriteHead is the loop of the passes that rewrite ds's head manifest
// as one housekeeping snapshot of operation op (no trigger fires): plan
// maps the head's files to a headRewrite, ready runs before each commit
// (the lease), and a commit that loses the race starts over on the new
// head, at most maxRefreshAttempts times. With nothing to commit it
// returns a nil snapshot and no error.
func rewriteHead(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, author string, op catalogstore.Operation,
	plan func(cur *catalogstore.Dataset, files []manifest.DataFile) (headRewrite, error), ready func() error) (*catalogstore.Snapshot, error) {
	for attempt := 0; ; attempt++ {
		cur, files, err := headFiles(ctx, cat, ds)
		if err != nil {
			return nil, err
		}
		rw, err := plan(cur, files)
		if err != nil || !rw.commit {
			return nil, err
		}
		if err := ready(); err != nil {
			return nil, err
		}
		snap, err := cat.Commit(ctx, ds.Ident(), catalogstore.Commit{
			Operation: op, Author: author, Housekeeping: true, Message: rw.message,
			ManifestFiles: rw.files, ExpectedUUID: ds.UUID, BaseSnapshotID: cur.CurrentSnapshotID,
		})
		if err == nil {
			return snap, nil
		}
		if !errors.Is(err, catalogstore.ErrCommitConflict) || attempt+1 >= maxRefreshAttempts {
			return nil, err
		}
	}
}
