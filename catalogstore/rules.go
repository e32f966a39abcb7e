package catalogstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/lakesql/lakesql/catalogstore/meta"
)

// triggersColl is the collection of a dataset's refresh triggers.
func triggersColl(ds *Dataset) string { return meta.Join(ds.DocRoot(), "triggers") }

// checkRename refuses renaming a materialized view or a dataset that has
// triggers: trigger documents and source lists reference names.
func (c *Catalog) checkRename(ctx context.Context, ds *Dataset) error {
	if ds.IsMaterializedView() {
		return fmt.Errorf("%w: %s is a materialized view and cannot be renamed; drop and recreate it", ErrNotSupported, ds.Ident().Short())
	}
	trig, err := c.meta.List(ctx, triggersColl(ds))
	if err != nil {
		return err
	}
	if len(trig) > 0 {
		return fmt.Errorf("%w: %s has %d refresh triggers (materialized views read it) and cannot be renamed; drop the views, rename, and recreate them", ErrNotSupported, ds.Ident().Short(), len(trig))
	}
	return nil
}

// checkDrop refuses dropping a dataset that a materialized view reads,
// naming the view (found through the dataset's triggers, in any workspace,
// or through source-tables in its own). Dropping a materialized view
// removes every trigger it owns first, together with its document in one
// transaction, so a raw DROP TABLE cannot strand triggers.
func (c *Catalog) checkDrop(ctx context.Context, ds *Dataset) error {
	if ds.IsMaterializedView() {
		return c.unregisterMaterializedView(ctx, ds)
	}
	readers, err := c.readersOf(ctx, ds.Ident())
	if err != nil {
		return err
	}
	if len(readers) > 0 {
		return fmt.Errorf("%w: %s is read by materialized view %s; drop the view first", ErrNotSupported, ds.Ident().Short(), sourceName(ds.Ident(), readers[0]))
	}
	return nil
}

// mvReaders returns the materialized views of the workspace that list id
// among their sources.
func (c *Catalog) mvReaders(ctx context.Context, id Ident) ([]Ident, error) {
	colls, err := c.meta.List(ctx, id.Workspace)
	if err != nil {
		return nil, err
	}
	var out []Ident
	for _, cd := range colls {
		if cd.ID() == "$properties" || cd.ID() == "$policies" {
			continue
		}
		dss, err := c.ListDatasets(ctx, id.Workspace, cd.ID())
		if err != nil {
			return nil, err
		}
		for _, d := range dss {
			if d.IsMaterializedView() && slices.Contains(d.SourceTables, id.Short()) {
				out = append(out, d.Ident())
			}
		}
	}
	return out, nil
}
