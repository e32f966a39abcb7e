package catalogstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lakesql/lakesql/catalogstore/meta"
)

// DatasetCommit is one dataset's part of a CommitAll.
type DatasetCommit struct {
	ID     Ident
	Commit Commit
}

// CommitAll commits to several datasets atomically: every new manifest is
// written first, then ONE metastore transaction checks every dataset's
// guards and moves every pointer, so either all the commits land or none
// does (a transaction over several tables). A lost race of a commit that
// re-bases (a pure append) re-prepares it on the new head and tries the
// whole transaction again, as Commit does; any other refusal refuses all
// of them, with the *CommitError of the dataset that refused. Commits are
// never grouped with other callers' appends.
func (c *Catalog) CommitAll(ctx context.Context, commits []DatasetCommit) ([]*Snapshot, error) {
	for _, dc := range commits {
		if dc.Commit.ExpectedUUID == "" || dc.Commit.Author == "" {
			return nil, fmt.Errorf("%w: commit to %s without an expected table uuid or author", ErrBadValue, dc.ID.Short())
		}
	}
	bases := make([]int64, len(commits))
	for i, dc := range commits {
		bases[i] = dc.Commit.BaseSnapshotID
	}
	backoff := 2 * time.Millisecond
	for attempt := 0; ; attempt++ {
		ps, failed, err := c.tryCommitAll(ctx, commits, bases)
		if err == nil {
			snaps := make([]*Snapshot, len(ps))
			for i, p := range ps {
				c.afterCommit(ctx, p.ds, p.snap)
				snaps[i] = p.snap
			}
			return snaps, nil
		}
		var ce *CommitError
		if failed < 0 || !errors.As(err, &ce) || !errors.Is(ce.Err, ErrCommitConflict) {
			return nil, err
		}
		dc := commits[failed]
		if bases[failed], err = c.rebaseOn(ctx, dc.ID, dc.Commit, bases[failed], ce, err, attempt, "transaction"); err != nil {
			return nil, err
		}
		if backoff, err = pause(ctx, backoff); err != nil {
			return nil, err
		}
	}
}

// tryCommitAll is one attempt: prepare every commit on its base, then one
// metastore transaction (every guard first: the metastore wants all reads
// before the first write). failed is the index of the commit that refused
// (-1: none, or the failure is not one commit's).
func (c *Catalog) tryCommitAll(ctx context.Context, commits []DatasetCommit, bases []int64) (ps []*preparedCommit, failed int, err error) {
	for i, dc := range commits {
		p, err := c.prepareCommit(ctx, dc.ID, dc.Commit, bases[i])
		if err != nil {
			for _, p := range ps { // no metastore transaction ran
				c.dropManifest(ctx, p)
			}
			if errors.Is(err, ErrDatasetNotFound) {
				err = &CommitError{Dataset: dc.ID.Short(), Err: ErrIncarnationChanged, Retry: RePrepare, Detail: "the table was dropped"}
			}
			return nil, i, err
		}
		ps = append(ps, p)
	}
	failed = -1
	err = c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		failed = -1
		for i, p := range ps {
			if err := p.check(tx); err != nil {
				failed = i
				return err
			}
		}
		for _, p := range ps {
			if err := p.write(tx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if notLanded(err) {
			for _, p := range ps {
				c.dropManifest(ctx, p)
			}
		}
		return nil, failed, ps[0].txErr(err)
	}
	for _, p := range ps {
		c.finish(ctx, p)
	}
	return ps, -1, nil
}
