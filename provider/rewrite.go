package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/sqlerr"
)

// Schema changes that need the data: GMS asks a sql.RewritableTable to
// rewrite itself when ADD COLUMN has a DEFAULT or NOT NULL, when MODIFY
// makes a column NOT NULL, and whenever ShouldRewriteTable says so (here:
// a narrower declared type). It streams every row, projected to the new
// schema and converted to the new types (so a value that no longer fits,
// or a NULL in a NOT NULL column, fails the statement), into
// RewriteInserter's inserter. That inserter writes new data files and, at
// Close, makes ONE commit that replaces every file and switches the schema
// in the same metastore transaction: the statement is all or nothing, and
// snapshots before it keep the old schema for time travel. On an empty
// table the change is metadata only.

var _ sql.RewritableTable = (*Table)(nil)

// ShouldRewriteTable implements sql.RewritableTable: a MODIFY to a
// narrower declared type (VARCHAR(20) → VARCHAR(2), a smaller integer is
// refused anyway) must check every value, so the data is rewritten (and
// validated) through the new type.
func (t *Table) ShouldRewriteTable(_ *sql.Context, _, _ sql.PrimaryKeySchema, oldColumn, newColumn *sql.Column) bool {
	if oldColumn == nil || newColumn == nil {
		return false
	}
	if oldColumn.Nullable && !newColumn.Nullable {
		return true
	}
	return narrower(oldColumn.Type, newColumn.Type)
}

// narrower reports whether to holds fewer characters or bytes than from.
func narrower(from, to sql.Type) bool {
	fs, ok1 := from.(sql.StringType)
	ts, ok2 := to.(sql.StringType)
	return ok1 && ok2 && ts.MaxCharacterLength() < fs.MaxCharacterLength()
}

// RewriteInserter implements sql.RewritableTable.
func (t *Table) RewriteInserter(ctx *sql.Context, oldSchema, newSchema sql.PrimaryKeySchema, oldColumn, newColumn *sql.Column, idxCols []sql.IndexColumn) (sql.RowInserter, error) {
	if err := t.checkWritable(); err != nil {
		return nil, err
	}
	if oldColumn == nil && newColumn == nil && !slices.Equal(oldSchema.PkOrdinals, newSchema.PkOrdinals) {
		// ADD / DROP PRIMARY KEY (GMS rewrites a RewritableTable for them
		// instead of calling CreatePrimaryKey / DropPrimaryKey).
		return t.keyChange(ctx, idxCols)
	}
	if oldColumn == nil && newColumn == nil {
		// CREATE UNIQUE INDEX: GMS has already called CreateIndex, which
		// recorded the definition; lakehouse tables keep no index data, so
		// the rows GMS streams for the "build" change nothing.
		return indexBuildInserter{}, nil
	}
	sess, err := sessionOf(ctx)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	changes, err := t.changesFor(oldColumn, newColumn, newSchema)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	ds, err := t.db.p.cat.Dataset(ctx, t.ds.Ident())
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	if ds.UUID != t.ds.UUID || ds.CurrentSnapshotID != t.ds.CurrentSnapshotID {
		// GMS feeds the rewrite the rows of t as it was resolved; a commit
		// since (the randomized schedule's writers) would be replaced by
		// them and its acknowledged rows lost. Prepare again from the new
		// head (an autocommit ALTER is run again).
		return nil, sqlerr.Wrap(&catalogstore.CommitError{Dataset: ds.Ident().Short(), Err: catalogstore.ErrCommitConflict, Retry: catalogstore.RePrepare,
			Detail: fmt.Sprintf("the table moved from snapshot %d to %d while the schema change was planned; run the statement again", t.ds.CurrentSnapshotID, ds.CurrentSnapshotID)})
	}
	if err := t.db.p.cat.CheckColumnReaders(ctx, ds, changes); err != nil {
		return nil, sqlerr.Wrap(err)
	}
	s, next, err := catalogstore.EvolveSchema(ds, changes...)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	target := *ds
	target.Schema, target.NextFieldID = s, next
	r := &rewriter{t: t, ds: ds, target: &target, changes: changes, author: sess.Author(),
		rows: make(chan sql.Row, 256), done: make(chan struct{})}
	go r.materialize(ctx)
	return r, nil
}

// changesFor is the catalog schema change GMS's rewrite stands for.
func (t *Table) changesFor(oldColumn, newColumn *sql.Column, newSchema sql.PrimaryKeySchema) ([]catalogstore.SchemaChange, error) {
	if newColumn == nil {
		return nil, fmt.Errorf("%w: rewriting %s to drop a column", catalogstore.ErrNotSupported, t.ds.Name)
	}
	col, err := columnFromSQL(newColumn)
	if err != nil {
		return nil, err
	}
	if oldColumn == nil {
		ch := catalogstore.SchemaChange{Kind: catalogstore.AddColumn, Column: col.Name, Type: col.Type, Comment: col.Comment,
			SQLType: col.SQLType, Default: col.Default, NotNull: !col.Nullable}
		// Place it where GMS's new schema has it.
		for i, c := range newSchema.Schema {
			if strings.EqualFold(c.Name, newColumn.Name) {
				if i == 0 {
					ch.First = true
				} else if i < len(newSchema.Schema)-1 {
					ch.After = newSchema.Schema[i-1].Name
				}
			}
		}
		return []catalogstore.SchemaChange{ch}, nil
	}
	changes := []catalogstore.SchemaChange{{Kind: catalogstore.ModifyColumn, Column: oldColumn.Name, Type: col.Type,
		SQLType: col.SQLType, Default: col.Default, NotNull: !col.Nullable}}
	if newColumn.Name != oldColumn.Name {
		changes = append(changes, catalogstore.SchemaChange{Kind: catalogstore.RenameColumn, Column: oldColumn.Name, NewName: newColumn.Name})
	}
	return changes, nil
}

// rewriter is the inserter of a rewrite: rows go over a channel to
// MaterializeRows (files split by the partition spec, as a refresh writes
// them), and Close commits.
type rewriter struct {
	t       *Table
	ds      *catalogstore.Dataset // as loaded when the rewrite began
	target  *catalogstore.Dataset // ds with the new schema
	changes []catalogstore.SchemaChange
	author  string

	rows    chan sql.Row
	done    chan struct{}
	files   []manifest.DataFile
	records int64
	err     error // of materialize, read after done
	failed  error // DiscardChanges' cause
	closed  bool
}

func (r *rewriter) materialize(ctx *sql.Context) {
	defer close(r.done)
	r.files, r.records, r.err = r.t.db.p.MaterializeRows(ctx, r.target, &chanIter{rows: r.rows})
	if r.err != nil {
		for range r.rows { // let Insert return
		}
	}
}

// StatementBegin implements sql.EditOpenerCloser.
func (r *rewriter) StatementBegin(*sql.Context) {}

// DiscardChanges implements sql.EditOpenerCloser: nothing is committed.
func (r *rewriter) DiscardChanges(_ *sql.Context, cause error) error {
	r.failed = cause
	if r.failed == nil {
		r.failed = errors.New("rewrite discarded")
	}
	return nil
}

// StatementComplete implements sql.EditOpenerCloser.
func (r *rewriter) StatementComplete(*sql.Context) error { return nil }

// Insert implements sql.RowInserter.
func (r *rewriter) Insert(ctx *sql.Context, row sql.Row) error {
	select {
	case r.rows <- row:
		return nil
	case <-r.done:
		return sqlerr.Wrap(r.err)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close implements sql.RowInserter: it waits for the files and commits
// them with the new schema, unless the rewrite was discarded.
func (r *rewriter) Close(ctx *sql.Context) error {
	if r.closed {
		return nil
	}
	r.closed = true
	close(r.rows)
	<-r.done
	if r.failed != nil {
		return nil // GMS returns the cause
	}
	if r.err != nil {
		return sqlerr.Wrap(r.err)
	}
	cat := r.t.db.p.cat
	if r.ds.CurrentSnapshotID == 0 || (r.records == 0 && r.ds.CurrentRecords == 0) {
		// Nothing to rewrite: a metadata change, refused if the table got
		// rows meanwhile (they were not checked).
		_, err := cat.UpdateDataset(ctx, r.ds.Ident(), r.author, func(d *catalogstore.Dataset) error {
			if d.CurrentSnapshotID != r.ds.CurrentSnapshotID || d.Schema.ID != r.ds.Schema.ID {
				return &catalogstore.CommitError{Dataset: d.Ident().Short(), Err: catalogstore.ErrCommitConflict, Retry: catalogstore.RePrepare,
					Detail: "the table changed while its schema change was checked; run the statement again"}
			}
			d.Schema, d.NextFieldID = r.target.Schema, r.target.NextFieldID
			return nil
		})
		noteRefused(ctx, err)
		return sqlerr.Wrap(err)
	}
	s := r.target.Schema
	_, err := cat.Commit(ctx, r.ds.Ident(), catalogstore.Commit{
		Operation: catalogstore.OpOverwrite, Author: r.author, ReplaceAll: true, Added: r.files,
		Message:      fmt.Sprintf("rewrite for a schema change (%d rows)", r.records),
		ExpectedUUID: r.ds.UUID, BaseSnapshotID: r.ds.CurrentSnapshotID,
		Schema: &s, NextFieldID: r.target.NextFieldID, ExpectedSchemaID: r.ds.Schema.ID,
	})
	var ce *catalogstore.CommitError
	if errors.As(err, &ce) && ce.Retry == catalogstore.RePrepare {
		// Refused by a guard: nothing references the rewritten files.
		for _, f := range r.files {
			_ = cat.Blob().Delete(context.WithoutCancel(ctx), f.Path)
		}
	}
	noteRefused(ctx, err)
	return sqlerr.Wrap(err)
}

// chanIter is a sql.RowIter over a channel.
type chanIter struct{ rows chan sql.Row }

func (c *chanIter) Next(ctx *sql.Context) (sql.Row, error) {
	select {
	case row, ok := <-c.rows:
		if !ok {
			return nil, io.EOF
		}
		return row, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *chanIter) Close(*sql.Context) error { return nil }

// indexBuildInserter takes the rows of a unique-index "build" and keeps
// none of them: an index on a lakesql table is metadata only.
type indexBuildInserter struct{}

func (indexBuildInserter) StatementBegin(*sql.Context)              {}
func (indexBuildInserter) DiscardChanges(*sql.Context, error) error { return nil }
func (indexBuildInserter) StatementComplete(*sql.Context) error     { return nil }
func (indexBuildInserter) Insert(*sql.Context, sql.Row) error       { return nil }
func (indexBuildInserter) Close(*sql.Context) error                 { return nil }
