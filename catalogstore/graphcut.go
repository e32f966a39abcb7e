package catalogstore

import (
	"context"
	"errors"

	"github.com/lakesql/lakesql/catalogstore/meta"
)

// GraphCut is a consistent read of the refresh graph around one dataset:
// its document and trigger documents, the documents of the views its
// triggers name and, for a materialized view, its sources' documents and
// trigger documents, all read in one metastore transaction. Registration
// and unregistration of a materialized view each write the view, its
// triggers and its sources' trigger-counts in one transaction, so a cut
// never shows one half-done; separate reads may (a CREATE or DROP
// MATERIALIZED VIEW between reading a trigger-count and listing the
// triggers looks like a count that disagrees).
type GraphCut struct {
	Dataset *Dataset
	// Datasets holds every dataset read, nil for one that does not exist.
	Datasets map[Ident]*Dataset
	// Triggers holds the trigger documents of every dataset listed.
	Triggers map[Ident][]Trigger
	// Statements are a materialized view's SQL versions.
	Statements []Statement
}

// ReadGraphCut reads the refresh graph around id in one metastore
// transaction. ErrDatasetNotFound.
func (c *Catalog) ReadGraphCut(ctx context.Context, id Ident) (*GraphCut, error) {
	var cut *GraphCut
	err := c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		cut = &GraphCut{Datasets: map[Ident]*Dataset{}, Triggers: map[Ident][]Trigger{}}
		ds, err := loadDataset(tx, id)
		if err != nil {
			return err
		}
		cut.Dataset, cut.Datasets[id] = ds, ds
		if err := cut.listTriggers(tx, ds); err != nil {
			return err
		}
		for _, t := range cut.Triggers[id] {
			if target, err := t.Target(); err == nil {
				if _, err := cut.load(tx, target); err != nil {
					return err
				}
			}
		}
		if !ds.IsMaterializedView() {
			return nil
		}
		stmts, err := tx.List(meta.Join(ds.DocRoot(), "statement"))
		if err != nil {
			return err
		}
		for _, d := range stmts {
			var st Statement
			if err := d.Decode(&st); err != nil {
				return err
			}
			cut.Statements = append(cut.Statements, st)
		}
		sources, err := ds.Sources()
		if err != nil {
			return nil // verify reports the bad source-tables
		}
		for _, s := range sources {
			src, err := cut.load(tx, s)
			if err != nil {
				return err
			}
			if src != nil {
				if err := cut.listTriggers(tx, src); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return cut, nil
}

// load reads id's document once (nil when it does not exist).
func (cut *GraphCut) load(tx meta.Tx, id Ident) (*Dataset, error) {
	if ds, ok := cut.Datasets[id]; ok {
		return ds, nil
	}
	ds, err := loadDataset(tx, id)
	if errors.Is(err, ErrDatasetNotFound) {
		ds, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	cut.Datasets[id] = ds
	return ds, nil
}

func (cut *GraphCut) listTriggers(tx meta.Tx, ds *Dataset) error {
	docs, err := tx.List(triggersColl(ds))
	if err != nil {
		return err
	}
	ts, err := decodeTriggers(docs)
	if err != nil {
		return err
	}
	cut.Triggers[ds.Ident()] = ts
	return nil
}
