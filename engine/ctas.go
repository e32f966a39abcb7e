package engine

import (
	"context"
	"errors"
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"github.com/lakesql/lakesql/catalogstore"
)

// CREATE TABLE … AS SELECT is all or nothing. GMS creates the table while
// it builds the plan's iterator and then inserts the rows; the rows commit
// when the (outer, transaction-committing) iterator closes. A failure
// anywhere after the creation (a bad value in the SELECT, a refused
// commit) would leave an empty table behind, so the builder wraps a CTAS
// and drops the table it created when the statement fails: ctasIter for
// failures while the rows are produced, Session.CommitTransaction (through
// the session's pending CTAS) for a refused commit. A process killed
// before it can drop the table leaves nothing visible either: the table is
// created marked with its creating process (catalogstore/creating.go), the
// first commit clears the mark, and a marked table whose creator is gone
// is treated as absent and replaced by the next CREATE of its name.

// ctasTarget returns the dataset a CREATE TABLE … AS SELECT plan creates,
// or false.
func ctasTarget(n sql.Node) (catalogstore.Ident, bool) {
	for depth := 0; n != nil && depth < 8; depth++ {
		if tc, ok := n.(*plan.TableCopier); ok {
			ct, ok := tc.Destination.(*plan.CreateTable)
			if !ok {
				return catalogstore.Ident{}, false
			}
			db := lakesqlDatabase(ct.Database())
			if db == nil {
				return catalogstore.Ident{}, false
			}
			return catalogstore.Ident{Workspace: db.Workspace(), Collection: db.Collection(), Name: ct.Name()}, true
		}
		ch := n.Children()
		if len(ch) != 1 {
			return catalogstore.Ident{}, false
		}
		n = ch[0]
	}
	return catalogstore.Ident{}, false
}

// buildCTAS builds a CTAS plan so that a failure drops the table the
// statement created (and only that incarnation: a table that existed
// before, for IF NOT EXISTS, is left alone).
func buildCTAS(ctx *sql.Context, inner sql.NodeExecBuilder, n sql.Node, r sql.Row, id catalogstore.Ident) (sql.RowIter, error) {
	sess, ok := ctx.Session.(*Session)
	if !ok {
		return inner.Build(ctx, n, r)
	}
	if _, err := sess.e.cat.Dataset(ctx, id); !errors.Is(err, catalogstore.ErrDatasetNotFound) {
		return inner.Build(ctx, n, r) // exists (IF NOT EXISTS) or unreadable: GMS decides
	}
	// GMS creates the table in Build: created marked with this process,
	// so a kill before its rows commit leaves nothing (catalogstore's
	// creating.go); the commit of the rows, or publishCreated, unmarks it.
	iter, err := inner.Build(ctx.WithContext(catalogstore.WithCreating(ctx.Context)), n, r)
	if sql.ErrTableAlreadyExists.Is(err) {
		return nil, err // another writer created it first: not ours to drop
	}
	// The incarnation this statement created (GMS created it in Build):
	// a failure drops that one only, never a table of the same name
	// another writer created after a drop.
	created := createdTable{id: id}
	if ds, derr := sess.e.cat.Dataset(ctx, id); derr == nil {
		created.uuid = ds.UUID
	}
	if err != nil {
		dropCreated(ctx, sess, created)
		return nil, err
	}
	sess.setPendingCTAS(&created)
	return &ctasIter{inner: iter, sess: sess, created: created}, nil
}

// createdTable is the incarnation of a table a CTAS created.
type createdTable struct {
	id   catalogstore.Ident
	uuid string // "" if it could not be read: nothing is dropped
}

// ctasIter drops the created table when producing the rows fails, or when
// closing does (where the rows commit under a transaction-committing
// iterator of its own).
type ctasIter struct {
	inner   sql.RowIter
	sess    *Session
	created createdTable
	failed  bool
}

func (it *ctasIter) Next(ctx *sql.Context) (sql.Row, error) {
	row, err := it.inner.Next(ctx)
	if err != nil && !errors.Is(err, io.EOF) && !it.failed {
		// Dropped now: the wire server does not always close an iterator
		// whose Next failed.
		it.failed = true
		it.sess.setPendingCTAS(nil)
		dropCreated(ctx, it.sess, it.created)
	}
	return row, err
}

func (it *ctasIter) Close(ctx *sql.Context) error {
	err := it.inner.Close(ctx)
	if err != nil || it.failed {
		it.sess.setPendingCTAS(nil)
		dropCreated(ctx, it.sess, it.created)
	}
	return err
}

// GetChildIter and WithChildIter make ctasIter a sql.MutableRowIter, so
// GMS's row-count accumulator still finds the insert iterator inside it.
func (it *ctasIter) GetChildIter() sql.RowIter { return it.inner }

func (it *ctasIter) WithChildIter(child sql.RowIter) sql.RowIter {
	out := *it
	out.inner = child
	return &out
}

// publishCreated makes the table a CTAS created permanent once its rows
// committed (a no-op then: the commit published it) or, with no rows,
// once the statement succeeded. A table that cannot be published is
// dropped, and the statement fails.
func publishCreated(ctx *sql.Context, sess *Session, c createdTable) error {
	if c.uuid == "" {
		return nil
	}
	if err := sess.e.cat.PublishDataset(ctx, c.id, c.uuid); err != nil {
		dropCreated(ctx, sess, c)
		return err
	}
	return nil
}

// dropCreated drops the table a failed CTAS created, with whatever the
// statement staged for it.
func dropCreated(sctx *sql.Context, sess *Session, c createdTable) {
	sess.writes.Forget(c.id)
	if c.uuid == "" {
		return
	}
	// The statement's context may be cancelled by now (the wire server
	// cancels it when a row fails): the clean-up must still run.
	ctx := context.WithoutCancel(sctx)
	if err := sess.e.cat.DropDatasetIncarnation(ctx, c.id, c.uuid, sess.Author()); err != nil {
		sess.e.log.Warn("drop the table a failed CREATE TABLE AS SELECT created", "dataset", c.id.String(), "err", err)
	}
}
