package catalogstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

// History: time travel resolution, tags, rollback, the change feed plan and
// consumer offsets.
//
// Document layout (below the dataset document, so a rename carries them
// and a drop removes them):
//
//	{dataset}/tags/{name}         Tag: a name pinning one snapshot
//	{dataset}/offsets/{consumer}  Offset: a consumer's position in the change
//	                              feed, with the table uuid it belongs to
//
// Offsets carry the table uuid and count only for that incarnation: a table
// dropped and recreated under the same name has a new uuid, so even an
// offset document left behind by an interrupted drop is never inherited as
// the new table's cursor. Expiry (catalogstore/maintenance) reads tags and
// offsets in its own transaction from these same documents.

// kindError is a history error that is also one of the mapped caller
// errors (so it reaches clients with a specific MySQL code).
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// History errors. Each also matches a base sentinel with errors.Is.
var (
	// ErrTagNotFound: no tag of that name (also ErrSnapshotNotFound).
	ErrTagNotFound error = &kindError{"tag not found", ErrSnapshotNotFound}
	// ErrTagExists: a tag of that name already exists (also ErrBadValue).
	ErrTagExists error = &kindError{"tag already exists", ErrBadValue}
	// ErrOffsetRegression: a consumer offset may only move forward (also
	// ErrBadValue).
	ErrOffsetRegression error = &kindError{"offset regression", ErrBadValue}
	// ErrChangesUnavailable: the change feed cannot replay the window (it
	// reaches below the retention floor or crosses a truncate); the
	// consumer must reconcile from a full scan (also ErrSnapshotNotFound).
	ErrChangesUnavailable error = &kindError{"changes unavailable", ErrSnapshotNotFound}
)

// MainBranch is the name of a dataset's only branch, its head.
const MainBranch = "main"

// SnapshotRecord is a snapshot document with its retention state.
// Expired snapshots (written by expiry) keep their document for the
// history but can no longer be read.
type SnapshotRecord struct {
	Snapshot
	Expired bool `json:"expired,omitempty"`
}

// SnapshotRecords lists every snapshot document of a dataset (expired ones
// included), in id order.
func (c *Catalog) SnapshotRecords(ctx context.Context, ds *Dataset) ([]SnapshotRecord, error) {
	docs, err := c.meta.List(ctx, meta.Join(datasetPath(ds.Ident()), "snapshots"))
	if err != nil {
		return nil, fmt.Errorf("list snapshots of %s: %w", ds.Ident().Short(), err)
	}
	out := make([]SnapshotRecord, 0, len(docs))
	for _, d := range docs {
		var r SnapshotRecord
		if err := d.Decode(&r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// snapshotRecord loads one snapshot document with its retention state.
func (c *Catalog) snapshotRecord(ctx context.Context, ds *Dataset, id int64) (*SnapshotRecord, error) {
	d, err := c.meta.Get(ctx, snapshotPath(ds.Ident(), id))
	if errors.Is(err, meta.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s has no snapshot %d; its snapshots are listed by SELECT * FROM `%s$snapshots`",
			ErrSnapshotNotFound, ds.Ident().Short(), id, ds.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("load snapshot %d of %s: %w", id, ds.Ident().Short(), err)
	}
	var r SnapshotRecord
	if err := d.Decode(&r); err != nil {
		return nil, err
	}
	return &r, nil
}

func expiredError(ds *Dataset, id int64) error {
	return fmt.Errorf("%w: snapshot %d of %s has expired (retention) and can no longer be read; use a later snapshot from `%s$snapshots`, or tag snapshots you need to keep with CALL create_tag",
		ErrSnapshotNotFound, id, ds.Ident().Short(), ds.Name)
}

// LiveSnapshot loads a snapshot that can be read: ErrSnapshotNotFound if
// it does not exist or has expired.
func (c *Catalog) LiveSnapshot(ctx context.Context, ds *Dataset, id int64) (*Snapshot, error) {
	r, err := c.snapshotRecord(ctx, ds, id)
	if err != nil {
		return nil, err
	}
	if r.Expired {
		return nil, expiredError(ds, id)
	}
	return &r.Snapshot, nil
}

// ResolveSnapshotRef resolves a time-travel reference (AS OF) to a live
// snapshot: an integer or an integer string is a snapshot id (an exact id
// wins); another string is a tag name ('main' is the head), else a
// timestamp; a time.Time selects the latest snapshot committed at or before
// it. Strings without a zone are UTC. Every failure is ErrSnapshotNotFound
// with a message saying what to do: an unknown id or tag, a time before the
// first snapshot or in the future, an expired snapshot.
func (c *Catalog) ResolveSnapshotRef(ctx context.Context, ds *Dataset, ref any) (*Snapshot, error) {
	switch v := ref.(type) {
	case time.Time:
		return c.SnapshotAt(ctx, ds, v)
	case *time.Time:
		if v != nil {
			return c.SnapshotAt(ctx, ds, *v)
		}
	case string:
		return c.resolveString(ctx, ds, v)
	case []byte:
		return c.resolveString(ctx, ds, string(v))
	case nil:
	default:
		if id, ok := asInt64(v); ok {
			return c.LiveSnapshot(ctx, ds, id)
		}
	}
	return nil, fmt.Errorf("%w: AS OF %v (%T) on %s: give a snapshot id, a tag name or a timestamp",
		ErrSnapshotNotFound, ref, ref, ds.Ident().Short())
}

func (c *Catalog) resolveString(ctx context.Context, ds *Dataset, s string) (*Snapshot, error) {
	s = strings.TrimSpace(s)
	if id, err := strconv.ParseInt(s, 10, 64); err == nil {
		return c.LiveSnapshot(ctx, ds, id)
	}
	if identRe.MatchString(s) {
		id, err := c.resolveRefName(ctx, ds, s)
		if err == nil {
			return c.LiveSnapshot(ctx, ds, id)
		}
		if !errors.Is(err, ErrTagNotFound) {
			return nil, err
		}
	}
	if t, ok := ParseTimestamp(s); ok {
		return c.SnapshotAt(ctx, ds, t)
	}
	return nil, fmt.Errorf("%w: %s has no snapshot, tag or time %q; AS OF takes a snapshot id, a tag (see `%s$refs`) or a timestamp such as '2006-01-02 15:04:05'",
		ErrSnapshotNotFound, ds.Ident().Short(), s, ds.Name)
}

// resolveRefName resolves 'main' (the head) or a tag to a snapshot id.
func (c *Catalog) resolveRefName(ctx context.Context, ds *Dataset, name string) (int64, error) {
	if name == MainBranch {
		if ds.CurrentSnapshotID == 0 {
			return 0, fmt.Errorf("%w: %s has no snapshots yet", ErrSnapshotNotFound, ds.Ident().Short())
		}
		return ds.CurrentSnapshotID, nil
	}
	tag, err := c.Tag(ctx, ds, name)
	if err != nil {
		return 0, err
	}
	return tag.SnapshotID, nil
}

// timestampLayouts are the timestamp spellings AS OF accepts in strings.
var timestampLayouts = []string{
	"2006-01-02 15:04:05",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04",
	"2006-01-02T15:04",
	"2006-01-02",
	time.RFC3339Nano,
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05 -0700",
}

// ParseTimestamp parses a timestamp string ('2006-01-02', '2006-01-02
// 15:04:05[.ffffff]', ISO 8601 with or without a zone). A string without a
// zone is UTC.
func ParseTimestamp(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range timestampLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// SnapshotAt returns the latest snapshot committed at or before t (which
// is then the one that was current at t). Snapshot times compare at
// microsecond precision, the precision `t$snapshots` shows them with.
// ErrSnapshotNotFound for a time before the first snapshot or in the
// future, or when that snapshot has expired.
func (c *Catalog) SnapshotAt(ctx context.Context, ds *Dataset, t time.Time) (*Snapshot, error) {
	found, recs, err := c.snapshotAtOrBefore(ctx, ds, t)
	if err != nil {
		return nil, err
	}
	if found == nil {
		if len(recs) == 0 {
			return nil, fmt.Errorf("%w: %s has no snapshots yet", ErrSnapshotNotFound, ds.Ident().Short())
		}
		first := recs[0]
		return nil, fmt.Errorf("%w: %s is before the first snapshot of %s (snapshot %d, committed %s); the table had no data yet",
			ErrSnapshotNotFound, t.UTC().Format(timeFormat), ds.Ident().Short(), first.ID, first.Timestamp.UTC().Format(timeFormat))
	}
	if found.Expired {
		return nil, expiredError(ds, found.ID)
	}
	return &found.Snapshot, nil
}

// snapshotAtOrBefore finds the latest snapshot record committed at or
// before t; nil when t is before every snapshot. A future t is an error.
func (c *Catalog) snapshotAtOrBefore(ctx context.Context, ds *Dataset, t time.Time) (*SnapshotRecord, []SnapshotRecord, error) {
	t = t.UTC()
	if now := c.now(); t.After(now) {
		return nil, nil, fmt.Errorf("%w: %s is in the future (the time is now %s); AS OF reads the past",
			ErrSnapshotNotFound, t.Format(timeFormat), now.Format(timeFormat))
	}
	recs, err := c.SnapshotRecords(ctx, ds)
	if err != nil {
		return nil, nil, err
	}
	var found *SnapshotRecord
	for i := range recs {
		if !recs[i].Timestamp.Truncate(time.Microsecond).After(t) && (found == nil || recs[i].ID > found.ID) {
			found = &recs[i]
		}
	}
	return found, recs, nil
}

const timeFormat = "2006-01-02 15:04:05.999999"

func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		if x <= 1<<63-1 {
			return int64(x), true
		}
	}
	return 0, false
}

// Ancestors returns the snapshot ids reachable from head through parent
// links (head first), among recs.
func Ancestors(recs []SnapshotRecord, head int64) map[int64]bool {
	byID := make(map[int64]*SnapshotRecord, len(recs))
	for i := range recs {
		byID[recs[i].ID] = &recs[i]
	}
	out := map[int64]bool{}
	for id := head; id != 0 && !out[id]; {
		out[id] = true
		r, ok := byID[id]
		if !ok {
			break
		}
		id = r.ParentID
	}
	return out
}

// Tags ------------------------------------------------------------------

// Tag is a named reference to one snapshot. A tagged snapshot is pinned:
// expiry keeps it.
type Tag struct {
	Name       string    `json:"name"`
	SnapshotID int64     `json:"snapshot-id"`
	Author     string    `json:"author"`
	CreatedAt  time.Time `json:"created-at"`
}

func tagPath(id Ident, name string) string { return meta.Join(datasetPath(id), "tags", name) }

// CreateTag tags a snapshot of a dataset (snapshotID 0: the head).
// ErrTagExists, ErrSnapshotNotFound (missing or expired snapshot, or an
// empty table), ErrBadIdentifier, ErrDatasetNotFound.
func (c *Catalog) CreateTag(ctx context.Context, id Ident, name string, snapshotID int64, author string) (*Tag, error) {
	if err := CheckName("tag", name); err != nil {
		return nil, err
	}
	if name == MainBranch {
		return nil, fmt.Errorf("%w: %q names the branch (the head); choose another tag name", ErrBadIdentifier, name)
	}
	var tag *Tag
	err := c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		ds, err := loadDataset(tx, id)
		if err != nil {
			return err
		}
		snap := snapshotID
		if snap == 0 {
			snap = ds.CurrentSnapshotID
		}
		if snap == 0 {
			return fmt.Errorf("%w: %s has no snapshots yet; nothing to tag", ErrSnapshotNotFound, id.Short())
		}
		sd, err := tx.Get(snapshotPath(id, snap))
		if errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("%w: %s has no snapshot %d", ErrSnapshotNotFound, id.Short(), snap)
		} else if err != nil {
			return err
		}
		var rec SnapshotRecord
		if err := sd.Decode(&rec); err != nil {
			return err
		}
		if rec.Expired {
			return expiredError(ds, snap)
		}
		if _, err := tx.Get(tagPath(id, name)); err == nil {
			return fmt.Errorf("%w: %s already has a tag %q; drop it first with CALL drop_tag", ErrTagExists, id.Short(), name)
		} else if !errors.Is(err, meta.ErrNotFound) {
			return err
		}
		tag = &Tag{Name: name, SnapshotID: snap, Author: author, CreatedAt: c.now()}
		data, err := meta.Encode(tag)
		if err != nil {
			return err
		}
		return tx.Create(tagPath(id, name), data)
	})
	if err != nil {
		return nil, err
	}
	c.audit(ctx, "create", "tag", id.Workspace, id.Collection, id.Name+"@"+name, author)
	return tag, nil
}

// DropTag removes a tag and returns it. ErrTagNotFound.
func (c *Catalog) DropTag(ctx context.Context, id Ident, name, author string) (*Tag, error) {
	var tag Tag
	err := c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		if _, err := loadDataset(tx, id); err != nil {
			return err
		}
		d, err := tx.Get(tagPath(id, name))
		if errors.Is(err, meta.ErrNotFound) || errors.Is(err, meta.ErrBadPath) {
			return fmt.Errorf("%w: %s has no tag %q", ErrTagNotFound, id.Short(), name)
		} else if err != nil {
			return err
		}
		if err := d.Decode(&tag); err != nil {
			return err
		}
		return tx.Delete(tagPath(id, name))
	})
	if err != nil {
		return nil, err
	}
	c.audit(ctx, "drop", "tag", id.Workspace, id.Collection, id.Name+"@"+name, author)
	return &tag, nil
}

// Tag loads one tag. ErrTagNotFound.
func (c *Catalog) Tag(ctx context.Context, ds *Dataset, name string) (*Tag, error) {
	d, err := c.meta.Get(ctx, tagPath(ds.Ident(), name))
	if errors.Is(err, meta.ErrNotFound) || errors.Is(err, meta.ErrBadPath) {
		return nil, fmt.Errorf("%w: %s has no tag %q", ErrTagNotFound, ds.Ident().Short(), name)
	}
	if err != nil {
		return nil, fmt.Errorf("load tag %q of %s: %w", name, ds.Ident().Short(), err)
	}
	var t Tag
	if err := d.Decode(&t); err != nil {
		return nil, err
	}
	return &t, nil
}

// Tags lists a dataset's tags by name. Tagged snapshots are pinned against
// expiry.
func (c *Catalog) Tags(ctx context.Context, ds *Dataset) ([]Tag, error) {
	docs, err := c.meta.List(ctx, meta.Join(datasetPath(ds.Ident()), "tags"))
	if err != nil {
		return nil, fmt.Errorf("list tags of %s: %w", ds.Ident().Short(), err)
	}
	out := make([]Tag, 0, len(docs))
	for _, d := range docs {
		var t Tag
		if err := d.Decode(&t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Rollback ----------------------------------------------------------------

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
		ManifestFiles: files, ReuseManifest: target.ManifestPath,
	})
}

// Change feed -------------------------------------------------------------

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
	files, err := c.manifests.Get(ctx, c.blob, r.ManifestPath)
	if err != nil {
		return nil, MarkAlertable(fmt.Errorf("%w: %s of %s: %v", ErrManifestUnreadable, r.ManifestPath, ds.Ident().Short(), err),
			SeverityCritical, "manifest-unreadable:"+ds.UUID, map[string]string{"dataset": ds.Ident().String()})
	}
	return files, nil
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

// Consumer offsets ----------------------------------------------------------

// Offset is how far one consumer has read the change feed of one table
// incarnation: every change up to and including SnapshotID. Its next
// window is (SnapshotID, head].
type Offset struct {
	Consumer    string    `json:"consumer"`
	TableUUID   string    `json:"table-uuid"`
	SnapshotID  int64     `json:"snapshot-id"`
	Author      string    `json:"author"`
	CommittedAt time.Time `json:"committed-at"`
}

func offsetsColl(id Ident) string { return meta.Join(datasetPath(id), "offsets") }

// CommitOffset records that consumer has processed the changes of dataset
// id up to snapshotID, and returns the offset it replaced (0 if none).
// Offsets only move forward: a lower snapshot than the recorded one is
// refused with ErrOffsetRegression (the same one is accepted again). The
// snapshot must exist and not have expired (0 means nothing read yet). An
// offset document of another incarnation (another table uuid) is replaced,
// never continued.
func (c *Catalog) CommitOffset(ctx context.Context, consumer string, id Ident, snapshotID int64, author string) (prev int64, err error) {
	if err := CheckName("consumer", consumer); err != nil {
		return 0, err
	}
	if snapshotID < 0 {
		return 0, fmt.Errorf("%w: offset %d: snapshot ids are not negative", ErrBadValue, snapshotID)
	}
	path := meta.Join(offsetsColl(id), consumer)
	err = c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		prev = 0
		ds, err := loadDataset(tx, id)
		if err != nil {
			return err
		}
		if snapshotID > 0 {
			sd, err := tx.Get(snapshotPath(id, snapshotID))
			if errors.Is(err, meta.ErrNotFound) {
				return fmt.Errorf("%w: %s has no snapshot %d (the head is %d)", ErrSnapshotNotFound, id.Short(), snapshotID, ds.CurrentSnapshotID)
			} else if err != nil {
				return err
			}
			var rec SnapshotRecord
			if err := sd.Decode(&rec); err != nil {
				return err
			}
			if rec.Expired {
				return expiredError(ds, snapshotID)
			}
		}
		if od, err := tx.Get(path); err == nil {
			var old Offset
			if err := od.Decode(&old); err != nil {
				return err
			}
			if old.TableUUID == ds.UUID {
				prev = old.SnapshotID
				if snapshotID < old.SnapshotID {
					return fmt.Errorf("%w: consumer %q has read %s up to snapshot %d; offsets only move forward, so %d is refused",
						ErrOffsetRegression, consumer, id.Short(), old.SnapshotID, snapshotID)
				}
			}
		} else if !errors.Is(err, meta.ErrNotFound) {
			return err
		}
		data, err := meta.Encode(Offset{Consumer: consumer, TableUUID: ds.UUID, SnapshotID: snapshotID, Author: author, CommittedAt: c.now()})
		if err != nil {
			return err
		}
		return tx.Set(path, data)
	})
	if err != nil {
		return 0, err
	}
	c.audit(ctx, "commit-offset", "offset", id.Workspace, id.Collection, id.Name+"@"+consumer, author)
	return prev, nil
}

// Offsets lists the consumer offsets of a dataset's current incarnation,
// by consumer name. Offsets of an earlier incarnation are not its own and
// are left out.
func (c *Catalog) Offsets(ctx context.Context, ds *Dataset) ([]Offset, error) {
	docs, err := c.meta.List(ctx, offsetsColl(ds.Ident()))
	if err != nil {
		return nil, fmt.Errorf("list offsets of %s: %w", ds.Ident().Short(), err)
	}
	out := make([]Offset, 0, len(docs))
	for _, d := range docs {
		var o Offset
		if err := d.Decode(&o); err != nil {
			return nil, err
		}
		if o.TableUUID != ds.UUID {
			continue
		}
		o.Consumer = d.ID()
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Consumer < out[j].Consumer })
	return out, nil
}

// ConsumerFloor returns the lowest consumer offset of a dataset's current
// incarnation (ok false when no consumer has committed one). A consumer at
// offset N next reads (N, head], so expiry that honours consumers keeps N
// and every snapshot after it.
func (c *Catalog) ConsumerFloor(ctx context.Context, ds *Dataset) (snapshotID int64, ok bool, err error) {
	offs, err := c.Offsets(ctx, ds)
	if err != nil || len(offs) == 0 {
		return 0, false, err
	}
	floor := offs[0].SnapshotID
	for _, o := range offs[1:] {
		floor = min(floor, o.SnapshotID)
	}
	return floor, true, nil
}
