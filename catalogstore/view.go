package catalogstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// View is a view document. Its SQL is versioned: every CREATE OR REPLACE
// writes a statement/{id} document and points the view at it.
type View struct {
	Workspace  string `json:"workspace"`
	Collection string `json:"collection"`
	Name       string `json:"name"`
	SQL        string `json:"sql"`
	// CreateStatement is the full CREATE VIEW text, as SQL clients see it.
	CreateStatement string         `json:"create-statement,omitempty"`
	StatementID     string         `json:"statement-id"`
	Schema          *schema.Schema `json:"schema,omitempty"`
	Author          string         `json:"author"`
	Description     string         `json:"description,omitempty"`
	CreatedAt       time.Time      `json:"created-at"`
	UpdatedAt       time.Time      `json:"updated-at"`
	// Execution metadata.
	LastRunAt     *time.Time `json:"last-run-at,omitempty"`
	LastRowCount  int64      `json:"last-row-count,omitempty"`
	LastExecution float64    `json:"last-execution-seconds,omitempty"`
}

// Statement is one version of a view's or materialized view's SQL.
type Statement struct {
	ID        string    `json:"statement-id"`
	SQL       string    `json:"sql"`
	Author    string    `json:"author"`
	CreatedAt time.Time `json:"created-at"`
}

// CreateViewOptions modify CreateView.
type CreateViewOptions struct {
	OrReplace       bool
	CreateStatement string
	Schema          *schema.Schema
	Description     string
}

// CreateView stores a view. ErrViewExists (unless OrReplace),
// ErrDatasetExists when a dataset has the name, ErrCollectionNotFound.
func (c *Catalog) CreateView(ctx context.Context, id Ident, sql, author string, opts CreateViewOptions) (*View, error) {
	if err := id.Check("view"); err != nil {
		return nil, err
	}
	now := c.now()
	stmt := Statement{ID: uuid.NewString(), SQL: sql, Author: author, CreatedAt: now}
	stmtData, err := meta.Encode(stmt)
	if err != nil {
		return nil, err
	}
	var v *View
	err = c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		if _, err := tx.Get(collectionPath(id.Workspace, id.Collection)); errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("%w: %s.%s", ErrCollectionNotFound, id.Workspace, id.Collection)
		} else if err != nil {
			return err
		}
		if _, err := tx.Get(datasetPath(id)); err == nil {
			return fmt.Errorf("%w: %s is a table", ErrDatasetExists, id.Short())
		} else if !errors.Is(err, meta.ErrNotFound) {
			return err
		}
		v = &View{Workspace: id.Workspace, Collection: id.Collection, Name: id.Name, CreatedAt: now}
		if d, err := tx.Get(viewPath(id)); err == nil {
			if !opts.OrReplace {
				return fmt.Errorf("%w: %s", ErrViewExists, id.Short())
			}
			if err := d.Decode(v); err != nil {
				return err
			}
		} else if !errors.Is(err, meta.ErrNotFound) {
			return err
		}
		v.SQL, v.CreateStatement, v.StatementID, v.Schema, v.Author, v.Description, v.UpdatedAt = sql, opts.CreateStatement, stmt.ID, opts.Schema, author, opts.Description, now
		data, err := meta.Encode(v)
		if err != nil {
			return err
		}
		if err := tx.Set(viewPath(id), data); err != nil {
			return err
		}
		return tx.Set(meta.Join(viewPath(id), "statement", stmt.ID), stmtData)
	})
	if err != nil {
		return nil, fmt.Errorf("create view %s: %w", id.Short(), err)
	}
	c.audit(ctx, "create", "view", id.Workspace, id.Collection, id.Name, author)
	return v, nil
}

// View loads a view. ErrViewNotFound.
func (c *Catalog) View(ctx context.Context, id Ident) (*View, error) {
	d, err := c.meta.Get(ctx, viewPath(id))
	if errors.Is(err, meta.ErrNotFound) || errors.Is(err, meta.ErrBadPath) {
		return nil, fmt.Errorf("%w: %s", ErrViewNotFound, id.Short())
	}
	if err != nil {
		return nil, fmt.Errorf("load view %s: %w", id.Short(), err)
	}
	var v View
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	v.Workspace, v.Collection, v.Name = id.Workspace, id.Collection, id.Name
	return &v, nil
}

// ListViews returns the views of a collection, sorted by name.
func (c *Catalog) ListViews(ctx context.Context, ws, coll string) ([]View, error) {
	docs, err := c.meta.List(ctx, viewsColl(ws, coll))
	if err != nil {
		return nil, fmt.Errorf("list views of %s.%s: %w", ws, coll, err)
	}
	out := make([]View, 0, len(docs))
	for _, d := range docs {
		var v View
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		v.Workspace, v.Collection, v.Name = ws, coll, d.ID()
		out = append(out, v)
	}
	return out, nil
}

// ViewStatements lists the SQL versions of a view, oldest first.
func (c *Catalog) ViewStatements(ctx context.Context, id Ident) ([]Statement, error) {
	return c.statements(ctx, viewPath(id))
}

// statements lists the SQL versions kept below a view's or materialized
// view's document, oldest first.
func (c *Catalog) statements(ctx context.Context, doc string) ([]Statement, error) {
	out, err := decodeAll[Statement](ctx, c.meta, meta.Join(doc, "statement"), nil)
	if err != nil {
		return nil, err
	}
	sortStatements(out)
	return out, nil
}

// DropView drops a view and its statement history in one metastore
// transaction: a drop cut short leaves the whole view, never a view
// without its history nor a history a new view of the name would inherit.
// ErrViewNotFound.
func (c *Catalog) DropView(ctx context.Context, id Ident, author string) error {
	p := viewPath(id)
	colls, err := c.meta.Collections(ctx, p)
	if err != nil {
		return fmt.Errorf("drop view %s: %w", id.Short(), err)
	}
	err = c.meta.RunTx(ctx, func(_ context.Context, tx meta.Tx) error {
		if _, err := tx.Get(p); errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("%w: %s", ErrViewNotFound, id.Short())
		} else if err != nil {
			return err
		}
		// A view's sub-documents (its statements) are leaves; all are
		// read before any is deleted (Firestore transactions read first).
		var docs []meta.Doc
		for _, coll := range colls {
			ds, err := tx.List(meta.Join(p, coll))
			if err != nil {
				return err
			}
			docs = append(docs, ds...)
		}
		for _, d := range docs {
			if err := tx.Delete(d.Path); err != nil {
				return err
			}
		}
		return tx.Delete(p)
	})
	if errors.Is(err, ErrViewNotFound) {
		return err
	}
	if err != nil {
		return fmt.Errorf("drop view %s: %w", id.Short(), err)
	}
	c.audit(ctx, "drop", "view", id.Workspace, id.Collection, id.Name, author)
	return nil
}

// UpdateViewExecution records a view's last run.
func (c *Catalog) UpdateViewExecution(ctx context.Context, id Ident, rows int64, took time.Duration) error {
	now := c.now()
	return c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		if _, err := tx.Get(viewPath(id)); errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("%w: %s", ErrViewNotFound, id.Short())
		} else if err != nil {
			return err
		}
		return tx.Merge(viewPath(id), map[string]any{
			"last-run-at":            now.Format(time.RFC3339Nano),
			"last-row-count":         rows,
			"last-execution-seconds": took.Seconds(),
		})
	})
}
