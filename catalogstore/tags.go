package catalogstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/lakesql/lakesql/catalogstore/meta"
)

// Tag is a named reference to one snapshot. A tagged snapshot is pinned:
// expiry keeps it.
type Tag struct {
	Name       string    `json:"name"`
	SnapshotID int64     `json:"snapshot-id"`
	Author     string    `json:"author"`
	CreatedAt  time.Time `json:"created-at"`
}

func tagPath(ds *Dataset, name string) string { return meta.Join(ds.DocRoot(), "tags", name) }

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
		if err := checkLiveSnapshot(tx, ds, snap); err != nil {
			return err
		}
		if _, err := tx.Get(tagPath(ds, name)); err == nil {
			return fmt.Errorf("%w: %s already has a tag %q; drop it first with CALL drop_tag", ErrTagExists, id.Short(), name)
		} else if !errors.Is(err, meta.ErrNotFound) {
			return err
		}
		tag = &Tag{Name: name, SnapshotID: snap, Author: author, CreatedAt: c.now()}
		data, err := meta.Encode(tag)
		if err != nil {
			return err
		}
		return tx.Create(tagPath(ds, name), data)
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
		ds, err := loadDataset(tx, id)
		if err != nil {
			return err
		}
		d, err := tx.Get(tagPath(ds, name))
		if errors.Is(err, meta.ErrNotFound) || errors.Is(err, meta.ErrBadPath) {
			return fmt.Errorf("%w: %s has no tag %q", ErrTagNotFound, id.Short(), name)
		} else if err != nil {
			return err
		}
		if err := d.Decode(&tag); err != nil {
			return err
		}
		return tx.Delete(tagPath(ds, name))
	})
	if err != nil {
		return nil, err
	}
	c.audit(ctx, "drop", "tag", id.Workspace, id.Collection, id.Name+"@"+name, author)
	return &tag, nil
}

// Tag loads one tag. ErrTagNotFound.
func (c *Catalog) Tag(ctx context.Context, ds *Dataset, name string) (*Tag, error) {
	d, err := c.meta.Get(ctx, tagPath(ds, name))
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
	out, err := decodeAll[Tag](ctx, c.meta, meta.Join(ds.DocRoot(), "tags"), nil)
	if err != nil {
		return nil, fmt.Errorf("list tags of %s: %w", ds.Ident().Short(), err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
