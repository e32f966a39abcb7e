package maintenance

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

// DefaultPurgeGrace is how long a tombstoned snapshot document stays before
// Expire deletes it: readers that planned on the snapshot before it was
// tombstoned finish well within it.
const DefaultPurgeGrace = 24 * time.Hour

// maxWritesPerTx keeps each transaction under Firestore's 500-write limit.
const maxWritesPerTx = 400

// ParseAge parses an age such as "7d", "12h", "30m", "45s", "2w" or a
// combination ("1d12h"). A negative, empty or unparsable age, or a number
// without a unit, is ErrBadAge.
func ParseAge(s string) (time.Duration, error) {
	in := strings.TrimSpace(strings.ToLower(s))
	if in == "" {
		return 0, fmt.Errorf("%w: empty age (use e.g. '7d', '12h', '30m')", ErrBadAge)
	}
	if strings.HasPrefix(in, "-") {
		return 0, fmt.Errorf("%w: %q is negative", ErrBadAge, s)
	}
	units := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	var total time.Duration
	for rest := in; rest != ""; {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i == len(rest) {
			return 0, fmt.Errorf("%w: %q is not an age (use e.g. '7d', '12h', '30m')", ErrBadAge, s)
		}
		unit, ok := units[rest[i]]
		if !ok {
			return 0, fmt.Errorf("%w: %q has unit %q; use s, m, h, d or w", ErrBadAge, s, rest[i])
		}
		n, err := strconv.ParseInt(rest[:i], 10, 64)
		if err != nil || n > int64(1<<62)/int64(unit) {
			return 0, fmt.Errorf("%w: %q is too large", ErrBadAge, s)
		}
		total += time.Duration(n) * unit
		if total < 0 {
			return 0, fmt.Errorf("%w: %q is too large", ErrBadAge, s)
		}
		rest = rest[i+1:]
	}
	return total, nil
}

// KeepReason says why Expire kept a snapshot older than its cutoff (or
// that it was not older).
type KeepReason string

// The reasons, in the order Expire tests them: a snapshot is reported
// under the first that applies.
const (
	KeptHead            KeepReason = "head"
	KeptLastUserCreated KeepReason = "last-user-created"
	KeptTagged          KeepReason = "tagged"
	KeptRetainLast      KeepReason = "retain-last"
	KeptNewer           KeepReason = "newer-than-cutoff"
	KeptConsumerFloor   KeepReason = "consumer-floor"
	// KeptTombstoned: expired earlier, its document is kept until the
	// purge grace has passed.
	KeptTombstoned KeepReason = "tombstoned"
)

// ExpireResult is what Expire did.
type ExpireResult struct {
	Cutoff  time.Time // snapshots committed before it were candidates
	Expired []int64   // tombstoned by this call
	Purged  []int64   // tombstoned earlier, documents deleted by this call
	// Kept lists every remaining snapshot under the reason it was kept.
	Kept map[KeepReason][]int64
	// ConsumerFloor is the oldest snapshot a consumer offset still needs
	// (HasConsumerFloor false: no offsets). FloorHeldBack: the floor alone
	// kept some snapshots (Kept[KeptConsumerFloor]) from expiring.
	ConsumerFloor    int64
	HasConsumerFloor bool
	FloorHeldBack    bool
}

// snapDoc is a snapshot document with its tombstone fields.
type snapDoc struct {
	catalogstore.Snapshot
	Expired   bool      `json:"expired"`
	ExpiredAt time.Time `json:"expired-at"`
}

// Tags and consumer offsets are documents below the dataset:
// {dataset}/tags/{name} and {dataset}/offsets/{consumer}, each with a
// "snapshot-id" field (an offset may carry "table-uuid"; one naming another
// incarnation is ignored). A consumer at offset N has read every change up
// to snapshot N and next reads the window (N, head]: it needs N and
// everything after it.
type refDoc struct {
	SnapshotID int64  `json:"snapshot-id"`
	TableUUID  string `json:"table-uuid,omitempty"`
}

// retention is what protects snapshots: tags and consumer offsets.
type retention struct {
	tagged   map[int64]bool
	floor    int64
	hasFloor bool
}

func readRetention(tx meta.Tx, ds *catalogstore.Dataset) (retention, error) {
	r := retention{tagged: map[int64]bool{}}
	tags, err := tx.List(tagsColl(ds))
	if err != nil {
		return r, fmt.Errorf("list tags of %s: %w", ds.Ident().Short(), err)
	}
	for _, d := range tags {
		var t refDoc
		if err := d.Decode(&t); err != nil {
			return r, err
		}
		r.tagged[t.SnapshotID] = true
	}
	offs, err := tx.List(offsetsColl(ds))
	if err != nil {
		return r, fmt.Errorf("list consumer offsets of %s: %w", ds.Ident().Short(), err)
	}
	for _, d := range offs {
		var o refDoc
		if err := d.Decode(&o); err != nil {
			return r, err
		}
		if o.TableUUID != "" && o.TableUUID != ds.UUID {
			continue
		}
		if !r.hasFloor || o.SnapshotID < r.floor {
			r.floor, r.hasFloor = o.SnapshotID, true
		}
	}
	return r, nil
}

func listSnapDocs(tx meta.Tx, ds *catalogstore.Dataset) ([]snapDoc, error) {
	docs, err := tx.List(snapshotsColl(ds))
	if err != nil {
		return nil, fmt.Errorf("list snapshots of %s: %w", ds.Ident().Short(), err)
	}
	out := make([]snapDoc, 0, len(docs))
	for _, d := range docs {
		var s snapDoc
		if err := d.Decode(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b snapDoc) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// plan decides, for every live (not tombstoned) snapshot, whether it
// expires or why it is kept.
func planExpiry(snaps []snapDoc, head int64, ret retention, cutoff time.Time, retainLast int) (expire []int64, kept map[KeepReason][]int64) {
	kept = map[KeepReason][]int64{}
	var lastUser int64
	for _, s := range snaps {
		if s.UserCreated && s.ID > lastUser {
			lastUser = s.ID
		}
	}
	recent := map[int64]bool{}
	for i := len(snaps) - 1; i >= 0 && len(recent) < retainLast; i-- {
		if !snaps[i].Expired {
			recent[snaps[i].ID] = true
		}
	}
	for _, s := range snaps {
		var why KeepReason
		switch {
		case s.Expired:
			why = KeptTombstoned
		case s.ID == head:
			why = KeptHead
		case s.ID == lastUser:
			why = KeptLastUserCreated
		case ret.tagged[s.ID]:
			why = KeptTagged
		case recent[s.ID]:
			why = KeptRetainLast
		case !s.Timestamp.Before(cutoff):
			why = KeptNewer
		case ret.hasFloor && s.ID >= ret.floor:
			why = KeptConsumerFloor
		default:
			expire = append(expire, s.ID)
			continue
		}
		kept[why] = append(kept[why], s.ID)
	}
	return expire, kept
}

// Expire expires the snapshots of ds committed more than olderThan ago,
// keeping at least the retainLast most recent ones. It never expires the
// head, the last user-created snapshot, a tagged snapshot, or one a
// consumer offset still needs (the consumer floor, reported when it held
// expiry back).
//
// Expiry is two-phase. This call tombstones the expired snapshots (marks
// their documents expired, with the time) and purges — deletes — the
// documents of snapshots tombstoned at least the purge grace ago
// (WithPurgeGrace). A purged snapshot's files stay until RemoveOrphans
// finds them unreferenced.
//
// Expire holds the dataset's maintenance lease while it works
// (ErrLeaseHeld). A negative olderThan or retainLast is ErrBadAge or
// catalogstore.ErrBadValue, and nothing changes.
func Expire(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, olderThan time.Duration, retainLast int, author string, opts ...Option) (*ExpireResult, error) {
	if olderThan < 0 {
		return nil, fmt.Errorf("%w: %s is negative", ErrBadAge, olderThan)
	}
	if retainLast < 0 {
		return nil, fmt.Errorf("%w: retain_last %d is negative", catalogstore.ErrBadValue, retainLast)
	}
	o := buildOptions(opts)
	if o.purgeGrace < 0 {
		return nil, fmt.Errorf("%w: purge grace %s is negative", catalogstore.ErrBadValue, o.purgeGrace)
	}
	if author == "" {
		author = "maintenance"
	}
	lease, err := Acquire(ctx, cat, ds, author+" (expire_snapshots)", o.leaseTTL)
	if err != nil {
		return nil, err
	}
	defer releaseQuietly(ctx, lease)

	res := &ExpireResult{Cutoff: cat.Now().Add(-olderThan)}
	// Tombstone, in transactions of bounded size. Each re-reads the head,
	// the tags and the offsets, so a tag or offset written meanwhile is
	// honoured.
	for {
		var batch []int64
		err := cat.Meta().RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
			batch = nil
			st, err := readState(tx, lease, ds)
			if err != nil {
				return err
			}
			expire, kept := planExpiry(st.snaps, st.head, st.ret, res.Cutoff, retainLast)
			res.Kept, res.ConsumerFloor, res.HasConsumerFloor = kept, st.ret.floor, st.ret.hasFloor
			if len(expire) > maxWritesPerTx {
				expire = expire[:maxWritesPerTx]
			}
			now := cat.Now().Format(time.RFC3339Nano)
			for _, id := range expire {
				if err := tx.Merge(catalogstore.SnapshotDocPath(ds, id), map[string]any{"expired": true, "expired-at": now}); err != nil {
					return err
				}
			}
			batch = expire
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("expire snapshots of %s: %w", ds.Ident().Short(), err)
		}
		res.Expired = append(res.Expired, batch...)
		if len(batch) < maxWritesPerTx {
			break
		}
	}
	// Purge tombstones past the grace, re-checking that nothing protects
	// them now.
	for {
		var batch []int64
		err := cat.Meta().RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
			batch = nil
			st, err := readState(tx, lease, ds)
			if err != nil {
				return err
			}
			purgeBefore := cat.Now().Add(-o.purgeGrace)
			for _, s := range st.snaps {
				if !s.Expired || s.ExpiredAt.After(purgeBefore) || s.ID == st.head || st.ret.tagged[s.ID] || (st.ret.hasFloor && s.ID >= st.ret.floor) {
					continue
				}
				if len(batch) == maxWritesPerTx {
					break
				}
				if err := tx.Delete(catalogstore.SnapshotDocPath(ds, s.ID)); err != nil {
					return err
				}
				batch = append(batch, s.ID)
			}
			return nil
		})
		if err != nil {
			if len(res.Expired) > 0 {
				// The expiry is committed (its tombstones are what readers
				// see); a purge that fails now is left for the next run, so
				// the call does not report a failure it did not have.
				cat.Logger().Warn("purge of expired snapshots left for the next run", "dataset", ds.Ident().String(), "err", err)
				break
			}
			return nil, fmt.Errorf("purge expired snapshots of %s: %w", ds.Ident().Short(), err)
		}
		res.Purged = append(res.Purged, batch...)
		if len(batch) < maxWritesPerTx {
			break
		}
	}
	// Report: the tombstoned snapshots purged now are gone; the ones
	// expired now are tombstoned.
	purged := map[int64]bool{}
	for _, id := range res.Purged {
		purged[id] = true
	}
	res.Kept[KeptTombstoned] = slices.DeleteFunc(res.Kept[KeptTombstoned], func(id int64) bool { return purged[id] })
	for _, id := range res.Expired {
		if !purged[id] {
			res.Kept[KeptTombstoned] = append(res.Kept[KeptTombstoned], id)
		}
	}
	slices.Sort(res.Kept[KeptTombstoned])
	if len(res.Kept[KeptTombstoned]) == 0 {
		delete(res.Kept, KeptTombstoned)
	}
	res.FloorHeldBack = len(res.Kept[KeptConsumerFloor]) > 0
	return res, nil
}

// txState is what one expiry transaction reads.
type txState struct {
	head  int64
	snaps []snapDoc
	ret   retention
}

// readState reads, in tx, the lease (still ours), the dataset (same
// incarnation), its snapshots, tags and offsets.
func readState(tx meta.Tx, lease *Lease, ds *catalogstore.Dataset) (txState, error) {
	var st txState
	if err := lease.checkTx(tx); err != nil {
		return st, err
	}
	d, err := tx.Get(catalogstore.DatasetDocPath(ds.Ident()))
	if errors.Is(err, meta.ErrNotFound) {
		return st, fmt.Errorf("%w: %s", catalogstore.ErrDatasetNotFound, ds.Ident().Short())
	} else if err != nil {
		return st, err
	}
	var cur catalogstore.Dataset
	if err := d.Decode(&cur); err != nil {
		return st, err
	}
	if cur.UUID != ds.UUID {
		return st, fmt.Errorf("%w: %s was recreated", catalogstore.ErrIncarnationChanged, ds.Ident().Short())
	}
	st.head = cur.CurrentSnapshotID
	if st.snaps, err = listSnapDocs(tx, ds); err != nil {
		return st, err
	}
	st.ret, err = readRetention(tx, ds)
	return st, err
}
