package catalogstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lakesql/lakesql/catalogstore/meta"
)

// Collection is a collection document: a namespace of datasets and views,
// which SQL sees as a database.
type Collection struct {
	Name       string            `json:"name"`
	Workspace  string            `json:"workspace"`
	Author     string            `json:"author"`
	Comment    string            `json:"comment,omitempty"`
	CreatedAt  time.Time         `json:"created-at"`
	Properties map[string]string `json:"properties,omitempty"`
	LockedBy   string            `json:"locked-by,omitempty"`
}

// CreateCollectionOptions modify CreateCollection.
type CreateCollectionOptions struct {
	ExistsOK   bool
	Comment    string
	Properties map[string]string
}

// CreateCollection creates a collection in an existing workspace.
// ErrCollectionExists unless opts.ExistsOK; ErrWorkspaceNotFound.
func (c *Catalog) CreateCollection(ctx context.Context, ws, name, author string, opts CreateCollectionOptions) (*Collection, error) {
	if err := CheckCollectionName(name); err != nil {
		return nil, err
	}
	col := &Collection{Name: name, Workspace: ws, Author: author, Comment: opts.Comment, CreatedAt: c.now(), Properties: opts.Properties}
	data, err := meta.Encode(col)
	if err != nil {
		return nil, err
	}
	existed := false
	err = c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		existed = false
		if _, err := tx.Get(workspacePath(ws)); errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("%w: %q", ErrWorkspaceNotFound, ws)
		} else if err != nil {
			return err
		}
		if _, err := tx.Get(collectionPath(ws, name)); err == nil {
			if opts.ExistsOK {
				existed = true
				return nil
			}
			return fmt.Errorf("%w: %s.%s", ErrCollectionExists, ws, name)
		} else if !errors.Is(err, meta.ErrNotFound) {
			return err
		}
		return tx.Create(collectionPath(ws, name), data)
	})
	if err != nil {
		return nil, fmt.Errorf("create collection %s.%s: %w", ws, name, err)
	}
	if existed {
		return c.Collection(ctx, ws, name)
	}
	c.audit(ctx, "create", "collection", ws, name, name, author)
	return col, nil
}

// Collection loads a collection. ErrCollectionNotFound if it does not exist.
func (c *Catalog) Collection(ctx context.Context, ws, name string) (*Collection, error) {
	d, err := c.meta.Get(ctx, collectionPath(ws, name))
	if errors.Is(err, meta.ErrNotFound) || errors.Is(err, meta.ErrBadPath) {
		return nil, fmt.Errorf("%w: %s.%s", ErrCollectionNotFound, ws, name)
	}
	if err != nil {
		return nil, fmt.Errorf("load collection %s.%s: %w", ws, name, err)
	}
	var col Collection
	if err := d.Decode(&col); err != nil {
		return nil, err
	}
	col.Name, col.Workspace = name, ws
	return &col, nil
}

// ListCollections returns the collections of a workspace, sorted by name.
func (c *Catalog) ListCollections(ctx context.Context, ws string) ([]Collection, error) {
	if _, err := c.Workspace(ctx, ws); err != nil {
		return nil, err
	}
	docs, err := c.meta.List(ctx, ws)
	if err != nil {
		return nil, fmt.Errorf("list collections of %s: %w", ws, err)
	}
	var out []Collection
	for _, d := range docs {
		if d.ID() == "$properties" || d.ID() == "$policies" {
			continue
		}
		var col Collection
		if err := d.Decode(&col); err != nil {
			return nil, err
		}
		col.Name, col.Workspace = d.ID(), ws
		out = append(out, col)
	}
	return out, nil
}

// DropCollection drops a collection. Without cascade it refuses a
// collection that still holds datasets or views (ErrCollectionNotEmpty);
// with cascade it drops materialized views first, then datasets and views.
// ErrLocked if the collection is locked.
func (c *Catalog) DropCollection(ctx context.Context, ws, name, author string, cascade bool) error {
	col, err := c.Collection(ctx, ws, name)
	if err != nil {
		return err
	}
	if col.LockedBy != "" {
		return fmt.Errorf("%w: collection %s.%s is locked by %s", ErrLocked, ws, name, col.LockedBy)
	}
	dss, err := c.ListDatasets(ctx, ws, name)
	if err != nil {
		return err
	}
	views, err := c.ListViews(ctx, ws, name)
	if err != nil {
		return err
	}
	if !cascade && (len(dss) > 0 || len(views) > 0) {
		return fmt.Errorf("%w: %s.%s holds %d datasets and %d views; drop them first", ErrCollectionNotEmpty, ws, name, len(dss), len(views))
	}
	// Materialized views first, so no trigger is left pointing at a view
	// whose sources are gone.
	for _, pass := range []bool{true, false} {
		for _, ds := range dss {
			if ds.IsMaterializedView() != pass {
				continue
			}
			if err := c.DropDataset(ctx, ds.Ident(), author); err != nil && !errors.Is(err, ErrDatasetNotFound) {
				return err
			}
		}
	}
	for _, v := range views {
		if err := c.DropView(ctx, Ident{ws, name, v.Name}, author); err != nil && !errors.Is(err, ErrViewNotFound) {
			return err
		}
	}
	if err := meta.DeleteTree(ctx, c.meta, collectionPath(ws, name)); err != nil {
		return fmt.Errorf("drop collection %s.%s: %w", ws, name, err)
	}
	c.audit(ctx, "drop", "collection", ws, name, name, author)
	return nil
}
