package catalogstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/lakesql/lakesql/catalogstore/meta"
)

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

func offsetsColl(ds *Dataset) string { return meta.Join(ds.DocRoot(), "offsets") }

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
	err = c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		prev = 0
		ds, err := loadDataset(tx, id)
		if err != nil {
			return err
		}
		path := meta.Join(offsetsColl(ds), consumer)
		if snapshotID > 0 {
			if err := checkLiveSnapshot(tx, ds, snapshotID); err != nil {
				return err
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
	out, err := decodeAll(ctx, c.meta, offsetsColl(ds), func(id string, o *Offset) bool {
		o.Consumer = id
		return o.TableUUID == ds.UUID
	})
	if err != nil {
		return nil, fmt.Errorf("list offsets of %s: %w", ds.Ident().Short(), err)
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
