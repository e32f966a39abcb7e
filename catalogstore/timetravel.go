package catalogstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lakesql/lakesql/catalogstore/meta"
)

// Time travel: resolving AS OF references (snapshot ids, tags, times) to
// live snapshots, and the snapshot records expiry and the change feed
// walk.

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
	docs, err := c.meta.List(ctx, meta.Join(ds.DocRoot(), "snapshots"))
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
	d, err := c.meta.Get(ctx, snapshotPath(ds, id))
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

// checkLiveSnapshot checks inside a transaction that snapshot id of ds
// exists and is not expired (what a tag or an offset may point at).
func checkLiveSnapshot(tx meta.Tx, ds *Dataset, id int64) error {
	sd, err := tx.Get(snapshotPath(ds, id))
	if errors.Is(err, meta.ErrNotFound) {
		return fmt.Errorf("%w: %s has no snapshot %d (the head is %d)", ErrSnapshotNotFound, ds.Ident().Short(), id, ds.CurrentSnapshotID)
	} else if err != nil {
		return err
	}
	var rec SnapshotRecord
	if err := sd.Decode(&rec); err != nil {
		return err
	}
	if rec.Expired {
		return expiredError(ds, id)
	}
	return nil
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
