package catalogstore

import (
	"context"
	"errors"

	"github.com/lakesql/lakesql/catalogstore/meta"
)

// A dataset's sub-documents (snapshots, schemas, triggers, tags, offsets,
// refreshes, statements, maintenance) belong to one incarnation of its
// name, not to the name: they live below
//
//	{workspace}/{collection}/datasets/{name}/incarnations/{table-uuid}
//
// (the incarnation document, written with the dataset document). A DROP
// deletes the dataset document first and its incarnation's tree after; a
// DROP cut short there (KILL CONNECTION, a SIGKILL of the server) leaves
// that tree behind, and a new table of the same name, another uuid, never
// reads it, writes into it or deletes it. The next DROP of the name sweeps
// such leftovers.
//
// Datasets created before this layout have no sub-documents field: their
// sub-documents stay directly below the dataset document (read as they
// are, no migration), and a drop of one deletes those collections but
// never the incarnations collection.

// subDocsIncarnation is the sub-documents field of a dataset whose
// sub-documents are keyed by its incarnation.
const subDocsIncarnation = "incarnation"

// incarnationsColl is the collection of the incarnation documents below a
// dataset's name.
const incarnationsColl = "incarnations"

// incarnationDoc is the incarnation document's shape: it exists so that
// the incarnation's tree is found by listing (a Firestore collection lists
// only documents that exist).
type incarnationDoc struct {
	UUID string `json:"table-uuid"`
	// Name is where the incarnation was created (a rename moves it).
	Name string `json:"name"`
}

// DocRoot is the document below which ds's sub-documents live: its
// incarnation document, or for a dataset created before incarnation keys
// its dataset document.
func (d *Dataset) DocRoot() string {
	if d.SubDocs == subDocsIncarnation {
		return meta.Join(datasetPath(d.Ident()), incarnationsColl, d.UUID)
	}
	return datasetPath(d.Ident())
}

// KeyedByIncarnation reports whether ds's sub-documents are keyed by its
// incarnation (false for datasets created before that layout).
func (d *Dataset) KeyedByIncarnation() bool { return d.SubDocs == subDocsIncarnation }

// deleteSubDocs deletes ds's own sub-documents: its incarnation's tree, or
// for an old dataset every collection below its document but the
// incarnations of later tables of the name.
func (c *Catalog) deleteSubDocs(ctx context.Context, ds *Dataset) error {
	if ds.KeyedByIncarnation() {
		return meta.DeleteTree(ctx, c.meta, ds.DocRoot())
	}
	p := datasetPath(ds.Ident())
	colls, err := c.meta.Collections(ctx, p)
	if err != nil {
		return err
	}
	for _, coll := range colls {
		if coll == incarnationsColl {
			continue
		}
		docs, err := c.meta.List(ctx, meta.Join(p, coll))
		if err != nil {
			return err
		}
		for _, d := range docs {
			if err := meta.DeleteTree(ctx, c.meta, d.Path); err != nil {
				return err
			}
		}
	}
	return nil
}

// sweepIncarnations deletes the trees of the dropped incarnations of id's
// name that earlier drops, cut short, left behind: every incarnation
// document but the live dataset's. The list is read before the dataset
// document, so an incarnation created after the list is not in it, and
// one in it that the document does not name is dropped for good (uuids
// are never reused). It returns how many it deleted.
func (c *Catalog) sweepIncarnations(ctx context.Context, id Ident) (int, error) {
	docs, err := c.meta.List(ctx, meta.Join(datasetPath(id), incarnationsColl))
	if err != nil || len(docs) == 0 {
		return 0, err
	}
	live := ""
	if d, err := c.meta.Get(ctx, datasetPath(id)); err == nil {
		live, _ = d.Data["table-uuid"].(string)
	} else if !errors.Is(err, meta.ErrNotFound) {
		return 0, err
	}
	n := 0
	for _, d := range docs {
		if d.ID() == live {
			continue
		}
		if err := meta.DeleteTree(ctx, c.meta, d.Path); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// ownSubDocs lists ds's own sub-documents (the incarnation document and
// its tree, or an old dataset's collections), for a rename to move.
func (c *Catalog) ownSubDocs(ctx context.Context, ds *Dataset) ([]meta.Doc, error) {
	if ds.KeyedByIncarnation() {
		var out []meta.Doc
		root, err := c.meta.Get(ctx, ds.DocRoot())
		if err == nil {
			out = append(out, root)
		} else if !errors.Is(err, meta.ErrNotFound) {
			return nil, err
		}
		sub, err := c.subDocs(ctx, ds.DocRoot(), "")
		return append(out, sub...), err
	}
	return c.subDocs(ctx, datasetPath(ds.Ident()), incarnationsColl)
}
