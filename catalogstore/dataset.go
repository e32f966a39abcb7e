package catalogstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/catalogstore/process"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Dataset types.
const (
	TypeTable            = "table"
	TypeMaterializedView = "materialized_view"
)

// Dataset is a dataset document. Loading a dataset reads this one document:
// the current schema and partition spec are inline; older schemas live in
// the schemas/ sub-collection and opt-in state (triggers, tags,
// maintenance) in sub-collections of their own.
type Dataset struct {
	Workspace          string            `json:"workspace"`
	Collection         string            `json:"collection"`
	Name               string            `json:"name"`
	UUID               string            `json:"table-uuid"`
	Location           string            `json:"location"`
	Type               string            `json:"dataset-type"`
	CurrentSnapshotID  int64             `json:"current-snapshot-id"`
	LastSequenceNumber int64             `json:"last-sequence-number"`
	NextRowID          int64             `json:"next-row-id"`
	Schema             schema.Schema     `json:"schema"`
	NextFieldID        int               `json:"next-field-id"`
	Spec               partition.Spec    `json:"partition-spec"`
	Specs              []partition.Spec  `json:"partition-specs,omitempty"`
	SortOrder          []string          `json:"sort-order,omitempty"`
	Properties         map[string]string `json:"properties,omitempty"`
	Comment            string            `json:"comment,omitempty"`
	Author             string            `json:"author"`
	CreatedAt          time.Time         `json:"created-at"`
	UpdatedAt          time.Time         `json:"updated-at"`
	LockedBy           string            `json:"locked-by,omitempty"`
	// Materialized views only.
	SourceTables []string `json:"source-tables,omitempty"`
	SQL          string   `json:"sql,omitempty"`
	StatementID  string   `json:"statement-id,omitempty"`
	// SubDocs is "incarnation" when the dataset's sub-documents live below
	// its incarnation document (incarnation.go); empty for a dataset
	// created before, whose sub-documents are below its document.
	SubDocs string `json:"sub-documents,omitempty"`
	// Creating is the process creating the dataset with its first rows
	// (CREATE TABLE … AS SELECT), until the commit of those rows clears
	// it: a dataset whose creator is gone is abandoned (creating.go).
	Creating *process.Identity `json:"creating-process,omitempty"`
	// Trigger count (sources) and refresh state (views): see MVState.
	MVState
	// CurrentRecords and CurrentFiles are the head snapshot's totals,
	// copied here so metadata queries need no snapshot read.
	CurrentRecords int64 `json:"current-records"`
	CurrentFiles   int64 `json:"current-files"`
	CurrentBytes   int64 `json:"current-bytes"`
}

// Ident returns the dataset's identifier.
func (d *Dataset) Ident() Ident { return Ident{d.Workspace, d.Collection, d.Name} }

// IsMaterializedView reports whether the dataset is a materialized view.
func (d *Dataset) IsMaterializedView() bool { return d.Type == TypeMaterializedView }

// CreateDatasetOptions modify CreateDataset.
type CreateDatasetOptions struct {
	IfNotExists bool
	Type        string // TypeTable (default) or TypeMaterializedView
	Spec        *partition.Spec
	SortOrder   []string
	Properties  map[string]string
	Comment     string
	// MV registration, written in the same document.
	SourceTables []string
	SQL          string
	// creating: the process creating the dataset with its rows (set from
	// the context by CreateDataset, see WithCreating).
	creating *process.Identity
}

// CreateDataset creates an empty dataset with schema s. Column ids of 0 are
// assigned (1, 2, ...); given ids are kept. ErrDatasetExists (or the
// existing dataset with IfNotExists), ErrCollectionNotFound,
// ErrBadIdentifier, schema.ErrUnsupportedType, ErrSchema.
func (c *Catalog) CreateDataset(ctx context.Context, id Ident, s schema.Schema, author string, opts CreateDatasetOptions) (*Dataset, error) {
	if creatingFrom(ctx) {
		here := c.here
		opts.creating = &here
	}
	nd, err := c.newDataset(id, s, author, opts)
	if err != nil {
		return nil, err
	}
	var existing, replaced *Dataset
	err = c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		var err error
		if existing, err = c.checkFree(tx, id, opts.IfNotExists); err != nil || existing != nil {
			return err
		}
		if replaced, err = c.abandonedAt(tx, id); err != nil {
			return err
		}
		return nd.write(tx)
	})
	if err != nil {
		return nil, fmt.Errorf("create dataset %s: %w", id.Short(), err)
	}
	if existing != nil {
		return existing, nil
	}
	if replaced != nil {
		c.purgeIncarnation(ctx, replaced, "create dataset (replacing an abandoned creation)", nil)
	}
	c.audit(ctx, "create", "dataset", id.Workspace, id.Collection, id.Name, author)
	return nd.ds, nil
}

// newDataset is a dataset about to be created: its document and the
// documents written with it.
type newDataset struct {
	ds                        *Dataset
	data, incData, schemaData map[string]any
}

// newDataset validates and builds a new dataset (a new incarnation, keyed
// by a fresh uuid).
func (c *Catalog) newDataset(id Ident, s schema.Schema, author string, opts CreateDatasetOptions) (*newDataset, error) {
	if err := id.Check("dataset"); err != nil {
		return nil, err
	}
	s, next, err := assignIDs(s)
	if err != nil {
		return nil, err
	}
	spec := partition.Spec{}
	if opts.Spec != nil {
		spec = *opts.Spec
		if err := spec.Validate(&s); err != nil {
			return nil, err
		}
	}
	for _, col := range opts.SortOrder {
		if _, ok := s.Column(col); !ok {
			return nil, fmt.Errorf("%w: sort column %q is not in the schema", ErrSchema, col)
		}
	}
	typ := opts.Type
	if typ == "" {
		typ = TypeTable
	}
	u := uuid.NewString()
	now := c.now()
	nd := &newDataset{ds: &Dataset{
		Workspace: id.Workspace, Collection: id.Collection, Name: id.Name,
		UUID:     u,
		Location: fmt.Sprintf("%s/%s/%s-%s", id.Workspace, id.Collection, id.Name, u),
		Type:     typ, Schema: s, NextFieldID: next, Spec: spec, Specs: []partition.Spec{spec},
		SortOrder: opts.SortOrder, Properties: opts.Properties, Comment: opts.Comment,
		Author: author, CreatedAt: now, UpdatedAt: now,
		SourceTables: opts.SourceTables, SQL: opts.SQL, SubDocs: subDocsIncarnation,
		Creating: opts.creating,
	}}
	if nd.data, err = meta.Encode(nd.ds); err != nil {
		return nil, err
	}
	if nd.incData, err = meta.Encode(incarnationDoc{UUID: u, Name: id.Name}); err != nil {
		return nil, err
	}
	if nd.schemaData, err = meta.Encode(s); err != nil {
		return nil, err
	}
	return nd, nil
}

// write creates the dataset's documents inside tx: the dataset, its
// incarnation and its first schema.
func (nd *newDataset) write(tx meta.Tx) error {
	// The caller's checkFree read the name free or abandoned inside tx;
	// Set replaces an abandoned creation's document.
	if err := tx.Set(datasetPath(nd.ds.Ident()), nd.data); err != nil {
		return err
	}
	return nd.writeSubDocs(tx)
}

// writeSubDocs writes the incarnation and first schema documents.
func (nd *newDataset) writeSubDocs(tx meta.Tx) error {
	if err := tx.Set(nd.ds.DocRoot(), nd.incData); err != nil {
		return err
	}
	return tx.Set(schemaPath(nd.ds, nd.ds.Schema.ID), nd.schemaData)
}

// checkFree reads inside tx that id's collection exists and that no
// dataset or view holds the name: ErrCollectionNotFound, ErrDatasetExists,
// or with ifNotExists the existing dataset.
func (c *Catalog) checkFree(tx meta.Tx, id Ident, ifNotExists bool) (*Dataset, error) {
	if _, err := tx.Get(collectionPath(id.Workspace, id.Collection)); errors.Is(err, meta.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s.%s", ErrCollectionNotFound, id.Workspace, id.Collection)
	} else if err != nil {
		return nil, err
	}
	if d, err := tx.Get(datasetPath(id)); err == nil && c.abandoned(d) {
		// A creation whose creator died: the name is free (the new
		// document replaces the abandoned one, see newDataset.write).
	} else if err == nil {
		if !ifNotExists {
			return nil, fmt.Errorf("%w: %s", ErrDatasetExists, id.Short())
		}
		existing := &Dataset{}
		return existing, d.Decode(existing)
	} else if !errors.Is(err, meta.ErrNotFound) {
		return nil, err
	}
	if _, err := tx.Get(viewPath(id)); err == nil {
		return nil, fmt.Errorf("%w: %s is a view", ErrDatasetExists, id.Short())
	} else if !errors.Is(err, meta.ErrNotFound) {
		return nil, err
	}
	return nil, nil
}

// assignIDs validates a new schema and gives id-less columns fresh ids. It
// returns the schema and the next free field id.
func assignIDs(s schema.Schema) (schema.Schema, int, error) {
	if len(s.Columns) == 0 {
		return s, 0, fmt.Errorf("%w: a dataset needs at least one column", ErrSchema)
	}
	out := schema.Schema{ID: s.ID, Columns: make([]schema.Column, len(s.Columns))}
	next := s.MaxID() + 1
	seenName := map[string]bool{}
	seenID := map[int]bool{}
	for i, col := range s.Columns {
		if err := CheckColumnName(col.Name); err != nil {
			return s, 0, err
		}
		if err := col.Type.Validate(); err != nil {
			return s, 0, fmt.Errorf("column %q: %w", col.Name, err)
		}
		low := strings.ToLower(col.Name)
		if seenName[low] {
			return s, 0, fmt.Errorf("%w: duplicate column name %q", ErrSchema, col.Name)
		}
		seenName[low] = true
		if col.ID == 0 {
			col.ID = next
			next++
		}
		if seenID[col.ID] {
			return s, 0, fmt.Errorf("%w: duplicate field id %d", ErrSchema, col.ID)
		}
		seenID[col.ID] = true
		out.Columns[i] = col
	}
	if err := normalizeKey(&out); err != nil {
		return s, 0, err
	}
	return out, next, nil
}

// Dataset loads a dataset with one document read. ErrDatasetNotFound.
func (c *Catalog) Dataset(ctx context.Context, id Ident) (*Dataset, error) {
	d, err := c.meta.Get(ctx, datasetPath(id))
	if errors.Is(err, meta.ErrNotFound) || errors.Is(err, meta.ErrBadPath) {
		return nil, fmt.Errorf("%w: %s", ErrDatasetNotFound, id.Short())
	}
	if err != nil {
		return nil, fmt.Errorf("load dataset %s: %w", id.Short(), err)
	}
	if c.abandoned(d) {
		return nil, fmt.Errorf("%w: %s", ErrDatasetNotFound, id.Short())
	}
	return decodeDataset(d, id)
}

// decodeAll lists collection coll and decodes each document as a T. keep
// (nil: keep all) sees each value with its document id, may fill fields
// from it, and says whether the value is listed.
func decodeAll[T any](ctx context.Context, m meta.Store, coll string, keep func(id string, v *T) bool) ([]T, error) {
	docs, err := m.List(ctx, coll)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(docs))
	for _, d := range docs {
		var v T
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		if keep == nil || keep(d.ID(), &v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// loadDataset reads dataset id inside a transaction (the read every
// metadata change starts with): ErrDatasetNotFound when it is missing.
func loadDataset(tx meta.Tx, id Ident) (*Dataset, error) {
	d, err := tx.Get(datasetPath(id))
	if errors.Is(err, meta.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrDatasetNotFound, id.Short())
	} else if err != nil {
		return nil, err
	}
	return decodeDataset(d, id)
}

func decodeDataset(d meta.Doc, id Ident) (*Dataset, error) {
	var ds Dataset
	if err := d.Decode(&ds); err != nil {
		return nil, err
	}
	ds.Workspace, ds.Collection, ds.Name = id.Workspace, id.Collection, id.Name
	return &ds, nil
}

// ListDatasets returns the datasets of a collection, sorted by name.
func (c *Catalog) ListDatasets(ctx context.Context, ws, coll string) ([]Dataset, error) {
	docs, err := c.meta.List(ctx, datasetsColl(ws, coll))
	if err != nil {
		return nil, fmt.Errorf("list datasets of %s.%s: %w", ws, coll, err)
	}
	out := make([]Dataset, 0, len(docs))
	for _, d := range docs {
		if c.abandoned(d) {
			continue
		}
		ds, err := decodeDataset(d, Ident{ws, coll, d.ID()})
		if err != nil {
			return nil, err
		}
		out = append(out, *ds)
	}
	return out, nil
}

// DropDataset drops a dataset: its documents, then its data. ErrLocked if
// locked; ErrDatasetNotFound.
func (c *Catalog) DropDataset(ctx context.Context, id Ident, author string) error {
	ds, err := c.Dataset(ctx, id)
	if err != nil {
		return err
	}
	return c.drop(ctx, ds, "dataset", author)
}

// drop is the body of DropDataset and DropMaterializedView (kind is the
// audit's object type). checkDrop applies the rules: a table read by a
// materialized view stays; a materialized view loses its triggers on
// every source and its document in one transaction. Then the document
// goes first: once it is gone the dataset is gone, and a crash after this
// point leaves only unreferenced sub-documents and files, which later
// failures also only log.
func (c *Catalog) drop(ctx context.Context, ds *Dataset, kind, author string) error {
	id := ds.Ident()
	if ds.LockedBy != "" {
		return fmt.Errorf("%w: %s is locked by %s", ErrLocked, id.Short(), ds.LockedBy)
	}
	if err := c.checkDrop(ctx, ds); err != nil {
		return err
	}
	what := "drop " + strings.ReplaceAll(kind, "_", " ")
	// Files add_files registered in place stay: lakesql did not write them.
	keep, err := c.ExternalFiles(ctx, ds)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, id.Short(), err)
	}
	if err := c.deleteIncarnation(ctx, ds); err != nil {
		return fmt.Errorf("%s %s: %w", what, id.Short(), err)
	}
	c.purgeIncarnation(ctx, ds, what, keep)
	c.audit(ctx, "drop", kind, id.Workspace, id.Collection, id.Name, author)
	return nil
}

// purgeIncarnation deletes the sub-documents and data files (but keep) of
// ds, an incarnation whose document is gone or replaced. Its
// sub-documents are its incarnation's, which no later dataset of the name
// reads: a clean-up cut short here only leaves garbage, which the next
// drop of the name sweeps. It still runs to its end when the statement is
// killed now; failures are only logged.
func (c *Catalog) purgeIncarnation(ctx context.Context, ds *Dataset, what string, keep map[string]bool) {
	id := ds.Ident()
	ctx = context.WithoutCancel(ctx)
	if err := c.deleteSubDocs(ctx, ds); err != nil {
		c.log.Warn(what+": sub-documents left", "dataset", id.String(), "err", err)
	}
	if n, err := c.sweepIncarnations(ctx, id); err != nil {
		c.log.Warn(what+": sub-documents of earlier drops left", "dataset", id.String(), "err", err)
	} else if n > 0 {
		c.log.Info(what+": swept sub-documents earlier drops left", "dataset", id.String(), "incarnations", n)
	}
	if err := c.deletePrefix(ctx, ds.Location+"/", keep); err != nil {
		c.log.Warn(what+": data files left for cleanup", "dataset", id.String(), "err", err)
	}
}

// DropDatasetIncarnation drops the dataset id only while it is the
// incarnation uuid (the one a failed CREATE TABLE … AS SELECT created):
// a table of the same name created by another writer since is left
// alone. Dropping one already gone is not an error.
func (c *Catalog) DropDatasetIncarnation(ctx context.Context, id Ident, uuid, author string) error {
	ds, err := c.Dataset(ctx, id)
	if errors.Is(err, ErrDatasetNotFound) || (err == nil && ds.UUID != uuid) {
		return nil
	}
	if err != nil {
		return err
	}
	err = c.drop(ctx, ds, "dataset", author)
	if errors.Is(err, errOtherIncarnation) {
		return nil
	}
	return err
}

// errOtherIncarnation: the dataset's document names another incarnation
// than the one a drop loaded (dropped and created again meanwhile).
var errOtherIncarnation = fmt.Errorf("%w: the table was dropped and created again meanwhile; run the statement again", ErrCommitConflict)

// deleteIncarnation deletes ds's document if it still describes ds's
// incarnation, in one metastore transaction, so a drop never removes a
// table created again under the same name by another writer. A
// materialized view's document is already gone (checkDrop removed it with
// its triggers).
func (c *Catalog) deleteIncarnation(ctx context.Context, ds *Dataset) error {
	p := datasetPath(ds.Ident())
	return c.meta.RunTx(ctx, func(_ context.Context, tx meta.Tx) error {
		d, err := tx.Get(p)
		if errors.Is(err, meta.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if u, _ := d.Data["table-uuid"].(string); u != ds.UUID {
			return errOtherIncarnation
		}
		// checkDrop found no reader, but a view may have registered on
		// the table since: its trigger-count moves with its triggers.
		var cur Dataset
		if err := d.Decode(&cur); err != nil {
			return err
		}
		if cur.TriggerCount > 0 {
			return fmt.Errorf("%w: %s is read by a materialized view created meanwhile (%d refresh triggers); drop the view first", ErrNotSupported, ds.Ident().Short(), cur.TriggerCount)
		}
		return tx.Delete(p)
	})
}

// RenameDataset renames a dataset within its workspace (possibly into
// another collection). Metadata only: the data stays at its location.
// ErrLocked, ErrDatasetExists, ErrDatasetNotFound, ErrCollectionNotFound.
func (c *Catalog) RenameDataset(ctx context.Context, from, to Ident, author string) error {
	if err := to.Check("dataset"); err != nil {
		return err
	}
	if from.Workspace != to.Workspace {
		return fmt.Errorf("%w: a dataset cannot be renamed into another workspace", ErrNotSupported)
	}
	ds, err := c.Dataset(ctx, from)
	if err != nil {
		return err
	}
	if err := c.checkRename(ctx, ds); err != nil {
		return err
	}
	// Sub-documents (snapshots, schemas, tags) move with the dataset;
	// collect them before the transaction, which only moves what it read.
	// A commit landing in between adds a snapshot the list lacks: the
	// transaction sees the dataset moved on and the list is taken again.
	for attempt := 0; ; attempt++ {
		subPaths, err := c.ownSubDocs(ctx, ds)
		if err != nil {
			return err
		}
		err = c.renameTx(ctx, from, to, ds, subPaths)
		if !errors.Is(err, errMovedOn) || attempt >= 20 {
			if errors.Is(err, errMovedOn) {
				err = fmt.Errorf("%w: %s kept changing during the rename", ErrCommitConflict, from.Short())
			}
			if err != nil {
				return fmt.Errorf("rename %s to %s: %w", from.Short(), to.Short(), err)
			}
			break
		}
		if ds, err = c.Dataset(ctx, from); err != nil {
			return err
		}
	}
	c.audit(ctx, "rename", "dataset", from.Workspace, from.Collection, from.Name+" -> "+to.Short(), author)
	return nil
}

// errMovedOn: the dataset changed between listing its sub-documents and
// the rename's transaction.
var errMovedOn = errors.New("dataset moved on")

// renameTx moves the dataset document and subPaths from → to in one
// metastore transaction, provided the dataset is still as seen.
func (c *Catalog) renameTx(ctx context.Context, from, to Ident, seen *Dataset, subPaths []meta.Doc) error {
	return c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		ds, err := loadDataset(tx, from)
		if err != nil {
			return err
		}
		if ds.LastSequenceNumber != seen.LastSequenceNumber || ds.Schema.ID != seen.Schema.ID || ds.UUID != seen.UUID {
			return errMovedOn
		}
		if ds.LockedBy != "" {
			return fmt.Errorf("%w: %s is locked by %s", ErrLocked, from.Short(), ds.LockedBy)
		}
		if _, err := tx.Get(collectionPath(to.Workspace, to.Collection)); errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("%w: %s.%s", ErrCollectionNotFound, to.Workspace, to.Collection)
		} else if err != nil {
			return err
		}
		for _, p := range []string{datasetPath(to), viewPath(to)} {
			if _, err := tx.Get(p); err == nil {
				return fmt.Errorf("%w: %s", ErrDatasetExists, to.Short())
			} else if !errors.Is(err, meta.ErrNotFound) {
				return err
			}
		}
		ds.Collection, ds.Name, ds.UpdatedAt = to.Collection, to.Name, c.now()
		data, err := meta.Encode(ds)
		if err != nil {
			return err
		}
		if err := tx.Create(datasetPath(to), data); err != nil {
			return err
		}
		for _, sd := range subPaths {
			rel := strings.TrimPrefix(sd.Path, datasetPath(from))
			if err := tx.Set(datasetPath(to)+rel, sd.Data); err != nil {
				return err
			}
			if err := tx.Delete(sd.Path); err != nil {
				return err
			}
		}
		return tx.Delete(datasetPath(from))
	})
}

// subDocs lists every document below a document path, but those in its
// collection skip ("" for none).
func (c *Catalog) subDocs(ctx context.Context, docPath, skip string) ([]meta.Doc, error) {
	colls, err := c.meta.Collections(ctx, docPath)
	if err != nil {
		return nil, err
	}
	var out []meta.Doc
	for _, coll := range colls {
		if coll == skip {
			continue
		}
		docs, err := c.meta.List(ctx, docPath+"/"+coll)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			out = append(out, d)
			sub, err := c.subDocs(ctx, d.Path, "")
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
	}
	return out, nil
}

// SetDatasetLock sets or clears (holder "") the dataset's locked-by.
func (c *Catalog) SetDatasetLock(ctx context.Context, id Ident, holder, author string) error {
	err := c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		if _, err := loadDataset(tx, id); err != nil {
			return err
		}
		return tx.Merge(datasetPath(id), map[string]any{"locked-by": holder})
	})
	if err == nil {
		c.audit(ctx, "lock", "dataset", id.Workspace, id.Collection, id.Name, author)
	}
	return err
}

// UpdateDataset applies fn to the dataset document in one transaction (for
// metadata changes such as properties, MV registration or schema
// evolution). fn may run more than once.
func (c *Catalog) UpdateDataset(ctx context.Context, id Ident, author string, fn func(ds *Dataset) error) (*Dataset, error) {
	var out *Dataset
	err := c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		ds, err := loadDataset(tx, id)
		if err != nil {
			return err
		}
		oldSchema := ds.Schema.ID
		if err := fn(ds); err != nil {
			return err
		}
		ds.UpdatedAt = c.now()
		data, err := meta.Encode(ds)
		if err != nil {
			return err
		}
		if err := tx.Set(datasetPath(id), data); err != nil {
			return err
		}
		if ds.Schema.ID != oldSchema {
			sd, err := meta.Encode(ds.Schema)
			if err != nil {
				return err
			}
			if err := tx.Set(schemaPath(ds, ds.Schema.ID), sd); err != nil {
				return err
			}
		}
		out = ds
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.audit(ctx, "alter", "dataset", id.Workspace, id.Collection, id.Name, author)
	return out, nil
}

// SchemaByID returns one of the dataset's schemas (the current one without
// a read).
func (c *Catalog) SchemaByID(ctx context.Context, ds *Dataset, schemaID int) (*schema.Schema, error) {
	if schemaID == ds.Schema.ID {
		s := ds.Schema
		return &s, nil
	}
	d, err := c.meta.Get(ctx, schemaPath(ds, schemaID))
	if err != nil {
		return nil, fmt.Errorf("load schema %d of %s: %w", schemaID, ds.Ident().Short(), err)
	}
	var s schema.Schema
	if err := d.Decode(&s); err != nil {
		return nil, err
	}
	return &s, nil
}
