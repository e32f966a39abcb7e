package catalogstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// ChangeCommit is one user-visible commit of a change window: the data
// files it made live and the ones it removed (by path, against its
// parent). Rows of Removed files that reappear in Added files (a
// copy-on-write rewrite) are not changes: readers diff them as multisets.
type ChangeCommit struct {
	Snapshot Snapshot
	Added    []manifest.DataFile
	Removed  []manifest.DataFile
}

// ChangePlan is the plan of a change feed window (From, To].
type ChangePlan struct {
	From, To int64
	// SchemaID is the schema of To, which rows are read as.
	SchemaID int
	Commits  []ChangeCommit // in commit order
}

// ResolveChangeBound resolves a bound of a change window: a snapshot id
// (0 is the empty table before the first commit), a tag, or a time (the
// latest snapshot committed at or before it; a time before the first
// snapshot is 0). nil is 0 for the lower bound and the head for the upper.
func (c *Catalog) ResolveChangeBound(ctx context.Context, ds *Dataset, v any, upper bool) (int64, error) {
	if v == nil {
		if upper {
			return ds.CurrentSnapshotID, nil
		}
		return 0, nil
	}
	if id, ok := asInt64(v); ok {
		return id, nil
	}
	var t time.Time
	switch x := v.(type) {
	case time.Time:
		t = x
	case string:
		s := strings.TrimSpace(x)
		if id, err := strconv.ParseInt(s, 10, 64); err == nil {
			return id, nil
		}
		if identRe.MatchString(s) {
			id, err := c.resolveRefName(ctx, ds, s)
			if err == nil || !errors.Is(err, ErrTagNotFound) {
				return id, err
			}
		}
		var ok bool
		if t, ok = ParseTimestamp(s); !ok {
			return 0, fmt.Errorf("%w: change window bound %q of %s: give a snapshot id, a tag or a timestamp", ErrBadValue, s, ds.Ident().Short())
		}
	default:
		return 0, fmt.Errorf("%w: change window bound %v (%T): give a snapshot id, a tag or a timestamp", ErrBadValue, v, v)
	}
	found, _, err := c.snapshotAtOrBefore(ctx, ds, t)
	if err != nil {
		return 0, err
	}
	if found == nil {
		return 0, nil // before the first snapshot: the empty table
	}
	return found.ID, nil
}

// PlanChanges plans the change feed of the window (from, to]: the
// user-visible commits after snapshot from up to and including snapshot
// to, each with the files it added and removed. Housekeeping snapshots
// (compaction, statistics refresh) change no rows and are left out. A
// window that reaches below the retention floor (an expired or missing
// snapshot) or crosses a truncate fails with ErrChangesUnavailable: the
// consumer must reconcile from a full scan.
func (c *Catalog) PlanChanges(ctx context.Context, ds *Dataset, from, to int64) (*ChangePlan, error) {
	short := ds.Ident().Short()
	if from < 0 || to < 0 {
		return nil, fmt.Errorf("%w: change window (%d, %d] of %s: snapshot ids are not negative", ErrBadValue, from, to, short)
	}
	if from > to {
		return nil, fmt.Errorf("%w: change window (%d, %d] of %s: the start is after the end", ErrBadValue, from, to, short)
	}
	if to > ds.LastSequenceNumber {
		return nil, fmt.Errorf("%w: %s has no snapshot %d (the head is %d)", ErrSnapshotNotFound, short, to, ds.CurrentSnapshotID)
	}
	plan := &ChangePlan{From: from, To: to, SchemaID: ds.Schema.ID}
	if to == 0 {
		return plan, nil
	}
	recs, err := c.SnapshotRecords(ctx, ds)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*SnapshotRecord, len(recs))
	floor := int64(0)
	for i := range recs {
		byID[recs[i].ID] = &recs[i]
		if recs[i].Expired && recs[i].ID > floor {
			floor = recs[i].ID
		}
	}
	gap := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format+"; the changes cannot be replayed, so reconcile from a full scan of %s (SELECT ... FROM %s) and resume from its head snapshot %d",
			append(append([]any{ErrChangesUnavailable}, args...), short, short, ds.CurrentSnapshotID)...)
	}
	var chain []*SnapshotRecord
	for id := to; id > from; {
		r, ok := byID[id]
		if !ok {
			return nil, gap("snapshot %d of %s is gone (below the retention floor)", id, short)
		}
		if r.Expired {
			return nil, gap("snapshot %d of %s has expired (the retention floor is after snapshot %d)", id, short, floor)
		}
		chain = append(chain, r)
		if r.ParentID < from {
			return nil, fmt.Errorf("%w: snapshot %d is not an ancestor of snapshot %d of %s", ErrBadValue, from, to, short)
		}
		id = r.ParentID
	}
	if from > 0 {
		r, ok := byID[from]
		if !ok || r.Expired {
			return nil, gap("the window starts at snapshot %d of %s, which is below the retention floor", from, short)
		}
	}
	if r, ok := byID[to]; ok {
		plan.SchemaID = r.SchemaID
	}
	for i := len(chain) - 1; i >= 0; i-- {
		s := chain[i].Snapshot
		switch {
		case s.Operation == OpTruncate || s.Operation == OpTruncateAndAdd:
			return nil, gap("snapshot %d of %s is a truncate, which the change feed does not replay", s.ID, short)
		case !s.UserCreated || s.Operation == OpCompact || s.Operation == OpStatisticsRefresh:
			continue // housekeeping: the same rows in other files
		}
		cur, err := c.recordFiles(ctx, ds, byID[s.ID])
		if err != nil {
			return nil, err
		}
		var parent []manifest.DataFile
		if s.ParentID != 0 {
			if parent, err = c.recordFiles(ctx, ds, byID[s.ParentID]); err != nil {
				return nil, err
			}
		}
		added, removed := diffFiles(parent, cur)
		if len(added) == 0 && len(removed) == 0 {
			continue
		}
		plan.Commits = append(plan.Commits, ChangeCommit{Snapshot: s, Added: added, Removed: removed})
	}
	return plan, nil
}

// recordFiles reads the live files of a snapshot record's manifest
// (through the manifest cache, as Files does).
func (c *Catalog) recordFiles(ctx context.Context, ds *Dataset, r *SnapshotRecord) ([]manifest.DataFile, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: a snapshot of %s is missing from its history", ErrChangesUnavailable, ds.Ident().Short())
	}
	return c.liveFiles(ctx, ds, &r.Snapshot)
}

// diffFiles compares two live file lists by path.
func diffFiles(parent, cur []manifest.DataFile) (added, removed []manifest.DataFile) {
	inParent := make(map[string]bool, len(parent))
	for _, f := range parent {
		inParent[f.Path] = true
	}
	inCur := make(map[string]bool, len(cur))
	for _, f := range cur {
		inCur[f.Path] = true
		if !inParent[f.Path] {
			added = append(added, f)
		}
	}
	for _, f := range parent {
		if !inCur[f.Path] {
			removed = append(removed, f)
		}
	}
	return added, removed
}
