package catalogstore

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/lakesql/lakesql/catalogstore/meta"
)

// External files are data files add_files registered in place: objects of
// the catalog's store that lakesql did not write and so never deletes.
// Their keys are recorded per dataset in {dataset}/maintenance/external-files
// before the commit that lists them (a refused commit leaves an entry that
// only keeps a file alive), and every deleter of objects — orphan cleanup,
// DROP WORKSPACE — skips them. Files add_files copies in are lakesql's own
// (written under the dataset's data/ folder) and are not recorded.

// externalDoc is the document's shape.
type externalDoc struct {
	Files []string `json:"files"`
}

// ExternalFilesPath is the metastore path of a dataset's external-files
// record.
func ExternalFilesPath(ds *Dataset) string {
	return meta.Join(ds.DocRoot(), "maintenance", "external-files")
}

// ExternalFiles returns the keys add_files registered in place for the
// dataset (sorted), which lakesql must never delete. An unreadable record
// is an error: a deleter must then delete nothing.
func (c *Catalog) ExternalFiles(ctx context.Context, ds *Dataset) (map[string]bool, error) {
	id := ds.Ident()
	d, err := c.meta.Get(ctx, ExternalFilesPath(ds))
	if errors.Is(err, meta.ErrNotFound) {
		return map[string]bool{}, nil
	} else if err != nil {
		return nil, fmt.Errorf("read external files of %s: %w", id.Short(), err)
	}
	var doc externalDoc
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("read external files of %s: %w", id.Short(), err)
	}
	out := make(map[string]bool, len(doc.Files))
	for _, f := range doc.Files {
		out[f] = true
	}
	return out, nil
}

// recordExternal adds keys to the dataset's external-files record in one
// metastore transaction.
func (c *Catalog) recordExternal(ctx context.Context, ds *Dataset, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	id, path := ds.Ident(), ExternalFilesPath(ds)
	err := c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		var doc externalDoc
		d, err := tx.Get(path)
		if err == nil {
			if err := d.Decode(&doc); err != nil {
				return err
			}
		} else if !errors.Is(err, meta.ErrNotFound) {
			return err
		}
		for _, k := range keys {
			if !slices.Contains(doc.Files, k) {
				doc.Files = append(doc.Files, k)
			}
		}
		slices.Sort(doc.Files)
		data, err := meta.Encode(doc)
		if err != nil {
			return err
		}
		return tx.Set(path, data)
	})
	if err != nil {
		return fmt.Errorf("record external files of %s: %w", id.Short(), err)
	}
	return nil
}

// workspaceExternalFiles collects the external files of every dataset of
// a workspace's collections (for DROP WORKSPACE, which deletes the
// workspace's objects).
func (c *Catalog) workspaceExternalFiles(ctx context.Context, ws string, colls []Collection) (map[string]bool, error) {
	out := map[string]bool{}
	for _, coll := range colls {
		docs, err := c.meta.List(ctx, datasetsColl(ws, coll.Name))
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			ds, err := decodeDataset(d, Ident{Workspace: ws, Collection: coll.Name, Name: d.ID()})
			if err != nil {
				return nil, err
			}
			ext, err := c.ExternalFiles(ctx, ds)
			if err != nil {
				return nil, err
			}
			for k := range ext {
				out[k] = true
			}
		}
	}
	return out, nil
}
