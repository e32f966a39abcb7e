package catalogstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/lakesql/lakesql/catalogstore/meta"
)

// A CREATE TABLE … AS SELECT is all or nothing, also when its process is
// killed between the table's creation and the commit of its rows. The
// table is created marked with its creating process ("creating-process");
// the commit of its first rows clears the mark in the same metastore
// transaction (preparedCommit.write), and a statement that selected no
// rows clears it with PublishDataset. A dataset still marked whose
// creator has certainly exited (process.Identity.Gone: same machine, no
// such process) is abandoned: reads do not see it, and a CREATE of the
// name replaces it and purges its sub-documents and data files. Until the
// name is used again it stays, unseen, in the metastore and storage.

// creatingKey marks a context whose CreateDataset creates a table for a
// statement that fills it before publishing it.
type creatingKey struct{}

// WithCreating returns ctx for a CREATE TABLE … AS SELECT: a dataset
// CreateDataset creates under it is marked with this process until its
// first rows commit or PublishDataset clears the mark.
func WithCreating(ctx context.Context) context.Context {
	return context.WithValue(ctx, creatingKey{}, true)
}

func creatingFrom(ctx context.Context) bool {
	v, _ := ctx.Value(creatingKey{}).(bool)
	return v
}

// abandoned reports whether the dataset document d is a creation whose
// creating process has exited before publishing it.
func (c *Catalog) abandoned(d meta.Doc) bool {
	if _, ok := d.Data["creating-process"]; !ok {
		return false
	}
	var ds Dataset
	if err := d.Decode(&ds); err != nil || ds.Creating == nil {
		return false
	}
	return ds.Creating.Gone(c.here)
}

// abandonedAt reads inside tx the abandoned creation under id's name, or
// nil: the dataset a new one of the name replaces, whose sub-documents
// and data files the creator purges after its transaction.
func (c *Catalog) abandonedAt(tx meta.Tx, id Ident) (*Dataset, error) {
	d, err := tx.Get(datasetPath(id))
	if errors.Is(err, meta.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if !c.abandoned(d) {
		return nil, nil
	}
	return decodeDataset(d, id)
}

// PublishDataset clears the creating mark of incarnation uuid of id: the
// statement that created it finished. Publishing a dataset already
// published (its rows' commit cleared the mark) changes nothing;
// ErrIncarnationChanged when id is no longer that incarnation.
func (c *Catalog) PublishDataset(ctx context.Context, id Ident, uuid string) error {
	err := c.meta.RunTx(ctx, func(_ context.Context, tx meta.Tx) error {
		ds, err := loadDataset(tx, id)
		if err != nil {
			return err
		}
		if ds.UUID != uuid {
			return fmt.Errorf("%w: %s was dropped and created again while it was being created", ErrIncarnationChanged, id.Short())
		}
		if ds.Creating == nil {
			return nil
		}
		return tx.Merge(datasetPath(id), map[string]any{"creating-process": nil})
	})
	if errors.Is(err, ErrDatasetNotFound) {
		return fmt.Errorf("%w: %s was dropped while it was being created", ErrIncarnationChanged, id.Short())
	}
	return err
}
